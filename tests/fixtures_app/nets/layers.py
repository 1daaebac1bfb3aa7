"""Layers of an application: the training script imports some of them by name."""
import tensorflow as tf


class Gate(tf.keras.layers.Layer):
    def call(self, x):
        print("gate", x)  # expect: TFF101
        return x * tf.sigmoid(x)


class PretrainedEmbedding(tf.keras.layers.Layer):
    """Written for an experiment and never used: nothing in the project names it, so Keras
    never runs its ``call``."""

    def __init__(self, table):
        super(PretrainedEmbedding, self).__init__()
        self.table = table

    def call(self, ids):
        print(ids)
        return tf.gather(self.table, ids)


class Head(tf.keras.layers.Layer):
    """Used only by ``make_head`` below: named in the module, so it may run."""

    def call(self, x):
        print("head", x)  # expect: TFF101
        return x


def make_head():
    return Head()
