"""TFF104: Python randomness and clock reads in traced code run once, at trace time."""

import time

import tensorflow as tf

from tffunc_lint.verify.recipe import observe

CLAIM = "3 calls return the identical \"random\" value; the tf.random version differs"
CALLS = 3
PAUSE = 0.005  # seconds between calls, so a live clock must move


def _calls(function, *args):
    results = []
    for _ in range(CALLS):
        results.append(function(*args))
        time.sleep(PAUSE)
    return results


def _distinct(values):
    return len(set(values))


def bad(fixture):
    noise = [float(v) for v in _calls(fixture.add_noise, tf.constant(0.0))]
    jitter = [float(v) for v in _calls(fixture.jitter, tf.constant(1.0))]
    elapsed = [float(e) for _, e in _calls(fixture.timed, tf.constant(1.0))]
    stamps = _calls(fixture.stamped, tf.constant(1))
    tags = [tag.numpy() for _, tag, _ in stamps]
    salts = [salt.numpy() for _, _, salt in stamps]
    counts = [_distinct(v) for v in (noise, jitter, elapsed, tags, salts)]
    return observe(counts == [1] * 5,
                   f"{CALLS} calls returned {counts[0]} distinct np.random value(s) "
                   f"({noise[0]:.4f}); random.uniform {counts[1]}, time.time/perf_counter "
                   f"{counts[2]}, uuid4 {counts[3]}, os.urandom {counts[4]}")


def good(fixture):
    noise = [float(v) for v in _calls(fixture.add_noise, tf.constant(0.0))]
    seed = tf.constant([1, 2])
    stateless = [float(v) for v in _calls(fixture.add_stateless_noise, tf.constant(0.0), seed)]
    starts = [float(start) for _, _, start in _calls(fixture.timed, tf.constant(1.0))]
    rising = all(later > earlier for earlier, later in zip(starts, starts[1:]))
    counts = [_distinct(noise), _distinct(stateless)]
    return observe(counts == [CALLS, CALLS] and rising,
                   f"{CALLS} calls returned {counts[0]} distinct tf.random.Generator values, "
                   f"{counts[1]} with stateless + tf.random.uniform; tf.timestamp "
                   f"{'rose' if rising else 'did not rise'} on every call")
