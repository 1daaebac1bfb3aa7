"""A match between agents: the script runs the multi-agent step."""
import tensorflow as tf

from football.multi import MultiAgent


if __name__ == "__main__":
    MultiAgent().act(tf.ones([1, 4]))
