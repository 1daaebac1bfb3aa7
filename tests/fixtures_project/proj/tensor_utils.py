"""TensorFlow imported by code the analysis cannot follow, and a predicate built on it."""
from keras.src.utils.backend_utils import in_grain_data_pipeline  # noqa: F401 - re-exported


def try_import_tensorflow():
    try:
        import tensorflow as tf_module
    except ImportError:
        return None
    return tf_module


tf = try_import_tensorflow()


def in_tf_function():
    if tf is None:
        return False
    return not tf.executing_eagerly()
