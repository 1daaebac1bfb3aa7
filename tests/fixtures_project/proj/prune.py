import tensorflow as tf

from . import widths


@tf.function
def training(model, images, full):
    widths.set_width(model, full)
    return model(images)


@tf.function
def export(model, depth):
    return [widths.copy_param(layer, depth, True) for layer in model.layers]


def finish(model, full):
    widths.set_width(model, full, actual=True)
