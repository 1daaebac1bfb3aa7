import numpy as np
import tensorflow as tf


class AdversarialModel(tf.keras.Model):
    """elliot's AMR shape: the recommender's own loop (recommender.py) calls this step with
    arguments of its own, eagerly; nothing fits the model."""

    def call(self, inputs, training=None):
        return inputs

    def train_step(self, batch, use_adv_train=False):
        noise = np.random.normal()  # a fresh draw on every call of the eager loop
        if use_adv_train:
            self.delta = tf.Variable(tf.zeros([3]))  # eager: a new variable per call is fine
        return tf.reduce_sum(self(batch) + noise)


class SamplingModel(tf.keras.Model):
    """elliot's IRGAN shape: a step that takes no batch, which Keras could not call."""

    def call(self, inputs, training=None):
        return inputs

    def train_step(self):
        return np.random.choice(10)


class FittedModel(tf.keras.Model):
    """Counterpart: this module fits the model, so Keras traces its step."""

    def call(self, inputs, training=None):
        return inputs

    def train_step(self, data):
        noise = np.random.normal()  # expect: TFF104
        return {"loss": tf.reduce_sum(self(data) + noise)}


def fit(data):
    model = FittedModel()
    model.compile(loss="mse")
    return model.fit(data)
