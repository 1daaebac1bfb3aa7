from encoders import *

# encoder = VariationalEncoder()
encoder = SequenceEncoder()
encoder.compile("adam", "mse")
encoder.fit(tf.zeros((8, 4)), tf.zeros((8, 4)))
