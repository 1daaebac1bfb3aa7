"""The ways in: the ``tffunc-lint`` command line, the flake8 plugin and the output formats.

Each door is thin: it reads its arguments, calls the engine (``tffunc_lint.engine`` for one
file, ``tffunc_lint.runner`` for a project) and writes what came back. The pre-commit hook is
the command line (``.pre-commit-hooks.yaml``).
"""
