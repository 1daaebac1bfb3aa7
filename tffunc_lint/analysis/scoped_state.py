"""Whether a function changes Python state only for the span of a ``with`` block.

A context manager that sets a flag on entry and sets it back on exit::

    @contextlib.contextmanager
    def quantized_scope(quantize):
        backup = should_quantize()
        _scope.should_quantize = quantize
        yield
        _scope.should_quantize = backup

changes nothing that outlives the block. Entered in traced code, the block opens and closes
within the same trace: the setting steers how that graph is built, which is its purpose, and
nothing is left behind for later calls or for code outside the trace.

:func:`restored_on_exit` recognises the two spellings: a generator that assigns the target
both before and after a ``yield`` (or in a ``finally`` around it), and an ``__enter__``
whose class's ``__exit__`` assigns the target too; and, within one block of statements (the
function's, or a branch's), a value kept in a local, the target set, a call, and the
target set back from the local, where every assignment of the target lies between such a
save and its restore (``_saved_and_restored``). :func:`set_around_a_call` finds the
same shape around one call in a ``__call__``: a flag set, the call, the flag set back; and
:func:`set_around_keras_runs` around the call of Keras's ``fit`` (``evaluate`` …) in an
override of it.
"""

from __future__ import annotations

import ast
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from .module_index import KERAS_RUNS
from .names import ast_dotted_name, own_nodes
from .ast_walk import walk_nodes

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def restored_on_exit(tree: Optional[ast.Module], function: ast.AST, target: str) -> bool:
    """``function`` assigns the dotted ``target`` (``self.x``, ``_scope.flag``, ``NAME``)
    and sets it again when the ``with`` block it opens ends, or in the ``finally`` of a
    ``try`` it assigned it in (``prev = state.cache; try: state.cache = {} ... finally:
    state.cache = prev``): the new value lives only within the call."""
    if not isinstance(function, _FUNCTIONS):
        return False
    yields = [node.lineno for node in own_nodes(function.body)
              if isinstance(node, (ast.Yield, ast.YieldFrom))]
    stores = _stores(function.body, target)
    if stores and _all_within(stores, _saved_and_restored(function.body, target)):
        return True
    for node in own_nodes(function.body):
        if isinstance(node, ast.Try) and node.finalbody:
            restores = _stores(node.finalbody, target)
            if restores and any(node.lineno <= line < min(restores) for line in stores):
                return True
    if yields:
        return (any(line < min(yields) for line in stores)
                and any(line > max(yields) for line in stores))
    if function.name != "__enter__" or tree is None or not stores:
        return False
    cls = _enclosing_class(tree, function)
    exit_method = next((node for node in (cls.body if cls else ())
                        if isinstance(node, _FUNCTIONS) and node.name == "__exit__"), None)
    return exit_method is not None and bool(_stores(exit_method.body, target))


def _saved_and_restored(body: Sequence[ast.stmt], target: str) -> List[Tuple[int, int]]:
    """The spans (first line set, line set back) over which a block of ``body``, the
    function's own or one nested in it (an ``if``'s, a loop's), keeps the old value in a
    local, sets the target, calls something, and sets the target back from that local,
    all in its own statements (tfimm's weight-standardised convolution: ``orig =
    self.kernel``, ``self.kernel = standardised``, ``x = super().call(x)``, ``self.kernel
    = orig``; a layer that swaps its parameters for one branch of ``call`` and swaps them
    back before it returns)."""
    spans: List[Tuple[int, int]] = []
    for block in _blocks(body):
        saved: Set[str] = set()
        changed: object = False
        first = 0
        for statement in block:
            if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
                if changed and any(isinstance(n, ast.Call) for n in walk_nodes(statement)):
                    changed = "called"
                continue
            left, value = statement.targets[0], statement.value
            if isinstance(left, ast.Name) and ast_dotted_name(value) == target:
                saved.add(left.id)
            elif ast_dotted_name(left) == target:
                if isinstance(value, ast.Name) and value.id in saved and changed == "called":
                    spans.append((first, statement.lineno))
                    changed = False
                elif saved and not changed:
                    changed, first = True, statement.lineno
            elif changed and any(isinstance(n, ast.Call) for n in walk_nodes(value)):
                changed = "called"
    return spans


def _blocks(body: Sequence[ast.stmt]) -> Iterable[Sequence[ast.stmt]]:
    """``body`` and every statement list nested in it, functions and classes aside."""
    todo = [body]
    while todo:
        block = todo.pop()
        yield block
        for statement in block:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for name in ("body", "orelse", "finalbody"):
                nested = getattr(statement, name, None)
                if isinstance(nested, list) and nested and isinstance(nested[0], ast.stmt):
                    todo.append(nested)
            for handler in getattr(statement, "handlers", ()):
                todo.append(handler.body)
            for case in getattr(statement, "cases", ()):
                todo.append(case.body)


def _all_within(lines: Sequence[int], spans: Sequence[Tuple[int, int]]) -> bool:
    """Every line lies in one of the spans (both ends included)."""
    return bool(spans) and all(any(first <= line <= last for first, last in spans)
                               for line in lines)


#: Calls that trace functions to export them: the traces they make are the export's.
_EXPORTS = frozenset({"get_concrete_function", "save", "export", "from_concrete_functions",
                      "from_keras_model", "from_saved_model"})


def exports(node: ast.AST) -> bool:
    """``node`` is a call that traces to export (``f.get_concrete_function()``,
    ``tf.saved_model.save(...)``, ``model.save(...)``, a TFLite converter)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in _EXPORTS)


def set_around_a_call(body: Sequence[ast.stmt], self_name: str,
                      between: Callable[[ast.AST], bool] = lambda node: isinstance(
                          node, ast.Call)) -> Set[int]:
    """Lines of ``self.flag = <constant>`` statements of ``body`` (a ``__call__``) that set a
    flag for the span of a call and set it back after it (``self.entered = True``,
    ``out = super().__call__(x)``, ``self.entered = False``): every call of the object
    passes through ``__call__``, so whatever runs inside, a trace included, always sees the
    first value; nothing is left changed for later. With ``between``, a span holding such
    a call only (``exports``: ``self.serving = True``, the export, ``self.serving =
    False``, in any method: the export's traces are meant to see the flag)."""
    def flag(statement: ast.stmt) -> Optional[Tuple[str, object]]:
        attribute = _self_attribute_set(statement, self_name)
        if attribute is not None and isinstance(statement.value, ast.Constant):
            return attribute, statement.value.value
        return None

    found: Set[int] = set()
    for first, statement in enumerate(body):
        opened = flag(statement)
        if opened is None:
            continue
        for last in range(first + 2, len(body)):
            closed = flag(body[last])
            if closed is not None and closed[0] == opened[0]:
                if closed[1] != opened[1] and any(
                        between(n) for statement in body[first + 1:last]
                        for n in walk_nodes(statement)):
                    found.update((statement.lineno, body[last].lineno))
                break
    return found


def _self_attribute_set(statement: ast.stmt, self_name: str) -> Optional[str]:
    """The attribute ``statement`` assigns when it is ``self.<attribute> = ...``."""
    if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Attribute)
            and isinstance(statement.targets[0].value, ast.Name)
            and statement.targets[0].value.id == self_name):
        return statement.targets[0].attr
    return None


def set_around_keras_runs(cls: ast.ClassDef) -> Set[int]:
    """Lines of ``self.flag = <constant>`` statements in ``cls``'s overrides of Keras's run
    methods that set a flag around the call of the method they override and set it back
    after it (``self.augmented = True``, ``super().fit(x, y)``, ``self.augmented = False``;
    or back to a value kept before: ``kept = self.scale``, ``self.scale = False``, the
    call, ``self.scale = kept``): every trace that run makes sees the value set, and the
    others (``predict`` where only ``fit`` sets the flag) the value outside. Not when two
    overrides set the same flag to different values: ``fit``'s validation and
    ``evaluate`` share one traced function."""
    found: Dict[str, List[Tuple[object, Tuple[int, int]]]] = {}
    for method in cls.body:
        # Each of Keras's runs traces a ``tf.function`` of its own (``fit``:
        # ``train_function``, ``evaluate``: ``test_function``, ``predict``: ``predict_function``).
        if not (isinstance(method, _FUNCTIONS) and method.name in KERAS_RUNS
                and method.args.args):
            continue
        self_name = method.args.args[0].arg
        for attribute, value, lines in _set_around_super(method.body, self_name, method.name):
            found.setdefault(attribute, []).append((value, lines))
    lines: Set[int] = set()
    for attribute, settings in found.items():
        if len({repr(value) for value, _ in settings}) == 1:
            for _, pair in settings:
                lines.update(pair)
    return lines


def _set_around_super(body: Sequence[ast.stmt], self_name: str, method: str
                      ) -> Iterable[Tuple[str, object, Tuple[int, int]]]:
    def calls_super(statement: ast.stmt) -> bool:
        return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                   and node.func.attr == method and isinstance(node.func.value, ast.Call)
                   and isinstance(node.func.value.func, ast.Name)
                   and node.func.value.func.id == "super" for node in walk_nodes(statement))

    kept = {}  # local name → the attribute it keeps (``so = self.scale_outputs``)
    for first, statement in enumerate(body):
        if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and isinstance(statement.value, ast.Attribute)
                and isinstance(statement.value.value, ast.Name)
                and statement.value.value.id == self_name):
            kept[statement.targets[0].id] = statement.value.attr
        attribute = _self_attribute_set(statement, self_name)
        if attribute is None or not isinstance(statement.value, ast.Constant):
            continue
        value = statement.value.value
        for last in range(first + 1, len(body)):
            closing = body[last]
            if _self_attribute_set(closing, self_name) != attribute:
                continue
            restored = closing.value
            back = (isinstance(restored, ast.Constant) and restored.value != value
                    or isinstance(restored, ast.Name) and kept.get(restored.id) == attribute)
            if back and any(calls_super(between) for between in body[first + 1:last]):
                yield attribute, value, (statement.lineno, closing.lineno)
            break


def _stores(body: Iterable[ast.stmt], target: str) -> List[int]:
    """Lines of ``body`` (not of functions nested in it) that assign ``target``."""
    return [node.lineno for node in own_nodes(body)
            if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Store)
            and ast_dotted_name(node) == target]


def _enclosing_class(tree: ast.Module, function: ast.AST) -> Optional[ast.ClassDef]:
    for node in walk_nodes(tree):
        if isinstance(node, ast.ClassDef) and any(item is function for item in node.body):
            return node
    return None
