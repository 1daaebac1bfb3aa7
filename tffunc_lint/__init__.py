"""tffunc-lint: a static linter for the pitfalls of TensorFlow's ``tf.function``.

The static path (engine, rules, CLI, flake8 plugin) never imports TensorFlow.
"""

__version__ = "0.1.0"
