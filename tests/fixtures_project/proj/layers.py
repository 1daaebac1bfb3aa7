import tensorflow as tf


class Base(tf.keras.layers.Layer):
    def helper(self, x):
        print("helper", x)  # expect: TFF101
        return x
