"""Which names a module rebinds after a traced function may have read them.

A traced function reads the globals and closure variables it uses once, while TensorFlow
traces it; the graph keeps the values of that moment. That only matters for names that are
bound again later. This module answers, from the module's ``ast`` tree:

- **globals**: module-level names bound more than once on one path through the module body
  (``if``/``else`` branches and ``try``/``except`` fallbacks are alternatives, not
  rebindings), augmented or bound in a module-level loop, or assigned in a function under
  ``global``. Re-wrapping a name (``f = tf.function(f)``) is not a new value, a name that
  only ever holds ``None`` or one ``tf.Variable`` is state TensorFlow tracks, and a lazy
  initialisation under ``global`` (``if NAME is None: NAME = ...``) sets the name once.
  Such a rebinding matters to a traced function only when it can run between two calls of
  a ``tf.function`` object whose trace reads the name (``Rebinding``, with ``timeline``);
- **closure variables**: names of an enclosing function bound again after the nested
  function is defined (in a loop, by augmented assignment, or a second time, not in
  another branch of the same ``if`` as the first), or assigned
  by a nested function under ``nonlocal``, unless that function is set-up code: called
  only before the nested function is defined, never in a loop, never passed on;
- **attributes**: which attributes of which classes code of the module sets to plain Python
  values outside set-up (``AttributeRebinding``); and, for a parameter of a module-level
  ``tf.function``, the instances its calls pass: a call reaches the ``def`` in force where
  it is made, and passes the instance its argument's name is bound to there
  (``PassedObjects``); only a change to one of them between two calls that pass it counts.

The module part is computed once per file (``FileContext.fact``); the closure part on
demand, per traced function.
"""

from __future__ import annotations

import ast
import bisect
import math
import re
from dataclasses import dataclass, field
from typing import (Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set,
                    Tuple, Union)

from .guards import init_targets
from .keras_runs import only_new_models_after, run_times
from .module_index import (CALLED, DATASET_CHAIN_METHODS, DATASET_METHODS, DATASET_NAME,
                           KERAS_GRAPH_METHODS, iter_statements, statement_bindings)
from .scoped_state import exports, set_around_a_call, set_around_keras_runs
from .names import ast_dotted_name, element_values, function_local_names, own_nodes
from .timeline import INF, Timeline, Times
from .ast_walk import child_nodes, walk_nodes
from .patterns import lazy_compile


def _scope_statements(body: List[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements of one scope, nested blocks included, nested scopes excluded."""
    return iter_statements(body, into_scopes=False)


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
#: Code that may run later, or more than once.
_DEFERRED = (*_SCOPES, *_LOOPS, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_TF_VARIABLE = "tensorflow.Variable"
_TF_GRADIENT_TAPE = "tensorflow.GradientTape"
_TF_FUNCTION = "tensorflow.function"
_GLOBAL = lazy_compile(r"^[ \t]*global[ \t]", re.MULTILINE)
_WRAPPERS = frozenset({"tensorflow.function", "functools.partial"})
_RUNS_NOW = frozenset({"tensorflow.saved_model.save", "tensorflow.keras.models.save_model",
                       "keras.models.save_model", "keras.saving.save_model", "timeit.timeit",
                       "timeit.repeat"})
#: Methods of a ``tf.distribute`` strategy that run the function they are given on each
#: replica before they return.
_STRATEGY_RUNS = frozenset({"run", "experimental_run_v2", "call_for_each_replica"})
NEVER = 0
ALWAYS = math.inf


@dataclass(frozen=True)
class Binding:
    """One statement binding ``name``: where, and whether it changes an existing value."""

    name: str
    line: int
    repeated: bool = False
    """Runs more than once or updates the old value: in a loop, ``+=``, under ``global``."""
    value: Optional[ast.expr] = None
    arms: Tuple[Tuple[int, object], ...] = ()
    """The branches it is written in (see ``_count``), to tell alternatives apart."""
    assigns: bool = False
    """Binds the name to what ``value`` gives (``name = value``, a ``def``), not to one item
    of it (a loop's target) nor to something made from the old value (``+=``)."""


@dataclass
class ModuleRebinding:
    """The rebound module-level names of one module."""

    rebound_after: Dict[str, float] = field(default_factory=dict)
    """Name → last line at which it gets a new value; ``ALWAYS`` when a function assigns it
    under ``global`` (that may run at any time). Names bound once are absent."""
    where: Dict[str, int] = field(default_factory=dict)
    """Name → a line that rebinds it, for messages."""
    lines: Dict[str, List[int]] = field(default_factory=dict)
    """Rebound name → the lines of the module-level statements that bind it."""
    setters: Dict[str, List[int]] = field(default_factory=dict)
    """Rebound name → the lines of the assignments under ``global`` that change it."""

    def rebound_for(self, line: int) -> FrozenSet[str]:
        """Names rebound after ``line`` (where a function reading them is defined)."""
        return frozenset(name for name, last in self.rebound_after.items() if last > line)


def module_rebinding(tree: ast.Module, resolve, text: Optional[str] = None) -> ModuleRebinding:
    """Module-level rebinding. ``resolve`` maps a dotted name to its qualified name;
    ``text``, the module's source, saves looking for ``global`` statements it lacks."""
    bindings: List[Binding] = []
    counts = _count(tree.body, bindings)
    by_name: Dict[str, List[Binding]] = {}
    for binding in bindings:
        by_name.setdefault(binding.name, []).append(binding)
    has_global = text is None or ("global" in text and _GLOBAL.search(text))
    in_functions = _global_assignments(tree) if has_global else {}
    result = ModuleRebinding()
    for name in set(by_name) | set(in_functions):
        if name.startswith("__") and name.endswith("__"):
            continue
        module_level = by_name.get(name, [])
        elsewhere = [b for b in in_functions.get(name, []) if b.repeated]
        if not elsewhere and counts.get(name, 0) < 2:
            continue
        if _tracked_state(module_level + in_functions.get(name, []), resolve) or _tapes(
                module_level + in_functions.get(name, []), resolve):
            continue
        if not elsewhere and _one_import(module_level):
            continue  # ``import tensorflow as tf`` again: the same module
        if not elsewhere and _same_each_time(name, by_name, in_functions, resolve):
            continue  # a notebook's set-up cell written again: the same value
        result.lines[name] = sorted({b.line for b in module_level})
        result.setters[name] = [b.line for b in elsewhere]
        if elsewhere:
            result.rebound_after[name] = ALWAYS
            result.where[name] = elsewhere[0].line
        else:
            last = max(module_level, key=lambda b: b.line)
            result.rebound_after[name] = last.line
            result.where[name] = last.line
    return result


#: Builtins whose result depends only on their arguments.
_PURE_BUILTINS = frozenset(f"builtins.{name}" for name in (
    "abs", "all", "any", "bool", "complex", "dict", "divmod", "enumerate", "filter", "float",
    "frozenset", "int", "len", "list", "map", "max", "min", "pow", "range", "reversed", "round",
    "set", "slice", "sorted", "str", "sum", "tuple", "zip"))
#: Libraries of whose functions, but for those below, a call gives the same value for the
#: same arguments (``tf.linspace``, ``np.meshgrid``, ``math.sqrt``).
_PURE_LIBRARIES = frozenset({"tensorflow", "numpy", "math"})
#: Parts of a library function's name that make new state or read the world: Keras objects,
#: datasets, files, summaries, variables (a capitalised part: a class), draws.
_IMPURE_PARTS = frozenset({"keras", "data", "io", "gfile", "saved_model", "summary", "train",
                           "distribute", "config", "compat", "estimator", "lite", "function",
                           "py_function", "numpy_function", "print", "load", "loadtxt",
                           "genfromtxt", "fromfile", "save", "timestamp", "memmap", "empty",
                           "empty_like"})


def _same_each_time(name: str, by_name: Dict[str, List[Binding]],
                    in_functions: Dict[str, List[Binding]], resolve,
                    seen: FrozenSet[str] = frozenset()) -> bool:
    """Every binding of the module-level ``name`` is the same ``name = value`` (or the same
    ``def``), and ``value`` gives the same result each time: a notebook's set-up cell
    written out again (``grid = tf.stack((xx, yy), axis=-1)`` in two cells). A trace that
    read the old value reads what the new one is."""
    found = by_name.get(name, ())
    if not found or name in in_functions or name in seen or not all(
            b.assigns for b in found):
        return False
    if len({ast.dump(b.value) for b in found}) != 1:
        return False
    value = found[0].value
    seen = seen | {name}
    if isinstance(value, _FUNCTIONS):  # its body runs when called: its defaults now
        parts: List[ast.AST] = [*value.decorator_list, *value.args.defaults,
                                *(d for d in value.args.kw_defaults if d is not None)]
    elif isinstance(value, ast.expr):
        parts = [value]
    else:
        return False
    return all(_reproducible(node, by_name, in_functions, resolve, seen)
               for part in parts for node in ast.walk(part))


def _reproducible(node: ast.AST, by_name: Dict[str, List[Binding]],
                  in_functions: Dict[str, List[Binding]], resolve,
                  seen: FrozenSet[str]) -> bool:
    """``node``, part of a value ``_same_each_time`` asks of, gives the same each time: a
    name bound once or itself the same each time, a call of a pure function of a library
    or of the builtins; nothing that waits, yields or binds."""
    if isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)):
        return False
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        bound = by_name.get(node.id, ())
        if node.id in in_functions:
            return False
        if _one_import(bound):
            return True  # a module, imported once or again
        return len(bound) < 2 and not any(b.repeated for b in bound) or _same_each_time(
            node.id, by_name, in_functions, resolve, seen)
    if not isinstance(node, ast.Call):
        return True
    dotted = ast_dotted_name(node.func)
    if dotted is None:  # ``make().numpy()``: a method of some object
        return False
    head = dotted.partition(".")[0]
    if any(_import_target(b) is None for b in by_name.get(head, ())):
        return False  # a method of a module-level object (``gen.normal``), or its own def
    qualified = resolve(dotted) or ""
    if qualified in _PURE_BUILTINS:
        return True
    top, _, rest = qualified.partition(".")
    return top in _PURE_LIBRARIES and bool(rest) and not any(
        "random" in part or part[:1].isupper() or part in _IMPURE_PARTS
        for part in rest.split("."))


def _one_import(found: Sequence[Binding]) -> bool:
    """Every binding is an import of one and the same target."""
    return bool(found) and len({_import_target(b) for b in found}) == 1 and _import_target(
        found[0]) is not None


def _import_target(binding: Binding) -> Optional[str]:
    """What an import binding ``binding.name`` to, or None for any other binding."""
    node = binding.value
    if not isinstance(node, (ast.Import, ast.ImportFrom)):
        return None
    for alias in node.names:
        if isinstance(node, ast.Import):
            if (alias.asname or alias.name.partition(".")[0]) == binding.name:
                return alias.name if alias.asname else binding.name
        elif (alias.asname or alias.name) == binding.name:
            return f"{'.' * node.level}{node.module or ''}.{alias.name}"
    return None


def _tracked_state(found: List[Binding], resolve) -> bool:
    """Only ``None`` and one ``tf.Variable(...)`` site: the lazy-variable pattern."""
    variables = 0
    for binding in found:
        value = binding.value
        if isinstance(value, ast.Constant) and value.value is None:
            continue
        if (isinstance(value, ast.Call)
                and resolve(ast_dotted_name(value.func) or "") == _TF_VARIABLE):
            variables += 1
            continue
        return False
    return variables <= 1


def _tapes(found: List[Binding], resolve) -> bool:
    """Every binding is a ``tf.GradientTape()`` (``with tf.GradientTape() as tape:`` in a
    training loop): a trace reads the tape only to build gradient ops into its graph, which
    later calls run on the current values; a newer tape changes nothing there."""
    return bool(found) and all(
        isinstance(b.value, ast.Call)
        and resolve(ast_dotted_name(b.value.func) or "") == _TF_GRADIENT_TAPE for b in found)


def _global_assignments(tree: ast.Module) -> Dict[str, List[Binding]]:
    """Assignments inside functions to names they declare ``global``. One made only while
    the name is still unset (``if NAME is None:``, ``if not NAME:``) is a lazy
    initialisation: it is kept with ``repeated=False``, since it gives the name its one
    value; any other is ``repeated``."""
    found: Dict[str, List[Binding]] = {}
    for node in iter_statements(tree.body):
        if not isinstance(node, _FUNCTIONS):
            continue
        declared: Set[str] = set()
        for statement in _scope_statements(node.body):
            if isinstance(statement, ast.Global):
                declared.update(statement.names)
        for statement, unset in guarded_statements(node.body) if declared else ():
            for name in statement_bindings(statement):
                if name in declared:
                    once = name in unset and not isinstance(statement, ast.AugAssign)
                    found.setdefault(name, []).append(Binding(
                        name, statement.lineno, not once, getattr(statement, "value", None)))
    return found


def guarded_statements(body: List[ast.stmt], unset: FrozenSet[str] = frozenset()
                       ) -> Iterator[Tuple[ast.stmt, FrozenSet[str]]]:
    """Statements of one scope (nested scopes excluded), each with the dotted names its
    enclosing ``if`` tests say are still unset there (see ``guards.init_targets``)."""
    for node in body:
        yield node, unset
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, ast.If):
            yield from guarded_statements(node.body, unset | init_targets(node.test, certain=True))
            yield from guarded_statements(node.orelse, unset)
            continue
        if isinstance(node, _LOOPS):  # a loop body may bind the name again
            yield from guarded_statements(node.body, frozenset())
            yield from guarded_statements(node.orelse, frozenset())
            continue
        for block in ("body", "orelse", "finalbody"):
            yield from guarded_statements(getattr(node, block, None) or [], unset)
        for handler in getattr(node, "handlers", None) or ():
            yield from guarded_statements(handler.body, unset)
        for case in getattr(node, "cases", None) or ():
            yield from guarded_statements(case.body, unset)


def _rewraps(node: ast.stmt, name: str) -> bool:
    """``f = tf.function(f)``, ``Model = register(Model)``: the same object, wrapped."""
    value = getattr(node, "value", None)
    return (isinstance(node, ast.Assign) and isinstance(value, ast.Call)
            and any(isinstance(arg, ast.Name) and arg.id == name for arg in value.args))


def _count(body: List[ast.stmt], bindings: List[Binding], in_loop: bool = False,
           arms: Tuple[Tuple[int, object], ...] = ()) -> Dict[str, float]:
    """How many times each name is bound on the worst path through ``body``; records every
    binding statement in ``bindings``, with ``arms``: the path of (statement, branch) pairs
    that leads to it, a loop marked ``_LOOP`` (see ``exclusive``)."""
    counts: Dict[str, float] = {}

    def add(more: Dict[str, float]) -> None:
        for name, count in more.items():
            counts[name] = counts.get(name, 0) + count

    for node in body:
        if isinstance(node, ast.If):
            add(_alternatives([_count(node.body, bindings, in_loop, arms + ((id(node), 0),)),
                               _count(node.orelse, bindings, in_loop,
                                      arms + ((id(node), 1),))]))
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            main = _count(node.body, bindings, in_loop, arms)
            for name, count in _count(node.orelse, bindings, in_loop, arms).items():
                main[name] = main.get(name, 0) + count
            add(_alternatives([main] + [_count(h.body, bindings, in_loop, arms)
                                        for h in node.handlers]))
            add(_count(node.finalbody, bindings, in_loop, arms))
        elif type(node).__name__ == "Match":
            add(_alternatives([_count(case.body, bindings, in_loop, arms + ((id(node), i),))
                               for i, case in enumerate(node.cases)]))
        elif isinstance(node, _LOOPS):
            inner: List[Binding] = []
            looped = arms + ((id(node), _LOOP),)
            if not isinstance(node, ast.While):
                inner.extend(Binding(n, node.lineno, True, node.iter, looped)
                             for n in statement_bindings(node))
            _count(node.body, inner, True, looped)
            bindings.extend(Binding(b.name, b.line, True, b.value, b.arms, b.assigns)
                            for b in inner)
            add({b.name: ALWAYS for b in inner})
            add(_count(node.orelse, bindings, in_loop, arms))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for name in statement_bindings(node):
                bindings.append(Binding(name, node.lineno, in_loop,
                                        node.items[0].context_expr, arms))
                add({name: 1})
            add(_count(node.body, bindings, in_loop, arms))
        else:
            repeated = in_loop or isinstance(node, ast.AugAssign)
            value = getattr(node, "value", None) or node
            assigns = isinstance(node, (ast.Assign, ast.AnnAssign, *_FUNCTIONS))
            for name in statement_bindings(node):
                if _rewraps(node, name):
                    continue
                bindings.append(Binding(name, node.lineno, repeated, value, arms, assigns))
                add({name: ALWAYS if repeated else 1})
    return counts


_LOOP = "loop"


def exclusive(one: Tuple[Tuple[int, object], ...], other: Tuple[Tuple[int, object], ...]
              ) -> bool:
    """Two statements with these ``arms`` (``_count``) are alternatives: they sit in
    different branches of one ``if``/``match``, and no loop around that statement could run
    the one after the other."""
    for (node, branch), (node2, branch2) in zip(one, other):
        if node != node2:
            return False
        if branch == _LOOP:
            return False
        if branch != branch2:
            return True
    return False


def _alternatives(branches: List[Dict[str, float]]) -> Dict[str, float]:
    merged: Dict[str, float] = {}
    for branch in branches:
        for name, count in branch.items():
            merged[name] = max(merged.get(name, 0), count)
    return merged


# -- closures ---------------------------------------------------------------------------------
@dataclass
class ScopeBindings:
    """Bindings made in one function's own scope, and names nested functions rebind there."""

    local_names: FrozenSet[str]
    bindings: Dict[str, List[Binding]]
    nonlocal_lines: Dict[str, int]
    nonlocal_writers: Dict[str, List[ast.AST]] = field(default_factory=dict)
    """Name → the nested functions that assign it under ``nonlocal``."""


def scope_bindings(function: ast.AST) -> ScopeBindings:
    bindings: List[Binding] = []
    _count(function.body, bindings)
    by_name: Dict[str, List[Binding]] = {}
    for binding in bindings:
        by_name.setdefault(binding.name, []).append(binding)
    nonlocal_lines: Dict[str, int] = {}
    writers: Dict[str, List[ast.AST]] = {}
    for node in walk_nodes(function):
        if node is function or not isinstance(node, _FUNCTIONS):
            continue
        declared: Set[str] = set()
        for statement in _scope_statements(node.body):
            if isinstance(statement, ast.Nonlocal):
                declared.update(statement.names)
        for statement in _scope_statements(node.body) if declared else ():
            for name in statement_bindings(statement):
                if name in declared:
                    nonlocal_lines.setdefault(name, statement.lineno)
                    if node not in writers.setdefault(name, []):
                        writers[name].append(node)
    return ScopeBindings(function_local_names(function), by_name, nonlocal_lines, writers)


def closure_rebound(enclosing: ast.AST, scope: ScopeBindings, nested: ast.AST,
                    resolve) -> Dict[str, int]:
    """Names of ``enclosing`` that get a new value after ``nested``, a function written in
    it, is defined, and before it is called again, with a line where that happens.

    A later binding counts when ``nested`` (or a name it is stored under) is used after it,
    or in a loop around both that does not also re-create ``nested``; not one in another
    branch of an ``if`` than ``nested`` (``exclusive``). Once ``enclosing``
    returns, its variables keep their last values: no later trace can see an older one.
    An assignment under ``nonlocal`` counts unless its function is set-up code that has
    run before ``nested`` exists (``_runs_before``).
    """
    end = getattr(nested, "end_lineno", nested.lineno)
    arms = next((b.arms for b in scope.bindings.get(getattr(nested, "name", ""), ())
                 if b.line == nested.lineno), ())
    found: Dict[str, int] = {}
    for name, line in scope.nonlocal_lines.items():
        if name in scope.local_names and not all(
                _runs_before(enclosing, scope, writer, nested)
                for writer in scope.nonlocal_writers.get(name) or [None]):
            found[name] = line
    uses: Optional[List[int]] = None
    for name, bindings in scope.bindings.items():
        if name in found or name not in scope.local_names:
            continue
        later = [b for b in bindings if b.line > end and not exclusive(b.arms, arms)]
        if not later or not (any(b.repeated for b in later) or any(
                not exclusive(one.arms, other.arms)
                for number, one in enumerate(bindings) for other in bindings[number + 1:])):
            continue  # bound once, or in the branches of one ``if`` (alternatives)
        if uses is None:
            uses = _uses(enclosing, nested, resolve)
        loops = _loops(enclosing)
        for binding in later:
            if any(use > binding.line for use in uses) or any(
                    first <= binding.line <= last and not first <= nested.lineno <= last
                    and any(first <= use <= last for use in uses)
                    for first, last in loops):
                found[name] = binding.line
                break
    return found


def _runs_before(enclosing: ast.AST, scope: ScopeBindings, writer: Optional[ast.AST],
                 nested: ast.AST) -> bool:
    """``writer``, a function defined in ``enclosing`` itself, only ever runs before
    ``nested`` is defined: each use of its name is a call (``init()``, or tracing it with
    ``init.get_concrete_function()``) in ``enclosing``'s own body, outside loops, written
    before ``nested``; it is never returned, stored or passed on, and its name is bound
    once."""
    if writer is None or not isinstance(writer, _FUNCTIONS) or not any(
            statement is writer for statement in _scope_statements(enclosing.body)):
        return False
    if len(scope.bindings.get(writer.name, ())) != 1:
        return False
    start = min([nested.lineno] + [d.lineno for d in getattr(nested, "decorator_list", ())])
    calls = 0
    stack: List[Tuple[ast.AST, Tuple[ast.AST, ...], bool]] = [(enclosing, (), False)]
    while stack:
        node, parents, hidden = stack.pop()
        if isinstance(node, ast.Name) and node.id == writer.name:
            if hidden or node.lineno >= start or not _called(node, parents):
                return False
            calls += 1
            continue
        inner = hidden or (node is not enclosing and isinstance(node, _DEFERRED))
        chain = (parents + (node,))[-2:]
        stack.extend((child, chain, inner) for child in child_nodes(node))
    return calls > 0


def _called(name: ast.Name, parents: Tuple[ast.AST, ...]) -> bool:
    """``name(...)`` or ``name.get_concrete_function(...)``."""
    parent = parents[-1] if parents else None
    if isinstance(parent, ast.Call) and parent.func is name:
        return True
    grandparent = parents[-2] if len(parents) > 1 else None
    return (isinstance(parent, ast.Attribute) and parent.value is name
            and parent.attr == "get_concrete_function"
            and isinstance(grandparent, ast.Call) and grandparent.func is parent)


def _uses(enclosing: ast.AST, nested: ast.AST, resolve) -> List[int]:
    """Lines of ``enclosing`` that use ``nested`` by name, or a name it was stored under
    (``step = tf.function(_step)``)."""
    names: Set[str] = set()
    if isinstance(nested, _FUNCTIONS):
        names.add(nested.name)
    for statement in _scope_statements(enclosing.body):
        if isinstance(statement, ast.Assign) and _stores(
                statement.value, names, nested, resolve):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
    end = getattr(nested, "end_lineno", nested.lineno)
    return [node.lineno for node in walk_nodes(enclosing)
            if isinstance(node, ast.Name) and node.id in names and node.lineno > end
            and isinstance(node.ctx, ast.Load)]


def _stores(value: ast.expr, names: Set[str], nested: ast.AST, resolve) -> bool:
    """``value`` is the function itself, or it wrapped by ``tf.function``/``partial``."""
    if isinstance(value, ast.Call) and value.args and resolve(
            ast_dotted_name(value.func) or "") in _WRAPPERS:
        value = value.args[0]
    return value is nested or (isinstance(value, ast.Name) and value.id in names)


#: Methods that keep what they are given (a function handed to them may be called later).
_KEEPING = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "register",
                      "__setitem__"})


def kept_inside(enclosing: ast.AST, nested: ast.AST, resolve) -> bool:
    """``nested``, a function written in ``enclosing``, never leaves it: each use of its
    name (or of a name it is stored under, ``step = tf.function(_step)``) calls it or hands
    it to a call that does not keep it (``strategy.run(step, ...)``, not ``steps.append``);
    it is never returned, yielded, stored in an attribute, a container or a global, nor
    named in a lambda or function that could be (``self.fn = lambda: run(step)``). Each
    run of ``enclosing`` then makes a new function object, and every call of it happens
    during that run."""
    if not isinstance(nested, _FUNCTIONS) or not isinstance(enclosing, _FUNCTIONS):
        return False
    names = {nested.name}
    stores: Set[int] = set()
    for statement in _scope_statements(enclosing.body):
        if isinstance(statement, ast.Assign) and _stores(statement.value, names, nested,
                                                         resolve):
            if not all(isinstance(t, ast.Name) for t in statement.targets):
                return False
            names.update(t.id for t in statement.targets)
            stores.add(id(statement.value))
    if names & (_declared(enclosing, ast.Global) | _declared(enclosing, ast.Nonlocal)):
        return False
    stack: List[Tuple[ast.AST, Optional[ast.AST], bool]] = [(enclosing, None, False)]
    while stack:
        node, parent, deferred = stack.pop()
        if isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, ast.Load):
            if deferred:
                return False  # in a lambda or def that may itself be kept for later
            if not isinstance(parent, ast.Call):
                if not (isinstance(parent, ast.Attribute)
                        and parent.attr == "get_concrete_function"):
                    return False
            elif parent.func is not node and id(parent) not in stores and (
                    node not in parent.args or isinstance(parent.func, ast.Attribute)
                    and parent.func.attr in _KEEPING):
                return False
        inner = deferred or node is not enclosing and isinstance(node, _SCOPES)
        stack.extend((child, node, inner) for child in child_nodes(node))
    return True


def changes_attribute(function: ast.AST, attribute: str, methods: Iterable[str]) -> bool:
    """``function`` may change ``attribute`` of some object: it assigns or deletes
    ``x.attribute``, calls ``setattr``, or calls one of ``methods`` (those that assign it)."""
    methods = frozenset(methods)
    for node in walk_nodes(function):
        if isinstance(node, ast.Attribute) and node.attr == attribute and isinstance(
                node.ctx, (ast.Store, ast.Del)):
            return True
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "setattr" or isinstance(
                    func, ast.Attribute) and func.attr in methods:
                return True
    return False


def _loops(enclosing: ast.AST) -> List[Tuple[int, int]]:
    return [(node.lineno, node.end_lineno) for node in _scope_statements(enclosing.body)
            if isinstance(node, _LOOPS)]


def enclosing_functions(index, key) -> List[Tuple[object, ast.AST]]:
    """The functions a traced function is written in, innermost first, as (key, node)."""
    node = index.nodes.get(key)
    if node is None:
        return []
    first, last = node.lineno, getattr(node, "end_lineno", node.lineno)
    found = []
    for other_key, other in index.nodes.items():
        if other_key == key or not isinstance(other, _FUNCTIONS):
            continue
        if other.lineno <= first and last <= other.end_lineno and other is not node and (
                other.lineno, other.col_offset) < (node.lineno, node.col_offset):
            found.append((other_key, other))
    found.sort(key=lambda item: (item[1].lineno, item[1].col_offset), reverse=True)
    return found


# -- per traced function ----------------------------------------------------------------------
GLOBAL, CLOSURE = "global", "closure"


@dataclass(frozen=True)
class PassedObjects:
    """The objects every call of one ``tf.function`` object passes for one parameter:
    module-level instances (``simple_model = SimpleModel()``), each known by the statement
    that made it, and when the function is called."""

    calls: Tuple[Tuple[int, FrozenSet[Tuple[str, int]]], ...]
    """Each call, in statement order: its line and the objects it may pass, each as (name,
    line of the statement binding the name to a new instance)."""
    classes: FrozenSet[str]
    """The classes (qualnames) of those instances."""
    bound: int
    """The line of the ``def`` that makes the ``tf.function`` object."""


#: Builtins that keep nothing of what they are given (a count, a message, a test).
_KEEP_NOTHING = frozenset({"range", "len", "print", "isinstance", "callable", "int", "float",
                           "str", "bool", "abs", "round", "repr"})


def _callers_now(tree: ast.Module) -> FrozenSet[str]:
    """Names of the module's functions, each ``def`` of the name at module level, that run
    the functions they are given before they return and keep none (``_calls_only``)."""
    defs: Dict[str, List[ast.AST]] = {}
    others: Set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            defs.setdefault(node.name, []).append(node)
        else:
            others.update(statement_bindings(node))
    return frozenset(name for name, nodes in defs.items()
                     if name not in others and all(map(_calls_only, nodes)))


def _calls_only(function: ast.FunctionDef) -> bool:
    """A plain function (no decorator, not a generator, no nested function, lambda or
    class, no ``global``) whose code uses each parameter only to call it, read an attribute
    of it (``f()``, ``f.__name__``), compare it, compute or format with it, or give it to
    a builtin that keeps nothing (``range(n)``): it can neither keep nor return what it is
    given, nor hand it on, and runs it, if at all, before it returns."""
    args = function.args
    params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    params.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    if function.decorator_list or not params:
        return False
    parents: Dict[int, ast.AST] = {}
    for node in walk_nodes(function):
        for child in child_nodes(node):
            parents[id(child)] = node
        if node is not function and isinstance(node, (
                ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
                ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)):
            return False  # code that may run later, or a generator that runs nothing now
    for node in walk_nodes(function):
        if isinstance(node, ast.Name) and node.id in params:
            parent = parents.get(id(node))
            if not (isinstance(node.ctx, ast.Load) and (
                    isinstance(parent, ast.Call) and (
                        parent.func is node or isinstance(parent.func, ast.Name)
                        and parent.func.id in _KEEP_NOTHING)
                    or isinstance(parent, ast.Attribute) and parent.value is node
                    or isinstance(parent, (ast.Compare, ast.BinOp, ast.UnaryOp,
                                           ast.FormattedValue)))):
                return False
    return True


class Rebinding:
    """The rebinding facts of one module, as the rules query them (``FileContext.fact``).

    A global read while tracing is frozen into the trace of each ``tf.function`` object
    whose trace runs the read. It matters when a rebinding of the global can run between
    two calls of one such object (``Timeline``): between its first and its last call in
    module statement order, in a loop that also calls it, or in a function that can run
    then. Each ``def`` is its own object; a trace reused only by importers (a function
    module-level code never reaches) sees every import-time rebinding before its first
    call."""

    def __init__(self, context):
        self._index = context.graph.index
        self._resolve = context.names.resolve
        self._traced = context.graph.traced
        self._tree = context.tree
        self._program = context.graph.whole_program
        self.module = module_rebinding(context.tree, context.names.resolve, context.text)
        self._scopes: Dict[int, ScopeBindings] = {}
        self._functions: Dict[object, Dict[str, Tuple[str, int]]] = {}
        self._entries: Optional[Dict[object, Set[object]]] = None
        self._timeline: Optional[Timeline] = None
        self._objects: Dict[object, List[Tuple[Optional[int], Times]]] = {}
        self._passed: Dict[Tuple[object, str], Optional[PassedObjects]] = {}
        self._callers_now: Optional[FrozenSet[str]] = None
        self._traced_regions: Optional[List[Tuple[int, int]]] = None

    @classmethod
    def of(cls, context) -> "Rebinding":
        return context.fact("rebinding", cls)

    def names(self) -> FrozenSet[str]:
        """Every name some traced function of the module may read at its peril (a superset:
        trigger text for the regions worth parsing)."""
        found: Set[str] = set(self.module.rebound_after)
        for key in self._traced:
            if _is_nested(self._index, key):
                found.update(self.captured(key))
        return frozenset(found)

    def reused(self, key) -> bool:
        """The trace of ``key`` is reused by later calls: it runs under a ``tf.function``
        (or a Keras method), not only under a graph API such as ``Dataset.map`` that traces
        its function once, on the spot."""
        return key in self.entries()

    def one_run(self, key) -> Optional[ast.AST]:
        """The function during one run of which every call of ``key``'s reused traces
        happens, or None: each entry point whose trace runs ``key`` is a ``tf.function``
        written in that function and kept inside it (``kept_inside``), so each run makes
        and traces new ones, and code that runs only outside it cannot change what a trace
        of one run has read."""
        found: Optional[ast.AST] = None
        for entry in self.entries().get(key, ()):
            node = self._index.nodes.get(entry)
            outer = enclosing_functions(self._index, entry)
            if node is None or not outer or (found is not None and outer[0][1] is not found):
                return None
            if not kept_inside(outer[0][1], node, self._resolve):
                return None
            found = outer[0][1]
        return found

    def entries(self) -> Dict[object, Set[object]]:
        """Traced function → the entry points (``@tf.function`` defs, Keras methods …) whose
        reused traces run it."""
        if self._entries is None:
            self._entries = self._entry_points()
        return self._entries

    def _entry_points(self) -> Dict[object, Set[object]]:
        from .graph_context import ProjectGraph
        from .module_index import PASSED

        index, traced = self._index, self._traced
        project = ProjectGraph([index])
        entries: Dict[object, Set[object]] = {}
        for key, reason in traced.items():
            root = reason.chain()[-1]
            if _reused_entry(root.how) and (reason.via is None or root.path != index.path):
                entries[key] = {key}
        outers = {key: [outer for outer, _ in enclosing_functions(index, key)]
                  for key in traced}
        changed = True
        while changed:
            changed = False
            for key in traced:
                for outer in outers[key]:
                    if outer in entries and not entries[outer] <= entries.get(key, set()):
                        entries.setdefault(key, set()).update(entries[outer])
                        changed = True
            queue = list(entries)
            while queue:
                source = queue.pop()
                function = index.functions.get(source)
                for target, _, how in function.edges if function else ():
                    found = project.resolve(index, target)
                    if not (found and found[0] == index.path and found[1] in traced
                            and how in (CALLED, PASSED)):
                        continue
                    if not entries[source] <= entries.get(found[1], set()):
                        entries.setdefault(found[1], set()).update(entries[source])
                        queue.append(found[1])
                        changed = True
        for key, reason in traced.items():  # reused, though not reached from its entry here
            if key not in entries and _reused_entry(reason.chain()[-1].how):
                entries[key] = {key}
        return entries

    def timeline(self) -> Timeline:
        if self._timeline is None:
            self._timeline = Timeline(self._tree, self._wraps, self._runs_now, self._program)
        return self._timeline

    def _wraps(self, call: ast.Call) -> bool:
        """``tf.function(f, ...)``, ``tf.function(...)(f)``, ``functools.partial(f, ...)``."""
        func = call.func.func if isinstance(call.func, ast.Call) else call.func
        return self._resolve(ast_dotted_name(func) or "") in _WRAPPERS

    def _runs_now(self, call: ast.Call) -> bool:
        """A call that traces or runs the functions it is given before it returns, and keeps
        none of them: saving a model with its signatures, timing a function, a distribution
        strategy running a step on its replicas (``strategy.run(train_step, args=...)``,
        on a receiver whose name says it is a strategy), a ``tf.data`` transformation
        (``dataset.map(f)`` traces ``f`` as it is called and keeps only the graph), or a
        function of the module's own that only calls what it is given (``run(optimizer)``
        of a notebook's ``def run(f): f(); return f()``, see ``_calls_only``). So does any
        call written in traced code (``solver.solve(growth_func, ...)`` in a
        ``tf.function``): the trace runs it, and what it is given runs during the trace, or,
        handed to ``tf.py_function``, when the graph runs: when the traced code runs, either
        way."""
        if self._in_traced_code(call.lineno):
            return True
        if isinstance(call.func, ast.Name):
            if self._callers_now is None:
                self._callers_now = _callers_now(self._tree)
            if call.func.id in self._callers_now:
                return True
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in _STRATEGY_RUNS:
            receiver = func.value.func if isinstance(func.value, ast.Call) else func.value
            dotted = ast_dotted_name(receiver) or ""
            if dotted.rpartition(".")[2].lower().endswith("strategy") or dotted and (
                    self._resolve(dotted) or "").startswith("tensorflow.distribute."):
                return True
        if (isinstance(func, ast.Attribute) and func.attr in DATASET_METHODS
                and self._dataset(func.value)):
            return True
        name = self._resolve(ast_dotted_name(call.func) or "")
        return name in _RUNS_NOW or (
            isinstance(call.func, ast.Attribute) and call.func.attr == "save"
            and any(k.arg == "signatures" for k in call.keywords))

    def _in_traced_code(self, line: int) -> bool:
        """``line`` is in the source of a traced ``def`` of the module (the region of a
        lambda is the code around it)."""
        if self._traced_regions is None:
            functions = self._index.functions
            merged: List[Tuple[int, int]] = []  # disjoint, in order: a nested def is inside
            for first, last in sorted(functions[key].region for key in self._traced
                                      if key in functions
                                      and not functions[key].qualname.endswith("<lambda>")):
                if merged and first <= merged[-1][1]:
                    merged[-1] = (merged[-1][0], max(merged[-1][1], last))
                else:
                    merged.append((first, last))
            self._traced_regions = merged
        at = bisect.bisect_right(self._traced_regions, (line, math.inf)) - 1
        return at >= 0 and line <= self._traced_regions[at][1]

    def _dataset(self, node: ast.expr) -> bool:
        """``node`` is a ``tf.data`` dataset by its making or its name: a chain of dataset
        methods (``ds.shuffle(8).batch(4)``) on a ``tf.data`` call or on a name that says
        it holds one (``train_dataset``, ``val_ds``)."""
        while (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and node.func.attr in DATASET_CHAIN_METHODS):
            node = node.func.value
        if isinstance(node, ast.Call):
            return (self._resolve(ast_dotted_name(node.func) or "") or "").startswith(
                "tensorflow.data.")
        dotted = ast_dotted_name(node)
        return dotted is not None and bool(DATASET_NAME.search(dotted.rpartition(".")[2]))

    def objects(self, entry) -> List[Tuple[Optional[int], Times]]:
        """The ``tf.function`` objects made for the entry point ``entry``: (the line that
        binds the object, when the module does, and when it may be called)."""
        found = self._objects.get(entry)
        if found is not None:
            return found
        timeline = self.timeline()
        node = self._index.nodes.get(entry)
        line = getattr(node, "lineno", 0)
        unit = timeline.unit_at(line)
        found = []
        reason = self._traced.get(entry)
        if (reason is not None and reason.via is not None
                and reason.chain()[-1].path != self._index.path):
            # Traced from another module: those traces run when importers call, after this
            # module's own code; its eager calls here trace nothing.
            end = max((getattr(s, "end_lineno", 0) or 0 for s in self._tree.body), default=0)
            found.append((None, Times(spans={(end + 1, INF)})))
            self._objects[entry] = found
            return found
        runs = self._keras_runs(entry, reason)
        if runs is not None:  # a model's method, run by module-level fit/evaluate/predict
            # each model object its own traced functions, bound where the module makes it
            found = [(made, Times(points=set(lines))) for made, lines in runs]
            self._objects[entry] = found
            return found
        if unit is not None and timeline.units.get(unit) is node:  # a module-level def
            reason = self._traced.get(entry)
            if reason is None or reason.chain()[-1].how != "tf.function(...)":
                found.append((line, timeline.of(unit)))
            for (name, at), (call, wrapped) in timeline.wrappers.items():
                func = call.func.func if isinstance(call.func, ast.Call) else call.func
                if self._resolve(ast_dotted_name(func) or "") == _TF_FUNCTION and any(
                        bound == line for bound, _, _ in timeline.in_force(wrapped, at, at)):
                    found.append((at, timeline.of((name, at))))
        if not found:  # a method, a nested function: from its module-level code onwards
            if unit is not None:
                found.append((None, Times(spans={(timeline.of(unit).bounds()[0], INF)})))
            else:  # made by a module-level statement, perhaps kept on an object
                found.append((None, Times(spans={(line, timeline.holder_rebound(line))})))
        self._objects[entry] = found
        return found

    def _keras_runs(self, entry, reason) -> Optional[List[Tuple[Optional[int], Set[int]]]]:
        """For a method Keras traces (``call``, ``train_step`` …) of a module-level class:
        the lines of the module's runs calling each traced function that runs it, by the
        line making the model object (see ``keras_runs.run_times``), or None."""
        function = self._index.functions.get(entry)
        if (reason is None or not reason.by_keras() or reason.via is not None
                or function is None or function.class_qualname is None
                or "." in function.class_qualname):
            return None
        method = function.qualname[len(function.class_qualname) + 1:]
        return run_times(self._tree, self.timeline(), function.class_qualname, method)

    def before_new_models(self, lines: Iterable[int]) -> bool:
        """Each of ``lines``, module-level statements outside any loop, comes after every
        run of the models made before it (``keras_runs.only_new_models_after``): what
        Keras traced before it is not run again."""
        timeline = self.timeline()
        return all(timeline.unit_at(line) is None and not timeline.in_loop(line)
                   and only_new_models_after(self._tree, timeline, line) for line in lines)

    def _rebinding_times(self, name: str) -> Times:
        """When ``name`` gets a new value: its module-level bindings, and whenever a function
        assigning it under ``global`` may run."""
        timeline = self.timeline()
        times = Times(points=set(self.module.lines.get(name, ())))
        for line in self.module.setters.get(name, ()):
            unit = timeline.unit_at(line)
            if unit is None:
                times.add(spans=[(line, INF)])
                continue
            if not timeline.referenced(unit[0]) and not unit[0].startswith("_"):
                continue  # configuration API nothing here calls: no sign it runs between calls
            unit_times = timeline.of(unit)
            if _directly_in(timeline.units[unit], line):
                times.add(unit_times.points, unit_times.spans)
            else:
                times.add(spans=[(unit_times.bounds()[0], INF)])
        return times

    def _harmful(self, key, name: str) -> Optional[int]:
        """A line rebinding ``name`` while some ``tf.function`` object tracing ``key`` can
        still be called again, or None."""
        rebinding = self._rebinding_times(name)
        timeline = self.timeline()
        for entry in sorted(self.entries().get(key, ()), key=repr):
            for bound, times in self.objects(entry):
                first, last = times.bounds()
                for point in sorted(rebinding.points):
                    if first < point < last or any(
                            times.within(a, z) for a, z in timeline.in_loop(point)
                            if bound is None or not a <= bound <= z):
                        return int(point)
                for start, end in sorted(rebinding.spans):
                    if max(first, start) < min(last, end):
                        return self.module.where.get(name, int(start))
        return None

    def captured(self, key) -> Dict[str, Tuple[str, int]]:
        """Names the traced function ``key`` would read from outside, frozen at trace time,
        though they are rebound while its traces may be reused: name → (GLOBAL or CLOSURE,
        a line that rebinds it). The function's own names and those it declares ``global``
        are left out."""
        if key in self._functions:
            return self._functions[key]
        node = self._index.nodes.get(key)
        found: Dict[str, Tuple[str, int]] = {}
        if node is not None and self.reused(key):
            enclosing = enclosing_functions(self._index, key)
            own = (function_local_names(node) | _declared(node, ast.Global)
                   | _declared(node, ast.Nonlocal))
            shadowed: Set[str] = set(own)
            inner = node
            for outer_key, outer in enclosing:
                scope = self._scope(outer)
                if outer_key not in self._traced:  # a traced owner rebinds while tracing
                    rebound = closure_rebound(outer, scope, inner, self._resolve)
                    for name in scope.local_names - shadowed:
                        if name in rebound:
                            found[name] = (CLOSURE, rebound[name])
                shadowed |= scope.local_names
                inner = outer
            for name in sorted(set(self.module.rebound_after) - shadowed):
                line = self._harmful(key, name)
                if line is not None:
                    found[name] = (GLOBAL, line)
        self._functions[key] = found
        return found

    def passed_objects(self, key, parameter: str) -> Optional[PassedObjects]:
        """What the traced function ``key`` gets for ``parameter``, when that is known: it is
        a module-level ``@tf.function`` def whose binding only module-level calls reach
        (statement order: a call reaches the ``def`` in force there, not a redefinition of
        the name), and each call passes a name bound, at that call, to an instance of a
        class of the module. None otherwise (passed on, wrapped again, called from another
        function or with something else)."""
        if (key, parameter) not in self._passed:
            self._passed[(key, parameter)] = self._passed_objects(key, parameter)
        return self._passed[(key, parameter)]

    def _passed_objects(self, key, parameter: str) -> Optional[PassedObjects]:
        node = self._index.nodes.get(key)
        if not isinstance(node, _FUNCTIONS) or self.entries().get(key) != {key}:
            return None
        made = self.objects(key)
        if len(made) != 1 or made[0][0] != node.lineno:
            return None
        timeline = self.timeline()
        calls = timeline.direct_calls(node.name, node.lineno)
        if not calls:
            return None
        passed: List[Tuple[int, FrozenSet[Tuple[str, int]]]] = []
        classes: Set[str] = set()
        for call in calls:
            argument = _argument(call, node, parameter)
            if not isinstance(argument, ast.Name):
                return None
            objects = set()
            for line, _, _ in timeline.in_force(argument.id, call.lineno, call.lineno):
                cls = self._instance_class(timeline.binding_at(argument.id, line), line)
                if cls is None:
                    return None
                objects.add((argument.id, line))
                classes.add(cls)
            if not objects:
                return None
            passed.append((call.lineno, frozenset(objects)))
        return PassedObjects(tuple(passed), frozenset(classes), node.lineno)

    def _instance_class(self, statement: Optional[ast.AST], line: int) -> Optional[str]:
        """``name = SomeClass(...)``, ``SomeClass`` a module-level class of this module (the
        one in force at ``line``): its qualname."""
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and isinstance(statement.value, ast.Call)
                and isinstance(statement.value.func, ast.Name)):
            return None
        name = statement.value.func.id
        timeline = self.timeline()
        reached = [at for at, _, _ in timeline.in_force(name, line, line)]
        if not reached or not all(isinstance(timeline.units.get((name, at)), ast.ClassDef)
                                  for at in reached):
            return None
        return name if name in self._index.classes else None

    def attribute_change(self, passed: PassedObjects, attribute: str,
                         facts: "AttributeRebinding") -> Optional[int]:
        """A line giving ``attribute`` of the objects in ``passed`` a new Python value while
        the ``tf.function`` object can still be called again with it, or None. A method of
        their classes, or a function, that does so may run at any time; a module-level
        statement matters when the name it writes through is bound, there, to an object that
        a call before it and a call after it pass (or a call in a loop around both)."""
        classes: Set[str] = set()
        for cls in passed.classes:
            classes |= facts.family(cls)
        if any(attribute in facts.tensorflow.get(cls, ()) for cls in classes):
            return None  # some code stores a TensorFlow object there
        by_methods = [facts.by_methods[cls][attribute] for cls in classes
                      if attribute in facts.by_methods.get(cls, {})]
        if by_methods:
            return min(by_methods)
        timeline = self.timeline()
        for name, changed, line in facts.changes:
            if changed != attribute:
                continue
            if timeline.unit_at(line) is not None:  # in a function: it may run at any time
                if facts.instances.get(name) in classes:
                    return line
                continue
            changes = {(name, at) for at, _, _ in timeline.in_force(name, line, line)}
            calls = [at for at, objects in passed.calls if objects & changes]
            loops = [(a, z) for a, z in timeline.in_loop(line) if not a <= passed.bound <= z]
            if any(at < line for at in calls) and any(at > line for at in calls) or any(
                    a <= at <= z for at in calls for a, z in loops):
                return line
        return None

    def _scope(self, function: ast.AST) -> ScopeBindings:
        scope = self._scopes.get(id(function))
        if scope is None:
            scope = self._scopes[id(function)] = scope_bindings(function)
        return scope


def _argument(call: ast.Call, function: ast.AST, parameter: str) -> Optional[ast.expr]:
    """The expression ``call`` passes for ``function``'s ``parameter``, or None (not passed,
    or hidden in ``*args``/``**kwargs``)."""
    args = function.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return None
    if parameter in positional and positional.index(parameter) < len(call.args):
        return call.args[positional.index(parameter)]
    return next((k.value for k in call.keywords if k.arg == parameter), None)


def _directly_in(unit: ast.AST, line: int) -> bool:
    """``line`` is in the function ``unit``'s own body, not in a function nested in it."""
    if not isinstance(unit, _FUNCTIONS):
        return False
    return not any(isinstance(node, _SCOPES) and node is not unit
                   and node.lineno <= line <= node.end_lineno for node in walk_nodes(unit))


def _reused_entry(how: str) -> bool:
    """``@tf.function``, ``tf.function(...)``, ``Keras Model.call()``, a project decorator;
    not a graph API (``Dataset.map(...)``, ``tf.while_loop(...)``, ``strategy.run(...)``)."""
    return how == "tf.function(...)" or not how.endswith("(...)")


def _is_nested(index, key) -> bool:
    function = index.functions.get(key)
    return function is not None and (function.key[0] == "lambda" or "." in function.qualname[
        len(function.class_qualname) + 1 if function.class_qualname else 0:])


def _declared(function: ast.AST, kind) -> FrozenSet[str]:
    if isinstance(function, ast.Lambda):
        return frozenset()
    names: Set[str] = set()
    for statement in _scope_statements(function.body):
        if isinstance(statement, kind):
            names.update(statement.names)
    return frozenset(names)


# -- attributes ---------------------------------------------------------------------------------
#: Methods that set an object up: attributes assigned there only are the object's fixed
#: configuration. So are the lazy builders Keras layers call once (``_build_from_signature``)
#: and the hooks Keras runs while it loads a saved model, before the model is used.
SETUP_METHODS = frozenset({"__init__", "__new__", "__post_init__", "__setstate__", "build",
                           "setUp", "load_assets", "load_own_variables", "build_from_config",
                           "compile_from_config"})
#: ``build``, ``_build_from_signature``, and a base class's build hook for its subclasses
#: (``subclass_build``, ``_on_build``): set-up, whatever comes before the word.
_BUILDER = lazy_compile(r"(?:\w*_)?_*build")
#: How many calls deep set-up is followed from the set-up methods.
_SETUP_DEPTH = 4
_TF_PREFIXES = ("tensorflow.", "keras.")
#: Methods that create TensorFlow state on a Keras layer or a tf.Module.
_STATE_FACTORIES = frozenset({"add_weight", "add_variable", "add_loss", "add_metric"})
_PYTHON_SCALARS = (int, float, str, bool, bytes, complex)
#: The methods of :data:`_STATE_FACTORIES` that add variables.
_VARIABLE_FACTORIES = frozenset({"add_weight", "add_variable"})
#: Methods run on each call of the object, which may be traced.
_PER_CALL_METHODS = frozenset({"__call__", *KERAS_GRAPH_METHODS})


@dataclass
class AttributeRebinding:
    """Attributes that code of the module reassigns with plain Python values."""

    rebound: Dict[str, Dict[str, int]] = field(default_factory=dict)
    """Class qualname → attribute → a line that reassigns it with a Python value, outside
    the set-up methods (``__init__``, ``build`` …), ``with tf.init_scope():`` and lazy
    initialisation (``once``)."""
    tensorflow: Dict[str, Set[str]] = field(default_factory=dict)
    """Class qualname → attributes that some code assigns a TensorFlow object."""
    instances: Dict[str, str] = field(default_factory=dict)
    """Name → class qualname, for ``name = SomeClass(...)`` anywhere in the module."""
    bases: Dict[str, List[str]] = field(default_factory=dict)
    """Class qualname → its base classes defined in the module."""
    once: Dict[str, Dict[str, int]] = field(default_factory=dict)
    """Class qualname → attribute → a line that sets it once, while it is still unset:
    under ``if not self.x:`` / ``if self.x is None:``, or in a method called only there
    (and from set-up methods). A one-way flag, not state that changes."""
    writers: Dict[str, Dict[str, Set[str]]] = field(default_factory=dict)
    """Class qualname → method → attributes of ``self`` it assigns in its own body."""
    by_methods: Dict[str, Dict[str, int]] = field(default_factory=dict)
    """The part of ``rebound`` made by the class's own methods: class qualname → attribute
    → a line."""
    changes: List[Tuple[str, str, int]] = field(default_factory=list)
    """(name, attribute, line) of each Python value assigned to ``name.attribute`` outside
    a class's methods (``simple_model.bias += 5.0``), whatever ``name`` is bound to."""

    def attributes(self) -> FrozenSet[str]:
        """Attributes some class gets a Python value for (another class may hold a
        TensorFlow object under the same name: which one a parameter is depends on the
        calls)."""
        return frozenset(a for attrs in self.rebound.values() for a in attrs)

    def family(self, cls: str) -> Set[str]:
        """``cls`` with its ancestors and descendants defined in the module."""
        found = {cls}
        stack = [cls]
        while stack:
            for base in self.bases.get(stack.pop(), ()):
                if base not in found:
                    found.add(base)
                    stack.append(base)
        changed = True
        while changed:
            changed = False
            for child, bases in self.bases.items():
                if child not in found and found.intersection(bases):
                    found.add(child)
                    changed = True
        return found

    def rebound_in(self, classes: Iterable[str], attribute: str) -> Optional[int]:
        """A line that reassigns ``attribute`` of one of ``classes`` with a Python value, or
        None (also when some code stores a TensorFlow object there)."""
        classes = list(classes)
        if any(attribute in self.tensorflow.get(cls, ()) for cls in classes):
            return None
        lines = [self.rebound[cls][attribute] for cls in classes
                 if attribute in self.rebound.get(cls, {})]
        return min(lines) if lines else None

    def rebound_anywhere(self, attribute: str) -> Optional[int]:
        return self.rebound_in(set(self.rebound) | set(self.tensorflow), attribute)

    def assigns(self, classes: Iterable[str], method: str, attribute: str) -> bool:
        """Method ``method`` of one of ``classes`` assigns ``self.<attribute>``."""
        return any(attribute in self.writers.get(cls, {}).get(method, ()) for cls in classes)


def attribute_rebinding(context) -> AttributeRebinding:
    """Computed once per file: ``context.fact("attribute-rebinding", attribute_rebinding)``."""
    index = context.graph.index
    by_line = {cls.first_line: qualname for qualname, cls in index.classes.items()}
    result = AttributeRebinding()
    for qualname, cls in index.classes.items():
        result.bases[qualname] = [base[1] for base in cls.bases
                                  if base[0] == "class" and base[1] in index.classes]
    walker = _AttributeWalker(result, by_line, context.names.resolve,
                              {q for q in index.classes if "." not in q})
    walker.walk(context.tree.body, _Where())
    for name, attribute, line, kind in walker.outside:
        if kind == _PYTHON:
            result.changes.append((name, attribute, line))
        owner = result.instances.get(name)
        if owner is not None:
            walker.record(owner, attribute, line, kind, setup=False, outside=True)
    walker.settle(context.tree, context.text)
    return result


_TF, _PYTHON, _OTHER = "tensorflow", "python", "other"


@dataclass(frozen=True)
class _Where:
    """Where the walker is: class, how its methods name ``self``, method, and more."""

    cls: Optional[str] = None
    self_name: Optional[str] = None
    method: Optional[str] = None
    init_scope: bool = False
    direct: bool = False
    """In the method's own body, not in a function nested in it."""
    unset: FrozenSet[str] = frozenset()
    """Attributes of ``self`` that enclosing ``if`` tests say are still unset."""
    function: Optional[ast.AST] = None
    """The innermost function the walker is in, for the values of its local names."""
    reshapes: "Union[bool, _Reshapes]" = False
    """In a method that changes which variables the object has or trains
    (:func:`changes_variables`)."""

    @property
    def setup(self) -> bool:
        return is_setup_method(self.method) or bool(self.reshapes)


class _Reshapes:
    """``changes_variables(method, self_name)``, worked out the first time it is asked:
    most methods assign no attribute that needs it."""

    __slots__ = ("method", "self_name", "value")

    def __init__(self, method: ast.AST, self_name: Optional[str]):
        self.method, self.self_name, self.value = method, self_name, None

    def __bool__(self) -> bool:
        if self.value is None:
            self.value = changes_variables(self.method, self.self_name)
        return self.value


def is_setup_method(method: Optional[str]) -> bool:
    """A method that sets an object up (``__init__``, ``build``, ``_build_from_signature``)."""
    return method in SETUP_METHODS or bool(method and _BUILDER.match(method))


@dataclass(frozen=True)
class _Write:
    """A Python value assigned to ``self.<attribute>`` in ``method``'s own body, outside
    the set-up methods and not under a test saying the attribute is unset."""

    cls: str
    attribute: str
    line: int
    method: Optional[str]
    """The method, when the write is in its own body and not an augmented assignment."""
    reads: FrozenSet[str] = frozenset()
    """Attributes of ``self`` that the value computes with (``1 / self.std``): a write of
    TensorFlow objects when one of them holds one (``self.std = tf.math.reduce_std(x)``)."""


class _AttributeWalker:
    def __init__(self, result: AttributeRebinding, by_line, resolve, top_classes):
        self.result = result
        self.by_line = by_line
        self.resolve = resolve
        self.top_classes = top_classes
        self.outside: List[Tuple[str, str, int, str]] = []
        self.writes: List[_Write] = []
        self.calls: Dict[str, List[Tuple[str, Optional[str], FrozenSet[str]]]] = {}
        """method → (caller's class, the calling method when called in its own body, the
        attributes known unset there) of each ``self.method(...)``."""
        self.references: Dict[str, int] = {}
        self.lines: Optional[List[int]] = None
        """Lines of the module that mention one of the methods ``settle`` looks for."""
        self.scoped: Set[int] = set()
        """Lines of flags set for the span of one call and set back after it."""
        self.class_nodes: Dict[str, ast.ClassDef] = {}

    def walk(self, body, where: "_Where", calls: FrozenSet[str] = frozenset()) -> None:
        """Records attribute assignments; with ``calls`` (method names), the references
        to those methods instead."""
        if not calls and where.self_name is not None and where.method == "__call__":
            # Only in ``__call__``, which every call of the object passes through: a flag
            # set around ``self.step(x)`` in ``train()`` is stale when ``predict()`` calls
            # the same traced step without it.
            self.scoped.update(set_around_a_call(body, where.self_name))
        elif not calls and where.self_name is not None:
            # Around an export, in any method: its traces are the export's to see.
            self.scoped.update(set_around_a_call(body, where.self_name, exports))
        for node in body:
            if calls:
                if not self._mentions(node, node.end_lineno):
                    continue
                self._references(node, where, calls)
            if isinstance(node, ast.ClassDef):
                if not calls:
                    self.scoped.update(set_around_keras_runs(node))
                qualname = self.by_line.get(node.lineno)
                if qualname is not None:
                    self.class_nodes[qualname] = node
                self.walk(node.body, _Where(cls=qualname), calls)
                continue
            if isinstance(node, _FUNCTIONS):
                params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
                if where.cls is not None and where.method is None:  # a method of ``cls``
                    static = any(ast_dotted_name(d) == "staticmethod"
                                 for d in node.decorator_list)
                    self_name = None if static or not params else params[0]
                    inner = _Where(where.cls, self_name, node.name, where.init_scope, True,
                                   function=node,
                                   reshapes=_Reshapes(node, self_name))
                else:
                    inner = _Where(where.cls,
                                   None if where.self_name in params else where.self_name,
                                   where.method or node.name, where.init_scope, False,
                                   function=node, reshapes=where.reshapes)
                self.walk(node.body, inner, calls)
                continue
            if isinstance(node, (ast.With, ast.AsyncWith)):
                escapes = where.init_scope or any(
                    isinstance(item.context_expr, ast.Call)
                    and self.resolve(ast_dotted_name(item.context_expr.func) or "")
                    == "tensorflow.init_scope" for item in node.items)
                self.walk(node.body, _replace(where, init_scope=escapes), calls)
                continue
            if isinstance(node, ast.If):
                prefix = f"{where.self_name}."
                tested = init_targets(node.test, certain=True)
                unset = frozenset(name[len(prefix):] for name in tested
                                  if where.self_name and name.startswith(prefix)
                                  and "." not in name[len(prefix):])
                self.walk(node.body, _replace(where, unset=where.unset | unset), calls)
                self.walk(node.orelse, where, calls)
                continue
            if not calls:
                self._statement(node, where)
            inner = (_replace(where, unset=frozenset())
                     if where.unset and isinstance(node, _LOOPS) else where)
            for block in ("body", "orelse", "finalbody"):
                self.walk(getattr(node, block, None) or (), inner, calls)
            for handler in getattr(node, "handlers", None) or ():
                self.walk(handler.body, where, calls)
            for case in getattr(node, "cases", None) or ():
                self.walk(case.body, where, calls)

    def _statement(self, node, where: "_Where") -> None:
        if isinstance(node, ast.Assign):
            pairs = [pair for target in node.targets for pair in _pairs(target, node.value)]
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            pairs = [(node.target, node.value)]
        else:
            return
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name)
                and node.value.func.id in self.top_classes):
            self.result.instances[node.targets[0].id] = node.value.func.id
        cls = where.cls
        for target, value in pairs:
            if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
                continue
            name = target.value.id
            kind = self._kind(value, None if isinstance(node, ast.AugAssign) else target,
                              where.function)
            if kind == _OTHER and _updates_in_place(node) and not _set_before(
                    where.function, target, node.lineno):
                kind = _PYTHON
            if kind == _OTHER and name == where.self_name and self._evolving_method_value(
                    value, cls, name):
                kind = _PYTHON
            if cls is not None and name == where.self_name and where.direct:
                self.result.writers.setdefault(cls, {}).setdefault(
                    where.method, set()).add(target.attr)
            if where.init_scope and kind != _TF:
                continue
            if cls is not None and name == where.self_name:
                if kind == _PYTHON and node.lineno in self.scoped:
                    continue  # set for the span of one call (``set_around_a_call``)
                if kind != _PYTHON or where.setup:
                    self.record(cls, target.attr, node.lineno, kind, setup=where.setup)
                    continue
                once = not isinstance(node, ast.AugAssign)
                if once and target.attr in where.unset:
                    self.result.once.setdefault(cls, {}).setdefault(target.attr, node.lineno)
                    continue
                self.writes.append(_Write(
                    cls, target.attr, node.lineno,
                    where.method if once and where.direct else None,
                    frozenset(leaf.attr for leaf in walk_nodes(value)
                              if isinstance(leaf, ast.Attribute)
                              and isinstance(leaf.value, ast.Name) and leaf.value.id == name)
                    if isinstance(value, (ast.BinOp, ast.UnaryOp)) else frozenset()))
            elif name not in ("self", "cls"):
                self.outside.append((name, target.attr, node.lineno, kind))

    def record(self, cls: str, attribute: str, line: int, kind: str, setup: bool,
               outside: bool = False) -> None:
        if kind == _TF:
            self.result.tensorflow.setdefault(cls, set()).add(attribute)
        elif kind == _PYTHON and not setup:
            tables = [self.result.rebound]
            if not outside:
                tables.append(self.result.by_methods)
            for table in tables:
                found = table.setdefault(cls, {})
                found[attribute] = min(found.get(attribute, line), line)

    def settle(self, tree: ast.Module, text: Optional[str] = None) -> None:
        """Files the writes: one made by a method that is only ever called while the
        attribute is unset (or from set-up methods) is a lazy initialisation."""
        candidates = frozenset(w.method for w in self.writes if w.method is not None)
        setup: Set[str] = set()
        """Methods called only from set-up methods, or from such methods in turn
        (``__init__`` → ``_setup()`` → ``_setup_model()``)."""
        for _ in range(_SETUP_DEPTH):
            self._walk_calls(tree, text, candidates)
            callers = {caller for method in candidates for _, caller, _ in
                       self.calls.get(method, ()) if caller is not None
                       and not is_setup_method(caller) and caller not in setup}
            found = {method for method in candidates if self._only_in_setup(method, setup)}
            if found <= setup and callers <= candidates:
                break
            setup |= found
            candidates |= callers
        writes = self.writes
        while True:  # arithmetic on TensorFlow values (``1 / self.std``) makes one too
            tensorflow = self.result.tensorflow
            found = [w for w in writes
                     if any(read in tensorflow.get(w.cls, ()) for read in w.reads)]
            if not found:
                break
            for write in found:
                self.record(write.cls, write.attribute, write.line, _TF, setup=False)
            writes = [w for w in writes if w not in found]
        for write in writes:
            calls = self.calls.get(write.method or "", [])
            family = self.result.family(write.cls)
            # Calls on another class's ``self`` reach that class's method of the same name.
            own = [None if caller is not None and (is_setup_method(caller) or caller in setup)
                   else unset for cls, caller, unset in calls if cls in family]
            if own and len(calls) == self.references.get(write.method or "", 0) and all(
                    unset is None or write.attribute in unset for unset in own):
                self.result.once.setdefault(write.cls, {}).setdefault(
                    write.attribute, write.line)
            else:
                self.record(write.cls, write.attribute, write.line, _PYTHON, setup=False)

    def _walk_calls(self, tree: ast.Module, text: Optional[str], methods: FrozenSet[str]
                    ) -> None:
        """Counts the references to ``methods`` and notes their calls on ``self``."""
        self.calls, self.references, self.lines = {}, {}, None
        if methods and text is not None:  # only lines that mention ``.method``
            pattern = re.compile(r"\.\s*(?:%s)\b" % "|".join(map(re.escape, sorted(methods))))
            self.lines = sorted({text.count("\n", 0, match.start()) + 1
                                 for match in pattern.finditer(text)})
            methods = methods if self.lines else frozenset()
        if methods:
            self.walk(tree.body, _Where(), methods)

    def _only_in_setup(self, method: str, setup: Set[str]) -> bool:
        """Every reference to ``method`` is a call on ``self`` from a set-up method."""
        calls = self.calls.get(method, [])
        return bool(calls) and len(calls) == self.references.get(method, 0) and all(
            caller is not None and (is_setup_method(caller) or caller in setup)
            for _, caller, _ in calls)

    def _references(self, node: ast.stmt, where: "_Where", methods: FrozenSet[str]) -> None:
        """Counts the references to ``methods`` in ``node`` (its own expressions), and notes
        the calls ``self.method(...)``: the caller's class, and the attributes known unset
        there (``None`` in a set-up method)."""
        compound = hasattr(node, "body")
        if not self._mentions(node, node.body[0].lineno - 1 if compound and node.body
                              else node.end_lineno):
            return
        if compound:
            roots = [child for child in child_nodes(node)
                     if isinstance(child, (ast.expr, ast.arguments, ast.withitem,
                                           ast.keyword))]
        else:
            roots = [node]
        stack = [(root, False) for root in roots]
        while stack:
            child, deferred = stack.pop()
            if isinstance(child, ast.Attribute) and child.attr in methods:
                self.references[child.attr] = self.references.get(child.attr, 0) + 1
            if (not deferred and isinstance(child, ast.Call)
                    and isinstance(child.func, ast.Attribute) and child.func.attr in methods
                    and isinstance(child.func.value, ast.Name)
                    and where.cls is not None and where.self_name is not None
                    and child.func.value.id == where.self_name):
                self.calls.setdefault(child.func.attr, []).append(
                    (where.cls, where.method if where.direct else None, where.unset))
            deferred = deferred or isinstance(child, ast.Lambda)  # may run later
            stack.extend((grandchild, deferred) for grandchild in child_nodes(child))

    def _mentions(self, node: ast.stmt, last: int) -> bool:
        """Lines from ``node``'s first (decorators included) to ``last`` mention one of the
        methods ``settle`` looks for (always true when the text is not known)."""
        if self.lines is None:
            return True
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
        at = bisect.bisect_left(self.lines, first)
        return at < len(self.lines) and self.lines[at] <= max(first, last)

    def _evolving_method_value(self, value: ast.expr, cls: Optional[str],
                               self_name: str) -> bool:
        """``self.method()``, a method of ``cls`` whose every return is a Python value
        computed from state the class updates in place (``self.step += 1``): a value that
        moves on from call to call (a cosine schedule of ``self.global_step``)."""
        node = self.class_nodes.get(cls or "")
        if not (node is not None and isinstance(value, ast.Call) and not value.args
                and not value.keywords and isinstance(value.func, ast.Attribute)
                and isinstance(value.func.value, ast.Name)
                and value.func.value.id == self_name):
            return False
        method = next((item for item in node.body if isinstance(item, _FUNCTIONS)
                       and item.name == value.func.attr), None)
        if method is None or not method.args.args:
            return False
        own = method.args.args[0].arg
        returns = [n.value for n in own_nodes(method.body)
                   if isinstance(n, ast.Return) and n.value is not None]
        if not returns or not all(_python_value(r, _Locals(method, self.resolve))
                                  for r in returns):
            return False
        read = {n.attr for n in own_nodes(method.body)
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                and n.value.id == own and isinstance(n.ctx, ast.Load)}
        return bool(read & _updated_in_place(node))

    def _kind(self, value: ast.expr, target: Optional[ast.Attribute] = None,
              function: Optional[ast.AST] = None) -> str:
        """What ``value`` stores: a TensorFlow object, a Python value, or other. A value
        computed by calls or from local names (``min(self.size + n, limit)``) counts as
        Python only when it updates ``target`` from its own old value: state that evolves
        call after call, not a value set once from a configuration."""
        if isinstance(value, ast.Call):
            func = value.func
            qualified = self.resolve(ast_dotted_name(func) or "") or ""
            if qualified.startswith(_TF_PREFIXES) or (
                    isinstance(func, ast.Attribute) and func.attr in _STATE_FACTORIES):
                return _TF
        if _python_value(value):
            return _PYTHON
        if target is not None and _reads(value, target) and _python_value(
                value, _Locals(function, self.resolve)):
            return _PYTHON
        return _OTHER


def _replace(where: "_Where", init_scope: Optional[bool] = None,
             unset: Optional[FrozenSet[str]] = None) -> "_Where":
    return _Where(where.cls, where.self_name, where.method,
                  where.init_scope if init_scope is None else init_scope, where.direct,
                  where.unset if unset is None else unset, where.function, where.reshapes)


def changes_variables(method: ast.AST, self_name: Optional[str]) -> bool:
    """A method, other than one Keras or a call of the object runs on each call, that adds
    variables to the object (``self.add_weight(...)``) or changes which variables train
    (``layer.trainable = False``): LoRA's ``enable_lora()``, a ``freeze()``. The object
    has to be traced again after it (Keras says to call ``compile()`` again once
    ``trainable`` changes, and ``compile()`` drops the traced step; a training step that
    kept its old trace would also keep the old list of variables to train), so a flag the
    method sets is part of the new configuration, as if set in ``build``."""
    if self_name is None or method.name in _PER_CALL_METHODS:
        return False
    stack = list(method.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in _VARIABLE_FACTORIES
                and isinstance(node.func.value, ast.Name) and node.func.value.id == self_name):
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and any(
                isinstance(target, ast.Attribute) and target.attr == "trainable"
                for target in getattr(node, "targets", None) or [node.target]):
            return True
        stack.extend(child_nodes(node))
    return False


#: Operators of ``x op= y`` that compute a new value from the old one.
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


def _updates_in_place(node: ast.stmt) -> bool:
    """``self.beta /= self.factor``, ``self.steps += n``: arithmetic that computes the new
    value from the old, state that evolves from call to call whatever it is given. A trace
    keeps what it read, a Python number or the eager tensor it captured, so the update
    is as frozen as any reassignment. Not ``self.items += [x]``, which extends a list."""
    return (isinstance(node, ast.AugAssign) and isinstance(node.op, _ARITHMETIC)
            and not isinstance(node.value, (ast.List, ast.Tuple, ast.ListComp, ast.Dict,
                                            ast.Set, ast.DictComp, ast.SetComp,
                                            ast.GeneratorExp)))


def _set_before(function: Optional[ast.AST], target: ast.Attribute, line: int) -> bool:
    """The function assigns ``target`` (``self.count = ...``) before ``line`` in its own
    code: an update in place after it builds the value up within one call, from what the
    call set (``self.count = len(a)``, then ``self.count += len(b)``)."""
    if function is None:
        return False
    dotted = ast_dotted_name(target)
    stack = list(getattr(function, "body", ()))
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if (isinstance(node, (ast.Assign, ast.AnnAssign)) and node.lineno < line
                and any(ast_dotted_name(t) == dotted for t in
                        (node.targets if isinstance(node, ast.Assign) else [node.target]))):
            return True
        stack.extend(child for child in child_nodes(node) if isinstance(child, ast.stmt))
    return False


def _pairs(target: ast.expr, value: ast.expr) -> Iterator[Tuple[ast.expr, ast.expr]]:
    """(target, value) pairs of one assignment, unpacking ``a, b = 1, 2``."""
    if isinstance(target, (ast.Tuple, ast.List)):
        for inner, inner_value in zip(target.elts, element_values(target, value)):
            if inner_value is not None:
                yield from _pairs(inner, inner_value)
        return
    yield target, value


_PYTHON_RESULTS = frozenset({"builtins.len", "builtins.int", "builtins.float", "builtins.bool"})
"""Builtins whose result is a Python scalar whatever they are given."""
_PYTHON_CHOICES = frozenset({"builtins.min", "builtins.max"})
"""Builtins that return one of their arguments: Python when those are."""


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


class _Locals:
    """The values of a function's local names that its body binds once, by a plain
    ``name = value`` in its own statements (parameters and names bound otherwise have no
    value), and how the module resolves names."""

    def __init__(self, function: Optional[ast.AST], resolve):
        self.function = function
        self.resolve = resolve
        self.seen: Set[str] = set()

    def value(self, name: str) -> Optional[ast.expr]:
        if self.function is None or name in self.seen:
            return None
        values = self.function.__dict__.get("_single_values")
        if values is None:
            values = self.function._single_values = _single_values(self.function)
        return values.get(name)


def _single_values(function: ast.AST) -> Dict[str, ast.expr]:
    counts: Dict[str, int] = {}
    values: Dict[str, ast.expr] = {}
    stack = list(function.body) if isinstance(function.body, list) else [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue  # a nested def, lambda or class binds in its own scope
        stack.extend(child_nodes(node))
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Name):
            values[node.targets[0].id] = node.value
    params = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
    return {name: value for name, value in values.items()
            if counts.get(name) == 1 and name not in params}


def _updated_in_place(cls: ast.ClassDef) -> Set[str]:
    """Attributes that methods of ``cls`` update in place on their first parameter
    (``self.step += 1``)."""
    found: Set[str] = set()
    for method in cls.body:
        if not isinstance(method, _FUNCTIONS) or not method.args.args:
            continue
        own = method.args.args[0].arg
        for node in own_nodes(method.body):
            if (isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Attribute)
                    and isinstance(node.target.value, ast.Name)
                    and node.target.value.id == own):
                found.add(node.target.attr)
    return found


def _python_value(node: ast.expr, names: Optional[_Locals] = None) -> bool:
    """A plain Python scalar: a literal (not ``None``), an f-string, ``not x``, or arithmetic
    on literals and attributes (``self.bias + 5.0``); with ``names``, also ``len``, ``int``,
    ``float`` or ``bool`` of anything, ``min``/``max`` of such values, and local names bound
    once to one (``n = len(batch)``)."""
    if isinstance(node, ast.Constant):
        return node.value is not None and isinstance(node.value, _PYTHON_SCALARS)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.Not) or _python_value(node.operand, names)
    if isinstance(node, ast.BinOp):
        return _python_leaves(list(_leaves(node)), names)
    if names is None:
        return False
    if isinstance(node, ast.Call) and not node.keywords and not any(
            isinstance(arg, ast.Starred) for arg in node.args):
        qualified = names.resolve(ast_dotted_name(node.func) or "") or ""
        if qualified in _PYTHON_RESULTS or qualified.startswith("math."):
            return True  # (``math``'s functions return Python numbers too)
        return qualified in _PYTHON_CHOICES and len(node.args) > 1 and _python_leaves(
            node.args, names)
    if isinstance(node, ast.Name):
        value = names.value(node.id)
        if value is None:
            return False
        names.seen.add(node.id)
        try:
            return _python_value(value, names)
        finally:
            names.seen.discard(node.id)
    return False


def _reads(value: ast.expr, target: ast.Attribute) -> bool:
    """``value`` reads the attribute ``target`` assigns (``obj.size`` in ``obj.size = ...``)."""
    obj = target.value.id
    return any(isinstance(node, ast.Attribute) and node.attr == target.attr
               and isinstance(node.value, ast.Name) and node.value.id == obj
               for node in walk_nodes(value))


def _python_leaves(leaves: List[ast.expr], names: Optional[_Locals]) -> bool:
    """Operands that are Python values or attributes of a name, at least one a Python
    value."""
    python = [leaf for leaf in leaves if _python_value(leaf, names)]
    return bool(python) and all(
        isinstance(leaf, ast.Attribute) and isinstance(leaf.value, ast.Name)
        for leaf in leaves if leaf not in python)


def _leaves(node: ast.expr) -> Iterator[ast.expr]:
    if isinstance(node, ast.BinOp):
        yield from _leaves(node.left)
        yield from _leaves(node.right)
    elif isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        yield from _leaves(node.operand)
    else:
        yield node
