import tensorflow as tf

from proj import postprocess
from proj.postprocess import _merge_maps


def test_merge_maps():
    merged = _merge_maps(tf.constant([1]), tf.constant([2]))  # eagerly, outside any trace
    assert int(merged[0]) == 1002


def test_offsets():
    offsets = postprocess._offsets(tf.constant([1]))  # through the module, eagerly
    assert int(offsets[0]) == 2
