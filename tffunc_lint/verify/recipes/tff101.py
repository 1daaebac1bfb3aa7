"""TFF101: print() in a tf.function runs while tracing only."""

import tensorflow as tf

from tffunc_lint.verify.recipe import capture, observe

CLAIM = "3 calls with same-signature tensors print once; the tf.print version prints 3 times"


def _printed(fixture, needle):
    """How often ``needle`` is written while ``double`` runs on 3 same-signature tensors."""
    with capture() as output:
        for value in (1.0, 2.0, 3.0):
            fixture.double(tf.constant(value))
    return output.count(needle)


def bad(fixture):
    printed = _printed(fixture, "Executing with")
    return observe(printed == 1, f"print ran {printed} time(s) in 3 calls")


def good(fixture):
    printed = _printed(fixture, "Executing with")
    return observe(printed == 3, f"tf.print ran {printed} time(s) in 3 calls")
