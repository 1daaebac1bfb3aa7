"""Call sites of the module's ``tf.function`` objects, and what kind of Python value each
argument is.

A ``tf.function`` specialises its graph on the Python values it is called with: every new
Python number is a new trace, a Python list is unrolled into the graph, a Python iterator is
consumed once, while tracing. This module finds, from the module's ``ast``:

* the *traced callables*: defs decorated with ``tf.function``, ``name = tf.function(f)``,
  ``self.name = tf.function(self._f)``; with their parameters and whether an
  ``input_signature`` pins their arguments to tensors;
* their *call sites* outside graph context, and what each argument is: a loop variable over
  ``range`` or a list of numbers (``varying``), a number literal (``literal``), a Python
  list/tuple of constants (``data``), a Python iterator or generator (``iterator``), or
  anything else (unknown, never reported). A bool takes two values at most, so two traces
  by design (a mode flag such as ``training``): a loop over ``(True, False)``, a comparison,
  ``not x`` or ``bool(x)`` is never ``varying``, and ``True``/``False`` literals do not
  count as distinct values (TFF401 reports a parameter only for distinct numbers).

Rules report at a call site by counting, in source order, the calls whose callee is spelled
as one of ``CallSites.spellings`` (see :class:`CallSiteReporter`): LibCST visits them in the
same order as the sorted ``ast`` positions. The whole analysis is one ``context.fact``, shared
by TFF401, TFF403 (module scope) and TFF106 (traced scope).
"""

from __future__ import annotations

import ast
import bisect
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterator, List, Optional, Set, Tuple

from .lazy_libcst import cst

from .module_index import TF_FUNCTION, FunctionKey, def_key, is_main_guard, iter_statements
from .guards import flag_tests
from .names import ast_dotted_name, dotted_name, own_nodes
from .source_lines import SourceLines, tf_function_lines
from .ast_walk import child_nodes, walk_nodes

FACT = "call_sites"

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# Not bool(): it gives two values at most, two traces by design (a mode flag).
_NUMBER_FUNCTIONS = frozenset({"builtins.int", "builtins.float", "builtins.abs",
                               "builtins.round", "builtins.min", "builtins.max"})
_ITERATOR_FUNCTIONS = frozenset({"builtins.map", "builtins.filter", "builtins.zip",
                                 "builtins.enumerate", "builtins.reversed"})
_SEQUENCE_FUNCTIONS = frozenset({"builtins.list", "builtins.tuple", "builtins.sorted"})
_ITERATING_WRAPPERS = frozenset({"enumerate", "zip", "reversed", "sorted", "list", "tuple"})
#: Of those, as called on data: what they give is data too.
_DATA_WRAPPERS = frozenset(f"builtins.{name}" for name in _ITERATING_WRAPPERS)
_MAX_DEPTH = 4

Slot = Tuple[str, object]
"""Where an argument sits in a call: ("pos", index) or ("kw", name)."""

VARYING, LITERAL, DATA, ITERATOR = "varying", "literal", "data", "iterator"
OPTIMIZER = "optimizer"
"""A Keras optimizer the module makes (``opt = tf.keras.optimizers.Adam()``), its value
the spelling and the line that makes it: one object."""


@dataclass(eq=False)
class TracedCallable:
    """A name that refers to a ``tf.function`` object in some part of the module."""

    spelling: str
    """How calls spell it: ``step`` or ``self.step``."""
    owner: Optional[ast.AST]
    """Where the spelling means this object: a class (``self.x``), a function (nested), or
    None for the whole module."""
    function: Optional[ast.AST]
    """The def (or lambda) that is traced, when the module holds it."""
    skip_first: bool
    """Called as a bound method: the def's first parameter is not passed."""
    input_signature: bool
    line: int = 0
    """Where the name is bound to it (a script may bind the name again later)."""
    forwards: Optional[Dict[str, Tuple[str, str]]] = None
    """For a plain function that passes some of its parameters on, unchanged, to a
    ``tf.function`` (``def fit_epoch(ds, epoch): ... step(x, epoch)``): each such
    parameter → (the ``tf.function``'s spelling, its parameter). None for a tf.function."""

    @property
    def key(self) -> Optional[FunctionKey]:
        if isinstance(self.function, _FUNCTIONS):
            return def_key(self.function.lineno, self.function.name)
        return None

    def positional(self) -> List[str]:
        if self.function is None:
            return []
        args = self.function.args
        names = [a.arg for a in (*args.posonlyargs, *args.args)]
        return names[1:] if self.skip_first else names

    def parameter(self, slot: Slot) -> Optional[str]:
        """The parameter an argument binds, or None when it cannot be told."""
        kind, where = slot
        if self.function is None:
            return f"argument {where + 1}" if kind == "pos" else str(where)
        if kind == "pos":
            names = self.positional()
            return names[where] if where < len(names) else None
        args = self.function.args
        every = {a.arg for a in (*args.args, *args.kwonlyargs)}
        return str(where) if where in every else None

    def iterated(self) -> FrozenSet[str]:
        """Parameters the traced body iterates with a Python ``for`` (or a comprehension)."""
        if not isinstance(self.function, _FUNCTIONS):
            return frozenset()
        parameters = set(self.positional()) | {a.arg for a in self.function.args.kwonlyargs}
        found = set()
        for node in own_nodes(self.function.body):
            if isinstance(node, (*_LOOPS, ast.comprehension)):
                found.update(_iterated_names(node.iter) & parameters)
        return frozenset(found)

    def selectors(self) -> FrozenSet[str]:
        """Parameters the traced body uses to pick an element of a Python sequence: of
        another parameter it iterates with a Python loop (``variables[layer]`` where ``for m
        in zip(..., variables)``), or of an attribute the class sets to a list or tuple
        (``self.heads[task]``, ``self.heads = [...]``). A tensor cannot index a Python
        list: the number must stay a Python number, and each value, which picks another
        object, traces a graph of its own by design. Found once per callable."""
        known = self.__dict__.get("_selectors")
        if known is None:
            known = self.__dict__["_selectors"] = self._selectors()
        return known

    def switches(self) -> FrozenSet[str]:
        """Parameters the traced body uses only as the test of a Python ``if`` (``if
        flag:``, ``if not flag:``; as ``guards.flag_tests`` reads flags): a mode switch,
        which an int 0 or 1 spells as well as a bool; one graph per mode, by design."""
        if not isinstance(self.function, _FUNCTIONS):
            return frozenset()
        parameters = frozenset(self.positional()) | {a.arg for a in self.function.args.kwonlyargs}
        in_tests: Counter = Counter()
        for node in own_nodes(self.function.body):
            if isinstance(node, (ast.If, ast.IfExp)):
                for name in flag_tests(node.test, parameters):
                    in_tests[name] += sum(1 for n in walk_nodes(node.test)
                                          if isinstance(n, ast.Name) and n.id == name)
        uses = Counter(node.id for node in own_nodes(self.function.body)
                       if isinstance(node, ast.Name) and node.id in parameters)
        return frozenset(name for name, count in in_tests.items() if uses[name] == count)

    def _selectors(self) -> FrozenSet[str]:
        if not isinstance(self.function, _FUNCTIONS):
            return frozenset()
        parameters = set(self.positional()) | {a.arg for a in self.function.args.kwonlyargs}
        sequences = set(self.iterated())
        attributes = _list_attributes(self.owner) if isinstance(self.owner, ast.ClassDef) \
            else frozenset()
        found = set()
        for node in own_nodes(self.function.body):
            if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name)
                    and node.slice.id in parameters):
                continue
            value = node.value
            if isinstance(value, ast.Name) and value.id in sequences or (
                    isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)
                    and value.value.id == "self" and value.attr in attributes):
                found.add(node.slice.id)
        return frozenset(found)


@dataclass
class Argument:
    """One argument at one call site, with what kind of Python value it is."""

    callee: TracedCallable
    parameter: str
    slot: Slot
    kind: str
    value: object
    line: int
    straight: bool = False
    """The call is a statement of the module's own straight-line code (no function, loop,
    branch or short-circuit around it): it runs, once, in source (cell) order."""
    objects: Tuple[Tuple[object, str], ...] = ()
    """The call's other arguments that are Python objects, each traced apart: literals,
    and the module's functions and classes (``random_apply(color_drop, p=0.2)``), by slot."""
    branches: Tuple[Tuple[int, bool], ...] = ()
    """The ``if`` statements around the call, each as (its line, in its body rather than
    its ``else``): two calls that one ``if`` puts in different branches never both run."""

    def exclusive(self, other: "Argument") -> bool:
        """This call and ``other`` are in different branches of one ``if``."""
        mine = dict(self.branches)
        return any(line in mine and mine[line] != body for line, body in other.branches)


@dataclass
class CallSites:
    """The module's traced callables, their call sites and the findings at them."""

    spellings: FrozenSet[str] = frozenset()
    findings: Dict[int, List[Tuple[str, Slot, str]]] = field(default_factory=dict)
    """Ordinal of a call (in source order, among calls spelled as ``spellings``) →
    (code, argument slot, message)."""
    positions: List[Tuple[int, int]] = field(default_factory=list)
    """(line, column) of each of those calls, in source order: a walk of the lines from
    some line on starts counting at the first of them there."""
    iterators: Dict[FunctionKey, Dict[str, str]] = field(default_factory=dict)
    """Traced function → parameter → the Python iterator a call site passes to it."""
    arguments: List[Argument] = field(default_factory=list)

    def optimizers(self, key: FunctionKey, parameter: str) -> List[Argument]:
        """Two calls of the traced function ``key`` that pass different Keras optimizers
        the module makes for ``parameter``, the first two found in source order that can
        both run; empty when there are none."""
        passed = [a for a in self.arguments if a.kind == OPTIMIZER
                  and a.parameter == parameter and a.callee.key == key]
        for index, first in enumerate(passed):
            for second in passed[index + 1:]:
                if second.value != first.value and not first.exclusive(second):
                    return [first, second]
        return []

    def codes(self) -> Set[str]:
        return {code for found in self.findings.values() for code, _, _ in found}


def call_sites(context) -> CallSites:
    """The ``context.fact`` holding the module's call-site analysis."""
    return context.fact(FACT, _analyse)


def _analyse(context) -> CallSites:
    tree = context.tree
    if tree is None or context.graph is not None and context.graph.runs_eagerly:
        return CallSites()  # its tf.functions run as Python: they neither trace nor retrace
    lines = tf_function_lines(context)
    if not lines:
        return CallSites()
    callables = _Collector(context, lines).collect(tree)
    if not callables:
        return CallSites()
    words = {c.spelling.rpartition(".")[2] for c in callables}
    lines = SourceLines(context.text, words)
    forwarders = _forwarders(context, tree, callables, lines)
    if forwarders:  # their calls too
        callables += forwarders
        lines = SourceLines(context.text, words | {
            c.spelling.rpartition(".")[2] for c in forwarders})
    return _CallScanner(context, callables, lines).scan(tree)


def _forwarders(context, tree: ast.Module, callables: List[TracedCallable],
                lines: SourceLines) -> List[TracedCallable]:
    """Plain functions of the module (module-level defs and methods of module-level
    classes, not traced themselves) that pass a parameter of theirs, as it is, to a
    ``tf.function`` of the module without an ``input_signature`` (``def fit_epoch(ds,
    epoch): for x in ds: step(x, epoch)``): a varying number given to them retraces the
    ``tf.function`` as one given to it directly does."""
    traced = context.graph.traced if context.graph is not None else {}
    functions = {id(c.function) for c in callables}
    by_spelling: Dict[str, List[TracedCallable]] = {}
    for callable_ in callables:
        by_spelling.setdefault(callable_.spelling, []).append(callable_)
    found = []
    for owner, node in _plain_defs(tree):
        if (id(node) in functions or def_key(node.lineno, node.name) in traced
                or not lines.touches(node)):
            continue
        method = owner is not None
        params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)][method:]
        rebound = {name for statement in own_nodes(node.body)
                   if isinstance(statement, ast.stmt) for name in _bound_by(statement)}
        passed: Dict[str, Tuple[str, str]] = {}
        for call in own_nodes(node.body):
            if not isinstance(call, ast.Call):
                continue
            spelling = ast_dotted_name(call.func)
            target = next((c for c in by_spelling.get(spelling or "", ())
                           if c.owner is None or c.owner is owner), None)
            if target is None or target.input_signature:
                continue
            for slot, value in _slots(call):
                parameter = target.parameter(slot)
                if (isinstance(value, ast.Name) and value.id in params
                        and value.id not in rebound and parameter is not None
                        and parameter not in target.selectors()):
                    passed.setdefault(value.id, (target.spelling, parameter))
        if passed:
            spelling = f"self.{node.name}" if method else node.name
            found.append(TracedCallable(spelling, owner, node, method, False, node.lineno,
                                        forwards=passed))
    return found


def _plain_defs(tree: ast.Module) -> Iterator[Tuple[Optional[ast.ClassDef], ast.AST]]:
    """Module-level defs (owner None) and the methods of module-level classes, other than
    static methods."""
    for statement in tree.body:
        if isinstance(statement, _FUNCTIONS):
            yield None, statement
        elif isinstance(statement, ast.ClassDef):
            for member in statement.body:
                if isinstance(member, _FUNCTIONS) and not any(
                        ast_dotted_name(d) == "staticmethod" for d in member.decorator_list):
                    yield statement, member


# -- small ast helpers ----------------------------------------------------------------------
def _slots(call: ast.Call) -> List[Tuple[Slot, ast.expr]]:
    """The arguments of ``call`` by slot: positions up to the first ``*args`` (later ones
    are unknown), then keywords."""
    slots: List[Tuple[Slot, ast.expr]] = []
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            break
        slots.append((("pos", index), argument))
    slots += [(("kw", k.arg), k.value) for k in call.keywords if k.arg is not None]
    return slots


def _list_attributes(cls: ast.ClassDef) -> FrozenSet[str]:
    """Attributes that the class's methods set to a list or tuple (a display or a
    comprehension): ``self.blocks = [Block() for _ in range(n)]``."""
    found = set()
    for node in walk_nodes(cls):
        if isinstance(node, ast.Assign) and isinstance(
                node.value, (ast.List, ast.Tuple, ast.ListComp)):
            for target in node.targets:
                if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                        and target.value.id == "self"):
                    found.add(target.attr)
    return frozenset(found)


def _iterated_names(node: ast.expr) -> Set[str]:
    """Names a ``for`` iterates: ``xs`` in ``for x in xs`` / ``enumerate(xs)`` / ``zip(xs, ys)``."""
    if isinstance(node, ast.Name):
        return {node.id}
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in _ITERATING_WRAPPERS):
        return {a.id for a in node.args if isinstance(a, ast.Name)}
    return set()


def _target_names(target: ast.AST) -> Set[str]:
    return {n.id for n in walk_nodes(target) if isinstance(n, ast.Name)}


def _is_constant_data(node: ast.expr) -> bool:
    """A number/string/bool, or a list/tuple of them (nested)."""
    if isinstance(node, ast.Constant):
        return node.value is not None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _is_constant_data(node.operand)
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(_is_constant_data(e) for e in node.elts)
    return False


def _number(node: ast.expr) -> Optional[object]:
    """The value of a number or bool literal (``-1`` included), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float)):
        return node.value
    if (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant)
            and isinstance(node.operand.value, (int, float))
            and not isinstance(node.operand.value, bool)):
        return -node.operand.value
    return None


def _integer_literal(node: ast.expr) -> Optional[int]:
    """The value of an integer literal (not a bool), else None."""
    number = _number(node)
    return number if type(number) is int else None


def _keyword(call: ast.Call, name: str) -> Optional[ast.expr]:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return None


def _has_input_signature(call: Optional[ast.Call]) -> bool:
    if call is None:
        return False
    value = _keyword(call, "input_signature")
    if value is None and len(call.args) > 1:
        value = call.args[1]
    return value is not None and not (isinstance(value, ast.Constant) and value.value is None)


def makes_keras_optimizer(qualified: str) -> bool:
    """``qualified`` names a Keras optimizer class (``keras.optimizers.Adam``,
    ``keras.optimizers.legacy.SGD``), whose object creates its variables when first
    applied."""
    module, _, name = qualified.rpartition(".")
    return module.startswith("keras.optimizers") and name[:1].isupper()


def _only_assignment(cls: ast.ClassDef, attribute: str) -> Optional[ast.stmt]:
    """The one statement of the class's methods that assigns ``self.<attribute>``, or
    None when there is not exactly one."""
    found = [statement for method in cls.body if isinstance(method, _FUNCTIONS)
             for statement in iter_statements(method.body, into_scopes=False)
             if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign))
             and any(isinstance(target, ast.Attribute) and target.attr == attribute
                     and isinstance(target.value, ast.Name) and target.value.id == "self"
                     for target in getattr(statement, "targets", None) or [statement.target])]
    return found[0] if len(found) == 1 else None


def _direct_defs(body) -> Dict[str, ast.AST]:
    """Defs a body binds in its own scope (the last one wins)."""
    return {node.name: node for node in iter_statements(body, into_scopes=False)
            if isinstance(node, _FUNCTIONS)}


def _def_in_force(body, name: str, line: int) -> Optional[ast.AST]:
    """The def of ``name`` a body binds by ``line`` (the last one before), else the last."""
    defs = [node for node in iter_statements(body, into_scopes=False)
            if isinstance(node, _FUNCTIONS) and node.name == name]
    before = [node for node in defs if node.lineno <= line]
    return before[-1] if before else (defs[-1] if defs else None)


# -- traced callables -----------------------------------------------------------------------
class _Collector:
    """Finds the module's tf.function objects, scanning only lines that name tf.function."""

    def __init__(self, context, lines: SourceLines):
        self.names = context.names
        self.lines = lines
        self.found: List[TracedCallable] = []

    def is_tf_function(self, node: ast.expr) -> bool:
        dotted = ast_dotted_name(node)
        return dotted is not None and self.names.resolve(dotted) == TF_FUNCTION

    def collect(self, tree: ast.Module) -> List[TracedCallable]:
        self._body(tree.body, [tree])
        return self.found

    def _body(self, body, parents: List[ast.AST]) -> None:
        for statement in body:
            if self.lines.touches(statement):
                self._statement(statement, parents)

    def _statement(self, node: ast.stmt, parents: List[ast.AST]) -> None:
        if isinstance(node, _FUNCTIONS):
            self._decorated(node, parents)
            self._body(node.body, parents + [node])
            return
        if isinstance(node, ast.ClassDef):
            self._body(node.body, parents + [node])
            return
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            self._wrapped(node.targets[0], node.value, parents)
        for block in ("body", "orelse", "finalbody"):
            self._body(getattr(node, block, None) or (), parents)
        for handler in getattr(node, "handlers", None) or ():
            self._body(handler.body, parents)

    def _decorated(self, node: ast.AST, parents: List[ast.AST]) -> None:
        for decorator in node.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            if not self.is_tf_function(call.func if call else decorator):
                continue
            if call is not None and (call.args or _keyword(call, "func")):
                continue  # @tf.function(f): not this def
            scope = parents[-1]
            if isinstance(scope, ast.ClassDef):
                if any(isinstance(d, ast.Name) and d.id == "staticmethod"
                       for d in node.decorator_list):
                    return
                self.found.append(TracedCallable(f"self.{node.name}", scope, node, True,
                                                 _has_input_signature(call)))
            else:
                owner = scope if isinstance(scope, _FUNCTIONS) else None
                self.found.append(TracedCallable(node.name, owner, node, False,
                                                 _has_input_signature(call), node.lineno))
            return

    def _wrapped(self, target: ast.expr, value: ast.expr, parents: List[ast.AST]) -> None:
        """``name = tf.function(f, ...)``, ``self.name = tf.function(...)(self._f)``."""
        if not isinstance(value, ast.Call):
            return
        options: Optional[ast.Call] = None
        wrapped: Optional[ast.expr] = None
        if self.is_tf_function(value.func):
            options = value
            wrapped = value.args[0] if value.args else _keyword(value, "func")
        elif isinstance(value.func, ast.Call) and self.is_tf_function(value.func.func):
            options = value.func
            wrapped = value.args[0] if value.args else None
        if wrapped is None:
            return
        scope = parents[-1]
        cls = next((p for p in reversed(parents) if isinstance(p, ast.ClassDef)), None)
        function, bound = self._resolve(wrapped, parents, cls, value.lineno)
        if isinstance(target, ast.Name):
            owner = scope if isinstance(scope, _FUNCTIONS) else (
                None if isinstance(scope, ast.Module) else scope)
            if isinstance(scope, ast.ClassDef):
                return  # a class attribute: called as self.name, with self bound
            self.found.append(TracedCallable(target.id, owner, function, bound,
                                             _has_input_signature(options), value.lineno))
        elif (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
              and target.value.id == "self" and cls is not None):
            self.found.append(TracedCallable(f"self.{target.attr}", cls, function, bound,
                                             _has_input_signature(options)))

    def _resolve(self, wrapped: ast.expr, parents: List[ast.AST], cls: Optional[ast.ClassDef],
                 line: int = 0) -> Tuple[Optional[ast.AST], bool]:
        """The def ``wrapped`` names (the one in force at ``line``), and whether it is a
        bound method."""
        if isinstance(wrapped, ast.Lambda):
            return wrapped, False
        if isinstance(wrapped, ast.Name):
            for scope in reversed(parents):
                if isinstance(scope, (ast.Module, *_FUNCTIONS)):
                    found = _def_in_force(scope.body, wrapped.id, line)
                    if found is not None:
                        return found, False
            return None, False
        if (isinstance(wrapped, ast.Attribute) and isinstance(wrapped.value, ast.Name)
                and wrapped.value.id == "self" and cls is not None):
            method = _direct_defs(cls.body).get(wrapped.attr)
            if method is not None:
                static = any(isinstance(d, ast.Name) and d.id == "staticmethod"
                             for d in method.decorator_list)
                return method, not static
        return None, False


# -- call sites -----------------------------------------------------------------------------
@dataclass
class _Frame:
    node: Optional[ast.AST]
    traced: bool
    loops: List[ast.AST] = field(default_factory=list)
    """Enclosing loops and comprehensions of this frame, innermost last."""
    _bindings: Optional[Dict[str, List[ast.AST]]] = None

    def bindings(self, module: ast.Module) -> Dict[str, List[ast.AST]]:
        """Statements binding each name in this frame's own scope."""
        if self._bindings is None:
            found: Dict[str, List[ast.AST]] = {}
            body = module.body if self.node is None else (
                self.node.body if isinstance(self.node, _FUNCTIONS) else [])
            for statement in iter_statements(body, into_scopes=False):
                for name in _bound_by(statement):
                    found.setdefault(name, []).append(statement)
            if isinstance(self.node, _FUNCTIONS):
                args = self.node.args
                for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs,
                            args.vararg, args.kwarg):
                    if arg is not None:
                        found.setdefault(arg.arg, []).append(arg)
            self._bindings = found
        return self._bindings


def _bound_by(statement: ast.stmt) -> Iterator[str]:
    if isinstance(statement, ast.Assign):
        for target in statement.targets:
            yield from _target_names(target)
    elif isinstance(statement, (ast.AugAssign, ast.AnnAssign, *_LOOPS)):
        yield from _target_names(statement.target)
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        for item in statement.items:
            if item.optional_vars is not None:
                yield from _target_names(item.optional_vars)
    elif isinstance(statement, (*_FUNCTIONS, ast.ClassDef)):
        yield statement.name
    elif isinstance(statement, (ast.Import, ast.ImportFrom)):
        for alias in statement.names:
            yield (alias.asname or alias.name).partition(".")[0]
    elif isinstance(statement, ast.Try):
        for handler in statement.handlers:
            if handler.name:
                yield handler.name


class _CallScanner:
    """One pruned pass over the module: the calls of traced callables and their arguments."""

    def __init__(self, context, callables: List[TracedCallable], lines: SourceLines):
        self.context = context
        self.names = context.names
        self.tree = context.tree
        self.traced = context.graph.traced if context.graph is not None else {}
        self.never_run = context.graph.never_run if context.graph is not None else ()
        self.callables = callables
        self.by_spelling: Dict[str, List[TracedCallable]] = {}
        for callable_ in callables:
            self.by_spelling.setdefault(callable_.spelling, []).append(callable_)
        self.lines = lines
        self.parents: List[ast.AST] = []
        self.events: List[Tuple[Tuple[int, int], List[Argument]]] = []
        self.generators: Optional[Dict[str, bool]] = None
        self._defs: Optional[FrozenSet[str]] = None
        self._module_lines: Optional[Dict[str, List[int]]] = None
        self._module_frame = _Frame(None, False)
        self._name_uses: Optional[_NameUses] = None

    # walking ------------------------------------------------------------------------------
    def scan(self, tree: ast.Module) -> CallSites:
        self._module_frame = _Frame(None, False)
        self._visit(tree, self._module_frame)
        self.events.sort(key=lambda event: event[0])
        result = CallSites(spellings=frozenset(self.by_spelling))
        literals: Dict[Tuple[int, str], Set[Tuple[str, object]]] = {}
        alongside: Dict[Tuple[int, str], Dict[tuple, Set[Tuple[str, object]]]] = {}
        for _, arguments in self.events:
            for argument in arguments:
                result.arguments.append(argument)
                if argument.kind == LITERAL and not isinstance(argument.value, bool):
                    key = (id(argument.callee), argument.parameter)
                    value = (type(argument.value).__name__, argument.value)
                    literals.setdefault(key, set()).add(value)
                    alongside.setdefault(key, {}).setdefault(argument.objects, set()).add(value)
        for key, by_objects in alongside.items():
            # Distinct values that come each with other Python objects (``color_jitter``
            # with 0.8, ``color_drop`` with 0.2) add no trace to the ones those objects make.
            if all(len(values) == 1 for values in by_objects.values()):
                literals[key] = set()
        # A value that straight-line code passed before, in source order: this call reuses
        # the graph that call traced (``f(1); f(2); f(1)``: the second ``f(1)`` traces none).
        passed: Dict[Tuple[int, str], Set[Tuple[str, object]]] = {}
        for ordinal, (position, arguments) in enumerate(self.events):
            result.positions.append(position)
            for argument in arguments:
                if argument.kind == LITERAL:
                    key = (id(argument.callee), argument.parameter)
                    value = (type(argument.value).__name__, argument.value)
                    if value in passed.get(key, ()):
                        continue
                    if argument.straight:
                        passed.setdefault(key, set()).add(value)
                found = self._judge(argument, literals)
                if found:
                    result.findings.setdefault(ordinal, []).append(found)
                key = argument.callee.key
                if argument.kind == ITERATOR and key is not None:
                    result.iterators.setdefault(key, {})[argument.parameter] = argument.value
        return result

    def _children(self, node: ast.AST, children, frame: _Frame) -> None:
        self.parents.append(node)
        touches = self.lines.touches
        for child in children:
            if touches(child):
                self._visit(child, frame)
        self.parents.pop()

    def _visit(self, node: ast.AST, frame: _Frame) -> None:
        if self.never_run and isinstance(node, ast.stmt) and frame is self._module_frame and any(
                first <= node.lineno <= last for first, last in self.never_run):
            return  # code that never runs makes no call
        if isinstance(node, _FUNCTIONS):
            self._children(node, node.decorator_list + [node.args]
                           + ([node.returns] if node.returns else []), frame)
            traced = frame.traced or def_key(node.lineno, node.name) in self.traced
            self._children(node, node.body, _Frame(node, traced))
            return
        if isinstance(node, ast.Lambda):
            self._children(node, [node.args], frame)
            self._children(node, [node.body], _Frame(node, frame.traced))
            return
        if isinstance(node, ast.Call):
            callee = self._callee(node)
            if callee is not None or ast_dotted_name(node.func) in self.by_spelling:
                arguments = [] if callee is None or frame.traced else self._arguments(
                    node, callee, frame)
                self.events.append(((node.lineno, node.col_offset), arguments))
        if isinstance(node, (*_LOOPS, ast.While)):
            self._children(node, [node.test] if isinstance(node, ast.While) else [node.iter],
                           frame)
            frame.loops.append(node)
            self._children(node, node.body, frame)
            frame.loops.pop()
            self._children(node, node.orelse, frame)
            return
        if isinstance(node, _COMPREHENSIONS):
            frame.loops.append(node)
            self._children(node, list(child_nodes(node)), frame)
            frame.loops.pop()
            return
        self._children(node, list(child_nodes(node)), frame)

    def _callee(self, call: ast.Call) -> Optional[TracedCallable]:
        spelling = ast_dotted_name(call.func)
        candidates = self.by_spelling.get(spelling) if spelling else None
        if not candidates:
            return None
        best = None
        in_force = self._module_binding(spelling, call)
        for candidate in candidates:
            if candidate.owner is None:
                # The module-level binding in force at the call (statement order), if any.
                if in_force is not None and not in_force[0] <= candidate.line < in_force[1]:
                    continue  # another binding of the name (a plain def) is in force
                if best is None or best.owner is None and (
                        best.line > call.lineno or candidate.line <= call.lineno):
                    best = candidate
            elif candidate.owner in self.parents:
                depth = self.parents.index(candidate.owner)
                if best is None or best.owner is None or depth > self.parents.index(best.owner):
                    best = candidate
        if best is not None and best.function is not None and best.function in self.parents:
            return None  # a recursive call, made while tracing
        return best

    def _module_binding(self, name: str, call: ast.Call) -> Optional[Tuple[int, float]]:
        """Where the module-level binding of ``name`` that a call sees starts, and where
        the next one starts: for a call in module-level code, the last binding before it
        (cell order in a notebook); for one in a function, which runs later, the last of
        all. None when the module never binds the name (a call written before every
        binding finds no ``def`` in force either)."""
        if self._module_lines is None:  # the module frame's bindings, as sorted lines
            self._module_lines = {
                bound: sorted({s.lineno for s in statements})
                for bound, statements in self._module_frame.bindings(self.tree).items()}
        lines = self._module_lines.get(name)
        if not lines:
            return None
        if any(isinstance(p, (*_FUNCTIONS, ast.Lambda)) for p in self.parents):
            return lines[-1], math.inf
        index = bisect.bisect_right(lines, call.lineno) - 1
        if index < 0:
            return -1, -1.0
        return lines[index], lines[index + 1] if index + 1 < len(lines) else math.inf

    # arguments ----------------------------------------------------------------------------
    def _arguments(self, call: ast.Call, callee: TracedCallable, frame: _Frame
                   ) -> List[Argument]:
        if callee.input_signature:
            return []
        slots = _slots(call)
        found = []
        objects = [(slot, self._object(expression)) for slot, expression in slots]
        for slot, expression in slots:
            parameter = callee.parameter(slot)
            if parameter is None:
                continue
            kind, value = self._classify(expression, frame, 0)
            if kind is None:
                kind, value = self._optimizer(expression, frame)
            if kind is not None:
                found.append(Argument(
                    callee, parameter, slot, kind, value, call.lineno,
                    straight=self._straight(frame),
                    objects=tuple((other, text) for other, text in objects
                                  if other != slot and text is not None),
                    branches=self._branches() if kind == OPTIMIZER else ()))
        return found

    def _branches(self) -> Tuple[Tuple[int, bool], ...]:
        return tuple((parent.lineno, any(child is node for node in parent.body))
                     for parent, child in zip(self.parents, self.parents[1:])
                     if isinstance(parent, ast.If) and child is not parent.test)

    def _optimizer(self, node: ast.expr, frame: _Frame) -> Tuple[Optional[str], object]:
        """(OPTIMIZER, (spelling, line)) for a Keras optimizer the module makes and never
        builds: a name its scope binds once, to ``keras.optimizers.X(...)``, or
        ``self.x`` that the class assigns once, to one."""
        if isinstance(node, ast.Name):
            bindings = frame.bindings(self.tree).get(node.id, [])
            if frame.node is not None and not bindings:  # a global the function reads
                bindings = self._module_frame.bindings(self.tree).get(node.id, [])
            made = bindings[0] if len(bindings) == 1 else None
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and node.value.id == "self"):
            cls = next((p for p in reversed(self.parents) if isinstance(p, ast.ClassDef)),
                       None)
            made = _only_assignment(cls, node.attr) if cls is not None else None
        else:
            return None, None
        if not (isinstance(made, ast.Assign) and len(made.targets) == 1
                and isinstance(made.value, ast.Call)):
            return None, None
        spelling = ast_dotted_name(node) or ""
        if not makes_keras_optimizer(self._qualified(made.value.func) or "") or (
                f"{spelling}.build(" in self.context.text):
            return None, None
        return OPTIMIZER, (spelling, made.lineno)

    def _object(self, expression: ast.expr) -> Optional[str]:
        """The Python object an argument is, as text, when it is one that tf.function traces
        a graph for: a literal, or a function or class the module defines at its top level
        (``color_drop``); None for anything else (a tensor, most often)."""
        if isinstance(expression, ast.Constant):
            return repr(expression.value)
        if isinstance(expression, ast.Name) and expression.id in self._module_defs():
            return expression.id
        return None

    def _module_defs(self) -> FrozenSet[str]:
        if self._defs is None:
            self._defs = frozenset(
                statement.name for statement in (self.tree.body if self.tree else ())
                if isinstance(statement, (*_FUNCTIONS, ast.ClassDef)))
        return self._defs

    def _straight(self, frame: _Frame) -> bool:
        """The call being scanned is straight-line module code (see ``Argument.straight``);
        the body of ``if __name__ == "__main__":`` is, run as a program."""
        if frame.node is not None or frame.loops or len(self.parents) < 2:
            return False
        parents = self.parents[1:]
        for parent, child in zip(parents, parents[1:] + [None]):
            if isinstance(parent, ast.If) and is_main_guard(parent) and any(
                    child is statement for statement in parent.body):
                continue
            if isinstance(parent, _NOT_STRAIGHT):
                return False
        return True

    def _classify(self, node: ast.expr, frame: _Frame, depth: int
                  ) -> Tuple[Optional[str], object]:
        """(kind, value) of a Python value, or (None, None) when it cannot be told."""
        if depth > _MAX_DEPTH:
            return None, None
        number = _number(node)
        if number is not None:
            return LITERAL, number
        if isinstance(node, ast.Name):
            return self._name(node.id, frame, depth)
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp)):
            return self._expression(node, frame, depth)
        if isinstance(node, (ast.List, ast.Tuple)):
            if node.elts and _is_constant_data(node):
                return DATA, "a Python list"
            return None, None
        if isinstance(node, ast.ListComp):
            if (isinstance(node.elt, ast.Call)
                    and self._qualified(node.elt.func) == "builtins.iter"):
                return None, None  # iterators (one per dataset): sources, not the data
            if isinstance(node.elt, ast.Call) and not _uses_targets(node):
                return None, None  # ``[model_fn() for _ in range(n)]``: n objects, no data
            if not all(self._data_source(g.iter, frame, depth) for g in node.generators):
                return None, None  # ``[images[k] for k in keys[:batch]]``: picked objects
            return DATA, "a Python list"
        if isinstance(node, ast.GeneratorExp):
            return ITERATOR, "a generator expression"
        if isinstance(node, ast.Call):
            return self._call(node, frame, depth)
        return None, None

    def _data_source(self, node: ast.expr, frame: _Frame, depth: int) -> bool:
        """A comprehension over ``node`` builds Python data: ``node`` is ``range(...)``,
        Python data itself (a literal list, a list of numbers), or ``enumerate``/``zip``/
        ``reversed``/``sorted`` of such. Over anything else (a slice of keys, a parameter,
        the models of a list) the comprehension picks objects the program holds, as many
        as its design has (a batch, a replica, a model each), not data that grows."""
        if isinstance(node, ast.Call):
            qualified = self._qualified(node.func)
            if qualified == "builtins.range":
                return True
            if qualified in _DATA_WRAPPERS and node.args:
                return all(self._data_source(a, frame, depth) for a in node.args)
        return self._classify(node, frame, depth + 1)[0] == DATA

    def _expression(self, node: ast.expr, frame: _Frame, depth: int
                    ) -> Tuple[Optional[str], object]:
        if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)
                and isinstance(node.left, (ast.List, ast.Tuple))):
            kind, value = self._classify(node.left, frame, depth + 1)
            return (kind, value) if kind == DATA else (None, None)
        if isinstance(node, ast.Compare) or (isinstance(node, ast.UnaryOp)
                                             and isinstance(node.op, ast.Not)):
            return None, None  # a bool: two values at most, two traces by design
        leaves = [child for child in child_nodes(node) if isinstance(child, ast.expr)]
        kinds = [self._classify(leaf, frame, depth + 1)[0] for leaf in leaves]
        if VARYING in kinds and all(k in (VARYING, LITERAL) for k in kinds):
            return VARYING, None
        return None, None

    def _call(self, node: ast.Call, frame: _Frame, depth: int) -> Tuple[Optional[str], object]:
        dotted = ast_dotted_name(node.func)
        qualified = self.names.resolve(dotted) if dotted else None
        if qualified in _NUMBER_FUNCTIONS and node.args and not node.keywords:
            kinds = [self._classify(a, frame, depth + 1)[0] for a in node.args]
            if VARYING in kinds and all(k in (VARYING, LITERAL) for k in kinds):
                return VARYING, None
            return None, None
        if qualified in _SEQUENCE_FUNCTIONS and len(node.args) == 1:
            inner = node.args[0]
            if isinstance(inner, ast.Call) and self._qualified(inner.func) == "builtins.range":
                return DATA, "a Python list"
            kind, _ = self._classify(inner, frame, depth + 1)
            return (DATA, "a Python list") if kind == DATA else (None, None)
        if qualified == "builtins.iter" and len(node.args) == 1:
            inner = node.args[0]
            if isinstance(inner, ast.Call) and self._qualified(inner.func) == "builtins.range":
                return ITERATOR, "iter(range(...))"
            kind, _ = self._classify(inner, frame, depth + 1)
            return (ITERATOR, "iter() over a Python list") if kind == DATA else (None, None)
        if qualified in _ITERATOR_FUNCTIONS:
            return ITERATOR, f"{qualified.rpartition('.')[2]}(...)"
        if qualified and qualified.startswith("itertools."):
            return ITERATOR, f"{qualified}(...)"
        if isinstance(node.func, ast.Name) and self._is_generator_function(node.func.id, frame):
            return ITERATOR, f"the generator {node.func.id}()"
        return None, None

    def _qualified(self, node: ast.expr) -> Optional[str]:
        dotted = ast_dotted_name(node)
        return self.names.resolve(dotted) if dotted else None

    def _name(self, name: str, frame: _Frame, depth: int) -> Tuple[Optional[str], object]:
        for loop in reversed(frame.loops):
            for target, iterable in _loop_targets(loop):
                if name in _target_names(target):
                    if self._rebound_in_loop(name, loop):
                        return None, None  # ``i = tf.convert_to_tensor(i)``, then ``f(i)``
                    return self._loop_variable(name, target, iterable, frame)
        bindings = frame.bindings(self.tree).get(name, [])
        if not bindings:
            return None, None
        if frame.loops and _is_counter(name, bindings):
            return VARYING, None
        if len(bindings) > 1 and frame.node is None and not frame.loops:
            bindings = self._in_force(bindings)
        if len(bindings) == 1 and isinstance(bindings[0], ast.Assign):
            statement = bindings[0]
            if len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
                kind, value = self._classify(statement.value, frame, depth + 1)
                return (kind, value) if kind in (DATA, ITERATOR, LITERAL) else (None, None)
        return None, None

    def _rebound_in_loop(self, name: str, loop: ast.AST) -> bool:
        """The body of the ``for`` loop ``loop`` binds its variable ``name`` again before
        the statement being scanned (also in a branch that may not run): the call may see
        that value, not the one the loop gave."""
        if not isinstance(loop, _LOOPS) or loop not in self.parents:
            return False
        inner = [node for node in self.parents[self.parents.index(loop) + 1:]
                 if isinstance(node, ast.stmt)]
        if not inner:
            return False
        line = inner[-1].lineno
        return any(statement.lineno < line and name in _bound_by(statement)
                   for statement in iter_statements(loop.body, into_scopes=False))

    def _in_force(self, bindings: List[ast.AST]) -> List[ast.AST]:
        """Of a name's module-level bindings, the one in force at the top-level statement
        being scanned, when all are statements of the module body (straight-line order)."""
        body = {id(statement) for statement in self.tree.body}
        top = self.parents[1] if len(self.parents) > 1 else None
        if top is None or not all(id(binding) in body for binding in bindings):
            return bindings
        before = [binding for binding in bindings if binding.lineno < top.lineno]
        return before[-1:] or bindings

    def _loop_variable(self, name: str, target: ast.AST, iterable: ast.expr, frame: _Frame
                       ) -> Tuple[Optional[str], object]:
        if isinstance(iterable, ast.Call):
            qualified = self._qualified(iterable.func)
            if qualified == "builtins.range" and isinstance(target, ast.Name):
                passes = self._range_length(iterable, frame)
                if passes is not None and passes <= 1:
                    return None, None  # ``range(EPOCHS)`` with ``EPOCHS = 1``: one value
                return VARYING, None
            if (qualified == "builtins.enumerate" and isinstance(target, ast.Tuple)
                    and target.elts and isinstance(target.elts[0], ast.Name)
                    and target.elts[0].id == name):
                return VARYING, None
            return None, None
        if isinstance(iterable, (ast.List, ast.Tuple)) and iterable.elts and isinstance(
                target, ast.Name):
            values = [_number(e) for e in iterable.elts]
            if all(value is not None for value in values):
                if all(isinstance(value, bool) for value in values):
                    return None, None  # for flag in (True, False): a mode flag, two traces
                if len(set(values)) == 1:
                    return None, None  # ``for lr in [0.1]``: one value
                return VARYING, None
            if all(isinstance(e, (ast.List, ast.Tuple)) and e.elts and _is_constant_data(e)
                   for e in iterable.elts):
                return DATA, "a Python list"
        return None, None

    # constants ----------------------------------------------------------------------------
    def _range_length(self, call: ast.Call, frame: _Frame) -> Optional[int]:
        """How many values ``range(...)`` gives, when its arguments are integer constants
        (see ``_integer``); None otherwise."""
        if call.keywords or not 1 <= len(call.args) <= 3:
            return None
        bounds = [self._integer(argument, frame) for argument in call.args]
        if any(bound is None for bound in bounds):
            return None
        try:
            return len(range(*bounds))
        except (ValueError, OverflowError):  # a step of 0; a length past sys.maxsize
            return None

    def _integer(self, node: ast.expr, frame: _Frame) -> Optional[int]:
        """The integer ``node`` always is where ``frame`` reads it: a literal, a name its
        scope binds once, to a literal, a module constant (``_module_integer``), or a
        parameter of a module-level function that every call passes the same constant
        (``_parameter_integer``)."""
        if not isinstance(node, ast.Name):
            return _integer_literal(node)
        if node.id in self._uses().globals:
            return None  # a function may rebind it, wherever this scope binds it
        bindings = frame.bindings(self.tree).get(node.id)
        if frame.node is None or not bindings:
            if sum(isinstance(p, (*_FUNCTIONS, ast.Lambda)) for p in self.parents) > 1:
                return None  # an enclosing function may bind it
            return self._module_integer(node.id)
        if len(bindings) != 1:
            return None
        binding = bindings[0]
        if isinstance(binding, ast.arg):
            return self._parameter_integer(frame.node, binding)
        if (isinstance(binding, ast.Assign) and len(binding.targets) == 1
                and isinstance(binding.targets[0], ast.Name)):
            return _integer_literal(binding.value)
        return None

    def _module_integer(self, name: str) -> Optional[int]:
        """The integer a module-level name always holds: bound once, by ``NAME = <int>`` in
        the module's own code, and never declared ``global`` in a function."""
        statements = self._module_frame.bindings(self.tree).get(name, ())
        if len(statements) != 1 or name in self._uses().globals:
            return None
        statement = statements[0]
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)):
            return None
        return _integer_literal(statement.value)

    def _parameter_integer(self, function: ast.AST, parameter: ast.arg) -> Optional[int]:
        """The integer every call of the module-level function ``function`` passes for
        ``parameter`` (or its default): each a literal, or a module constant where the call
        is module-level code. None when some call passes anything else, or the function's
        name is used otherwise than called (passed on, it may be called with anything)."""
        if not isinstance(function, _FUNCTIONS) or not any(
                statement is function for statement in self.tree.body):
            return None
        if len(self._module_frame.bindings(self.tree).get(function.name, ())) != 1:
            return None
        args = function.args
        positional = [*args.posonlyargs, *args.args]
        position = next((i for i, arg in enumerate(positional) if arg is parameter), None)
        if position is None and parameter not in args.kwonlyargs:
            return None  # ``*args``, ``**kwargs``
        default = None
        if position is not None:
            first_default = len(positional) - len(args.defaults)
            if position >= first_default:
                default = args.defaults[position - first_default]
        else:
            default = args.kw_defaults[args.kwonlyargs.index(parameter)]
        uses = self._uses().names.get(function.name, ())
        values = set()
        for call, at_module_level in uses:
            if call is None or any(isinstance(a, ast.Starred) for a in call.args) or any(
                    k.arg is None for k in call.keywords):
                return None
            passed = _keyword(call, parameter.arg)
            if passed is None and position is not None and position < len(call.args):
                passed = call.args[position]
            passed = default if passed is None else passed
            if passed is None:
                return None
            number = _integer_literal(passed)
            if number is None and at_module_level and isinstance(passed, ast.Name):
                number = self._module_integer(passed.id)
            if number is None:
                return None
            values.add(number)
        return values.pop() if len(values) == 1 else None

    def _uses(self) -> "_NameUses":
        if self._name_uses is None:
            self._name_uses = _NameUses(self.tree)
        return self._name_uses

    def _is_generator_function(self, name: str, frame: _Frame) -> bool:
        scopes = [self.tree] + [p for p in self.parents if isinstance(p, _FUNCTIONS)]
        for scope in reversed(scopes):
            found = _direct_defs(scope.body).get(name)
            if found is not None:
                return any(isinstance(n, (ast.Yield, ast.YieldFrom))
                           for n in own_nodes(found.body))
        return False

    # findings -----------------------------------------------------------------------------
    def _judge(self, argument: Argument, literals) -> Optional[Tuple[str, Slot, str]]:
        callee = argument.callee
        name = callee.spelling
        if argument.kind in (VARYING, LITERAL) and argument.parameter in callee.selectors():
            return None  # it picks a Python object: one graph per object, by design
        if callee.forwards is not None:
            forwarded = callee.forwards.get(argument.parameter)
            if argument.kind != VARYING or forwarded is None:
                return None
            return ("TFF401", argument.slot, (
                f"`{name}` gets a different Python number for `{argument.parameter}` on each "
                f"pass and passes it on to the tf.function `{forwarded[0]}` (as "
                f"`{forwarded[1]}`): every new value traces a new graph; pass a tensor "
                "instead (use tf.constant(...)) or give the tf.function an input_signature"))
        if argument.kind == VARYING:
            return ("TFF401", argument.slot, (
                f"`{name}` gets a different Python number for `{argument.parameter}` on each "
                "pass, and every new value traces a new graph; pass a tensor instead (use "
                "tf.constant(...)) or give the tf.function an input_signature"))
        if argument.kind == LITERAL and not isinstance(argument.value, bool):
            # True/False (and None, never a literal here) are mode flags: one trace per
            # value, by design. Only distinct numbers count.
            values = literals.get((id(callee), argument.parameter), set())
            if values <= {("int", 0), ("int", 1)} and argument.parameter in callee.switches():
                return None  # 0 and 1 for a mode switch: the bools of older code
            if len(values) > 1:
                shown = ", ".join(repr(v) for _, v in sorted(values, key=repr))
                return ("TFF401", argument.slot, (
                    f"`{name}` is called with the Python values {shown} for "
                    f"`{argument.parameter}`, and each distinct value traces a new graph; "
                    "pass a tensor instead (use tf.constant(...)) or give the tf.function an "
                    "input_signature"))
        if argument.kind == DATA and argument.parameter in callee.iterated():
            return ("TFF403", argument.slot, (
                f"`{name}` iterates `{argument.parameter}` with a Python loop, and this call "
                "passes a Python list: the loop is unrolled into the graph, which grows with "
                "the data (and retraces for each new list); use a tf.data.Dataset or a tensor "
                "instead"))
        return None


class _NameUses:
    """Where a module reads each name: as the function of a call (the call) or otherwise
    (None), and whether in module-level code (outside functions, lambdas and classes); and
    the names some function declares ``global``."""

    def __init__(self, tree: ast.Module):
        self.names: Dict[str, List[Tuple[Optional[ast.Call], bool]]] = {}
        self.globals: Set[str] = set()
        called: Set[int] = set()
        stack: List[Tuple[ast.AST, bool]] = [(tree, True)]
        while stack:
            node, module_level = stack.pop()
            if isinstance(node, ast.Global):
                self.globals.update(node.names)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                called.add(id(node.func))
                self.names.setdefault(node.func.id, []).append((node, module_level))
            elif isinstance(node, ast.Name) and id(node) not in called:
                self.names.setdefault(node.id, []).append((None, module_level))
            inner = module_level and not isinstance(
                node, (*_FUNCTIONS, ast.Lambda, ast.ClassDef))
            stack.extend((child, inner) for child in child_nodes(node))


#: What may skip or repeat the code below it: branches, loops, handlers, short-circuits.
_NOT_STRAIGHT = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.IfExp, ast.BoolOp,
                 ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda,
                 ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Match)


def _uses_targets(comprehension: ast.ListComp) -> bool:
    """The element of the comprehension reads one of the names its loops bind."""
    bound = {n.id for g in comprehension.generators for n in walk_nodes(g.target)
             if isinstance(n, ast.Name)}
    return any(isinstance(n, ast.Name) and n.id in bound for n in walk_nodes(comprehension.elt))


def _loop_targets(loop: ast.AST) -> List[Tuple[ast.AST, ast.expr]]:
    if isinstance(loop, ast.While):
        return []
    if isinstance(loop, _LOOPS):
        return [(loop.target, loop.iter)]
    return [(generator.target, generator.iter) for generator in loop.generators]


def _is_counter(name: str, bindings: List[ast.AST]) -> bool:
    """``n = 0`` … ``n += 1``: every binding is a number literal or a step by one."""
    stepped = False
    for statement in bindings:
        if isinstance(statement, ast.Assign) and _number(statement.value) is not None:
            continue
        if (isinstance(statement, ast.AugAssign) and isinstance(statement.op, (ast.Add, ast.Sub))
                and _number(statement.value) is not None):
            stepped = True
            continue
        return False
    return stepped


# -- reporting ------------------------------------------------------------------------------
def argument_at(call: cst.Call, slot: Slot) -> Optional[cst.BaseExpression]:
    """The LibCST expression of the argument in ``slot``."""
    kind, where = slot
    positional = [a for a in call.args if a.keyword is None and a.star != "**"]
    if kind == "pos":
        return positional[where].value if where < len(positional) else None
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == where:
            return arg.value
    return None


class CallSiteReporter:
    """Mixin for module-scope rules that report at call sites found by :func:`call_sites`."""

    code: str

    @classmethod
    def triggers_for(cls, context):
        found = call_sites(context)
        if cls.code not in found.codes():
            return ()
        return tuple(spelling.rpartition(".")[2] for spelling in found.spellings)

    def visit_Module(self, node: cst.Module) -> None:
        # The engine may walk the tree a second time, or trees of the module's statements
        # from some line on (a long module).
        self._sites = call_sites(self.context)
        self._ordinal = bisect.bisect_left(self._sites.positions,
                                           (self.context.line_offset + 1, -1))

    def visit_Call(self, node: cst.Call) -> None:
        if dotted_name(node.func) not in self._sites.spellings:
            return
        ordinal = self._ordinal
        self._ordinal += 1
        for code, slot, message in self._sites.findings.get(ordinal, ()):
            if code == self.code:
                expression = argument_at(node, slot)
                if expression is not None:
                    self.report(expression, message)
