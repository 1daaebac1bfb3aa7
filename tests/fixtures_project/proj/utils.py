import tensorflow as tf


def function(*args, **kwargs):
    """A project decorator that wraps tf.function (like tf_agents.utils.common.function)."""
    kwargs.setdefault("autograph", False)
    return tf.function(*args, **kwargs)


def logged(fn):
    return fn
