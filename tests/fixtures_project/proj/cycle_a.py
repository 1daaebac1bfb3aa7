from .cycle_b import pong


def ping(x):
    return pong(x)
