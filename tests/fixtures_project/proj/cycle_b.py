from . import cycle_a


def pong(x):
    print("pong", x)  # expect: TFF101
    return cycle_a.ping(x)
