"""A small custom training loop with three tf.function pitfalls tffunc-lint reports."""
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


@tf.function(experimental_relax_shapes=True)
def train_step(x, y):
    optimizer = tf.keras.optimizers.SGD(0.01)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - y) ** 2)
    print("loss:", loss)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


if __name__ == "__main__":
    x = tf.random.normal((8, 3))
    y = tf.random.normal((8, 1))
    for _ in range(3):
        train_step(x, y)
