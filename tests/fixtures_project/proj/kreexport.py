"""Re-exports the project's ``keras`` (a second hop)."""
from .kcompat import keras  # noqa: F401 - re-exported
