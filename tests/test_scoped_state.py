"""scoped_state: state set for the span of a ``with`` block and set back on exit."""

import ast
import textwrap

from tffunc_lint.analysis.scoped_state import restored_on_exit


def _function(source: str, name: str):
    tree = ast.parse(textwrap.dedent(source))
    return tree, next(node for node in ast.walk(tree)
                      if isinstance(node, ast.FunctionDef) and node.name == name)


def test_a_generator_that_sets_before_and_after_its_yield_restores():
    tree, function = _function("""
        @contextlib.contextmanager
        def quantized_scope(quantize):
            backup = should_quantize()
            _scope.should_quantize = quantize
            yield quantize
            _scope.should_quantize = backup
    """, "quantized_scope")
    assert restored_on_exit(tree, function, "_scope.should_quantize")
    assert not restored_on_exit(tree, function, "_scope.other")


def test_a_finally_around_the_yield_restores():
    tree, function = _function("""
        def scope(value):
            global MODE
            old, MODE = MODE, value
            try:
                yield
            finally:
                MODE = old
    """, "scope")
    assert restored_on_exit(tree, function, "MODE")


def test_setting_only_before_the_yield_does_not_restore():
    tree, function = _function("""
        def scope(value):
            global MODE
            MODE = value
            yield
    """, "scope")
    assert not restored_on_exit(tree, function, "MODE")


def test_enter_restored_by_the_class_exit():
    tree, function = _function("""
        class Scope:
            def __enter__(self):
                self.owner.training = True
            def __exit__(self, *exc):
                self.owner.training = False
    """, "__enter__")
    assert restored_on_exit(tree, function, "self.owner.training")


def test_enter_without_exit_or_other_function_does_not_restore():
    tree, function = _function("""
        class Scope:
            def __enter__(self):
                self.owner.training = True
        def set_mode(owner):
            owner.training = True
    """, "__enter__")
    assert not restored_on_exit(tree, function, "self.owner.training")
    tree, other = _function("def set_mode(owner):\n    owner.training = True\n", "set_mode")
    assert not restored_on_exit(tree, other, "owner.training")
