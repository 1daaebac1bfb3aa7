"""Binds ``keras`` to whichever Keras 2 is installed, as transformers does."""
try:
    import tf_keras as keras
except ImportError:
    import keras  # noqa: F401 - re-exported
