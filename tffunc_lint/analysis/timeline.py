"""When a module's functions may run, in the statement order of its module-level code.

A script (or a notebook, cell after cell) runs its module-level statements once, in order.
Each ``def``/``class`` statement binds its name to a new object: a call reaches the binding
in force at that point, so a notebook that defines ``f`` three times has three functions.
This module answers, per module-level binding of a function or class, *when* it may run,
as times on the module's line axis:

- a **point** ``t``: called from the module-level statement at line ``t`` (directly, or
  through functions that statement calls);
- a **span** ``(s, e)``: at any time between ``s`` and ``e``: the function was passed on or
  stored at ``s`` (``dataset.map(f)``, ``callbacks=[f]``), a class was instantiated (its
  objects live on), or code that may run any time in that span calls it;
- a function or class that module-level code never reaches runs after the import, when an
  importer calls it: the span ``(END, inf)``, after every module-level statement; in a
  whole program (a notebook, a script nothing imports) it never runs, and what it would
  call gets no times from it (``of`` still answers ``(END, inf)`` for it).

Module-level loops are known by their line range: a call in a loop body runs again after
whatever else the loop does. Times propagate along references (function ``g`` mentions
``f``: ``f`` runs when ``g`` runs) to a fixed point; long lists of points collapse into one
span, so the work stays linear in the size of the module for practical purposes.
"""

from __future__ import annotations

import ast
import bisect
import math
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Set, Tuple

from .module_index import statement_bindings
from .names import function_local_names
from .ast_walk import child_nodes

INF = math.inf
_MAX_POINTS = 64
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_UNITS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
#: How code mentions a name: calls it (or reads an attribute: ``f.get_concrete_function``),
#: or passes/stores it, so that it may run at any later time.
CALL, ESCAPE = "call", "escape"
Span = Tuple[float, float]


@dataclass
class Times:
    """When something may run: points and spans on the module's line axis."""

    points: Set[float] = field(default_factory=set)
    spans: Set[Span] = field(default_factory=set)

    def add(self, points: Iterable[float] = (), spans: Iterable[Span] = ()) -> bool:
        before = (len(self.points), len(self.spans))
        self.points.update(points)
        self.spans.update(spans)
        if len(self.points) > _MAX_POINTS:  # one span covering them: a superset
            self.spans.add((min(self.points), max(self.points)))
            self.points.clear()
        if len(self.spans) > _MAX_POINTS:
            self.spans = {(min(s for s, _ in self.spans), max(e for _, e in self.spans))}
        return (len(self.points), len(self.spans)) != before

    def __bool__(self) -> bool:
        return bool(self.points or self.spans)

    def bounds(self) -> Tuple[float, float]:
        """The earliest and the latest time."""
        starts = list(self.points) + [s for s, _ in self.spans]
        ends = list(self.points) + [e for _, e in self.spans]
        return (min(starts), max(ends)) if starts else (INF, -INF)

    def within(self, first: float, last: float) -> bool:
        """Some time lies in the lines ``first``..``last``."""
        return any(first <= t <= last for t in self.points) or any(
            s < last and e > first for s, e in self.spans)


@dataclass
class _Bound:
    line: int
    unconditional: bool
    """A statement of the module body itself (or of a ``with`` block in it)."""
    node: Optional[ast.AST] = None
    """The statement that binds the name."""
    block: Tuple[float, float] = (0, 0)
    """After the statement, the rest of the block it is written in (a loop's or a branch's
    body): code there runs only after this binding, in the same pass."""

    def reaches_all(self, first: float, last: float) -> bool:
        """Code anywhere in ``first``..``last`` runs after this binding with nothing between:
        it is unconditional, or the lines are later in its own block."""
        return self.unconditional or self.block[0] <= first and last <= self.block[1]


class Timeline:
    """Module-level statement order of one module (see the module docstring)."""

    def __init__(self, tree: ast.Module,
                 wraps: Callable[[ast.Call], bool] = lambda call: False,
                 runs_now: Callable[[ast.Call], bool] = lambda call: False,
                 program: bool = False):
        """``wraps`` tells a call that returns its first argument wrapped (``tf.function``);
        ``runs_now`` a call that runs the functions it is given before it returns and keeps
        none (``tf.saved_model.save(m, path, signatures=serve)``, ``timeit.timeit(f)``);
        ``program``: the module is a whole program, which no importer calls into."""
        self._program = program
        self._wraps = wraps
        self._runs_now = runs_now
        self._referenced: Optional[Set[str]] = None
        self.end = float(max([getattr(tree.body[-1], "end_lineno", 0)] if tree.body else [0])
                         + 1)
        self.loops: List[Tuple[int, int]] = []
        self.bindings: Dict[str, List[_Bound]] = {}
        self.units: Dict[Tuple[str, int], ast.AST] = {}
        """(name, line) of a module-level ``def``/``class`` → its node."""
        self._unit_lines: List[Tuple[int, int, Tuple[str, int]]] = []
        self._module_refs: List[Tuple[str, float, str]] = []
        self._module_calls: Dict[Tuple[str, int], List[ast.Call]] = {}
        """(name, line) → the module-level calls ``name(...)`` whose callee is written there
        (not in a lambda, which may run later)."""
        self._unit_refs: Dict[Tuple[str, int], List[Tuple[str, str]]] = {}
        self._cache: Dict[str, Tuple[List[int], List[float]]] = {}
        self.wrappers: Dict[Tuple[str, int], Tuple[ast.Call, str]] = {}
        """(name, line) of ``name = wrapper(function, ...)`` → the call and the function."""
        self.aliases: Dict[Tuple[str, int], List[str]] = {}
        """(name, line) of ``name = function`` (``loss_fn = l2 if use_l2 else ce``) → the
        names it may stand for: calling ``name`` calls them, and the statement itself
        calls none of them."""
        self._walk(tree.body, unconditional=True)
        self._top = [(node.lineno, node.end_lineno or node.lineno, node) for node in tree.body]
        self._top_starts = [first for first, _, _ in self._top]
        self._unit_lines.sort()
        self._unit_starts = [first for first, _, _ in self._unit_lines]
        self.times: Dict[Tuple[str, int], Times] = {}
        self._settle()

    # -- reading the module ------------------------------------------------------------------
    def _walk(self, body: List[ast.stmt], unconditional: bool) -> None:
        block_end = getattr(body[-1], "end_lineno", 0) if body else 0
        for node in body:
            after = ((node.end_lineno or node.lineno) + 0.5, block_end)
            if isinstance(node, _UNITS):
                for expr in _header_exprs(node):
                    self._module_expr(expr)
                self._bind(node.name, node.lineno, unconditional, node, after)
                unit = (node.name, node.lineno)
                self.units[unit] = node
                self._unit_lines.append((node.lineno, node.end_lineno, unit))
                self._unit_refs[unit] = list(_references(node, self._runs_now))
                continue
            aliased = _aliased(node)
            exprs = _own_exprs(node)
            if aliased is not None:  # the names are called when the alias is, not here
                names, exprs = aliased
                unit = (node.targets[0].id, node.lineno)
                self.aliases[unit] = names
                self._unit_refs[unit] = [(name, CALL) for name in names]
            for expr in exprs:
                self._module_expr(expr)
            wrapped = _wrapping(node)
            if wrapped is not None and self._wraps(node.value):
                # ``step = tf.function(train_step)``: calling ``step`` calls ``train_step``
                unit = (node.targets[0].id, node.lineno)
                self.wrappers[unit] = (node.value, wrapped)
                self._unit_refs[unit] = [(wrapped, CALL)]
            for name in statement_bindings(node):
                self._bind(name, node.lineno, unconditional and not isinstance(node, _LOOPS),
                           node, after if not isinstance(node, _LOOPS) else (0, 0))
            if isinstance(node, _LOOPS):
                self.loops.append((node.lineno, node.end_lineno))
            blocks = [getattr(node, block, None) or []
                      for block in ("body", "orelse", "finalbody")]
            blocks += [handler.body for handler in getattr(node, "handlers", None) or ()]
            blocks += [case.body for case in getattr(node, "cases", None) or ()]
            keeps = isinstance(node, (ast.With, ast.AsyncWith))
            for block in blocks:
                self._walk(block, unconditional and keeps)

    def _bind(self, name: str, line: int, unconditional: bool,
              node: Optional[ast.AST] = None, block: Tuple[float, float] = (0, 0)) -> None:
        self.bindings.setdefault(name, []).append(_Bound(line, unconditional, node, block))

    def _module_expr(self, expr: ast.AST) -> None:
        for name, line, kind in _mentions(expr, runs_now=self._runs_now):
            self._module_refs.append((name, float(line), kind))
        stack = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Lambda):
                continue
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                self._module_calls.setdefault((node.func.id, node.func.lineno), []).append(node)
            stack.extend(child_nodes(node))

    # -- which binding a mention reaches -----------------------------------------------------
    def in_force(self, name: str, first: float, last: float
                 ) -> Iterator[Tuple[int, float, float]]:
        """The bindings of ``name`` a mention anywhere in ``first``..``last`` may reach, each
        with the part of that span it is in force: the last binding made before ``first``
        that code there always runs after (an unconditional one, or one earlier in the same
        block: ``for s in ...: step = tf.function(...); step(x)``) and every later one up
        to ``last``; in a loop, the bindings later in its body too (the next pass reaches
        them), unless that binding is made in the loop again before the mention."""
        bound = self.bindings.get(name)
        if not bound:
            return
        lines, stops = self._lines(name)
        upto = bisect.bisect_right(lines, last)
        start = 0
        for at in range(bisect.bisect_right(lines, first) - 1, -1, -1):
            if bound[at].reaches_all(first, last):
                start = at
                break
        chosen = set(range(start, upto))
        for a, z in self.loops:
            if (a <= first <= z or a <= last <= z) and not (
                    not bound[start].unconditional and a <= lines[start] <= z
                    and bound[start].reaches_all(first, last)):
                chosen.update(i for i in range(upto, len(bound)) if bound[i].line <= z)
        for i in sorted(chosen):
            lo, hi = max(first, lines[i]), min(last, stops[i])
            yield (lines[i], lo, hi) if lo <= hi else (lines[i], first, last)

    def _lines(self, name: str) -> Tuple[List[int], List[float]]:
        """Lines of ``name``'s bindings, and for each the next unconditional one (or INF)."""
        cached = self._cache.get(name)
        if cached is None:
            bound = self.bindings[name]
            stops: List[float] = [INF] * len(bound)
            stop = INF
            for i in range(len(bound) - 1, -1, -1):
                stops[i] = stop
                if bound[i].unconditional:
                    stop = bound[i].line
            cached = self._cache[name] = ([b.line for b in bound], stops)
        return cached

    def binding_at(self, name: str, line: int) -> Optional[ast.AST]:
        """The statement binding ``name`` at ``line`` (one ``in_force`` gives), or None."""
        for bound in self.bindings.get(name, ()):
            if bound.line == line:
                return bound.node
        return None

    def direct_calls(self, name: str, line: int) -> Optional[List[ast.Call]]:
        """The module-level calls ``name(...)`` that reach the binding of ``name`` made at
        ``line``, in statement order; None when code uses that binding otherwise too:
        passes it on, reads an attribute of it (``f.get_concrete_function``), calls it in a
        lambda, or mentions the name in a function or class (which may run at any time)."""
        if any(name in {ref for ref, _ in refs} for unit, refs in self._unit_refs.items()
               if unit != (name, line)):
            return None
        mentions: Dict[int, int] = {}
        for ref, at, _ in self._module_refs:
            if ref == name and any(bound == line for bound, _, _ in self.in_force(name, at, at)):
                mentions[int(at)] = mentions.get(int(at), 0) + 1
        calls: List[ast.Call] = []
        for at, count in sorted(mentions.items()):
            found = self._module_calls.get((name, at), [])
            if len(found) != count:
                return None
            calls.extend(sorted(found, key=lambda call: (call.lineno, call.col_offset)))
        return calls

    def holder_rebound(self, line: int) -> float:
        """For a module-level ``holder.attr = ...`` holding ``line``: the first later line
        that binds ``holder`` anew, after which what was stored on the old object is out of
        reach (``root.f = tf.function(...)``, then ``root = tf.train.Checkpoint()``); INF if
        none or another statement."""
        at = bisect.bisect_right(self._top_starts, line) - 1
        if at < 0:
            return INF
        first, last, node = self._top[at]
        if not (first <= line <= last and isinstance(node, ast.Assign)
                and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute)
                and isinstance(node.targets[0].value, ast.Name)):
            return INF
        holder = node.targets[0].value.id
        later = [b.line for b in self.bindings.get(holder, ())
                 if b.unconditional and b.line > last]
        return float(min(later)) if later else INF

    def unit_at(self, line: int) -> Optional[Tuple[str, int]]:
        """The module-level ``def``/``class`` whose lines hold ``line``."""
        at = bisect.bisect_right(self._unit_starts, line) - 1
        if at >= 0:
            first, last, unit = self._unit_lines[at]
            if first <= line <= last:
                return unit
        return None

    def in_loop(self, line: float) -> List[Tuple[int, int]]:
        return [(a, z) for a, z in self.loops if a <= line <= z]

    # -- settling ---------------------------------------------------------------------------
    def _reach(self, name: str, times_points, times_spans, kind: str,
               queue: List[Tuple[str, int]]) -> None:
        for point in times_points:
            for line, _, _ in self.in_force(name, point, point):
                self._add((name, line), [point] if kind == CALL else (),
                          [] if kind == CALL else [(point, INF)], queue)
        for first, last in times_spans:
            for line, s, e in self.in_force(name, first, last):
                self._add((name, line), (), [(s, e if kind == CALL else INF)], queue)

    def _add(self, unit, points, spans, queue) -> None:
        if unit not in self.units and unit not in self.wrappers and unit not in self.aliases:
            return
        if isinstance(self.units.get(unit), ast.ClassDef):  # its objects live on
            spans = list(spans) + [(p, INF) for p in points]
            points = ()
        times = self.times.setdefault(unit, Times())
        if times.add(points, spans):
            queue.append(unit)

    def _settle(self) -> None:
        queue: List[Tuple[str, int]] = []
        for name, line, kind in self._module_refs:
            self._reach(name, [line], (), kind, queue)
        for rounds in range(2):
            while queue:
                unit = queue.pop()
                times = self.times[unit]
                for name, kind in self._unit_refs.get(unit, ()):
                    if name == unit[0]:
                        continue  # recursion: no new times
                    self._reach(name, list(times.points), list(times.spans), kind, queue)
            for unit in () if self._program else (*self.units, *self.wrappers, *self.aliases):
                if not self.times.get(unit):  # not reached here: called by importers
                    self._add(unit, (), [(self.end, INF)], queue)

    def referenced(self, name: str) -> bool:
        """Some code of the module calls or uses ``name`` (at module level or in a unit)."""
        if self._referenced is None:
            self._referenced = {ref for ref, _, _ in self._module_refs} | {
                ref for refs in self._unit_refs.values() for ref, _ in refs}
        return name in self._referenced

    def of(self, unit: Tuple[str, int]) -> Times:
        return self.times.get(unit) or Times(spans={(self.end, INF)})


def _header_exprs(node: ast.AST) -> Iterator[ast.AST]:
    """What a ``def``/``class`` statement evaluates when it runs."""
    yield from node.decorator_list
    if isinstance(node, ast.ClassDef):
        yield from node.bases
        yield from (k.value for k in node.keywords)
    else:
        yield from node.args.defaults
        yield from (d for d in node.args.kw_defaults if d is not None)


def _own_exprs(node: ast.stmt) -> Iterator[ast.AST]:
    """The expressions of one statement, without the statements nested in it."""
    for name, value in ast.iter_fields(node):
        if name in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, (ast.expr, ast.withitem, ast.keyword, ast.arguments)):
                yield item


def _wrapping(node: ast.stmt) -> Optional[str]:
    """``name = wrapper(function, ...)`` (or ``wrapper(...)(function)``): the function, if
    the call may be a wrapper."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call)):
        return None
    args = node.value.args
    if args and isinstance(args[0], ast.Name):
        return args[0].id
    return None


def _aliased(node: ast.stmt) -> Optional[Tuple[List[str], List[ast.expr]]]:
    """``name = other`` or ``name = a if test else b`` (nested): the names it may bind
    ``name`` to, and the tests it evaluates; None for any other statement."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)):
        return None
    names: List[str] = []
    tests: List[ast.expr] = []
    stack = [node.value]
    while stack:
        value = stack.pop()
        if isinstance(value, ast.IfExp):
            tests.append(value.test)
            stack += [value.orelse, value.body]
        elif isinstance(value, ast.Name):
            names.append(value.id)
        else:
            return None
    return names, tests


def _mentions(expr: ast.AST, deferred: bool = False,
              runs_now: Optional[Callable[[ast.Call], bool]] = None
              ) -> Iterator[Tuple[str, int, str]]:
    """(name, line, CALL or ESCAPE) for each name ``expr`` reads; names read in a lambda
    escape (the lambda may run later), unless it is given to a call that ``runs_now``, as
    is what else that call is given (it runs them before it returns)."""
    stack: List[Tuple[ast.AST, Optional[ast.AST], bool, bool]] = [
        (expr, None, deferred, False)]
    while stack:
        node, parent, late, now = stack.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            called = now or (isinstance(parent, ast.Call) and parent.func is node) or (
                isinstance(parent, ast.Attribute) and parent.value is node)
            yield node.id, node.lineno, CALL if called and not late else ESCAPE
            continue
        if (not late and isinstance(node, ast.Call) and runs_now is not None
                and runs_now(node)):
            stack.append((node.func, node, late, now))
            stack.extend((arg, node, False, True) for arg in node.args)
            stack.extend((k.value, node, False, True) for k in node.keywords)
            continue
        late = late or (isinstance(node, ast.Lambda) and not now)
        stack.extend((child, node, late, now) for child in child_nodes(node))


def _references(unit: ast.AST, runs_now: Optional[Callable[[ast.Call], bool]] = None
                ) -> Iterator[Tuple[str, str]]:
    """(name, CALL or ESCAPE) for the names code in ``unit`` reads that are not local to
    the function they are read in (or to one enclosing it)."""
    seen: Set[Tuple[str, str]] = set()
    stack: List[Tuple[ast.AST, frozenset]] = [(unit, frozenset())]
    while stack:
        node, local = stack.pop()
        if isinstance(node, _FUNCTIONS):
            inner = local | function_local_names(node)
            stack.extend((child, inner) for child in node.body)
            if node is not unit:
                stack.extend((expr, local) for expr in _header_exprs(node))
            continue
        if isinstance(node, ast.ClassDef):
            stack.extend((child, local) for child in node.body)
            if node is not unit:
                stack.extend((expr, local) for expr in _header_exprs(node))
            continue
        if isinstance(node, ast.expr):
            for name, _, kind in _mentions(node, runs_now=runs_now):
                if name not in local and (name, kind) not in seen:
                    seen.add((name, kind))
                    yield name, kind
            continue
        stack.extend((child, local) for child in child_nodes(node))
