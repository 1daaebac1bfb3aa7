import tensorflow as tf

import proj.metrics as m
from proj import l2 as reexported
from . import eager
from .losses import l2


@tf.function
def train_step(x):
    m.accuracy(x)
    reexported(x)
    return l2(x)


def evaluate(x):
    return eager.only_eager(x)
