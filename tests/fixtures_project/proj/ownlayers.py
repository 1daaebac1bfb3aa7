import tensorflow as tf

from proj.keras.engine import Layer


class Dense(Layer):
    """Stores its input for a hand-written backward pass; not a Keras layer."""

    def __init__(self, units):
        self.units = units
        self.calls = 0

    def call(self, inputs):
        self._layer_input = inputs
        self.calls += 1
        print("dense call", inputs)
        return tf.matmul(inputs, tf.ones([inputs.shape[-1], self.units]))

    def backward(self, d_y):
        return tf.matmul(d_y, tf.transpose(self._layer_input))


class KerasDense(tf.keras.layers.Layer):
    """Counterpart: a real Keras layer."""

    def call(self, inputs):
        print("keras call", inputs)  # expect: TFF101
        return inputs
