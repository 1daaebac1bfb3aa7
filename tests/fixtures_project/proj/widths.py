"""Width helpers of a pruning script (the shape of AutoSlim's): the traced step sets widths
on masks; ``actual=True`` copies the weights out, eagerly, once training is done."""
import tensorflow as tf


def set_param(layer, depth=None, actual=False):
    if actual:
        layer.kernel = tf.Variable(layer.kernel.numpy()[:depth])
    else:
        layer.depth.assign(depth)


def set_width(model, widths, actual=False):
    for layer, width in zip(model.layers, widths):
        set_param(layer, depth=width, actual=actual)


def copy_param(layer, depth, actual=False):
    if actual:
        return layer.kernel.numpy()[:depth]  # expect: TFF204
    return layer.kernel[:depth]
