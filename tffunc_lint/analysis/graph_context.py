"""Decide which functions run while TensorFlow traces a graph, and why.

This is the one component every rule relies on. :class:`ProjectGraph` joins the indexes of
the linted modules (see ``index``) into one call graph and walks it breadth-first from the
entry points, so every traced function gets the shortest chain of reasons that makes it
traced ("called from ``train_step`` at line 40, ``@tf.function`` at line 35"). Cycles are
harmless: a function is visited once. :class:`GraphContext` is the per-file view the engine
and the rules query.
"""

from __future__ import annotations

import functools
import os
import sys
from bisect import bisect_left, bisect_right
from collections import deque
from dataclasses import dataclass, replace
from typing import (Callable, Deque, Dict, FrozenSet, Iterable, List, Mapping, NamedTuple,
                    Optional, Sequence, Set, Tuple, Union)

from . import guards
from .guards import IS_NONE, flag_parameter
from .patterns import lazy_compile
from ..files import folder_names, is_notebook
from ..finding import TraceReason
from .module_index import (CALLED, KERAS_GRAPH_METHODS, KERAS_MODULES, KERAS_RUNS, NOT_KERAS,
                           KERAS_TRAINING, MAIN_GUARD, ONCE, SCHEDULE_BASE, TF_FUNCTION,
                           ClassInfo, Entry,
                           FunctionInfo, FunctionKey, ModuleIndex, Target,
                           may_be_project_module)
from .names import IMPORT, canonical, function_local_names, parameter_names
from .test_code import is_test_module

Traced = Dict[FunctionKey, TraceReason]
#: (function, spelling of a no-argument call in its tests) → the predicate's polarity.
Predicates = Dict[Tuple[FunctionKey, str], str]


class ModuleView(NamedTuple):
    """What the project-wide call graph knows about one module."""

    traced: Traced
    predicates: Predicates
    names: Mapping[str, str] = {}
    """Names imported through other linted modules, resolved through them
    (``from .utils import keras`` → ``keras``)."""
    runs_keras: bool = True
    """Keras may run the module's Keras classes in graphs (see ``ProjectGraph.runs_keras``)."""
    direct_steps: FrozenSet[str] = frozenset()
    """Keras step methods of the module's classes that project code calls itself (see
    ``ProjectGraph.direct_steps``)."""
    keras_classes: Mapping[str, Tuple[str, FrozenSet[str]]] = {}
    """The module's Keras classes (see ``ProjectGraph.keras_classes``)."""
    whole_program: bool = False
    """The module is a whole program (see ``ProjectGraph.whole_program``)."""
    imported_names: FrozenSet[str] = frozenset()
    """Names of the module that other linted modules import (tests included)."""
    runs_eagerly: bool = False
    """``tf.function`` is off for the process whenever the module's functions run (see
    ``ProjectGraph.runs_eagerly``)."""
    self_contained: bool = False
    """The module is a program whose own code is all that runs in it (see
    ``ProjectGraph.self_contained``): a script nothing imports that imports no linted
    module."""
    never_run: Tuple[Tuple[int, int], ...] = ()
    """Lines of module-level code that never runs (see ``ProjectGraph.never_run``)."""
    runs_before: Optional[Tuple[int, int]] = None
    """The first TensorFlow release the module no longer runs on, its own code's or that
    of a program importing it (see ``ProjectGraph.runs_before``); None when not known."""
    superseded: bool = False
    """The module is a kept copy of another that nothing runs (see
    ``ProjectGraph.superseded``)."""
    keras_3: bool = False
    """The text of the module, or of a linted module linked to it by imports, says it runs
    on Keras 3 (see ``ProjectGraph.keras_3``)."""
    eager_lambdas: FrozenSet[FunctionKey] = frozenset()
    """Lambdas of the module that Python runs, through tf.py_function (see
    ``ProjectGraph.eager_lambdas``)."""
    callback_writes: Mapping[str, Tuple[str, int]] = {}
    """Attributes that Keras callbacks of the project set on the model they train, each
    with where (see ``ProjectGraph.callback_writes``)."""


#: The stem of a file kept as a copy of another: the other's stem, then a word saying so
#: (``_bkp``, ``-old``, `` copy``, ``.orig2``) or the number a download or a file manager
#: adds to a second copy (``utils (1)``).
_KEPT_COPY = lazy_compile(r"(?i)(.+?)(?:[ _.-]+(?:bkp|bak|backup|old|orig|copy)\d*| \(\d+\))$")
#: A folder that keeps old copies of the modules beside it (``archive/``, ``old/``).
_KEPT_FOLDER = lazy_compile(r"(?i)(?:archived?|old|backups?|bak|deprecated|unused)$")

#: Keras step methods that only training and evaluation run (``fit``, ``evaluate``).
_TRAINING_STEPS = ("train_step", "test_step")


def _contradicts(conditions, flags) -> bool:
    """A ``("flag", name, value)`` condition wants the opposite of a known flag."""
    known = dict(flags)
    return any(c[0] == "flag" and c[1] in known and known[c[1]] != c[2] for c in conditions)


def _passed_flags(callee: FunctionInfo, passed: Union[Tuple, int, None],
                  caller_flags: Sequence[Tuple[str, bool]], kind: str
                  ) -> List[Tuple[str, bool]]:
    """The values a call leaves the callee's ``flag_params`` with: what it passes as
    ``True``/``False``, a flag of the caller's passed on, or the default it does not pass
    (``set_width(model, widths)``: ``actual`` is False in this trace)."""
    if passed is None:
        return []
    if (callee.class_qualname is not None and kind not in ("method", "super")
            and callee.qualname.rpartition(".")[0] == callee.class_qualname):
        return []  # a method reached through its class: positions may count ``self``
    positional, keywords, open_ = (
        ((None,) * passed, (), False) if passed.__class__ is int else passed)
    by_keyword = dict(keywords)
    known = dict(caller_flags)
    found = []
    for name, (number, default) in callee.flag_params.items():
        parameter = flag_parameter(name)
        if parameter in by_keyword:
            value = by_keyword[parameter]
        elif number is not None and number < len(positional):
            value = positional[number]
        elif open_:
            continue
        else:
            found.append((name, default))
            continue
        if value.__class__ is str:  # a flag of the caller's, passed on
            value = known.get(value + IS_NONE if name.endswith(IS_NONE) else value)
        elif value is not None and name.endswith(IS_NONE):
            value = False  # ``True``/``False`` passed where the default is None: not None
        if value is not None:
            found.append((name, value))
    return found


def _keras_passes_inputs_only(function: FunctionInfo) -> Tuple[Tuple[str, bool], ...]:
    """The flags a Keras model's method has when Keras itself runs it in ``fit``,
    ``evaluate``, ``predict`` or an export: Keras passes the inputs (or the batch) alone,
    and ``training`` and ``mask`` by keyword, so every other parameter keeps its default
    (``def call(self, text, labels=None)``: ``labels is None`` in the graph ``predict``
    traces, and a branch for labels runs only where the project passes them itself).
    Asked only where nothing but Keras runs the model in a graph
    (``ProjectGraph._run_by_keras_alone``): traced code of the project's own may call it
    with labels, and the index keeps no edge for a call of a model object."""
    return tuple(sorted(
        (name, default) for name, (number, default) in function.flag_params.items()
        if number != 0 and flag_parameter(name) not in ("training", "mask")))


#: The Keras model method that wraps each step method in a tf.function.
_STEP_MAKERS = {"train_step": "make_train_function", "test_step": "make_test_function",
                "predict_step": "make_predict_function"}

_KERAS_MODELS = frozenset({
    "keras.Model", "keras.models.Model", "keras.Sequential", "keras.models.Sequential",
    "keras.engine.training.Model", "keras.src.models.model.Model",
})
_KERAS_LAYER_PREFIXES = ("keras.layers.", "keras.engine.base_layer.", "keras.src.layers.")
_MAX_HOPS = 8
#: Functions of a module ``_may_run_models`` reads from one traced function before it
#: takes the answer to be yes.
_MODEL_SEARCH = 200


def _folder_names(index: ModuleIndex) -> Tuple[str, ...]:
    """See ``files.folder_names``; none for a notebook."""
    if not index.module or index.path.endswith(".ipynb"):
        return ()
    return folder_names(index.path, index.module)


def _schedule_base(qualified: str) -> Optional[str]:
    """"Schedule" for Keras's ``LearningRateSchedule`` under any of its module paths."""
    parts = qualified.split(".")
    return "Schedule" if parts[-1] == SCHEDULE_BASE and "schedules" in parts else None


def _keras_base_kind(qualified: str) -> Optional[str]:
    if qualified in _KERAS_MODELS:
        return "Model"
    if qualified == "keras.Layer" or qualified.startswith(_KERAS_LAYER_PREFIXES):
        return "Layer"
    # Keras re-exported by a library that is not linted, under Keras's own name
    # (``from gpflow.keras import tf_keras``; ``tf_keras.layers.Layer``).
    parts = qualified.split(".")
    for position in range(len(parts) - 2, 0, -1):
        if parts[position] in ("keras", "tf_keras"):
            return _keras_base_kind(".".join(["keras", *parts[position + 1:]]))
    return None


#: The modules that name a class, each with the class whose lines do so, and those that
#: looked (see ``ProjectGraph._users_of_classes``).
_ClassUsers = Tuple[List[Tuple[ModuleIndex, str]], List[ModuleIndex]]


class ProjectGraph:
    """The call graph of the linted modules."""

    def __init__(self, indexes: Iterable[ModuleIndex],
                 distributed: Optional[Callable[[str], bool]] = None,
                 whole_project: bool = False):
        """``distributed(path)``: the file is part of a distribution others install (see
        ``never_named``); unknown (None): every file may be. ``whole_project``: the indexes
        are every module of their project, so a module none of them imports is imported by
        nothing (see ``_imported_by_nothing``)."""
        # Asked for a module again and again, and the same for each while the graph lives.
        self._distributed = functools.lru_cache(maxsize=None)(
            lambda path: distributed(path) and not self._run_from_folder(path)) \
            if distributed else None
        self._whole_project = whole_project
        self._stem_folders: Optional[Set[str]] = None
        self._by_folder: Optional[Dict[str, List[ModuleIndex]]] = None
        self._left_behind: Dict[str, bool] = {}
        self._tf1: Dict[str, bool] = {}
        self._before: Dict[str, Optional[Tuple[int, int]]] = {}
        self._keras_3: Optional[FrozenSet[str]] = None
        self._hands_on: Dict[str, bool] = {}
        self._any_before: Optional[bool] = None
        self._callback_writes: Optional[Dict[str, Tuple[str, int]]] = None
        #: ``_importers_of`` and ``_more_importers`` by path: asked for every module by each
        #: whole-project question (``on_tensorflow_1``, ``script`` …); callers never change
        #: the lists.
        self._importers_by_path: Dict[str, List[ModuleIndex]] = {}
        self._more_by_path: Dict[str, List[ModuleIndex]] = {}
        self._private_callers_by_name: Optional[Dict[str, List[ModuleIndex]]] = None
        self._any_tf1: Optional[bool] = None
        self._only_eager_compiles: Optional[bool] = None
        self._packages_left: Dict[str, bool] = {}
        self._never_named: Dict[str, Tuple[Tuple[int, int], ...]] = {}
        self._class_runs: Dict[Tuple[str, str], bool] = {}
        self._class_users: Optional[Dict[Tuple[str, str], _ClassUsers]] = None
        self._keras_above: Dict[str, bool] = {}
        self._handed_on: Dict[str, bool] = {}
        self._splits: Dict[str, Tuple[Optional[ModuleIndex], Sequence[str]]] = {}
        self.by_path: Dict[str, ModuleIndex] = {}
        self.by_module: Dict[str, Optional[ModuleIndex]] = {}
        self._stems: Dict[str, Optional[ModuleIndex]] = {}
        self._claimants: Dict[str, List[ModuleIndex]] = {}
        """For a module name two or more files claim: those files (see ``_claimant``)."""
        self._ambiguous: Set[str] = set()
        """Qualified names that start with a module name two or more files claim."""
        for index in indexes:
            self.by_path[index.path] = index
            if index.module:
                # Two files claiming one module name: resolve neither by the name alone.
                if index.module in self.by_module:
                    first = self.by_module[index.module]
                    self._claimants.setdefault(index.module, [first] if first else []).append(
                        index)
                self.by_module[index.module] = (
                    None if index.module in self.by_module else index)
                # A script's sibling import (``from utils import x``) names it by its stem.
                stem = index.module.rpartition(".")[2]
                if stem != index.module:
                    self._stems[stem] = None if stem in self._stems else index
        self._folder_names: Dict[str, Optional[ModuleIndex]] = {}
        """Names that import a module through the folders without ``__init__.py`` above it,
        as Python 3 finds them from a folder up (``from common.models import cnn`` for
        ``common/models.py``; see ``files.folder_names``): name → module, None when two
        claim it."""
        for index in self.by_path.values() if len(self.by_path) > 1 else ():
            for name in _folder_names(index):
                if name not in self.by_module:
                    self._folder_names[name] = (None if name in self._folder_names
                                                else index)
        self._named_by_folders: Dict[str, List[str]] = {}
        for name, index in self._folder_names.items():
            if index is not None:
                self._named_by_folders.setdefault(index.path, []).append(name)
        self._predicates: Dict[Tuple, Optional[str]] = {}
        self._unknown_step_calls: Dict[bool, FrozenSet[str]] = {}
        self._importers: Optional[Dict[str, List[ModuleIndex]]] = None
        self._program_parts: Dict[str, bool] = {}
        self._eager: Dict[str, bool] = {}
        self._switching: Optional[FrozenSet[str]] = None
        self._switches: Optional[bool] = None
        """Some linted module turns ``tf.function`` off for its process."""
        self._by_stem: Optional[Dict[Tuple[str, str], List[ModuleIndex]]] = None
        self._by_star: Dict[str, List[ModuleIndex]] = {}

    # -- tracing ----------------------------------------------------------------------------
    def trace(self, seeds: Optional[Mapping[str, Traced]] = None) -> Dict[str, Traced]:
        """Every traced function of every module, with its reason."""
        traced: Dict[str, Traced] = {path: {} for path in self.by_path}
        queue: Deque[Tuple[str, FunctionKey]] = deque()
        receivers: Dict[Tuple[str, FunctionKey], Set[Tuple[str, str]]] = {}
        """A method reached through ``self`` → the classes (path, name) of the objects it
        runs for: a base class's method, for each subclass that calls it on itself."""

        eager = self._eager_functions()

        def add(path: str, key: FunctionKey, reason: TraceReason) -> None:
            if (path, key) in eager:
                return  # Python runs it, through tf.py_function
            known = traced[path].get(key)
            if known is not None:
                # Once only if every way in is one-time set-up; fresh only if every way in
                # is on an object the trace made; held only if every way in is on an object
                # a class holds; a flag known only if every way in knows it. These only
                # ever turn off: no cycles.
                once, fresh = known.once and reason.once, known.fresh and reason.fresh
                held = known.held and reason.held
                flags = tuple(sorted(set(known.flags) & set(reason.flags)))
                if (once, fresh, held, flags) == (known.once, known.fresh, known.held,
                                                  known.flags):
                    return
                reason = replace(reason if known.once and not reason.once else known,
                                 once=once, fresh=fresh, held=held, flags=flags)
            traced[path][key] = reason
            queue.append((path, key))

        def enter(index: ModuleIndex, entry: Entry) -> None:
            """Trace an entry's target directly (its parameters are the trace's inputs)."""
            found = self.resolve(index, entry.target)
            if found:
                add(*found, TraceReason(entry.how, entry.line, path=index.path,
                                        function=self._qualname(*found), flags=entry.flags))

        # Keras traces these only for training and evaluation, which follow ``compile()``.
        eager_steps = _TRAINING_STEPS if self.compiles_only_eagerly() else ()
        for path, reasons in (seeds or {}).items():
            index = self.by_path.get(path)
            keras = index is not None and not self.runs_keras(index)
            program_eager = index is not None and self.runs_eagerly(index)
            unused = self.never_run(index) if index is not None else ()
            for key, reason in reasons.items():
                if program_eager and _made_by_tf_function(reason.how):
                    continue
                if unused and _within(unused, key[1]):
                    continue
                if not (reason.how.startswith("Keras ") and (
                        keras or key[2] in eager_steps or self._run_by_project(index, key)
                        or not self._method_class_runs(index, key))):
                    add(path, key, reason)
        # Callables of control-flow APIs: traced when the function calling the API is.
        within: Dict[Tuple[str, FunctionKey], List[Entry]] = {}
        for index in self.by_path.values():
            unused = self.never_run(index)
            program_eager = self.runs_eagerly(index)
            for entry in index.entries:
                if unused and _within(unused, entry.line):
                    continue  # code nothing names never runs, nor the code written in it
                if program_eager and _made_by_tf_function(entry.how):
                    continue
                if entry.within is not None:
                    within.setdefault((index.path, entry.within), []).append(entry)
                    continue
                enter(index, entry)
            for entry in index.decorated:
                if program_eager or unused and _within(unused, entry.line):
                    continue
                if (entry.target[0] == "external"
                        and self.canonical(entry.target[1], near=index) == TF_FUNCTION):
                    add(index.path, entry.decorated, TraceReason(
                        entry.how, entry.line, path=index.path,
                        function=index.functions[entry.decorated].qualname))
                    continue
                found = self.resolve(index, entry.target)
                if found and self.by_path[found[0]].functions[found[1]].wraps_tf_function:
                    add(index.path, entry.decorated, TraceReason(
                        f"{entry.how} (wraps tf.function)", entry.line, path=index.path,
                        function=index.functions[entry.decorated].qualname))
            for callee, slot, passed, line in index.passed_callables:
                found = self.resolve(index, callee)
                if found is None or slot is None:
                    continue
                module = self.by_path[found[0]]
                if slot in module.function_summary().traced_params.get(found[1], ()):
                    wrapper = module.functions[found[1]]
                    target = self.resolve(index, passed)
                    if target:
                        api = wrapper.traced_param_apis.get(slot, "")
                        add(*target, TraceReason(
                            f"passed to {wrapper.qualname}, which hands it to {api}"
                            if api.startswith("Dataset.") else
                            f"passed to {wrapper.qualname}, which traces it",
                            line, path=index.path, function=self._qualname(*target)))
            # Keras 3 told to run on JAX or PyTorch runs the module's Keras objects there
            runs_keras = (self.runs_keras(index) and not program_eager
                          and not index.other_keras_backend)
            for cls in index.classes.values():
                kind = self.keras_kind(index, cls)
                if kind is None or cls.eager or not runs_keras or cls.trained_by_own_loop(
                        kind) or (
                        unused and _within(unused, cls.first_line)) or (
                        not self.keras_class_runs(index, cls)):
                    continue
                run_directly = _eager_steps(index, cls) if index.eager_steps else set()
                run_directly |= self._steps_run_by_project(index, cls)
                for name in KERAS_GRAPH_METHODS:
                    if name not in cls.methods and name not in run_directly and (
                            name not in eager_steps):
                        # Inherited: the base class's method runs for this class's objects
                        # too, and what it calls on ``self`` is this class's.
                        inherited = self._method(index, cls.qualname, name, include_own=False)
                        if inherited is not None and not _other_backend(index):
                            receivers.setdefault(inherited, set()).add(
                                (index.path, cls.qualname))
                    if name in cls.methods and name not in run_directly and (
                            name not in eager_steps):
                        key = cls.methods[name]
                        if key in index.custom_steps or self.makes_own_step(index, cls, name):
                            continue  # Keras does not call it, or not through its own graph
                        if name == "call" and kind == "Layer" and self._own_entry(index, cls):
                            continue  # calling the layer runs its own ``__call__``, not Keras's
                        add(index.path, key, TraceReason(
                            f"Keras {kind}.{name}()", key[1], path=index.path,
                            function=index.functions[key].qualname,
                            once=name == "call" and cls.builds_functional,
                            flags=_keras_passes_inputs_only(index.functions[key])
                            if kind == "Model" and self._run_by_keras_alone(index, cls)
                            else ()))
            for cls in index.classes.values():
                key = cls.methods.get("__call__")
                if key is None or cls.eager or not runs_keras or (
                        unused and _within(unused, cls.first_line)) or (
                        not self.is_lr_schedule(index, cls)) or (
                        not self.keras_class_runs(index, cls)):
                    continue
                add(index.path, key, TraceReason(
                    "Keras LearningRateSchedule.__call__() (optimizers call it when they "
                    "apply gradients)", key[1], path=index.path,
                    function=index.functions[key].qualname))
        tests = {path for path in self.by_path if is_test_module(path)}
        while queue:
            path, key = queue.popleft()
            index = self.by_path[path]
            function = index.functions[key]
            reason = traced[path][key]
            for entry in within.get((path, key), ()):
                enter(index, entry)  # the API hands its callables tensors
            for position, (target, line, how) in enumerate(function.edges):
                found = self.resolve(index, target)
                if not found or (found[0] != path and found[0] not in tests and path in tests):
                    continue  # a test tracing library code shows what the test does, not users
                conditions = function.edge_guards.get(position, ())
                if conditions and (self._untraced(index, conditions)
                                   or _contradicts(conditions, reason.flags)):
                    continue
                once = reason.once or self._initialises(index, conditions, found)
                same_self = target[0] == "local" or (
                    target[0] == "method" and target[1] == function.class_qualname)
                # The flags of ``self`` hold on in its methods; a parameter's, only in the
                # function it is a parameter of.
                flags = reason.flags if same_self else ()
                if flags:
                    flags = tuple(f for f in flags if "." in f[0])
                if how == CALLED and found not in eager:  # else ``add`` drops it unread
                    callee = self.by_path[found[0]].functions[found[1]]
                    if callee.flag_params:
                        flags = tuple(sorted({*flags, *_passed_flags(
                            callee, function.edge_args.get(position), reason.flags,
                            target[0])}))
                made = TraceReason(f"{how} {function.qualname}", line,
                                   function=function.qualname, via=reason, path=path,
                                   once=once, fresh=position in function.fresh_edges,
                                   held=target[0] == "held" or same_self and reason.held,
                                   flags=flags)
                on_self = how == CALLED and function.class_qualname and (
                    target[0] == "method" and same_self and target[2] != "__call__"
                    or target[0] == "super" and target[1] == function.class_qualname)
                if not on_self:
                    add(*found, made)
                    continue
                # ``self.message(x)`` in a method a subclass's object runs (``propagate``,
                # reached from ``GCNConv.call`` by ``super().propagate(...)``) runs that
                # subclass's own ``message``: look the method up from the class of each
                # object the caller runs for.
                owners = {(path, function.class_qualname), *receivers.get((path, key), ())}
                for owner in sorted(owners):
                    owner_index = self.by_path[owner[0]]
                    if target[0] == "super":  # the same method, run for this object too
                        hit: Optional[Tuple[str, FunctionKey]] = found
                    elif target[2] in owner_index.classes[owner[1]].assigned:
                        continue
                    else:
                        hit = self._method(owner_index, owner[1], target[2], include_own=True)
                    if hit is None:
                        continue
                    objects = receivers.setdefault(hit, set())
                    if owner not in objects:
                        objects.add(owner)
                        if hit[1] in traced[hit[0]]:
                            queue.append(hit)  # the callee runs for one more class
                    add(*hit, made)
        return traced

    # -- guards -----------------------------------------------------------------------------
    def predicate(self, index: ModuleIndex, target: Target, hops: int = 0) -> Optional[str]:
        """The polarity (``guards.EAGER``/``GRAPH``) of a function that tells whether code
        is traced, or None."""
        found = self.resolve(index, target)
        if found is None and target[0] == "external":
            # A library predicate re-exported by a project module.
            return (guards.EAGER if self.canonical(target[1], near=index) in guards.EAGER_CALLS
                    else None)
        if found is None or hops > _MAX_HOPS:
            return None
        memo = found
        if memo in self._predicates:
            return self._predicates[memo]
        self._predicates[memo] = None  # a cycle says nothing
        module = self.by_path[found[0]]
        form = module.function_summary().predicates.get(found[1])
        result = None
        if form is not None and len(form) == 1:
            result = form[0]
        elif form is not None:
            polarity, wanted, callee = form
            if self.predicate(module, callee, hops + 1) == wanted:
                result = polarity
        self._predicates[memo] = result
        return result

    def canonical(self, qualified: str, hops: int = 0, near: Optional[ModuleIndex] = None
                  ) -> str:
        """``qualified`` with the linted modules' imports and aliases followed, as Python
        binds them: ``pkg.utils.keras.layers.Layer`` → ``keras.layers.Layer`` when
        ``pkg/utils.py`` imports ``keras`` (through any number of re-exports)."""
        module, rest = self._split(qualified, near)
        if (module is None or hops > _MAX_HOPS or rest[0] in module.top_level
                or rest[0] in module.classes):
            return qualified
        target = module.bound_names().get(rest[0])
        if not target:
            return qualified
        return self.canonical(canonical(".".join([target, *rest[1:]])), hops + 1, module)

    def names_of(self, index: ModuleIndex) -> Dict[str, str]:
        """The names ``index`` imports through other linted modules, resolved through them."""
        found: Dict[str, str] = {}
        for name, path in index.imports:
            target = index.bound_names().get(name)
            if target and self._split(target, index)[0] is not None:
                resolved = self.canonical(target, near=index)
                if resolved != target:
                    found[name] = resolved
        for module in index.star_imports:
            star = self.by_module.get(module) or self._claimant(module, index)
            if star is None or star is index:
                continue
            # ``from utils import *``: the names that module imports, as it resolves them
            # (a later star import's name replaces an earlier one's, as in Python)
            bound = index.bound_names()
            for name in star.bound_names():
                if not name.startswith("_") and name not in bound:
                    found[name] = self.canonical(f"{star.module}.{name}", near=star)
        return found

    def _untraced(self, index: ModuleIndex, conditions) -> bool:
        return any(c[0] == "pred" and self.predicate(index, c[1]) == c[2]
                   or c[0] == "eager-arg" and self._eager_argument(index, c[1], c[2])
                   for c in conditions)

    def eager_lambdas(self, index: ModuleIndex) -> FrozenSet[FunctionKey]:
        """The lambdas ``index`` hands to a function that passes that parameter on to
        tf.py_function, in turn (``new_py_function(lambda d: parse(d), [d], Tout)``):
        Python runs them, not the trace of the code that writes them."""
        return frozenset(key for callee, position, key in index.handed_lambdas
                         if self._eager_argument(index, callee, position))

    def _eager_argument(self, index: ModuleIndex, callee: Target, position: int) -> bool:
        """Argument ``position`` of a call of ``callee`` goes to tf.py_function."""
        found = self.resolve(index, callee)
        if found is None:
            return False
        function = self.by_path[found[0]].functions[found[1]]
        bound = callee[0] in ("method", "super") or (
            callee[0] == "external" and function.class_qualname is not None)
        return position + bound in function.eager_params

    def _eager_functions(self) -> FrozenSet[Tuple[str, FunctionKey]]:
        """Functions Python runs eagerly: decorated with ``@tf.py_function(...)``, or with a
        project decorator that hands its argument to tf.py_function."""
        found = set()
        for index in self.by_path.values():
            found.update((index.path, key) for key in index.function_summary().eager)
            for entry in index.decorated:
                target = self.resolve(index, entry.target)
                if target and 0 in self.by_path[target[0]].functions[target[1]].eager_params:
                    found.add((index.path, entry.decorated))
        return frozenset(found)

    def _initialises(self, index: ModuleIndex, conditions, found) -> bool:
        """One of ``conditions`` tests an attribute that the called function sets, or the
        function is a builder handed to a get-or-create call (``ONCE``). A Keras ``build``
        sets ``self.built`` even when it leaves that to ``super().build()`` or to Keras
        (``if not self.built: self.build(x.shape)``)."""
        function = self.by_path[found[0]].functions[found[1]]
        writes = function.writes
        if function.qualname.rpartition(".")[2] == "build":
            writes = writes | {"built"}
        for condition in conditions:
            if condition == ONCE:
                return True
            attributes = condition[1] if condition[0] == "init" else ()
            if condition[0] == "init-call":
                test = self.resolve(index, condition[1])
                attributes = self.by_path[test[0]].functions[test[1]].init_test if test else ()
            if writes.intersection(attributes):
                return True
        return False

    def predicates_of(self, index: ModuleIndex) -> Predicates:
        """Polarity of the predicates each function of ``index`` calls in its tests."""
        found: Predicates = {}
        for key, spelling, target in index.function_summary().guard_calls:
            polarity = self.predicate(index, target)
            if polarity:
                found[(key, spelling)] = polarity
        return found

    # -- resolution -------------------------------------------------------------------------
    def _qualname(self, path: str, key: FunctionKey) -> str:
        return self.by_path[path].functions[key].qualname

    def resolve(self, index: ModuleIndex, target: Target) -> Optional[Tuple[str, FunctionKey]]:
        kind = target[0]
        if kind == "local":
            return index.path, target[1]
        if kind == "name":
            key = index.top_level.get(target[1])
            return (index.path, key) if key else None
        if kind == "method":
            cls = index.classes.get(target[1])
            if cls is not None and target[2] in cls.assigned:
                return None  # ``self.encoder = self.encoder()``: the object's, not the method
            found = self._method(index, target[1], target[2], include_own=True)
            if found is None and target[2] == "__call__":  # ``self(x)``
                found = self._call_method(index, target[1])
            return found
        if kind == "super":
            return self._method(index, target[1], target[2], include_own=False)
        if kind == "external":
            return self._qualified(target[1], near=index)
        if kind == "held":  # ``self.pool.query(x)``: the class ``self.pool`` holds, if known
            made = index.instance_classes.get(target[1])
            found = self._class(index, made) if made is not None else None
            return self._method(found[0], found[1], target[2], include_own=True) if found else None
        return None

    def _call_method(self, index: ModuleIndex, class_name: str
                     ) -> Optional[Tuple[str, FunctionKey]]:
        """What calling an instance of the class runs: its ``__call__``, or a Keras class's
        ``call`` (Keras's ``__call__`` runs it)."""
        found = self._method(index, class_name, "__call__", include_own=True)
        if found is None:
            cls = index.classes.get(class_name)
            if cls is not None and self.keras_kind(index, cls):
                found = self._method(index, class_name, "call", include_own=True)
        return found

    def _method(self, index: ModuleIndex, class_name: str, name: str, include_own: bool,
                hops: int = 0) -> Optional[Tuple[str, FunctionKey]]:
        cls = index.classes.get(class_name)
        if cls is None or hops > _MAX_HOPS:
            return None
        if include_own and name in cls.methods:
            return index.path, cls.methods[name]
        for base in cls.bases:
            found = self._class(index, base)
            if found:
                result = self._method(found[0], found[1], name, True, hops + 1)
                if result:
                    return result
        return None

    def _own_entry(self, index: ModuleIndex, cls: ClassInfo) -> bool:
        """The class's ``__call__``, its own or a project base's, never reaches Keras's
        ``Layer.__call__`` (``ModuleIndex.own_entries``)."""
        found = self._method(index, cls.qualname, "__call__", include_own=True)
        if found is None:
            return False
        module = self.by_path.get(found[0])
        return module is not None and found[1] in module.own_entries

    def _class(self, index: ModuleIndex, base: Target, hops: int = 0
               ) -> Optional[Tuple[ModuleIndex, str]]:
        if base[0] == "class":
            return (index, base[1]) if base[1] in index.classes else None
        if base[0] != "external" or hops > _MAX_HOPS:
            return None
        module, rest = self._split(base[1], index)
        if module is None or len(rest) != 1:
            return None
        if rest[0] in module.classes:
            return module, rest[0]
        reexport = dict(module.imports).get(rest[0])
        if reexport:
            return self._class(module, ("external", reexport), hops + 1)
        # A package's ``from .blocks import *`` hands on the classes of ``blocks``.
        for star in module.star_imports:
            found = self._class(module, ("external", f"{star}.{rest[0]}"), hops + 1)
            if found:
                return found
        return None

    def _split(self, qualified: str, near: Optional[ModuleIndex] = None
               ) -> Tuple[Optional[ModuleIndex], Sequence[str]]:
        """The longest linted module that ``qualified`` starts with, and the rest (asked of
        the same names again and again: kept). ``near``: the module whose code names it,
        which picks one of the files that claim a module name (``_claimant``)."""
        found = self._splits.get(qualified)
        if found is None:
            found = self._splits[qualified] = self._split_anew(qualified)
        if near is not None and qualified in self._ambiguous:
            # not kept: one answer per folder asking, for a few names of some projects
            found = self._split_anew(qualified, near)
        return found

    def _split_anew(self, qualified: str, near: Optional[ModuleIndex] = None
                    ) -> Tuple[Optional[ModuleIndex], Sequence[str]]:
        parts = qualified.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            prefix = ".".join(parts[:cut])
            if near is None and prefix in self._claimants:
                self._ambiguous.add(qualified)
            module = self.by_module.get(prefix) or (
                self._claimant(prefix, near) if near is not None else None) or (
                self._folder_names.get(prefix) if cut > 1 else None)
            if module is not None:
                return module, tuple(parts[cut:])
        if len(parts) > 1 and parts[0] not in self.by_module:
            module = self._stems.get(parts[0])
            if module is not None:
                return module, tuple(parts[1:])
        return None, ()

    def _qualified(self, qualified: str, hops: int = 0, near: Optional[ModuleIndex] = None
                   ) -> Optional[Tuple[str, FunctionKey]]:
        module, rest = self._split(qualified, near)
        if module is None or hops > _MAX_HOPS:
            return None
        if len(rest) == 1:
            if rest[0] in module.top_level:
                return module.path, module.top_level[rest[0]]
            reexport = dict(module.imports).get(rest[0])
            return self._qualified(reexport, hops + 1, module) if reexport else None
        if len(rest) == 2:
            return self._method(module, rest[0], rest[1], include_own=True)
        return None

    def view_of(self, index: ModuleIndex, traced: Traced) -> ModuleView:
        """What the project knows about ``index``, with ``traced`` its traced functions."""
        keras_classes = self.keras_classes(index)
        return ModuleView(traced, self.predicates_of(index), self.names_of(index),
                          self.runs_keras(index, eager_runs=True, any_traced_code=True),
                          self.direct_steps(index),
                          keras_classes, self.whole_program(index),
                          self.imported_names(index), self.runs_eagerly(index),
                          self.self_contained(index), self.never_run(index),
                          self.runs_before(index), self.superseded(index),
                          self.keras_3(index), self.eager_lambdas(index),
                          self.callback_writes(index, keras_classes))

    def callback_writes(self, index: ModuleIndex,
                        keras_classes: Mapping[str, Tuple[str, FrozenSet[str]]]
                        ) -> Dict[str, Tuple[str, int]]:
        """For a module with Keras models (``keras_classes``: its Keras classes, see
        ``keras_classes``): the attributes that hooks of the project's classes set on
        ``self.model`` (``ModuleIndex.callback_model_writes``), the model a
        Keras callback is given, each with the first module and line that does. Keras runs
        the hooks between the calls of the model's traced step functions. A notebook's
        callbacks reach only its own models, and a notebook's models only its own
        callbacks: nothing imports a notebook."""
        if not any(kind == "Model" for kind, _ in keras_classes.values()):
            return {}
        if index.path.endswith(".ipynb"):
            found = {name: (index.path, line)
                     for name, line in index.callback_model_writes.items()}
        else:
            found = self._callback_writes
            if found is None:
                found = self._callback_writes = {}
                for module in self.by_path.values():
                    if not module.path.endswith(".ipynb"):
                        for name, line in module.callback_model_writes.items():
                            found.setdefault(name, (module.path, line))
        if not found:
            return {}
        read = index.attribute_words  # only what the module's code may read matters to it
        return {name: where for name, where in found.items() if name in read}

    def keras_classes(self, index: ModuleIndex) -> Dict[str, Tuple[str, FrozenSet[str]]]:
        """The classes of ``index`` that derive from Keras, directly or through the project:
        qualname → (``"Model"`` or ``"Layer"``, the step methods whose graph the class makes
        itself, see ``makes_own_step``)."""
        found = {}
        for qualname, cls in index.classes.items():
            kind = self.keras_kind(index, cls)
            if kind is not None:
                found[qualname] = (kind, frozenset(
                    name for name in _STEP_MAKERS if self.makes_own_step(index, cls, name)))
        return found

    def direct_steps(self, index: ModuleIndex) -> FrozenSet[str]:
        """Keras step methods (``train_step`` …) defined in ``index``'s classes that some
        linted module calls itself, not through ``super()``: a project's own training loop
        (``model.train_step(batch)``), which runs the method as its decorator makes it."""
        return frozenset(name for cls in index.classes.values()
                         for name in self._called_steps(index, cls, loops=False))

    def _called_steps(self, index: ModuleIndex, cls: ClassInfo, loops: bool) -> FrozenSet[str]:
        """The step methods of ``cls`` that linted code calls itself: on an instance of
        ``cls``, or by name on an object of unknown class. ``loops``: only calls outside
        traced code, tests aside (``ModuleIndex.loop_step_calls``); else every call
        (``ModuleIndex.step_calls``)."""
        unknown = self._unknown_step_calls.get(loops)
        if unknown is None:  # calls on objects of unknown class, anywhere: once per kind
            unknown = self._unknown_step_calls[loops] = frozenset(
                name for module in self.by_path.values()
                if not (loops and is_test_module(module.path))
                for name, of in (module.loop_step_calls if loops else module.step_calls)
                if of is None)
        calls = index.loop_step_calls if loops else index.step_calls
        return frozenset(name for name in cls.methods
                         if name in unknown or (name, cls.qualname) in calls)

    def runs_eagerly(self, index: ModuleIndex) -> bool:
        """By the time the functions of ``index`` can be called, ``tf.function`` is off for
        the process (``tf.config.run_functions_eagerly(True)``), and the module never turns
        it on again: its ``tf.function``s and Keras steps run as Python (TFF406 reports the
        switch); ``tf.data`` still traces the functions it maps. So it is when the module
        turns it off as it is imported (at module level, or by calling a function of its own
        that does so first thing), or imports a module that does (``_switched_on_import``);
        when it is a whole program whose main guard turns it off; and when it is part of an
        application (not of a distribution others install) that only such modules and
        programs import (a training script's ``def train():
        tf.config.run_functions_eagerly(True)`` before it makes the agent of ``agent.py``).
        A program that imports the module and turns the switch back is not followed."""
        if index.switches_eager_off:
            return False
        if index.switches_eager_on:
            return True
        if self._switches is None:
            self._switches = any(other.switches_eager_on or other.switches_eager_as_program
                                 for other in self.by_path.values())
        known = self._eager.get(index.path) if self._switches else False
        if known is None:
            self._eager[index.path] = False  # an import cycle proves nothing
            known = self._eager[index.path] = (
                index.path in self._switched_on_import()
                or index.switches_eager_as_program and self.whole_program(index)
                or self._imported_only_eagerly(index))
        return known

    def _switched_on_import(self) -> FrozenSet[str]:
        """The modules whose import turns ``tf.function`` off for the process: those that
        switch it at module level, and those whose module-level statements import one of
        them (none that turns it back on). Built once, from the switching modules out."""
        if self._switching is None:
            found = {index.path for index in self.by_path.values()
                     if index.switches_eager_on and not index.switches_eager_off}
            queue = deque(self.by_path[path] for path in found)
            while queue:
                switching = queue.popleft()
                for other in self._importers_of(switching) + self._stem_importers(switching):
                    if (other.path not in found and not other.switches_eager_off
                            and any(module is switching
                                    for module in self._imported_at_import(other))):
                        found.add(other.path)
                        queue.append(other)
            self._switching = frozenset(found)
        return self._switching

    def _module_named(self, target: str, near: ModuleIndex) -> Optional[ModuleIndex]:
        """The linted module an import target of ``near`` names, or the module it reads a
        name of."""
        return (self.by_module.get(target) or self._claimant(target, near)
                or self._split(target, near)[0])

    def _claimant(self, name: str, near: ModuleIndex) -> Optional[ModuleIndex]:
        """Of the files that claim the module name ``name`` (``ops.py`` beside the scripts
        and another in ``legacy/``), the one the code of ``near`` imports: the one whose
        import root (the folder Python finds it from) holds ``near``, the deepest such, as a
        script's own folder comes first on ``sys.path``; None when no root holds it."""
        here = os.path.dirname(near.path)
        best: Optional[ModuleIndex] = None
        depth = -1
        for index in self._claimants.get(name, ()):
            root = _import_root(index)
            if root and here != root and not here.startswith(root + os.sep):
                continue
            if len(root) > depth:
                best, depth = index, len(root)
            elif len(root) == depth:
                best = None
        return best

    def _imported_at_import(self, index: ModuleIndex) -> List[ModuleIndex]:
        """The linted modules that module-level statements of ``index``, outside any block,
        import (``from common.models import cnn``, ``import common.models as models``)."""
        found = []
        for binding in index.bindings:
            if binding[2] == IMPORT and binding[4]:
                module = self._module_named(binding[3], index)
                if module is not None:
                    found.append(module)
        return found

    def _imported_only_eagerly(self, index: ModuleIndex) -> bool:
        """``index`` is a module of an application, not a program of its own, and every
        linted module importing it runs eagerly (``runs_eagerly``)."""
        if index.runs_as_program or index.path.endswith(".ipynb"):
            return False
        if "." in index.module and (self._distributed is None
                                    or self._distributed(index.path)):
            return False
        importers = self._importers_of(index) + self._more_importers(index)
        return bool(importers) and all(self.runs_eagerly(other) for other in importers)

    def _run_by_project(self, index: Optional[ModuleIndex], key: FunctionKey) -> bool:
        """``key`` is a step method that the project's own loop runs (see
        ``_steps_run_by_project``)."""
        cls = _class_of(index, key)
        return cls is not None and key[2] in self._steps_run_by_project(index, cls)

    def _method_class_runs(self, index: Optional[ModuleIndex], key: FunctionKey) -> bool:
        """The class of the method ``key`` may run in a graph (``keras_class_runs``)."""
        cls = _class_of(index, key)
        return cls is None or self.keras_class_runs(index, cls)

    def _steps_run_by_project(self, index: ModuleIndex, cls: ClassInfo) -> FrozenSet[str]:
        """Keras step methods (``train_step`` …) of ``cls`` that the project's own code,
        tests aside, calls itself outside traced code (``loss +=
        self._model.train_step(batch)``): a training loop of its own runs them where it
        calls them, not ``fit``; none for a class the module itself fits, evaluates or
        predicts with."""
        if is_test_module(index.path) or cls.qualname in index.keras_run_classes or (
                cls.qualname in index.keras_trained_classes):
            return frozenset()
        return self._called_steps(index, cls, loops=True)

    def _imports(self) -> Dict[str, List[ModuleIndex]]:
        """Every dotted prefix of every linted module's import targets, and of the functions
        it calls through an imported module (``mod.f(x)``) → the modules that import or call
        it, built once (``from pkg.mod import f`` counts for ``pkg``, ``pkg.mod`` and
        ``pkg.mod.f``)."""
        if self._importers is None:
            importers: Dict[str, List[ModuleIndex]] = {}
            for other in self.by_path.values():
                for target in (*(t for _, t in other.imports), *other.module_calls):
                    parts = target.split(".")
                    keys = [".".join(parts[:n]) for n in range(1, len(parts) + 1)]
                    if len(parts) > 2:  # ``pkg.algs.falcon.f`` may name a module ``falcon``
                        keys.append("*" + ".".join(parts[-2:]))
                    for key in keys:
                        found = importers.setdefault(key, [])
                        if not found or found[-1] is not other:
                            found.append(other)
            self._importers = importers
        return self._importers

    def imported_names(self, index: ModuleIndex) -> FrozenSet[str]:
        """The module's private decorated ``tf.function`` names (the only ones TFF407 may
        take for module-local) that other linted modules import by name (``from mod import
        _helper``) or call through the module (``mod._helper(x)``), and the names of its
        private decorated methods that they call on an object (``flow._permute(z, p)``),
        tests included."""
        functions = [index.functions[entry.target[1]] for entry in index.entries
                     if entry.how == "@tf.function" and entry.target[0] == "local"
                     and entry.target[1] in index.functions]
        decorated = {function.qualname for function in functions
                     if function.qualname.startswith("_")}
        methods = {function.qualname.rpartition(".")[2] for function in functions
                   if function.class_qualname}
        importers = self._imports()
        stem = index.module.rpartition(".")[2]
        imported = {name for name in decorated if any(
            other is not index for key in (f"{index.module}.{name}", f"*{stem}.{name}")
            for other in importers.get(key, ()))}
        callers = self._private_callers()
        imported.update(name for name in methods if any(
            other is not index for other in callers.get(name, ())))
        return frozenset(imported)

    def _private_callers(self) -> Dict[str, List[ModuleIndex]]:
        """Each private name called on an object (``ModuleIndex.private_calls``) → the
        linted modules that call it so, built once."""
        if self._private_callers_by_name is None:
            found: Dict[str, List[ModuleIndex]] = {}
            for other in self.by_path.values():
                for name in other.private_calls:
                    found.setdefault(name, []).append(other)
            self._private_callers_by_name = found
        return self._private_callers_by_name

    def whole_program(self, index: ModuleIndex) -> bool:
        """``index`` is a whole program, whose own code is all that uses its classes: a
        notebook, or a script (``if __name__ == "__main__":``, ``parser.parse_args()`` at
        module level) that no linted module imports."""
        if index.path.endswith(".ipynb"):
            return True
        return index.runs_as_program and self._nothing_imports(index)

    def _nothing_imports(self, index: ModuleIndex) -> bool:
        """No linted module imports ``index`` by its name, nor by a stem that may be its."""
        stem = index.module.rpartition(".")[2]
        return not self._importers_of(index) and (stem == index.module
                                                  or stem not in self._imports())

    def superseded(self, index: ModuleIndex) -> bool:
        """``index`` is a module of functions and classes kept as a copy of another linted
        module beside it, named as such (``losses_bkp.py``, ``model_old.py``, ``utils
        (1).py`` beside ``losses.py``, …) or kept in a folder for old code beside it
        (``archive/data.py`` beside ``data.py``), and no linted module imports it: programs run the
        other one, and nothing of the copy. Not a program (a notebook, a script with a main
        guard, or outside a package one that works at module level), which is run on its
        own, copy or not: a notebook's copy is often the one its author went on with."""
        folder, name = os.path.split(index.path)
        stem, extension = os.path.splitext(name)
        match = _KEPT_COPY.match(stem)
        if match:
            original = os.path.join(folder, match.group(1) + extension)
            imported = not self._nothing_imports(index)
        elif _KEPT_FOLDER.match(os.path.basename(folder)):
            original = os.path.join(os.path.dirname(folder), name)  # ``archive/data.py``
            # (``import data`` by its stem finds the copy only from its own folder)
            imported = bool(self._importers_of(index)) or any(
                os.path.dirname(other.path) == folder
                for other in self._imports().get(index.module.rpartition(".")[2], ()))
        else:
            return False
        package = os.path.join(folder, "__init__.py") in self.by_path
        return (not is_notebook(index.path) and not index.runs_as_program
                and (package or not index.works_at_module_level)
                and original in self.by_path
                and not imported and not self._more_importers(index))

    def script(self, index: ModuleIndex) -> bool:
        """``index`` is a whole program (``whole_program``), or a script of an application
        (part of no distribution) that does its work at module level
        (``ModuleIndex.works_at_module_level``: ``print(tf.__version__)``, a training
        loop) and that no linted module imports: its own code is all that uses the
        classes it makes."""
        if self.whole_program(index):
            return True
        return (index.works_at_module_level and self._distributed is not None
                and not self._distributed(index.path) and not self._more_importers(index)
                and self._nothing_imports(index))

    def self_contained(self, index: ModuleIndex) -> bool:
        """``index`` is a program (``script``) that imports no linted module: its own code
        is all of the project that runs in its process."""
        return self.script(index) and not any(
            (self._module_named(target, index) or self._stems.get(target.partition(".")[0]))
            not in (None, index)  # (an index equals only itself: no field is compared)
            for _, target in index.imports)

    def _importers_of(self, index: ModuleIndex) -> List[ModuleIndex]:
        """The other linted modules that import ``index`` by its module name. Of scripts'
        modules that share a name (``network.py`` beside the training scripts and another in
        ``pseudocode/``), a script imports the one in its own folder, which Python puts
        first on ``sys.path``; an importer in a folder of neither may import either."""
        known = self._importers_by_path.get(index.path)
        if known is None:
            known = self._importers_by_path[index.path] = self._importers_anew(index)
        return known

    def _importers_anew(self, index: ModuleIndex) -> List[ModuleIndex]:
        imports = self._imports()
        found = [other for other in imports.get(index.module, ()) if other is not index]
        for name in self._named_by_folders.get(index.path, ()):
            seen = {id(other) for other in found}  # by identity: an index compares by value
            found.extend(other for other in imports.get(name, ())
                         if other is not index and id(other) not in seen)
        return self._own_importers(index, found)

    def _own_importers(self, index: ModuleIndex, found: List[ModuleIndex]
                       ) -> List[ModuleIndex]:
        """Of the modules ``found`` importing ``index`` by its name, those not in the folder
        of another file that claims the name (see ``_importers_of``)."""
        claimants = self._claimants.get(index.module)
        if not claimants:
            return found
        others = {os.path.dirname(other.path) for other in claimants} - {
            os.path.dirname(index.path)}
        return [other for other in found if os.path.dirname(other.path) not in others]

    def _passed_on(self, index: ModuleIndex, seen: FrozenSet[str]) -> Optional[Set[str]]:
        """The names of ``index`` that the modules importing it may use (``_names_used``):
        none when nothing imports it; None when that cannot be told, or the imports go round
        in a circle."""
        if index.path in seen or len(seen) > _MAX_HOPS:
            return None
        importers = self._importers_of(index) + self._more_importers(index)
        if not importers:
            return set()
        return _names_used(index, importers,
                           lambda other: self._passed_on(other, seen | {index.path}))

    def _more_importers(self, index: ModuleIndex) -> List[ModuleIndex]:
        """Importers ``_importers_of`` does not count: those that import the module with
        ``*`` by its name (``_star_importers``) and the scripts beside it that import it by
        its stem (``_stem_importers``)."""
        known = self._more_by_path.get(index.path)
        if known is None:
            stars = self._star_importers(index)
            seen = {id(other) for other in stars}  # by identity: an index compares by value
            known = self._more_by_path[index.path] = stars + [
                other for other in self._stem_importers(index) if id(other) not in seen]
        return known

    def _star_importers(self, index: ModuleIndex) -> List[ModuleIndex]:
        self._index_other_imports()
        return self._own_importers(index, [other for other in self._by_star.get(index.module, ())
                                           if other is not index])

    def _stem_importers(self, index: ModuleIndex) -> List[ModuleIndex]:
        """The scripts beside a module of a package that import it by its stem (``from
        latent import *`` beside ``latent.py``), as Python finds it when they run from their
        folder; none for a module whose name is its stem (``_importers_of`` has them)."""
        stem = index.module.rpartition(".")[2]
        if stem == index.module:
            return []
        self._index_other_imports()
        return [other for other in self._by_stem.get((os.path.dirname(index.path), stem), ())
                if other is not index]

    def _run_from_folder(self, path: str) -> bool:
        """The module at ``path`` is in a package folder whose modules import one another by
        their stems (``from model import Net`` in ``trainer/task.py`` beside ``trainer/model.py``):
        Python finds those only when the program runs from that folder, so the folder is an
        application run from there, whatever a ``setup.py`` packages (imported by its
        package's name, ``trainer.task`` would fail on its own import)."""
        folder = os.path.dirname(path)
        if self._stem_folders is None:
            self._index_other_imports()
            stems: Dict[str, Set[str]] = {}
            for other in self.by_path.values():
                name = os.path.basename(other.path)
                if name.endswith(".py") and name != "__init__.py" and "." in other.module:
                    stems.setdefault(os.path.dirname(other.path), set()).add(name[:-3])
            # (a module named as its package, ``pkg/pkg.py``, or as a library, ``types.py``,
            # may be imported either way)
            self._stem_folders = {
                where for where, names in stems.items()
                if any(importer.path != os.path.join(where, stem + ".py")
                       for stem in names - {os.path.basename(where)}
                       if may_be_project_module(stem)
                       for importer in self._by_stem.get((where, stem), ()))}
        return folder in self._stem_folders

    def _index_other_imports(self) -> None:
        """Built once: (folder, first name of an import target) → the modules of that
        folder that import it; a star import's module → the modules that import it so."""
        if self._by_stem is not None:
            return
        self._by_stem, self._by_star = {}, {}
        for other in self.by_path.values():
            folder = os.path.dirname(other.path)
            heads = {target.partition(".")[0] for _, target in other.imports}
            heads.update(target.partition(".")[0] for target in other.module_calls
                         if "." in target)
            heads.update(other.star_imports)
            for head in heads:
                self._by_stem.setdefault((folder, head), []).append(other)
            for base in other.star_imports:
                self._by_star.setdefault(base, []).append(other)

    def never_run(self, index: ModuleIndex) -> Tuple[Tuple[int, int], ...]:
        """The lines of the module-level code of ``index`` that never runs: of a
        program (``script``: a notebook, or a script nothing imports), what its text names
        nowhere else (``ModuleIndex.unnamed``; of a script, only when the run is the whole
        project, which tells that nothing imports it); of an
        application's module, the classes nothing in the project names (``never_named``);
        of a module nothing imports (``_imported_by_nothing``), all of it."""
        if self._imported_by_nothing(index):
            return ((1, sys.maxsize),)
        unnamed = index.unnamed if index.unnamed and self.script(index) and (
            self._whole_project or index.path.endswith(".ipynb")) else ()
        return unnamed + self.never_named(index)

    def never_named(self, index: ModuleIndex) -> Tuple[Tuple[int, int], ...]:
        """The lines of the classes of ``index`` that nothing runs: of its classes that its
        own text never names (``ModuleIndex.unnamed_classes``), those that no module
        importing it names either, when the module is part of an application rather than of
        a distribution others install and import (``distributed``), and the run sees the
        code that uses it (some linted module imports it). An importer that imports the
        module whole names what it reads through it (``layers.Gate``); one that hands it on
        whole (``getattr(layers, name)``) or imports it with ``*`` may use any class
        (``_names_used``)."""
        known = self._never_named.get(index.path)
        if known is not None:
            return known
        found: Tuple[Tuple[int, int], ...] = ()
        if index.unnamed_classes and self._distributed is not None:
            importers = self._importers_of(index) + self._more_importers(index)
            if importers and not self._distributed(index.path):
                named = _names_used(index, importers, lambda other: self._passed_on(
                    other, frozenset({index.path})))
                found = tuple((first, last) for name, first, last in index.unnamed_classes
                              if named is not None and name not in named)
        self._never_named[index.path] = found
        return found

    def on_tensorflow_1(self, index: ModuleIndex) -> bool:
        """``index`` runs on TensorFlow 1 (or in its graph mode): it uses TensorFlow 1's own
        API (``ModuleIndex.uses_tf1``: ``tf.enable_eager_execution()``, ``tf.Session``), or
        every linted module importing it does, in turn. Keras there runs a model eagerly or
        builds it into a graph once; it does not trace it with ``tf.function``."""
        if self._any_tf1 is None:
            self._any_tf1 = any(other.uses_tf1 for other in self.by_path.values())
        if not self._any_tf1:
            return False
        known = self._tf1.get(index.path)
        if known is None:
            self._tf1[index.path] = False  # an import cycle proves nothing
            importers = self._importers_of(index) + self._more_importers(index)
            known = index.uses_tf1 or bool(importers) and all(
                self.on_tensorflow_1(other) for other in importers)
            self._tf1[index.path] = known
        return known

    def keras_3(self, index: ModuleIndex) -> bool:
        """The text of ``index``, or of a linted module linked to it by imports (either way,
        in turn), says it runs on Keras 3 (``ModuleIndex.keras_3``: ``keras.ops``,
        ``keras_core``, an upgrade of TensorFlow to its newest release, a notebook run on
        it): the programs of a project and the modules they import share one
        environment."""
        if self._keras_3 is None:
            self._keras_3 = self._linked_to_keras_3()
        return index.path in self._keras_3

    def _linked_to_keras_3(self) -> FrozenSet[str]:
        start = [other for other in self.by_path.values() if other.keras_3]
        if not start:
            return frozenset()
        imported: Dict[str, List[ModuleIndex]] = {}
        for other in self.by_path.values():
            for importer in self._importers_of(other) + self._more_importers(other):
                imported.setdefault(importer.path, []).append(other)
        found = {other.path for other in start}
        queue = deque(start)
        while queue:
            module = queue.popleft()
            for linked in (self._importers_of(module) + self._more_importers(module)
                           + imported.get(module.path, [])):
                if linked.path not in found:
                    found.add(linked.path)
                    queue.append(linked)
        return frozenset(found)

    def runs_before(self, index: ModuleIndex) -> Optional[Tuple[int, int]]:
        """The first TensorFlow release ``index`` no longer runs on: its code uses an API
        removed then (``ModuleIndex.removed_before``: ``K.int_shape`` and Keras 3, a
        notebook last run on TensorFlow 2.1), or a linted module importing it runs only on
        older releases, in turn: the project's programs share one environment (a model
        module that a course's training script, written for Keras 2, imports, as does its
        prediction script, which shows no version). A module nothing linted imports tells
        nothing by itself; nor does a module of a distribution, whose users run it on what
        they have. None when not known."""
        if self._any_before is None:
            self._any_before = any(other.removed_before for other in self.by_path.values())
        if not self._any_before:
            return None
        if index.path in self._before:
            return self._before[index.path]
        self._before[index.path] = None  # an import cycle proves nothing
        known = [index.removed_before] if index.removed_before else []
        if not ("." in index.module and (self._distributed is None
                                         or self._distributed(index.path))):
            importers = self._importers_of(index) + self._more_importers(index)
            known += [before for before in map(self.runs_before, importers) if before]
        found = self._before[index.path] = min(known) if known else None
        return found

    def _imported_by_nothing(self, index: ModuleIndex) -> bool:
        """When the run is the whole project (``whole_project``), ``index`` is a module of an
        application (part of no distribution) left behind: not a program itself (a
        notebook, a script with a main guard or work at module level, a test module), no
        linted module imports it, by its name, by its stem or by any dotted tail of its name
        (``datasets.transforms`` for ``repo.datasets.transforms`` of a repository whose root
        holds an ``__init__.py``), while the project's code imports a module beside it (an
        unused ``models/Model.py`` beside the models the scripts import), or a package
        beside it (``_package_left_behind``). A folder of modules none of which is
        imported (a collection to copy from, code in progress) tells nothing by itself. Nor
        does the ``__init__.py`` of a folder no import can name (``_unimportable_init``)
        ever run."""
        known = self._left_behind.get(index.path)
        if known is None:
            known = self._left_behind[index.path] = self._left_behind_anew(index)
        return known

    def _left_behind_anew(self, index: ModuleIndex) -> bool:
        if (not self._whole_project or self._distributed is None
                or self._distributed(index.path) or index.path.endswith(".ipynb")
                or index.runs_as_program or index.works_at_module_level
                or is_test_module(index.path)):
            return False
        if self._unimportable_init(index):
            return True
        if (os.path.basename(index.path) in ("__init__.py", "__main__.py")
                or self._imported(index)):
            return False
        folder = os.path.dirname(index.path)
        if any(other is not index and not other.path.endswith(".ipynb")
               and self._imported(other) for other in self._in_folder(folder)):
            return True
        return self._package_left_behind(folder)

    def _reexports_to_known_users(self, index: ModuleIndex) -> bool:
        """``index`` is a package's ``__init__`` that linted modules import, and what they
        use of it is known (``_passed_on``): the classes it re-exports (``from .blocks
        import *``, ``from .blocks import Gate``) are named where its importers name them,
        which ``ModuleIndex.class_users`` finds through it (``_class``)."""
        return (os.path.basename(index.path) == "__init__.py"
                and bool(self._importers_of(index) or self._more_importers(index))
                and self._passed_on(index, frozenset()) is not None)

    def _unimportable_init(self, index: ModuleIndex) -> bool:
        """``index`` is the ``__init__.py`` of a folder of an application (part of no
        distribution) whose name is no identifier (``10_attention/``, a lesson's folder):
        no import statement can name the package, so it never runs, and the folder's
        scripts import their neighbours by their own names. Known only when the run is the
        whole project (``whole_project``)."""
        return (self._whole_project and self._distributed is not None
                and os.path.basename(index.path) == "__init__.py"
                and not os.path.basename(os.path.dirname(index.path)).isidentifier()
                and not self._distributed(index.path))

    def _package_left_behind(self, folder: str) -> bool:
        """``folder`` is a package (its ``__init__.py`` is linted) none of whose modules a
        linted module imports, beside packages whose modules the project imports (a
        ``methods/SVM`` whose imports the scripts left in a string, beside the
        ``methods/GCN`` they import)."""
        known = self._packages_left.get(folder)
        if known is None:
            parent = os.path.dirname(folder)
            init = os.path.join(folder, "__init__.py")
            known = (parent != folder and init in self.by_path and not any(
                self._imported(other) for other in self._in_folder(folder)
                if other.path != init) and any(
                    self._imported(other) for sibling in self._subfolders(parent)
                    if sibling != folder and os.path.join(sibling, "__init__.py") in self.by_path
                    for other in self._in_folder(sibling)
                    if not other.path.endswith("__init__.py")))
            self._packages_left[folder] = known
        return known

    def _subfolders(self, folder: str) -> List[str]:
        """The folders directly in ``folder`` that hold linted modules."""
        self._in_folder(folder)
        return [other for other in self._by_folder or ()
                if other != folder and os.path.dirname(other) == folder]

    def _imported(self, index: ModuleIndex) -> bool:
        """Some linted module imports ``index``: by its name, by its stem, or by a dotted
        tail of its name. A script that imports a bare stem beside a module of that name
        (``from model import DIN`` in ``din/train.py``, beside ``din/model.py``) imports
        that module, which Python finds first: not every ``model.py`` of the project."""
        if self._importers_of(index) or self._more_importers(index):
            return True
        parts, imports = index.module.split("."), self._imports()
        for cut in range(1, len(parts)):
            tail = ".".join(parts[cut:])
            importers = imports.get(tail)
            if importers and (cut < len(parts) - 1 or any(
                    not self._beside(os.path.dirname(other.path), tail)
                    for other in importers)):
                return True
        return False

    def _beside(self, folder: str, stem: str) -> bool:
        """``folder`` holds a linted module named ``stem`` (``stem.py``, or a package)."""
        return (os.path.join(folder, stem + ".py") in self.by_path
                or os.path.join(folder, stem, "__init__.py") in self.by_path)

    def _in_folder(self, folder: str) -> List[ModuleIndex]:
        """The linted modules of ``folder`` (built once for all folders)."""
        if self._by_folder is None:
            self._by_folder = {}
            for other in self.by_path.values():
                self._by_folder.setdefault(os.path.dirname(other.path), []).append(other)
        return self._by_folder.get(folder, [])

    def _part_of_programs(self, index: ModuleIndex) -> bool:
        """``index`` is a module of a directory of scripts that only programs (``script``) import,
        or modules only they import in turn, none of which lets Keras run its models: its
        classes run as those programs run them, eagerly (``model.py`` beside ``train.py``).
        A directory of scripts is not in a package, or is a package's folder of an
        application (part of no distribution), whose scripts import the module by its stem
        (``from model import Net`` beside it, as they do when run from there) or by its
        package's name (``from ctr.esmm.model import ESMM``)."""
        if index.path.endswith(".ipynb"):
            return False
        if "." in index.module and (self._distributed is None
                                    or self._distributed(index.path)):
            return False
        known = self._program_parts.get(index.path)
        if known is not None:
            return known
        self._program_parts[index.path] = False  # an import cycle proves nothing
        if "." in index.module:
            importers = self._importers_of(index)
            seen = {id(other) for other in importers}  # by identity: compared by value
            importers = importers + [other for other in self._more_importers(index)
                                     if id(other) not in seen]
        else:
            importers = self._importers_of(index)
        found = bool(importers) and all(
            (self.script(other) or self._part_of_programs(other))
            and not self.runs_keras(other) and not self._hands_on_in_graphs(other)
            for other in importers)
        self._program_parts[index.path] = found
        return found

    def runs_keras(self, index: ModuleIndex, eager_runs: bool = False,
                   any_traced_code: bool = False) -> bool:
        """Keras may run the ``call``/``train_step`` of the module's Keras classes in a graph:
        always for a module others may import; for a program (a notebook, a script nothing
        imports, see ``script``) or a module only such programs import
        (``_part_of_programs``), only when
        it exports a model (``tf.saved_model.save``, or ``save``/``export`` of a name bound
        to a possible Keras model), calls ``fit``, ``evaluate``, ``predict`` … on something
        that may be a Keras model, or has traced code of its own (a ``tf.function``
        training step that calls the model). A notebook that trains with its own eager loop
        (``trainer.fit(model, data)`` of a class that is not Keras, or a ``GradientTape``
        loop) runs its layers eagerly. Building a functional model from ``keras.Input`` is
        not enough: it runs each layer's ``call`` once, on symbolic inputs, and a model
        nothing fits, predicts with or exports is then called eagerly or not at all. Nor
        is fitting a model the code asked to run eagerly (``model.run_eagerly = True``)
        unless ``eager_runs``: Keras runs the classes then, but not in a graph. Nor does Keras
        trace them in code written for TensorFlow 1 (``on_tensorflow_1``). Traced code of its
        own counts when it may call a model (``_may_run_models``: a layer's own
        ``@tf.function`` that draws noise does not), or, with ``any_traced_code``, whatever
        it calls (what the rules read as the module's ``runs_keras``: the switch TFF406
        reads turns that code eager too)."""
        if self.on_tensorflow_1(index):
            return False
        if not self.script(index) and not self._part_of_programs(index):
            return True
        return self._runs_keras_itself(index, eager_runs, any_traced_code)

    def _runs_keras_itself(self, index: ModuleIndex, eager_runs: bool = False,
                           any_traced_code: bool = False) -> bool:
        """The code of ``index`` itself lets Keras run models (see ``runs_keras``): it
        exports one, fits, evaluates or predicts with something that may be one, or has
        traced code of its own that may call one (any, with ``any_traced_code``)."""
        eager_training = self.compiles_only_eagerly()
        runs = set(index.keras_run_classes)
        if eager_runs:
            runs |= set(index.eager_run_classes)
        if eager_runs or not eager_training:
            runs |= set(index.keras_trained_classes)
        if index.exports_keras_graphs or any(
                self._may_be_keras(index, ("class", run)) for run in runs):
            return True
        if any(not self._keras_graph_method(index, entry.target) and (
                any_traced_code or self._may_run_models(index, entry.target))
               for entry in index.entries):
            return True  # traced code (a tf.function training step) may call the models
        for entry in index.decorated:
            if self._keras_graph_method(index, ("local", entry.decorated)):
                continue
            if entry.target[0] == "external" and self.canonical(
                    entry.target[1], near=index) == TF_FUNCTION:
                return True
            found = self.resolve(index, entry.target)
            if found and self.by_path[found[0]].functions[found[1]].wraps_tf_function:
                return True
        receivers: List[Tuple[Optional[str], Optional[str]]] = [
            (receiver, method) for receiver, method in index.keras_runs
            if eager_runs or not (eager_training and method in KERAS_TRAINING)]
        if eager_runs:
            receivers += [(receiver, None) for receiver in index.eager_keras_runs]
        for receiver, method in receivers:
            made = index.instance_classes.get(receiver) if receiver else None
            if made is None:
                if not (method and self._own_method(index, method)):
                    return True
            elif self._may_be_keras(index, made) and not (
                    method and self._defines(index, made, method)):
                return True
        for receiver in index.keras_exports:  # ``model.save(path)``; not ``np.save``
            made = index.instance_classes.get(receiver)
            if made is not None and self._may_be_keras(index, made):
                return True
        return False

    def _may_run_models(self, index: ModuleIndex, target: Target) -> bool:
        """The traced function ``target`` may call a model, as far as the module shows: it,
        or a function of the module it calls, calls an object (``FunctionInfo.calls_objects``,
        a method its class does not have: ``self.encoder(x)``) or a function of another
        module. A layer's own ``@tf.function`` that draws noise with TensorFlow calls none."""
        found = self.resolve(index, target)
        todo = [found[1]] if found is not None and found[0] == index.path else []
        if not todo:
            return True
        seen: Set[FunctionKey] = set()
        while todo:
            key = todo.pop()
            if key in seen:
                continue
            seen.add(key)
            info = index.functions.get(key)
            if info is None or info.calls_objects or len(seen) > _MODEL_SEARCH:
                return True
            for callee, _, _ in info.edges:
                if callee[0] == "external":
                    continue  # a library's function: it runs no model of the project's
                found = self.resolve(index, callee)
                if found is None or found[0] != index.path:
                    return True
                todo.append(found[1])
        return False

    def keras_class_runs(self, index: ModuleIndex, cls: ClassInfo) -> bool:
        """Keras may run the Keras class ``cls`` of ``index`` in a graph, as far as the
        project shows. When the run is the whole project and ``cls`` is a module-level
        class of an application's module (part of no distribution) that linted code imports
        or that is a program itself, the project's own code is all that makes and runs its
        objects: it runs them in a graph only where the code that names the class
        (``ModuleIndex.class_users``) does, or is imported by code that does. Code does so
        when it lets Keras run models itself (``_runs_keras_itself``: fits, predicts,
        exports, or traces code of its own, unless it runs eagerly), or is imported by
        nothing and is no program (it is there for others to use); a module's main guard
        counts only for the module itself, since it runs only when the module is the
        program. A class that only another Keras class names (a layer a model makes in
        ``__init__``) runs as that class runs. A class nothing names, or that only eager
        programs name (an agent's network called in a ``GradientTape`` loop), runs eagerly
        or not at all. Test modules do not count. True when it cannot be told: an importer
        hands the module on whole, or may name the class where the index does not look (an
        alias of its own, a star import: ``_may_name``)."""
        key = (index.path, cls.qualname)
        known = self._class_runs.get(key)
        if known is None:
            known = self._class_runs[key] = self._class_runs_from(index, cls, frozenset())
        return known

    def _class_runs_from(self, index: ModuleIndex, cls: ClassInfo,
                         seen: FrozenSet[Tuple[str, str]]) -> bool:
        key = (index.path, cls.qualname)
        if key in seen:
            return False  # a class only a class it makes names runs as nothing else does
        if not self._application_class(index, cls):
            return True
        users, readers = self._users_of_classes().get(key, ((), ()))
        importers = [other for other in self._importers_of(index) + self._more_importers(index)
                     if not self._unimportable_init(other)]  # it never runs: hands nothing on
        if importers:
            if index.path not in self._handed_on:
                self._handed_on[index.path] = _names_used(
                    index, importers, lambda other: self._passed_on(
                        other, frozenset({index.path}))) is None
            if self._handed_on[index.path]:
                return True  # handed on whole: any class may be used
            looked = {id(other) for other in readers}
            if any(id(other) not in looked and self._may_name(other, cls.qualname, index)
                   and not self._reexports_to_known_users(other) for other in importers):
                return True  # named where the index does not look
        for other, holder in users:
            if other is not index and is_test_module(other.path):
                continue
            if holder == MAIN_GUARD:  # runs only when the module is the program
                if self._runs_keras_as_program(other):
                    return True
                continue
            held = other.classes.get(holder) if holder else None
            if held is not None and self.keras_kind(other, held) is not None:
                if self._class_runs_from(other, held, seen | {key}):
                    return True
                continue
            if self._runs_keras_above(other):
                return True
        return False

    def _hands_on_in_graphs(self, index: ModuleIndex) -> bool:
        """``index`` hands its models to traced code of the project
        (``_hands_to_traced_code``), and does not run it eagerly."""
        return (not self.on_tensorflow_1(index) and not self.runs_eagerly(index)
                and self._hands_to_traced_code(index))

    def _hands_to_traced_code(self, index: ModuleIndex) -> bool:
        """``index`` names a class of another linted module whose own traced code may call
        a model (``_may_run_models``): a trainer that wraps the model it is given in a
        ``tf.function`` step (``DiffusionModel(unet, ...)``, whose ``@tf.function
        train_step`` calls ``self.model(x)``); or it calls such a traced function of
        another module through that module (``steps.train(model, x)``)."""
        known = self._hands_on.get(index.path)
        if known is not None:
            return known
        found = False
        for target in sorted(set(index.class_users) | index.module_calls):
            made = self._class(index, ("external", target))
            if made is not None:
                module, qualname = made
                cls = module.classes.get(qualname) if module is not index else None
                keys = set(cls.methods.values()) if cls is not None else set()
                traced = [entry.target for entry in module.entries
                          if entry.target[0] == "local" and entry.target[1] in keys
                          or entry.target[:2] == ("method", qualname)]
            else:
                resolved = self.resolve(index, ("external", target))
                if resolved is None or resolved[0] == index.path:
                    continue
                module = self.by_path[resolved[0]]
                traced = [entry.target for entry in module.entries
                          if entry.target == ("local", resolved[1])]
            if any(not self._keras_graph_method(module, entry)
                   and self._may_run_models(module, entry) for entry in traced):
                found = True
                break
        self._hands_on[index.path] = found
        return found

    def _run_by_keras_alone(self, index: ModuleIndex, cls: ClassInfo) -> bool:
        """Only Keras itself can run the model class ``cls`` in a graph: neither its module
        nor any module that names it (``ModuleIndex.class_users``) has traced code of its
        own (a ``tf.function``, a ``Dataset.map`` function), which could call the model
        with more than its inputs."""
        users, _ = self._users_of_classes().get((index.path, cls.qualname), ((), ()))
        return not any(module.entries or module.decorated
                       for module in [index, *(other for other, _ in users)])

    def _may_name(self, other: ModuleIndex, name: str, index: ModuleIndex) -> bool:
        """``other``, importing ``index``, imports something called ``name`` (under any
        alias), reads it through a module, or may have it from a star import: its code
        reads the name, or it hands it on to modules that may (``_passed_on``)."""
        if any(target.rpartition(".")[2] == name for _, target in other.imports) or any(
                read.rpartition(".")[2] == name for read in other.module_reads):
            return True
        if not other.star_imports:
            return False
        if other.star_names is None or name in other.star_names:
            return True
        passed = self._passed_on(other, frozenset({index.path}))
        return passed is None or name in passed

    def _application_class(self, index: ModuleIndex, cls: ClassInfo) -> bool:
        """``cls`` is a class ``keras_class_runs`` can follow: of a whole project, at module
        level of an application's module that is a program or that linted code imports, and
        the index finds it by its qualified name."""
        return (self._whole_project and self._distributed is not None
                and "." not in cls.qualname and not is_test_module(index.path)
                and not self._distributed(index.path)
                and (self.script(index) or bool(self._importers_of(index))
                     or bool(self._more_importers(index)))
                and self._class(index, ("external", f"{index.module}.{cls.qualname}"))
                == (index, cls.qualname))

    def _users_of_classes(self) -> Dict[Tuple[str, str], _ClassUsers]:
        """(path, class) → the modules whose text names the class, each with the class whose
        lines do so (``""``: other lines), and every module that looked (imports it, or
        defines it), from every ``ModuleIndex.class_users``; built once."""
        if self._class_users is None:
            found: Dict[Tuple[str, str], _ClassUsers] = {}
            for other in self.by_path.values():
                for qualified, holders in other.class_users.items():
                    named = self._class(other, ("external", qualified))
                    if named is not None:
                        users, readers = found.setdefault((named[0].path, named[1]), ([], []))
                        users.extend((other, holder) for holder in holders)
                        readers.append(other)
            self._class_users = found
        return self._class_users

    def _runs_keras_above(self, index: ModuleIndex) -> bool:
        """``index``, or a module that imports it, in turn, lets Keras run models
        (``_runs_keras_itself``) and does not run eagerly, or is imported by nothing and is
        no program (a main guard makes one, whether tests import it or not); modules that
        never run (``_imported_by_nothing``) and tests aside."""
        known = self._keras_above.get(index.path)
        if known is not None:
            return known
        found, seen, queue = False, {index.path}, deque([index])
        while queue and not found:
            module = queue.popleft()
            if self._imported_by_nothing(module):
                continue
            if self._runs_keras_as_program(module):
                found = True
                break
            importers = [other for other in self._importers_of(module)
                         + self._more_importers(module) if not is_test_module(other.path)]
            # A program that only tests import (``from main import main``) is a program.
            if not importers and not self.script(module) and not module.runs_as_program:
                found = True
                break
            for other in importers:
                if other.path not in seen:
                    seen.add(other.path)
                    queue.append(other)
        self._keras_above[index.path] = found
        return found

    def _runs_keras_as_program(self, index: ModuleIndex) -> bool:
        """The code of ``index`` lets Keras run models (``_runs_keras_itself``), and neither
        runs eagerly nor on TensorFlow 1."""
        return (not self.on_tensorflow_1(index) and not self.runs_eagerly(index)
                and (self._runs_keras_itself(index) or self._hands_to_traced_code(index)))

    def compiles_only_eagerly(self) -> bool:
        """The whole project compiles its models, wherever it does, with
        ``run_eagerly=True`` (a model that ``train.py`` compiles so and hands to the
        function that fits it): Keras trains and evaluates them eagerly, since it refuses to
        before ``compile()``. ``predict`` and exports still trace, compiled or not."""
        if self._only_eager_compiles is None:
            self._only_eager_compiles = self._whole_project and any(
                index.compiles_eagerly for index in self.by_path.values()) and not any(
                index.compiles_keras for index in self.by_path.values())
        return self._only_eager_compiles

    def _project_class(self, index: ModuleIndex, made: Target
                       ) -> Optional[Tuple[ModuleIndex, ClassInfo]]:
        """The project's class ``made`` (of ``index``, or imported into it by name) and
        its module, or None."""
        if made[0] == "class":
            cls = index.classes.get(made[1])
            return (index, cls) if cls is not None else None
        if made[0] == "external":
            module, rest = self._split(made[1], index)
            if module is not None and len(rest) == 1 and rest[0] in module.classes:
                return module, module.classes[rest[0]]
        return None

    def _defines(self, index: ModuleIndex, made: Target, method: str) -> bool:
        """The project's class ``made`` defines ``method`` itself."""
        found = self._project_class(index, made)
        return found is not None and method in found[1].methods

    def _own_method(self, index: ModuleIndex, method: str) -> bool:
        """A Keras class of the project that ``index`` defines or imports by name defines
        ``method`` itself (``Seq2Seq.evaluate(data, widths, max_length)``, a decoding loop of
        its own): ``x.evaluate(...)`` on an object of no known class may run that, not
        Keras's."""
        made = [("class", name) for name in index.classes]
        made += [("external", target) for _, target in index.imports]
        return any(found is not None and method in found[1].methods
                   and self.keras_kind(*found) is not None
                   for found in (self._project_class(index, m) for m in made))

    def _keras_graph_method(self, index: ModuleIndex, target: Target) -> bool:
        """``target`` is the ``call``/``*_step`` of a Keras class of ``index`` (a decorator
        there traces that method only)."""
        if target[0] != "local":
            return False
        function = index.functions.get(target[1])
        cls = index.classes.get(function.class_qualname or "") if function else None
        return (cls is not None and function.qualname.rpartition(".")[2] in KERAS_GRAPH_METHODS
                and self.keras_kind(index, cls) is not None)

    def _may_be_keras(self, index: ModuleIndex, made: Target) -> bool:
        """Instances of the class ``made`` may be Keras models (unknown classes may)."""
        if made[0] == "external":
            # Keras's own classes may be; TensorFlow's others are not (tf.train.Checkpoint)
            qualified = self.canonical(made[1], near=index)
            if qualified.startswith(KERAS_MODULES):
                return True
            if qualified.startswith(NOT_KERAS):
                return False
        found = self._class(index, made)
        if found is None:
            return True
        return self.keras_kind(found[0], found[0].classes[found[1]]) is not None

    def makes_own_step(self, index: ModuleIndex, cls: ClassInfo, name: str) -> bool:
        """``cls`` (or a project base) overrides the Keras method that makes the graph of its
        step ``name`` (``make_train_function`` for ``train_step``): whether the step is
        traced is up to that code, which the call graph follows like any other."""
        maker = _STEP_MAKERS.get(name)
        return maker is not None and self._method(index, cls.qualname, maker, True) is not None

    def is_lr_schedule(self, index: ModuleIndex, cls: ClassInfo) -> bool:
        """``cls`` derives from Keras's ``LearningRateSchedule``, directly or through the
        project: an optimizer given one calls it with its step count each time it applies
        gradients, so in a training step that Keras or ``tf.function`` traces, its
        ``__call__`` runs while tracing, once."""
        return self._external_base(index, cls, _schedule_base) is not None

    def keras_kind(self, index: ModuleIndex, cls: ClassInfo) -> Optional[str]:
        """"Model" or "Layer" when ``cls`` derives from Keras, directly or through the project."""
        return self._external_base(index, cls, _keras_base_kind)

    def _external_base(self, index: ModuleIndex, cls: ClassInfo,
                       judge: Callable[[str], Optional[str]], hops: int = 0) -> Optional[str]:
        """What ``judge`` says of the first base from outside the linted code that ``cls``
        derives from, directly or through the project's classes (their own bases decide),
        given its canonical qualified name; None if it says nothing of any."""
        if hops > _MAX_HOPS:
            return None
        for base in cls.bases:
            found = self._class(index, base)
            if found:  # a class of the linted code: its own bases decide
                if found[0].classes[found[1]] is not cls:
                    said = self._external_base(found[0], found[0].classes[found[1]], judge,
                                               hops + 1)
                    if said:
                        return said
                continue
            if base[0] == "external":
                said = judge(self.canonical(base[1], near=index))
                if said:
                    return said
        return None


@dataclass(frozen=True)
class TracedFunction:
    """A function body that runs in graph context."""

    key: FunctionKey
    qualname: str
    reason: TraceReason
    local_names: FrozenSet[str]
    """Parameters and names bound in the function's own scope."""
    parameters: FrozenSet[str]
    node: object = None
    """The function's ``ast`` node while the file is being analysed."""


def _names_used(index: ModuleIndex, importers: Iterable[ModuleIndex],
                passed_on: Callable[[ModuleIndex], Optional[Set[str]]]) -> Optional[Set[str]]:
    """The names of ``index`` that its ``importers`` may use: those they import from it,
    those they read through it when they import it whole (``from nets import layers``:
    ``layers.Gate``), and those the code of one that imports it with ``*`` reads
    (``ModuleIndex.star_names``) with those its own importers may use from it, as it hands
    every name on (``passed_on``); None when that cannot be told (they hand it on whole,
    which a package's ``__init__`` importing it does, or import a package above it; one
    that imports it with ``*`` may look names up as it runs)."""
    parts = index.module.split(".")
    stem, packages = parts[-1], set(parts[:-1])
    named: Set[str] = set()
    for other in importers:
        for target in (*(t for _, t in other.imports), *other.module_calls):
            last = target.rpartition(".")[2]
            if ((last == stem or last in packages) and not may_be_project_module(target)
                    and target.partition(".")[0] != parts[0]):
                continue  # a library's module of the same name (``tensorflow.keras.models``)
            if last == stem:  # the module itself
                if (not may_be_project_module(target) or target in other.modules_passed
                        or os.path.basename(other.path) == "__init__.py"):
                    return None  # handed on whole; by a package, to its importers
                prefix = target + "."
                named.update(read[len(prefix):].partition(".")[0]
                             for read in other.module_reads if read.startswith(prefix))
            elif last in packages:
                return None
            else:
                named.add(last)
        if any(base.rpartition(".")[2] in (stem, *packages) for base in other.star_imports):
            passed = passed_on(other) if other.star_names is not None else None
            if passed is None:
                return None
            named.update(other.star_names, passed)
    return named


def _import_root(index: ModuleIndex) -> str:
    """The folder Python imports ``index`` from by its module name: its folder, less one
    folder for each package above it (``v1/pkg/mod.py`` as ``pkg.mod``: ``v1``)."""
    folder = os.path.dirname(index.path)
    up = index.module.count(".") + (os.path.basename(index.path) == "__init__.py")
    for _ in range(up):
        folder = os.path.dirname(folder)
    return folder


def _class_of(index: Optional[ModuleIndex], key: FunctionKey) -> Optional[ClassInfo]:
    """The class whose method ``key`` is, or None."""
    function = index.functions.get(key) if index is not None else None
    return index.classes.get(function.class_qualname or "") if function else None


#: Backends of Keras 3 besides TensorFlow, by the top-level name of their package.
_OTHER_BACKENDS = frozenset({"jax", "flax", "torch"})


def _other_backend(index: ModuleIndex) -> bool:
    """The module imports JAX or PyTorch and not TensorFlow: the code of a Keras 3 library
    for another backend (``embedding/jax/distributed_embedding.py``), whose objects never
    run in a ``tf.function``."""
    roots = {target.partition(".")[0] for _, target in index.imports}
    return bool(roots & _OTHER_BACKENDS) and not roots & {"tensorflow", "tf_keras"}


def _within(spans: Tuple[Tuple[int, int], ...], line: int) -> bool:
    return any(first <= line <= last for first, last in spans)


def _made_by_tf_function(how: str) -> bool:
    """A trace reason that ``tf.function`` (or Keras, through it) makes: a tracing
    decorator, ``tf.function(...)``, a Keras step or ``call``."""
    return how.startswith(("@", "tf.function(", "Keras "))


def _eager_steps(index: ModuleIndex, cls: ClassInfo) -> Set[str]:
    """The step methods of ``cls`` that module-level code calls directly on an instance
    bound at module level (``model = SimpleModel(); model.train_step(batch)``): that code
    runs them eagerly, and ``call`` too when it is ``train_step`` (the model is trained by
    hand, and ``self(x)`` in the step runs eagerly). None when an instance also goes to
    ``fit``, ``evaluate`` or ``predict``, which trace the steps."""
    used = {method for receiver, method in index.eager_steps
            if index.instance_of(receiver) == cls.qualname}
    if used & KERAS_RUNS:
        return set()
    return used | {"call"} if "train_step" in used else used


class GraphContext:
    """The traced functions of one module, as the engine and the rules see them."""

    def __init__(self, index: ModuleIndex, traced: Traced,
                 predicates: Optional[Predicates] = None,
                 names: Optional[Mapping[str, str]] = None, runs_keras: bool = True,
                 direct_steps: FrozenSet[str] = frozenset(),
                 keras_classes: Optional[Mapping[str, Tuple[str, FrozenSet[str]]]] = None,
                 whole_program: bool = False, imported_names: FrozenSet[str] = frozenset(),
                 runs_eagerly: bool = False, self_contained: bool = False,
                 never_run: Tuple[Tuple[int, int], ...] = (),
                 runs_before: Optional[Tuple[int, int]] = None, superseded: bool = False,
                 keras_3: bool = False, eager_lambdas: FrozenSet[FunctionKey] = frozenset(),
                 callback_writes: Optional[Mapping[str, Tuple[str, int]]] = None):
        self.index = index
        self.callback_writes: Mapping[str, Tuple[str, int]] = callback_writes or {}
        """Attributes that Keras callbacks set on the model they train (see
        ``ModuleView.callback_writes``)."""
        self.eager_lambdas = eager_lambdas
        """Lambdas of this module that Python runs, through tf.py_function."""
        self.keras_3 = keras_3
        """The text of the module, or of a linted module linked to it by imports, says it
        runs on Keras 3 (see ``ProjectGraph.keras_3``)."""
        self.superseded = superseded
        """A kept copy of another module that nothing runs (``losses_bkp.py`` beside
        ``losses.py``): no pitfall of it reaches the program."""
        self.runs_before = runs_before
        """The first TensorFlow release the module no longer runs on: its code, or a
        program that imports it, was written for older ones (see
        ``ProjectGraph.runs_before``); None when not known."""
        self.never_run = never_run
        """Lines of module-level code that never runs: no call made there happens."""
        self.self_contained = self_contained
        """A program whose own code is all that runs in it (see
        ``ModuleView.self_contained``)."""
        self.runs_eagerly = runs_eagerly
        """``tf.function`` is off for the process whenever this module's functions run: its
        own ``tf.function``s neither trace nor retrace."""
        self.direct_steps = direct_steps
        """Keras step methods of this module that project code calls itself."""
        self.keras_classes: Mapping[str, Tuple[str, FrozenSet[str]]] = keras_classes or {}
        """This module's Keras classes: qualname → (kind, step methods whose graph the class
        makes itself), as the project resolves their bases."""
        self.runs_keras = runs_keras
        self.whole_program = whole_program
        self.imported_names = imported_names
        """Names of this module that other linted modules import, tests included: their
        calls there are not seen by this module's call graph."""
        """A notebook, or a script nothing imports: its own code is all that uses it."""
        """Keras may run this module's Keras classes in graphs (``fit``, a functional
        model); False for a notebook that trains them with an eager loop of its own."""
        self.traced = traced
        self.predicates: Predicates = predicates or {}
        """Polarity of the project predicates called in tests (``if in_tf_function():``)."""
        self.names: Mapping[str, str] = names or {}
        """Names resolved through other linted modules (see ``ModuleView.names``)."""
        self._functions: Dict[FunctionKey, TracedFunction] = {}
        self._starts: Optional[Tuple[List[int], List[FunctionKey], List[int],
                                     List[FunctionKey]]] = None
        self._eager: Optional[Set[FunctionKey]] = None

    @classmethod
    def for_module(cls, index: ModuleIndex) -> "GraphContext":
        """Graph context of a module linted on its own (no other module to resolve)."""
        graph = ProjectGraph([index])
        return cls(index, *graph.view_of(index, graph.trace()[index.path]))

    def view(self) -> ModuleView:
        return ModuleView(self.traced, self.predicates, self.names, self.runs_keras,
                          self.direct_steps, self.keras_classes, self.whole_program,
                          self.imported_names, self.runs_eagerly, self.self_contained,
                          self.never_run, self.runs_before, self.superseded, self.keras_3,
                          self.eager_lambdas, self.callback_writes)

    def get(self, key: FunctionKey) -> Optional[TracedFunction]:
        reason = self.traced.get(key)
        if reason is None:
            return None
        function = self._functions.get(key)
        if function is None:
            node = self.index.nodes.get(key)
            names = function_local_names(node) if node is not None else frozenset()
            parameters = parameter_names(node) if node is not None else frozenset()
            function = TracedFunction(key, self.index.functions[key].qualname, reason, names,
                                      parameters, node)
            self._functions[key] = function
        return function

    def calls_layers_eagerly(self) -> bool:
        """Module-level code calls an object of one of the module's Keras classes itself
        (``sample_ca = CrossAttention(); sample_ca(x, context)``, ``model(batch)``): the
        program runs its layers eagerly too, and what it reads of them may follow such a
        call."""
        index = self.index
        return any(method == "__call__" and index.instance_of(receiver) in self.keras_classes
                   for receiver, method in index.eager_steps)

    def runs_eagerly_too(self, key: FunctionKey) -> bool:
        """The function runs as Python on some calls the module makes: code of the module
        that is not traced calls it (an evaluation method, module-level code), or a
        function that runs so itself calls it (``latent_search``, called from a
        ``tf.function`` training step and from an eager ``test()``). A function under a
        tracing decorator never runs so, nor what only it calls. Calls from other modules
        are not seen."""
        if self._eager is None:
            self._eager = self._eager_functions()
        return key in self._eager

    def _eager_functions(self) -> Set[FunctionKey]:
        index, project, traced = self.index, ProjectGraph([self.index]), self.traced
        functions = index.functions

        def decorated(key: FunctionKey) -> bool:
            """Its name is bound to the ``tf.function`` (a tracing decorator): every call
            of it traces, eager or not."""
            reason = traced.get(key)
            return reason is not None and reason.via is None and reason.how.startswith("@")

        def callees(source: FunctionKey) -> Iterable[FunctionKey]:
            for target, _, how in functions[source].edges:
                found = project.resolve(index, target) if how == CALLED else None
                if (found is not None and found[0] == index.path and found[1] in functions
                        and not decorated(found[1])):
                    yield found[1]

        eager = {key for key, function in functions.items() if key[0] == "def"
                 and "." not in function.qualname and not decorated(key)
                 and (function.qualname, "__call__") in index.eager_steps}
        for source in functions:
            if source not in traced:
                eager.update(callees(source))
        queue = [key for key in eager if key in traced]
        while queue:
            for callee in callees(queue.pop()):
                if callee not in eager:
                    eager.add(callee)
                    if callee in traced:
                        queue.append(callee)
        return eager

    def release(self) -> None:
        """Forget the traced functions' ``ast`` nodes once the file is done."""
        self._functions = {}

    def __bool__(self) -> bool:
        return bool(self.traced)

    def keys_in(self, first: int, last: int) -> Tuple[List[FunctionKey], List[FunctionKey]]:
        """Keys of the defs and of the lambdas that start in these lines, in source order."""
        if self._starts is None:  # sorted once: each region is a slice, not a scan
            defs = sorted((f.start, f.key) for f in self.index.functions.values()
                          if f.key[0] == "def")
            lambdas = sorted(self.index.lambdas)
            self._starts = ([start[0] for start, _ in defs], [key for _, key in defs],
                            [key[1] for key in lambdas], lambdas)
        def_lines, def_keys, lambda_lines, lambdas = self._starts
        return (def_keys[bisect_left(def_lines, first):bisect_right(def_lines, last)],
                lambdas[bisect_left(lambda_lines, first):bisect_right(lambda_lines, last)])

    def regions(self) -> List[Tuple[int, int]]:
        """Disjoint, sorted line ranges that contain every traced function."""
        functions = self.index.functions
        spans = sorted(functions[key].region for key in self.traced)
        merged: List[Tuple[int, int]] = []
        for first, last in spans:
            if merged and first <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], last))
            else:
                merged.append((first, last))
        return merged
