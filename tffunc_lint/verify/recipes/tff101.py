"""TFF101: print() in a tf.function runs while tracing only."""

import tensorflow as tf

from tffunc_lint.verify.recipe import capture, observe

CLAIM = "3 calls with same-signature tensors print once; the tf.print version prints 3 times"


def bad(fixture):
    with capture() as output:
        for value in (1.0, 2.0, 3.0):
            fixture.double(tf.constant(value))
    printed = output.count("Tracing with")
    return observe(printed == 1, f"print ran {printed} time(s) in 3 calls")


def good(fixture):
    with capture() as output:
        for value in (1.0, 2.0, 3.0):
            fixture.double(tf.constant(value))
    printed = output.count("Executing with")
    return observe(printed == 3, f"tf.print ran {printed} time(s) in 3 calls")
