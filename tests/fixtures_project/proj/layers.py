import tensorflow as tf


class Base(tf.keras.layers.Layer):
    def helper(self, x):
        print("helper")  # expect: TFF101
        return x
