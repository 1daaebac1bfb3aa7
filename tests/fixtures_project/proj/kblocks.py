"""Keras layers whose base class is reached through project re-exports."""
import random

import numpy as np
import tensorflow as tf

from . import kcompat
from .kreexport import keras


class LayerDrop(keras.layers.Layer):
    def call(self, hidden, training=False):
        dropout_probability = random.uniform(0, 1)  # expect: TFF104
        if training and dropout_probability < 0.1:
            return hidden * 0
        return hidden


class Encoder(kcompat.keras.Model):
    def call(self, hidden):
        if np.random.uniform() < 0.5:  # expect: TFF104
            return hidden
        return hidden

    def describe(self):
        return random.random()


class Plain:
    def call(self, hidden):
        return random.random() * hidden


class Head(keras.layers.Layer):
    def call(self, hidden):
        return keras.layers.Dense(4)(hidden)  # expect: TFF301


class Scaled(keras.layers.Layer):
    @tf.function  # expect: TFF407
    def call(self, hidden):
        return hidden * 2.0


def scaled_model(inputs):
    # A functional model: Keras traces Scaled.call itself, and is asked to run it eagerly.
    model = keras.Model(inputs, Scaled()(inputs))
    model.compile(loss="mse", run_eagerly=True)
    return model
