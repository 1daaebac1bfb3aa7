"""The training script: its entry point turns tf.function off first thing, then runs the
agent (outside a tests folder, TFF406 reports the switch)."""
import tensorflow as tf

from football.agent import Agent


def train():
    tf.config.run_functions_eagerly(True)
    agent = Agent()
    for _ in range(10):
        agent.act(tf.ones([4]))


if __name__ == "__main__":
    train()
