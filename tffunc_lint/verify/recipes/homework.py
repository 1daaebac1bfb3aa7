"""The course homework: a 1 000-step linear-regression loop, eager vs @tf.function."""

from tffunc_lint.verify.recipe import observe, side_by_side

CLAIM = "the 1 000-step training loop in a tf.function is at least 2x faster than eager, " \
        "and both fit w=3, b=2"
#: The seed course page's acceptance criterion, on CPU.
SPEEDUP_AT_LEAST = 2.0


def _fits(fixture):
    w, b = fixture.train(*fixture.make_data())
    w, b = float(w.numpy()), float(b.numpy())
    return abs(w - 3.0) < 0.1 and abs(b - 2.0) < 0.1, f"fitted w={w:.2f}, b={b:.2f}"


def bad(fixture):
    fits, detail = _fits(fixture)
    return observe(fits, f"eager loop {detail}")


def good(fixture):
    fits, detail = _fits(fixture)
    return observe(fits, f"traced loop {detail}")


def speed(bad_fixture, good_fixture):
    data = bad_fixture.make_data()
    return side_by_side(lambda: bad_fixture.train(*data), lambda: good_fixture.train(*data),
                        repeat=3)
