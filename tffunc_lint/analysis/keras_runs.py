"""When a module's code calls the functions Keras traces for a model's runs.

Keras traces a ``tf.function`` of its own for each kind of run: ``fit`` (and
``train_on_batch``) calls the train function, ``evaluate`` (``test_on_batch``, and ``fit``
given validation data) the test function, ``predict`` (``predict_on_batch``) the predict
function. Each is traced on its first call and reused by later runs of the same kind, so a
global that the model's ``call`` reads is frozen into each of them separately: rebinding it
between ``fit`` and the first ``evaluate`` changes what ``evaluate`` sees, rebinding it
between two calls of ``fit`` does not change what the second ``fit`` sees.

``run_times`` answers, for a Keras method of a module-level class, the lines of the runs
that call each of its traced functions; only when every run of the module is a module-level
statement (a script, a notebook), whose order says when it happens.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Set, Tuple

from .ast_walk import child_nodes
from .module_index import iter_statements
from .names import ast_dotted_name, class_ancestors
from .timeline import Timeline

TRAIN, TEST, PREDICT = "train", "test", "predict"
#: Model methods that run a traced function of Keras's, by the function they call.
_RUNS = {"fit": TRAIN, "fit_generator": TRAIN, "train_on_batch": TRAIN,
         "evaluate": TEST, "evaluate_generator": TEST, "test_on_batch": TEST,
         "predict": PREDICT, "predict_generator": PREDICT, "predict_on_batch": PREDICT}
#: Keras methods by the traced functions that run them.
_METHODS = {"call": (TRAIN, TEST, PREDICT), "train_step": (TRAIN,), "test_step": (TEST,),
            "predict_step": (PREDICT,)}
#: ``fit`` arguments that make it evaluate too, with the test function.
_VALIDATION = frozenset({"validation_data", "validation_split", "validation_freq"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


class _Run:
    __slots__ = ("line", "kinds", "cls", "receiver")

    def __init__(self, line: int, kinds: tuple, cls: Optional[str],
                 receiver: Optional[str] = None) -> None:
        self.line, self.kinds, self.cls, self.receiver = line, kinds, cls, receiver


def only_new_models_after(tree: ast.Module, timeline: Timeline, line: int) -> bool:
    """Every module-level run of a model after ``line`` (``fit``, ``evaluate``,
    ``predict`` …) runs an object made after it, or one no run before ``line`` ran: the
    run's receiver is a name that only statements after ``line`` bind where the run is, or
    whose bindings there no earlier run reaches (``model = Net()``, ``model.track =
    True``, then ``model.fit(...)``). Keras traces the functions of such an object on its
    first run, after ``line``; the functions of the objects run before are never run
    again. False when that cannot be told: a run in a function or class (which may be
    called at any time), or through an expression other than a name."""
    runs = _module_runs(tree, timeline)
    if runs is None:
        return False
    for run in runs:
        if run.line <= line:
            continue
        if run.receiver is None:
            return False
        bound = {at for at, _, _ in timeline.in_force(run.receiver, run.line, run.line)}
        if not bound:
            return False
        if min(bound) > line:
            continue  # an object made after ``line``
        if any(earlier.line <= line and (earlier.receiver is None or (
                earlier.receiver == run.receiver
                and _same_object(timeline, run.receiver, bound, earlier.line)))
               for earlier in runs):
            return False  # an object run before ``line`` too: its traces kept the old value
    return True


def _same_object(timeline: Timeline, name: str, bound: Set[int], line: int) -> bool:
    """``name`` at ``line`` may be bound by one of the bindings ``bound``."""
    return bool(bound & {at for at, _, _ in timeline.in_force(name, line, line)})


def run_times(tree: ast.Module, timeline: Timeline, cls: str, method: str
              ) -> Optional[List[Tuple[Optional[int], Set[int]]]]:
    """For the method ``method`` of the module-level class ``cls`` (a statement of the
    module, perhaps in a loop or an ``if``): the lines of the module's runs, after the class
    is defined, that call each traced function running it, one set per function and model
    object, with the line that makes that object (``model = Net()``, the one binding of the
    run's name in force there; None when unknown). An empty list when no run does. None
    when that cannot be told: the method is not one Keras traces, the module runs no
    model, or runs one inside a function or class (which may be called at any time)."""
    kinds = _METHODS.get(method)
    if kinds is None:
        return None
    runs = _module_runs(tree, timeline)
    if not runs:
        return None
    # (a module's statements in blocks too: a class an experiment loop defines again)
    classes = {node.name: node for node in iter_statements(tree.body, into_scopes=False)
               if isinstance(node, ast.ClassDef)}
    if cls not in classes:
        return None
    lineage = _Lineage(classes)
    # A model the module runs itself is run only through its own objects (or ones of a
    # related class); a layer, or a class run through objects of unknown class, by any run.
    known = [run.cls if run.cls in classes else None for run in runs]
    own = any(run_cls is not None and lineage.related(run_cls, cls) for run_cls in known)
    found: Dict[Tuple[str, Optional[int]], Set[int]] = {}
    defined = classes[cls].end_lineno or 0
    for run, run_cls in zip(runs, known):
        if run.line <= defined or own and run_cls is not None and not lineage.related(
                run_cls, cls):
            continue  # run before the class exists, or on a model of another class
        made = _made_at(run, timeline)
        for kind in run.kinds:
            if kind in kinds:
                found.setdefault((kind, made), set()).add(run.line)
    return [(made, lines) for (_, made), lines in found.items()]


def _made_at(run: "_Run", timeline: Timeline) -> Optional[int]:
    """The line making the object a run runs: the one binding of its name in force at the
    run, ``name = Class(...)``."""
    if run.receiver is None or run.cls is None:
        return None
    bound = [at for at, _, _ in timeline.in_force(run.receiver, run.line, run.line)]
    return bound[0] if len(bound) == 1 else None


def _module_runs(tree: ast.Module, timeline: Timeline) -> Optional[List[_Run]]:
    """The module-level runs of models, in statement order; None when a function or class
    of the module runs one."""
    runs: List[_Run] = []
    stack: List[tuple] = [(node, False) for node in reversed(tree.body)]
    while stack:
        node, nested = stack.pop()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            kind = _RUNS.get(node.func.attr)
            if kind is not None and (node.args or node.keywords):
                if nested:
                    return None
                kinds = (kind,)
                if kind == TRAIN and any(k.arg in _VALIDATION for k in node.keywords):
                    kinds = (TRAIN, TEST)
                receiver = node.func.value
                runs.append(_Run(node.lineno, kinds,
                                 _receiver_class(receiver, node.lineno, timeline),
                                 receiver.id if isinstance(receiver, ast.Name) else None))
        inner = nested or isinstance(node, _SCOPES)
        stack.extend((child, inner) for child in reversed(list(child_nodes(node))))
    return runs


def _receiver_class(receiver: ast.expr, line: int, timeline: Timeline) -> Optional[str]:
    """The class whose object ``receiver`` names at ``line``: every module-level binding of
    the name in force there is ``name = Class(...)`` of one class. None when unknown."""
    if not isinstance(receiver, ast.Name):
        return None
    found: Set[Optional[str]] = set()
    for bound, _, _ in timeline.in_force(receiver.id, line, line):
        statement = timeline.binding_at(receiver.id, bound)
        value = statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
        found.add(ast_dotted_name(value.func) if isinstance(value, ast.Call) else None)
    return found.pop() if len(found) == 1 else None


class _Lineage:
    """Inheritance among the module's classes (``class_ancestors``)."""

    def __init__(self, classes: Dict[str, ast.ClassDef]) -> None:
        self._classes = classes
        self._by_name = {name: [node] for name, node in classes.items()}

    def related(self, one: str, other: str) -> bool:
        first, second = self._classes[one], self._classes[other]
        return (first is second or second in class_ancestors(first, self._by_name)
                or first in class_ancestors(second, self._by_name))
