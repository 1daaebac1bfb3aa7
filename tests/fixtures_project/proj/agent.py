from proj import utils
from proj.utils import logged


@utils.function
def act(x):
    print("act", x)  # expect: TFF101
    return x


@utils.function(autograph=True)
def learn(x):
    print("learn", x)  # expect: TFF101
    return x


@logged
def eager(x):
    print(x)
    return x
