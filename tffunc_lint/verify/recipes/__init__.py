"""One verification recipe per rule (``tff101.py`` ...) plus ``homework.py``.

Recipes import TensorFlow and only ever run inside ``--verify`` worker processes; the
contract is in :mod:`tffunc_lint.verify.recipe`.
"""
