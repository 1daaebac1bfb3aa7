from encoders import *


class VariationalEncoder(tf.keras.Model):
    def call(self, x):
        return x * 2.0


encoder = VariationalEncoder()
encoder.compile("adam", "mse")
encoder.fit(tf.zeros((8, 4)), tf.zeros((8, 4)))
