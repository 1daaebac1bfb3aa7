"""Record every trace of every ``tf.function`` in this process, and say why it happened.

The hook: TensorFlow 2.x builds each new concrete function in
``tracing_compilation._create_concrete_function(function_type, type_context, func_graph,
tracing_options)``, which ``_maybe_define_function`` calls only after a cache miss. Wrapping
that one module attribute sees every trace (plain functions, methods, ``tf.function(f)``
wrappers, the step functions Keras builds for ``fit``, ``get_concrete_function``) and costs
nothing on a call that finds its graph in the cache. The wrapper reads the trace types of
the bound arguments (the caller's ``lookup_func_type``: what the call asked for, before
``reduce_retracing`` relaxed it), the ``tf.function`` object (its ``FunctionCaptures``, one
per ``Function`` and per instance of a method) and the user's call site, then calls the
original unchanged.

This module imports TensorFlow only in :func:`install`.
"""

from __future__ import annotations

import os
import sys
import sysconfig
import threading
import types
import weakref
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from . import arguments
from .arguments import Change

TRACING_MODULE = "tensorflow.python.eager.polymorphic_function.tracing_compilation"
_HOOKED = "_create_concrete_function"
_KERAS_TRAINER = os.path.join("keras", "src", "backend", "tensorflow", "trainer.py")
_HERE = os.path.dirname(os.path.abspath(__file__))

#: Fixes and the static rule that predicts each kind of change.
RULES = {
    "TFF401": "python-scalar-argument",
    "TFF402": "tf-function-recreated",
    "TFF403": "python-data-iterated-in-graph",
}


@dataclass
class TraceEvent:
    """One trace: which function, from where, and why (all plain data)."""

    number: int                   # order among all traces recorded in the process
    key: str                      # the function (its code; for Keras also the model class)
    index: int                    # 1 for the function's first trace, 2 for the first retrace
    call_site: Optional[Tuple[str, int, str]]  # file, line, function of the user's frame
    params: Dict[str, Any]        # argument name -> node (see :mod:`.arguments`)
    object_number: int            # which tf.function object for this code (1, 2, ...)
    scope: str
    cause: str = "first"          # first, arguments, combination, recreated,
    #                               new-instance, context, variables-created
    changes: List[Change] = field(default_factory=list)
    relaxed: Dict[str, Any] = field(default_factory=dict)  # reduce_retracing's wider types
    failed: bool = False

    def to_dict(self) -> Dict[str, Any]:
        return {"number": self.number, "key": self.key, "index": self.index,
                "call_site": list(self.call_site) if self.call_site else None,
                "params": self.params, "object_number": self.object_number,
                "scope": self.scope, "cause": self.cause,
                "changes": [c._asdict() for c in self.changes],
                "relaxed": self.relaxed, "failed": self.failed}


@dataclass
class FunctionInfo:
    key: str
    label: str                    # qualified name, e.g. ``Trainer.step``
    defined_at: Tuple[str, int]
    kind: str                     # function, method or keras
    events: List[TraceEvent] = field(default_factory=list)
    objects: int = 0
    owners: List[Any] = field(default_factory=list)  # weak references to instances / models

    def to_dict(self) -> Dict[str, Any]:
        return {"key": self.key, "label": self.label, "defined_at": list(self.defined_at),
                "kind": self.kind}


def _unwrap(function: Any) -> Tuple[Any, Any]:
    """The user's Python function under TensorFlow's decorators, and the instance it is
    bound to (``None`` for a plain function)."""
    seen = 0
    while hasattr(function, "__wrapped__") and seen < 50:
        function = function.__wrapped__
        seen += 1
    owner = None
    if isinstance(function, types.MethodType):
        owner = function.__self__
        function = function.__func__
        target = getattr(owner, "weakrefself_target__", None)  # TfMethodTarget
        if target is not None:
            owner = target()
    return function, owner


def _closure(function: Any) -> Dict[str, Any]:
    code = getattr(function, "__code__", None)
    cells = getattr(function, "__closure__", None) or ()
    values = {}
    for name, cell in zip(code.co_freevars if code else (), cells):
        try:
            values[name] = cell.cell_contents
        except ValueError:
            pass
    return values


def _find_step(value: Any, model: Any, depth: int = 0) -> Any:
    """The model's ``train_step`` (or test/predict step) a Keras step function runs."""
    if depth > 5 or value is None:
        return None
    if isinstance(value, types.MethodType) and value.__self__ is model:
        return value
    python_function = getattr(value, "python_function", None)  # a tf.function
    for candidate in ([python_function] if python_function is not None else []) + \
            list(_closure(_unwrap(value)[0]).values()):
        if candidate is model:
            continue
        found = _find_step(candidate, model, depth + 1)
        if found is not None:
            return found
    return None


class Recorder:
    """The process-wide trace history. One instance, :data:`RECORDER`."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.functions: Dict[str, FunctionInfo] = {}
        self.events: List[TraceEvent] = []
        self.sinks: List[Any] = []
        self._objects: Dict[int, Tuple[Any, str, int]] = {}
        self._skip_dirs: Tuple[str, ...] = ()
        self.installed = False
        self.errors = 0

    # -- the hook ------------------------------------------------------------------------

    def install(self) -> None:
        """Wrap TensorFlow's tracing step (imports TensorFlow; idempotent)."""
        with self.lock:
            if self.installed:
                return
            import importlib

            module = importlib.import_module(TRACING_MODULE)
            self.patch(module)

    def patch(self, module: Any) -> None:
        original = getattr(module, _HOOKED)
        if getattr(original, "__tffunc_lint_original__", None) is not None:
            self.installed = True
            return
        recorder = self

        def _create_concrete_function(function_type, type_context, func_graph,
                                      tracing_options):
            event = None
            try:
                event = recorder.on_trace(function_type, tracing_options, sys._getframe(1))
            except Exception:  # noqa: BLE001 - the recorder must never break the program
                recorder.errors += 1
            try:
                return original(function_type, type_context, func_graph, tracing_options)
            except BaseException:
                if event is not None:
                    event.failed = True
                raise

        _create_concrete_function.__tffunc_lint_original__ = original
        _create_concrete_function.__wrapped_module__ = module.__name__
        setattr(module, _HOOKED, _create_concrete_function)
        self._skip_dirs = self._library_dirs()
        self.installed = True

    def uninstall(self) -> None:
        module = sys.modules.get(TRACING_MODULE)
        with self.lock:
            if module is not None:
                original = getattr(getattr(module, _HOOKED), "__tffunc_lint_original__", None)
                if original is not None:
                    setattr(module, _HOOKED, original)
            self.installed = False

    @staticmethod
    def _library_dirs() -> Tuple[str, ...]:
        dirs = [_HERE, sysconfig.get_paths().get("stdlib") or os.path.dirname(os.__file__)]
        for name in ("tensorflow", "keras", "tf_keras", "tensorflow_core", "absl"):
            module = sys.modules.get(name)
            path = getattr(module, "__file__", None) if module else None
            if path:
                dirs.append(os.path.dirname(os.path.abspath(path)))
        return tuple(os.path.join(d, "") for d in dirs if d)

    def _is_library(self, filename: str) -> bool:
        if filename.startswith("<frozen") or "__autograph_generated_file" in filename:
            return True
        return os.path.abspath(filename).startswith(self._skip_dirs)

    def _call_site(self, frame: Any) -> Optional[Tuple[str, int, str]]:
        while frame is not None:
            code = frame.f_code
            if not self._is_library(code.co_filename):
                return (code.co_filename, frame.f_lineno, code.co_name)
            frame = frame.f_back
        return None

    # -- one trace -------------------------------------------------------------------------

    def _identify(self, python_function: Any):
        """(key, label, defined_at, kind, owner) of the function being traced, or None for
        TensorFlow's own (tf.data wrappers, variable initialisers)."""
        function, owner = _unwrap(python_function)
        code = getattr(function, "__code__", None)
        if code is None:  # a callable object: tf.function(layer)
            call = getattr(type(function), "__call__", None)
            code = getattr(call, "__code__", None)
            if code is None:
                return None
            label = f"{type(function).__qualname__}.__call__"
            return (f"{code.co_filename}:{code.co_firstlineno}:{label}", label,
                    (code.co_filename, code.co_firstlineno), "method", function)
        else:
            label = getattr(function, "__qualname__", code.co_name)
        filename = os.path.abspath(code.co_filename)
        if filename.endswith(_KERAS_TRAINER):
            model = _closure(function).get("self")
            if model is None:
                return None
            step = _find_step(function, model)
            step_code = getattr(getattr(step, "__func__", None), "__code__", code)
            step_name = step.__name__ if step is not None else code.co_name
            model_class = type(model).__qualname__
            return (f"keras:{code.co_name}:{step_code.co_filename}:{step_code.co_firstlineno}:"
                    f"{model_class}",
                    f"{model_class}.{step_name} (Keras {code.co_name})",
                    (step_code.co_filename, step_code.co_firstlineno), "keras", model)
        if self._is_library(filename):
            return None
        kind = "method" if owner is not None else "function"
        return (f"{filename}:{code.co_firstlineno}:{label}", label,
                (code.co_filename, code.co_firstlineno), kind, owner)

    def _object_number(self, info: FunctionInfo, captures: Any) -> Tuple[int, bool]:
        """Which tf.function object of this code ``captures`` belongs to; whether new."""
        known = self._objects.get(id(captures))
        if known is not None and known[0]() is captures and known[1] == info.key:
            return known[2], False
        info.objects += 1
        key = id(captures)
        objects = self._objects

        def forget(_ref, key=key):
            entry = objects.get(key)
            if entry is not None and entry[0]() is None:
                del objects[key]

        objects[key] = (weakref.ref(captures, forget), info.key, info.objects)
        return info.objects, True

    def _new_owner(self, info: FunctionInfo, owner: Any) -> bool:
        if owner is None:
            return False
        for ref in info.owners:
            if ref() is owner:
                return False
        try:
            info.owners.append(weakref.ref(owner))
        except TypeError:
            info.owners.append(lambda owner=owner: owner)
        return len(info.owners) > 1

    def on_trace(self, function_type: Any, tracing_options: Any, caller: Any):
        captures = getattr(tracing_options, "function_captures", None)
        if captures is None or not self.installed:
            return None
        self._skip_dirs = self._library_dirs()  # Keras may have been imported since
        identity = self._identify(tracing_options.python_function)
        if identity is None:
            return None
        key, label, defined_at, kind, owner = identity
        lookup = None
        if caller is not None and caller.f_code.co_name == "_maybe_define_function":
            lookup = caller.f_locals.get("lookup_func_type")
        asked = lookup if lookup is not None else function_type
        params = {name: arguments.node(p.type_constraint)
                  for name, p in asked.parameters.items()}
        relaxed = {}
        if lookup is not None and function_type is not lookup:
            relaxed = {name: arguments.node(p.type_constraint)
                       for name, p in function_type.parameters.items()
                       if name in params
                       and arguments.node(p.type_constraint) != params[name]}
        scope = getattr(getattr(tracing_options, "scope_type", None), "name", "")
        call_site = self._call_site(caller)
        with self.lock:
            info = self.functions.get(key)
            if info is None:
                info = self.functions[key] = FunctionInfo(key, label, defined_at, kind)
            object_number, new_object = self._object_number(info, captures)
            new_owner = self._new_owner(info, owner)
            event = TraceEvent(len(self.events) + 1, key, len(info.events) + 1, call_site,
                               params, object_number, scope, relaxed=relaxed)
            self._explain(info, event, new_object, new_owner)
            info.events.append(event)
            self.events.append(event)
            for sink in self.sinks:
                sink.events.append(event)
        return event

    def _explain(self, info: FunctionInfo, event: TraceEvent, new_object: bool,
                 new_owner: bool) -> None:
        earlier = [e for e in info.events if not e.failed]
        if not earlier:
            return
        if new_object:
            event.cause = "new-instance" if new_owner else "recreated"
            return
        same = [e for e in earlier if e.object_number == event.object_number]
        if not same:
            event.cause = "new-instance" if new_owner else "recreated"
            return
        diffs = [_diff_params(e.params, event.params) for e in same]
        identical = [e for e, d in zip(same, diffs) if not d]
        if identical:
            event.cause = ("variables-created" if event.scope == "NO_VARIABLE_CREATION"
                           and identical[-1].scope != event.scope else "context")
            return
        event.cause = "arguments"
        common = set.intersection(*({c.path for c in d} for d in diffs))
        if common:
            event.changes = [c for c in diffs[-1] if c.path in common]
        else:  # each argument was seen before, but not this combination
            event.cause = "combination"
            event.changes = min(reversed(diffs), key=len)


def _diff_params(old: Dict[str, Any], new: Dict[str, Any]) -> List[Change]:
    changes: List[Change] = []
    for name, node in new.items():
        if name not in old:
            changes.append(Change(name, "structure", "not passed", arguments.describe(node)))
        else:
            changes.extend(arguments.diff(old[name], node, name))
    return changes


RECORDER = Recorder()
