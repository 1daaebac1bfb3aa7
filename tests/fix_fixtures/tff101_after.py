import sys

import tensorflow as tf


@tf.function
def step(x):
    tf.print("x =", x, sep=" ")
    print(x, file=sys.stderr)
    print(*[x])
    return x


@tf.function(reduce_retracing=True)
def other(x):
    tf.print(
        x,  # a comment that must survive
    )
    return x
