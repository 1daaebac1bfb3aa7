"""Configuration read at import, as Keras reads keras.json: its set-up calls (the reader,
then the setter) run eagerly, and importers trace the reader only after them."""
import json
import os

_SCALE = 1.0
_PATH = os.path.expanduser("~/.proj.json")


def scale():
    return _SCALE


def set_scale(value):
    global _SCALE
    _SCALE = value


if os.path.exists(_PATH):
    with open(_PATH) as f:
        _config = json.load(f)
    _scale = _config.get("scale", scale())
    set_scale(_scale)

if not os.path.exists(_PATH):
    _config = {"scale": scale()}
