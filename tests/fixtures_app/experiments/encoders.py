"""Encoders that the experiment scripts beside this module import with ``*`` by its stem
(``from encoders import *``), as Python finds it when they run from this folder."""
import tensorflow as tf


class SequenceEncoder(tf.keras.Model):
    def call(self, x):
        print("sequence", x)  # expect: TFF101
        return x


class VariationalEncoder(tf.keras.Model):
    """Replaced by ``SequenceEncoder``: one script names it only in a comment, the other
    defines a class of that name of its own, so Keras never runs this ``call``."""

    def call(self, x):
        print("variational", x)
        return x
