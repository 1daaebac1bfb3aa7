"""Code that runs only eagerly although it sits in a traced function.

``tf.executing_eagerly()`` is False while ``tf.function`` traces, so the body of
``if tf.executing_eagerly():`` never runs during tracing: it runs only when the function is
called eagerly (``tf.config.run_functions_eagerly(True)``, or a helper also called from eager
code). It is the documented way to keep eager-only Python (``.numpy()``, logging a value) in
code that may be traced, and rules about trace-time behaviour must not flag it.

:func:`in_eager_branch` answers for the node being visited, from the LibCST ancestors the
engine keeps: a branch guarded by ``tf.executing_eagerly()`` (``if``, ``elif``/``else`` of a
negated test, conditional expressions, ``and``), or code after an early exit such as
``if not tf.executing_eagerly(): return x``.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import libcst as cst

Resolve = Callable[[cst.BaseExpression], Optional[str]]

_EAGER = "executing_eagerly"
_GRAPH = frozenset({"tensorflow.inside_function"})


def _call_name(node: cst.BaseExpression, resolve: Resolve) -> Optional[str]:
    if isinstance(node, cst.Call) and not node.args:
        qualified = resolve(node.func)
        if qualified and qualified.startswith("tensorflow."):
            return qualified
    return None


def _is_eager_call(node: cst.BaseExpression, resolve: Resolve) -> bool:
    name = _call_name(node, resolve)
    return name is not None and name.rpartition(".")[2] == _EAGER


def _is_graph_call(node: cst.BaseExpression, resolve: Resolve) -> bool:
    return _call_name(node, resolve) in _GRAPH


def _negated(node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return node.expression
    return None


def means_eager(test: cst.BaseExpression, resolve: Resolve) -> bool:
    """``test`` being true implies eager execution (never true while tracing)."""
    if _is_eager_call(test, resolve):
        return True
    inner = _negated(test)
    if inner is not None:
        return means_graph(inner, resolve)
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return means_eager(test.left, resolve) or means_eager(test.right, resolve)
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        return means_eager(test.left, resolve) and means_eager(test.right, resolve)
    return False


def means_graph(test: cst.BaseExpression, resolve: Resolve) -> bool:
    """``test`` being false implies eager execution (it is always true while tracing)."""
    if _is_graph_call(test, resolve):
        return True
    inner = _negated(test)
    if inner is not None:
        return means_eager(inner, resolve)
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        return means_graph(test.left, resolve) or means_graph(test.right, resolve)
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return means_graph(test.left, resolve) and means_graph(test.right, resolve)
    return False


def _exits(block: cst.BaseSuite) -> bool:
    """The block always leaves the enclosing block (ends in return, raise, continue, break)."""
    if isinstance(block, cst.IndentedBlock):
        if not block.body:
            return False
        last = block.body[-1]
        if isinstance(last, cst.SimpleStatementLine):
            small = last.body
        else:
            return False
    elif isinstance(block, cst.SimpleStatementSuite):
        small = block.body
    else:
        return False
    return bool(small) and isinstance(small[-1], (cst.Return, cst.Raise, cst.Continue,
                                                  cst.Break))


def _after_graph_exit(body: Sequence[cst.CSTNode], statement: cst.CSTNode,
                      resolve: Resolve) -> bool:
    """An earlier statement of ``body`` is ``if <graph test>: return ...``."""
    for earlier in body:
        if earlier is statement:
            return False
        if (isinstance(earlier, cst.If) and earlier.orelse is None
                and means_graph(earlier.test, resolve) and _exits(earlier.body)):
            return True
    return False


def in_eager_branch(ancestors: Sequence[cst.CSTNode], resolve: Resolve) -> bool:
    """The innermost node of ``ancestors`` runs only eagerly, within its function."""
    for index in range(len(ancestors) - 1, 0, -1):
        parent, child = ancestors[index - 1], ancestors[index]
        if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            return False
        if isinstance(parent, (cst.If, cst.IfExp)):
            if child is parent.body and means_eager(parent.test, resolve):
                return True
            if child is parent.orelse and means_graph(parent.test, resolve):
                return True
        elif isinstance(parent, cst.BooleanOperation) and child is parent.right:
            if isinstance(parent.operator, cst.And) and means_eager(parent.left, resolve):
                return True
            if isinstance(parent.operator, cst.Or) and means_graph(parent.left, resolve):
                return True
        elif isinstance(parent, (cst.IndentedBlock, cst.Module)):
            if _after_graph_exit(parent.body, child, resolve):
                return True
    return False
