"""TFF101's unsafe fix: ``print()`` → ``tf.print()``, with simple f-strings turned into
``tf.print`` arguments (text formatted in Python would print the symbolic tensor)."""

from __future__ import annotations

import contextlib
import io

from tffunc_lint.config import Settings
from tffunc_lint.engine import lint_source

from .conftest import ROOT

FIX_FIXTURES = ROOT / "tests" / "fix_fixtures"


def _fixed(source: bytes) -> bytes:
    result = lint_source("before.py", source, Settings(unsafe_fixes=True).resolved(), fix=True)
    return source if result.fixed_source is None else result.fixed_source


def test_simple_f_strings_become_tf_print_arguments_and_formatting_gets_no_fix():
    before = (FIX_FIXTURES / "tff101_fstring_before.py").read_bytes()
    after = (FIX_FIXTURES / "tff101_fstring_after.py").read_bytes()
    assert _fixed(before) == after


def _printed(statement: str, **values) -> str:
    """What a print statement writes, tf.print's arguments joined as print joins them
    (tf.print joins its inputs with ``sep``, a space by default, like print)."""
    output = io.StringIO()
    namespace = {"print": lambda *args, **kwargs: print(*args, file=output, **kwargs),
                 **values}
    namespace["tf"] = type("tf", (), {"print": staticmethod(namespace["print"])})
    with contextlib.redirect_stdout(output):
        exec(statement, namespace)
    return output.getvalue()


def test_converted_f_strings_print_the_same_text():
    before = (FIX_FIXTURES / "tff101_fstring_before.py").read_text()
    after = (FIX_FIXTURES / "tff101_fstring_after.py").read_text()
    body = lambda text: text.split("def step(loss, step, x):\n", 1)[1]  # noqa: E731
    values = {"loss": 0.25, "step": 7, "x": "X"}
    changed = 0
    for old, new in zip(body(before).strip().split("\n    "),
                        body(after).strip().split("\n    ")):
        if new.startswith("tf.print("):
            changed += 1
            assert _printed(new, **values) == _printed(old, **values), (old, new)
        else:
            assert old == new
    assert changed == 6
