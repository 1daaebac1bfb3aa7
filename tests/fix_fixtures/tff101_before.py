import sys

import tensorflow as tf


@tf.function
def step(x):
    print("x =", x, sep=" ")
    print(x, file=sys.stderr)
    print(*[x])
    return x


@tf.function(experimental_relax_shapes=True)
def other(x):
    print(
        x,  # a comment that must survive
    )
    return x
