from .base_layer import Layer  # noqa: F401 - re-exported
