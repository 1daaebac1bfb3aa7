"""How a function's own code uses a function it defines (``def _train(): ...`` in
``train()``): called, how often, in a loop, or let out.

A nested ``tf.function`` that its enclosing function calls once, outside any loop, and lets
nowhere else (not returned, stored, passed on, used by another nested function, declared
``global``/``nonlocal``) is a new ``tf.function`` at each call of the enclosing function,
traced by its one call: its Python code runs on every call, as plain Python would (TFF103
asks this), and each call of the enclosing function retraces it (TFF402 asks how often that
is).
"""

from __future__ import annotations

import ast
from typing import NamedTuple, Optional

from .ast_walk import child_nodes
from .module_index import iter_statements

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


class LocalUses(NamedTuple):
    calls: int
    """Calls of the function by its name in the scope's own code."""
    called_with_arguments: bool
    """One of them passes arguments (a call without any runs a block of code as a graph,
    its inputs closures: it could not reuse a trace anyway)."""
    in_loop: bool
    """One of them is in a loop or a comprehension."""
    escapes: bool
    """Any other use: the function may outlive one call of the scope."""


def local_uses(scope: ast.AST, name: str, definition: ast.AST) -> LocalUses:
    """How ``scope``'s own code (a function, or a loop) uses ``name``, which
    ``definition`` binds."""
    calls = 0
    called = in_loop = escapes = False
    body = scope.body if isinstance(scope, _FUNCTIONS) else [scope]
    stack = [(node, False, False) for node in body]
    while stack:
        node, looped, nested = stack.pop()
        if node is definition:
            continue
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            escapes = True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
            if nested:
                escapes = True
            calls += 1
            called = called or bool(node.args or node.keywords)
            in_loop = in_loop or looped
            children = list(node.args) + [k.value for k in node.keywords]
            stack.extend((child, looped, nested) for child in children)
            continue
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            escapes = True
        inner_nested = nested or isinstance(node, _FUNCTIONS + (ast.Lambda, ast.ClassDef))
        inner_looped = looped or isinstance(node, _LOOPS + _COMPREHENSIONS)
        stack.extend((child, inner_looped, inner_nested) for child in child_nodes(node))
    return LocalUses(calls, called, in_loop, escapes)


def enclosing_function(tree: ast.Module, definition: ast.AST) -> Optional[ast.AST]:
    """The function whose own code (not a function nested in it) defines ``definition``."""
    for node in ast.walk(tree):
        if isinstance(node, _FUNCTIONS) and any(
                statement is definition
                for statement in iter_statements(node.body, into_scopes=False)):
            return node
    return None


def called_once_where_made(tree: ast.Module, definition: ast.AST) -> bool:
    """``definition``, a nested def, is called once by the function that defines it, not in
    a loop, and used nowhere else: each call of that function makes and calls it once."""
    enclosing = enclosing_function(tree, definition)
    if enclosing is None:
        return False
    uses = local_uses(enclosing, definition.name, definition)
    return uses.calls == 1 and not uses.in_loop and not uses.escapes
