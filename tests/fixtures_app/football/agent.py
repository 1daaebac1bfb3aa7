"""An agent of a football training script: ``train.py`` turns tf.function off for its
process before it makes the agent, so ``.numpy()`` in the decorated step has a value."""
import tensorflow as tf


class Agent:
    def __init__(self):
        self.q = tf.Variable(tf.zeros([4]))

    @tf.function
    def act(self, obs):
        values = self.q + obs
        return int(values.numpy().argmax())
