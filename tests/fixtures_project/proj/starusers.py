"""A module that takes TensorFlow and NumPy from another's public names."""
from .starutils import *


@tf.function
def step(x):
    print(x)  # expect: TFF101
    noise = np.random.normal()  # expect: TFF104
    return x + noise


class Block(tf.keras.layers.Layer):
    def call(self, x):
        return x * np.random.uniform()  # expect: TFF104


@tf.function
def timed(x):
    # A private name is not what `import *` takes: `_time` here is not that module's.
    return x, _time.time()
