import tensorflow as tf

from .registry import record


@tf.function
def doubled(x):
    return record(x) * 2
