from . import cycle_a


def pong(x):
    print("pong")  # expect: TFF101
    return cycle_a.ping(x)
