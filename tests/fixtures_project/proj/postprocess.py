"""TFF407 across modules: a private helper that a test imports, or calls through the module,
eagerly is not only called from traced code (deeplab2's panoptic post-processing)."""
import tensorflow as tf


@tf.function
def _merge_maps(semantic, instance):
    return semantic * 1000 + instance


@tf.function
def _offsets(instance):
    return instance + 1


@tf.function  # expect: TFF407
def _threshold(scores):
    return tf.cast(scores > 0.5, tf.int32)


@tf.function
def panoptic(semantic, instance, scores):
    return _merge_maps(semantic, _offsets(instance)) + _threshold(scores)
