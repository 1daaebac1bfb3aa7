import tensorflow as tf

from model import Recommender

if __name__ == "__main__":
    model = Recommender()
    optimizer = tf.keras.optimizers.Adam()
    for step in range(10):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(model(tf.ones((8, 4))))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
