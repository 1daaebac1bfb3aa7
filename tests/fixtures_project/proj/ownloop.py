import tensorflow as tf


class OwnLoopModel(tf.keras.Model):
    """ludwig's shape: the project's own trainer calls the steps (see runner.py)."""

    def call(self, inputs, training=None):
        return inputs

    @tf.function
    def train_step(self, optimizer, inputs, targets):  # Keras passes one batch: not Keras's
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(self(inputs, training=True) - targets)
        optimizer.minimize(loss, self.trainable_variables, tape=tape)
        return loss

    @tf.function
    def predict_step(self, inputs):  # called by runner.py itself
        return self(inputs, training=False)


class FitModel(tf.keras.Model):
    """Counterpart: only Keras runs this step."""

    def call(self, inputs, training=None):
        return inputs

    @tf.function  # expect: TFF407
    def test_step(self, data):
        return {"loss": tf.reduce_sum(self(data, training=False))}


def debug_fit(data):
    model = FitModel()
    model.compile(loss="mse", run_eagerly=True)  # the decorated test_step stays a graph
    return model.evaluate(data)
