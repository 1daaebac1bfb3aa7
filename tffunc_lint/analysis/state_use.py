"""Whether Python state that traced code sets is used beyond the trace that sets it.

Traced code that assigns ``self.kernel = sample(...)`` and then computes ``x @ self.kernel``
uses a scratch value: it is set and read within one trace, and the graph is right. The
assignment is harmful only with evidence that the value must live past that trace:

- **carried**: the traced function reads the state before it sets it (``self.counter += 1``,
  ``if self.step == 0: ... self.step = 1``, ``self.h = f(self.h)``), so later calls would
  need the value that Python only updates while tracing; not when each call of it follows
  a statement of its caller that sets the state (``self.prepare(x)``, then the decoding
  steps that read what the step before left: scratch state of one call);
- **read elsewhere**: another function of the module reads the state without setting it
  first (an untraced method, a property, module-level code): it sees a symbolic tensor of
  the trace, or a value frozen at trace time. Set-up methods (``__init__``, ``build``) run
  before the first trace and do not count, nor do methods of a class whose objects are never
  of the setter's class (``GraphEffects.separate``): their ``self.x`` is their own.

A layer's ``call`` (and what it calls) runs eagerly whenever a program calls the layer
itself, and in a graph when Keras trains or evaluates the model. In a program that does
call its layers itself, code outside the class that reads what ``call`` stored
(``plt.matshow(layer.last_attn_scores)`` in a notebook) reads it where it ran the layer,
most often right after such an eager call: the rule then asks (``own_class_reads``) for
readers among the class's own methods and properties (and those of the classes it derives
from or that derive from it), its API, read whenever a user asks, also after ``fit``.

A traced method that returns its object (``return self``: ``bert(x).get_sequence_output()``)
hands the attributes it sets over as its outputs, read where it is called, in the caller's
trace: only a value carried from call to call is evidence then.

A counter of traces (``num_traces += 1``, ``self.trace_count += 1``) counts traces on
purpose; it is no evidence of harm. Nor is an attribute that a traced function makes and
deletes again (``self._count = {}`` … ``del self._count``: it lives within that call), or a
read by a method nothing in the module calls that uses the value only as an input of
TensorFlow operations (``tf.gather(x, self.index)``): a graph-building helper that
subclasses call from their traced code.

A Python flag that guards one-time code (``if not self.initialized: ...;
self.initialized = True``) is read before it is set too, but it is the singleton pattern:
the code it guards runs once, on the first trace. Whether that is right depends on what the
guarded code adds to the graph (``graph_effects``); :meth:`StateUse.flag_guards` finds the
guards of a flag, also when the guarded code sets it in a method it calls
(``if not self._initialized: self._initialize_weights(x)``).

:class:`StateUse` answers for one module, from its ``ast`` tree, computed once per file
(``FileContext.fact``). Attributes are those of ``self`` (the first parameter of a method);
globals are module-level names.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from typing import TYPE_CHECKING, Callable, Dict, List, NamedTuple, Optional, Tuple

from . import guards
from .container_provenance import is_traced_node
from .graph_effects import GraphEffects
from .module_index import iter_statements
from .names import MUTATORS, ast_dotted_name, own_nodes
from .tensor_taint import WHAT_IT_IS, is_operation
from .ast_walk import child_nodes, walk_nodes
from .patterns import lazy_compile

if TYPE_CHECKING:  # pragma: no cover
    from .file_context import FileContext

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
#: Stands for "directly in a class body" where a function is expected.
_CLASS_BODY = ast.Module(body=[], type_ignores=[])
_SET_UP_METHODS = frozenset({"__init__", "__new__", "__post_init__", "__setstate__"})
_TRACE_COUNTER = lazy_compile(r"trac(?:e|es|ed|ing)", re.IGNORECASE)

#: The key of an item store whose key is computed (``self.x[name] = v``): it may be any.
_ANY_KEY = "*"

#: (line, column) of an access, and the statement it belongs to.
Access = Tuple[int, int, ast.stmt]


class _Uses:
    """Loads and stores of one piece of state within one function."""

    __slots__ = ("loads", "static_loads", "stores", "deletes", "formatted", "item_stores",
                 "keyed_loads")

    def __init__(self) -> None:
        self.formatted = 0
        """Loads inside text formatting (``"{}".format(x)``, ``f"op_{x}"``, ``str(x)``)."""
        self.loads: List[Access] = []
        self.static_loads: List[Access] = []
        """Loads of what the value is (``x.shape``, ``x is None``), not what it holds."""
        self.stores: List[Access] = []
        self.deletes: List[int] = []
        """Lines of ``del self.x`` (also counted among the stores)."""
        self.item_stores: List[Tuple[int, int, ast.stmt, str]] = []
        """``self.x[key] = v``: where, and the key's text."""
        self.keyed_loads: Dict[Tuple[int, int], str] = {}
        """Loads that read an item (``self.x[key]``): where → the key's text."""

    def read_before_set(self, setter_calls: List[Access] = (), static: bool = False) -> bool:
        """A load that sees the value from before this function set it: before the first
        store (or call of a method that sets it, ``setter_calls``), in the value of the
        storing statement, or any load when an augmented assignment is the store. Static
        loads count with ``static`` (code outside the trace, where they show the leak)."""
        loads = [*self.loads, *self.static_loads] if static else self.loads
        if self.item_stores:
            loads = [load for load in loads if not self._item_set_before(load)]
        if not loads:
            return False
        stores = [*self.stores, *setter_calls]
        if not stores:
            return True
        line, column, statement = min(stores, key=lambda s: (s[0], s[1]))
        if isinstance(statement, ast.AugAssign):
            return True
        for load_line, load_column, load_statement in loads:
            if load_statement is statement or (load_line, load_column) < (line, column):
                return True
        return False

    def _item_set_before(self, load: Access) -> bool:
        """``load`` reads an item (``self.skips[i]``) that an earlier statement of the same
        function set under the same key (``self.skips[i] = x``), or under a key computed
        there, which may be any (``self.outputs[layer.name] = x`` for each block, then
        ``self.outputs["block_2_2"]``): it sees what this call put there (a U-Net's skip
        connections kept in a dict by level, an encoder's block outputs by name)."""
        key = self.keyed_loads.get((load[0], load[1]))
        return key is not None and any(
            item_key in (key, _ANY_KEY) and (line, column) < (load[0], load[1])
            and statement is not load[2]
            for line, column, statement, item_key in self.item_stores)


class FlagGuard(NamedTuple):
    """An ``if`` that tests a Python flag, the method holding it, and the code it guards
    (its body, or what follows it when it exits: ``if self.initialized: return x``)."""

    function: ast.AST
    node: ast.If
    body: List[ast.stmt]


class StateUse:
    """Where the module reads and sets ``self.<attribute>`` and its globals, per function."""

    def __init__(self, context: "FileContext"):
        self._context = context
        self.attributes: Dict[str, Dict[int, _Uses]] = {}
        self.globals: Dict[str, Dict[int, _Uses]] = {}
        self._setters: Dict[str, set] = {}
        """Attribute → names of the methods that set it."""
        self._calls: Dict[int, List[Tuple[int, int, ast.stmt, str]]] = {}
        """Function → its calls of methods on its receiver (``self._build(x)``)."""
        self._names: Dict[int, str] = {}
        self._nodes: Dict[int, ast.AST] = {}
        self._traced_keys: Dict[int, bool] = {}
        self._attribute_values: Optional[Dict[str, List[Optional[ast.expr]]]] = None
        """Attribute → the values its stores assign (None: not one value, ``a.x += 1``)."""
        self._formatted: set = set()
        """Ids of the attribute and name loads that occur inside text formatting."""
        self._foreign: Dict[str, set] = {}
        """Attribute → functions (0: module level) reading it on an object not their own."""
        self._flag_guards: Dict[str, List[Tuple[ast.AST, ast.If, bool, bool]]] = {}
        """Attribute → the functions and ``if`` statements that test it as a Python flag,
        with the flag's truth value when the guarded code runs, and whether the guarded
        code is what follows an ``if`` that exits (``if self.initialized: return x``)."""
        tree = context.tree
        self._modules = frozenset(
            alias.asname or alias.name.partition(".")[0]
            for node in (iter_statements(tree.body) if tree is not None else ())
            if isinstance(node, ast.Import) for alias in node.names)
        """Names that ``import`` statements bind to modules: ``np.mean`` reads a function of
        NumPy, not the ``mean`` of some object."""
        if tree is not None:
            self._walk(tree.body, None, None, frozenset())
        self._defined = Counter(self._names.values())
        """Function name → how many functions of the module have it."""

    @classmethod
    def of(cls, context: "FileContext") -> "StateUse":
        return context.fact("state_use", cls)

    # -- queries ----------------------------------------------------------------------------
    def attribute_outlives_trace(self, function: ast.AST, attribute: str,
                                 own_class_reads: bool = False, carried_only: bool = False
                                 ) -> bool:
        """``self.<attribute>``, set in the traced ``function``, is carried from call to call
        or read by other code (see the module docstring). A call of a method that sets it
        (``self._sample_weights()``) counts as setting it. ``own_class_reads``: of the
        reads outside the trace, only those of the methods and properties of
        ``function``'s own class and the classes related to it count (see the module
        docstring on layers' ``call``). ``carried_only``: only a value carried from call to
        call counts, not reads by other code (the methods of an object that a class holds,
        which code the analysis does not follow may run within the trace: a decoder's
        ``initialize`` that a decoding loop calls on the object it is given)."""
        setter_calls = self._setter_calls(attribute)
        if _emptied_on_return(function, attribute):
            return False  # whoever reads it later finds it empty, traced or not
        if carried_only:
            return self._carried(self.attributes.get(attribute, {}), function, setter_calls,
                                 attribute)
        if not own_class_reads and any(key == 0 or not self._traced(key)
                                       for key in self._foreign.get(attribute, ())):
            return True  # ``recorder.history`` read outside traced code
        uses = self.attributes.get(attribute, {})
        if self._made_and_deleted(uses):
            return False
        if _returns_receiver(function):
            # ``return self``: the object is the call's result, and its attributes are the
            # outputs its caller reads (``bert(x).get_sequence_output()``), right after the
            # call, in the caller's trace. Only a value carried to the next call is harm.
            own = uses.get(id(function))
            return own is not None and own.read_before_set(setter_calls(id(function)))
        return self._outlives(uses, function, setter_calls, attribute,
                              GraphEffects.of(self._context).class_of(function)
                              if own_class_reads else None)

    def set_first_in_each_trace(self, function: ast.AST, attribute: str) -> bool:
        """Each call of ``function`` follows a statement of a traced caller's own body that
        sets ``<object>.<attribute>`` (``self.k += 1``, then ``self._helix(x)``, in the
        steps of a loop the trace unrolls): what ``function`` reads is the value set
        earlier in the same trace, not one a change between calls would leave behind."""
        return self._set_first_by_callers(function, attribute, self._setter_calls(attribute),
                                          traced_callers=True)

    def _setter_calls(self, attribute: str) -> Callable[[int], List[Access]]:
        """For a function (by key), its calls of methods that set ``attribute``."""
        setters = self._setters.get(attribute, set())

        def setter_calls(key: int) -> List[Access]:
            return [(line, column, statement)
                    for line, column, statement, name in self._calls.get(key, ())
                    if name in setters]

        return setter_calls

    def changed_elsewhere(self, function: ast.AST, attribute: str, constant: object) -> bool:
        """Code other than ``function`` and the set-up methods stores anything but
        ``constant`` in ``self.<attribute>`` (``self.done = False`` in ``reset()``). Without
        that, a traced function setting it to ``constant`` changes nothing by doing it once
        per trace rather than once per call: every call after the first would store the
        value it already holds."""
        return self._changed(self.attributes.get(attribute, {}), function, constant)

    def name_changed_elsewhere(self, function: ast.AST, name: str, constant: object) -> bool:
        """The same for a module global or a variable of an enclosing function, set under
        ``global``/``nonlocal``: its first module-level binding is its initial value."""
        return self._changed(self.globals.get(name, {}), function, constant)

    def one_constant(self, attribute: str) -> bool:
        """Every store of ``<object>.<attribute>`` in the module, set-up included, stores
        one and the same literal (``self.BATCH_SIZE = 16`` in ``train()`` before its loop):
        whenever a trace reads it, it reads the value every later call would read. Not in a
        module that calls ``setattr``, which may set it under any name."""
        if self._attribute_values is None:
            self._attribute_values = {}
            tree = self._context.tree
            if tree is None or re.search(r"\bsetattr\b", self._context.text or ""):
                return False
            for node in walk_nodes(tree):
                if isinstance(node, ast.Assign):
                    targets, value = node.targets, node.value
                elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                    targets, value = [node.target], None
                else:
                    continue
                for target in targets:
                    for part in walk_nodes(target):
                        if isinstance(part, ast.Attribute) and isinstance(part.ctx, ast.Store):
                            self._attribute_values.setdefault(part.attr, []).append(
                                value if part is target else None)
        values = self._attribute_values.get(attribute, [None])
        if any(value is None or not _literal(value) for value in values):
            return False
        try:
            first = ast.literal_eval(values[0])
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return False
        return all(_same_constant(value, first) for value in values[1:])

    def _changed(self, uses: Dict[int, _Uses], function: ast.AST, constant: object) -> bool:
        for key, use in uses.items():
            if key == id(function) or key != 0 and self._sets_up(key):
                continue
            stores = sorted(use.stores, key=lambda s: (s[0], s[1]))
            for _, _, statement in stores[1:] if key == 0 else stores:
                if not (isinstance(statement, ast.Assign) and _same_constant(
                        statement.value, constant)):
                    return True
        return False

    def _made_and_deleted(self, uses: Dict[int, _Uses]) -> bool:
        """A traced function makes the attribute and deletes it again (``self._count = {}``
        … ``del self._count``): it lives within one call of that function."""
        return any(
            key != 0 and use.deletes and self._traced(key)
            and any(line < max(use.deletes) for line, _, statement in use.stores
                    if not isinstance(statement, ast.Delete))
            for key, use in uses.items())

    def global_outlives_trace(self, function: ast.AST, name: str) -> bool:
        """The module global ``name``, set in the traced ``function`` under ``global``, is
        carried from call to call or read by other code."""
        return self._outlives(self.globals.get(name, {}), function, lambda key: [])

    def closure_outlives_trace(self, function: ast.AST, name: str, enclosing: ast.AST) -> bool:
        """The variable ``name`` of the untraced function ``enclosing``, set in the traced
        ``function`` under ``nonlocal``, is carried from call to call (read before it is
        set) or read by code outside any trace: ``enclosing``'s own body after the traced
        function is defined, or another untraced function that reads it."""
        uses = self.globals.get(name, {})
        own = uses.get(id(function))
        if own is not None and own.read_before_set():
            return True
        for key, other in uses.items():
            if key in (0, id(function)) or not _within(self._nodes[key], enclosing):
                continue
            if not self._traced(key) and other.read_before_set(static=True):
                return True
        end = getattr(function, "end_lineno", function.lineno)
        stack = list(child_nodes(enclosing))
        while stack:
            node = stack.pop()
            if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
                continue
            if (isinstance(node, ast.Name) and node.id == name
                    and isinstance(node.ctx, ast.Load) and node.lineno > end):
                return True
            stack.extend(child_nodes(node))
        return False

    def only_names_things(self, attribute: str) -> bool:
        """Every read of ``self.<attribute>`` formats it into text (``name=f"op_{n}"``): a
        counter that makes op names unique per trace, which is what such code wants."""
        uses = list(self.attributes.get(attribute, {}).values())
        loads = sum(len(u.loads) + len(u.static_loads) for u in uses)
        return bool(loads) and loads == sum(u.formatted for u in uses)

    def flag_guards(self, function: ast.AST, attribute: str, value: bool
                    ) -> List[FlagGuard]:
        """The ``if`` statements of traced methods that test ``self.<attribute>`` as a Python
        flag (``if not self.initialized:``, ``if self.first_call:``, or
        ``if self.initialized: return ...`` before the guarded code) and whose guarded code
        closes them, setting the flag to ``value`` (True, False), in ``function``: the
        ``if`` is in ``function`` and its guarded code, or a statement after the ``if`` in
        the same block, sets the flag; or its guarded code calls ``function`` through
        methods of the same class.

        Only flags of code meant to run once: not when other code of the class resets the
        flag (``self.sampled_weights = False`` in ``set_weights``) or runs the guarded
        methods without the guard (``get_initial_state`` calls ``_sample_weights``). Such a
        flag marks a cache that is refreshed, not one-time initialisation."""
        found: List[FlagGuard] = []
        candidates = self._flag_guards.get(attribute, ())
        if not candidates:
            return found
        effects = GraphEffects.of(self._context)
        for guard_function, guard, running, after_exit in candidates:
            if running == value:
                continue
            later = _later_statements(guard_function, guard)
            body = later if after_exit else guard.body
            if guard_function is function:
                receiver = _receiver(guard_function)
                if not (_sets_attribute(body, receiver, attribute)
                        or _sets_attribute(later, receiver, attribute)):
                    continue
            elif not (effects.class_of(guard_function) is not None
                      and effects.class_of(guard_function) is effects.class_of(function)
                      and self._traced(id(guard_function))
                      and function in _called_methods(body, guard_function, effects)):
                continue
            flag_guard = FlagGuard(guard_function, guard, body)
            if not _refreshed(flag_guard, attribute, running, effects):
                found.append(flag_guard)
        return found

    @staticmethod
    def counts_traces(target: str, increment: bool) -> bool:
        """``num_traces += 1`` (``increment``: an augmented assignment of a constant) to a
        name or attribute that says it counts traces: kept on purpose."""
        return increment and bool(_TRACE_COUNTER.search(target.rpartition(".")[2]))

    def _outlives(self, uses: Dict[int, _Uses], function: ast.AST, setter_calls,
                  attribute: Optional[str] = None, readers: Optional[ast.ClassDef] = None
                  ) -> bool:
        """``readers``: only methods of that class, or of a class it derives from or that
        derives from it (``GraphEffects.related``), count as readers outside the trace.
        With ``attribute``, a method of a class whose objects are never those of
        ``function``'s class (``GraphEffects.separate``) reads an attribute of its own
        objects: no reader either."""
        if self._carried(uses, function, setter_calls, attribute):
            return True
        own = uses.get(id(function))
        modes = self._store_modes(own, function) if attribute and own is not None else {}
        effects = GraphEffects.of(self._context) if readers is not None or attribute else None
        setter_class = effects.class_of(function) if attribute else None
        for key, other in uses.items():
            if key == id(function):
                continue
            if readers is not None and (key == 0 or not effects.related(
                    readers, effects.class_of(self._nodes[key]))):
                continue
            if setter_class is not None and key != 0 and effects.separate(
                    setter_class, effects.class_of(self._nodes[key])):
                continue
            if key == 0:
                if other.loads or other.static_loads:
                    return True  # module-level code reads it
                continue
            if modes:
                other = self._in_mode(other, self._nodes[key], modes)
            if (not self._traced(key) and not self._sets_up(key)
                    and other.read_before_set(setter_calls(key), static=True)
                    and not (attribute and self._graph_helper(key, attribute))):
                return True
        return False

    def _carried(self, uses: Dict[int, _Uses], function: ast.AST, setter_calls,
                 attribute: Optional[str]) -> bool:
        """``function`` reads the state before it sets it, and not after a caller set it
        in the same call: a value carried from call to call."""
        own = uses.get(id(function))
        return own is not None and own.read_before_set(setter_calls(id(function))) and not (
            attribute and self._set_first_by_callers(function, attribute, setter_calls))

    def _set_first_by_callers(self, function: ast.AST, attribute: str, setter_calls,
                              traced_callers: bool = False) -> bool:
        """Each call of ``function`` on its object follows a statement of its caller's own
        body that sets ``attribute`` (``self.prepare_decoder(x)``, then ``self.decode(...)``
        in a loop of the same ``call``): what ``function`` reads first was set earlier in
        that call, not carried over from the call before. ``traced_callers``: and each such
        caller is traced."""
        name = self._names.get(id(function))
        if name is None or self._defined[name] != 1:
            return False
        uses = self.attributes.get(attribute, {})
        called = False
        for key, calls in self._calls.items():
            for line, column, statement, callee in calls:
                if callee != name:
                    continue
                if key == id(function) or traced_callers and not self._traced(key):
                    return False  # calls itself; sets it between calls, eagerly
                own = uses.get(key)
                sets = [*(own.stores if own is not None else ()), *setter_calls(key)]
                body = getattr(self._nodes.get(key), "body", ())
                if not any((set_line, set_column) < (line, column) and setting in body
                           and setting is not statement
                           for set_line, set_column, setting in sets):
                    return False
                called = True
        return called

    def _store_modes(self, own: "_Uses", function: ast.AST) -> Dict[str, object]:
        """The configuration every store of ``own`` runs under: ``{"mode": "learned"}`` when
        each sits under ``if self.mode == "learned":``, where ``self.mode`` is set only by
        set-up methods (``__init__``, ``build``)."""
        found: Optional[Dict[str, object]] = None
        for _, _, statement in own.stores:
            modes = self._configuration(_modes_at(function, statement))
            found = modes if found is None else {
                k: v for k, v in found.items() if k in modes and modes[k] == v}
            if not found:
                return {}
        return found or {}

    def _configuration(self, modes: Dict[str, object]) -> Dict[str, object]:
        return {attribute: value for attribute, value in modes.items()
                if all(self._sets_up(key) for key, use in self.attributes.get(attribute, {})
                       .items() if use.stores)}

    def _in_mode(self, uses: "_Uses", function: ast.AST, modes: Dict[str, object]) -> "_Uses":
        """``uses`` without the loads that run only under another value of a configuration
        attribute (``if self.mode == "fixed":`` when the traced code set the state under
        ``"learned"``): those reads never see what the trace stored."""
        def compatible(access: Access) -> bool:
            there = _modes_at(function, access[2])
            return all(there.get(k, v) == v for k, v in modes.items())

        kept = _Uses()
        kept.loads = [a for a in uses.loads if compatible(a)]
        kept.static_loads = [a for a in uses.static_loads if compatible(a)]
        kept.stores, kept.deletes, kept.formatted = uses.stores, uses.deletes, uses.formatted
        kept.item_stores, kept.keyed_loads = uses.item_stores, uses.keyed_loads
        return kept

    def _graph_helper(self, key: int, attribute: str) -> bool:
        """The method ``key`` is called nowhere in the module and uses ``self.<attribute>``
        only as an input of TensorFlow operations (``tf.gather(x, self.index_targets)``) or
        of arithmetic (``inputs * self._pre_scale[:, None]``): a graph-building helper that
        subclasses call from their traced code, or a hook the Keras base class calls from
        the ``call`` that set the state (``convolution_op`` of a convolution whose ``call``
        sets the scales, then calls ``super().call(x)``), not a reader outside the trace."""
        node = self._nodes[key]
        name = getattr(node, "name", "")
        text = self._context.text or ""
        if not name or name.startswith("__") or any(
                not _SUPER_CALL.search(text[max(0, found.start() - 80):found.start()])
                for found in re.finditer(r"\.\s*%s\b" % re.escape(name), text)):
            return False  # called here (``super().name(...)`` calls the base's)
        receiver = _receiver(node) if isinstance(node, (ast.FunctionDef,
                                                        ast.AsyncFunctionDef)) else None
        reads = 0
        for call in walk_nodes(node):
            if not isinstance(call, ast.Call):
                continue
            arguments = [*call.args, *(k.value for k in call.keywords)]
            if any(_is_own(argument, receiver, attribute) for argument in arguments):
                dotted = ast_dotted_name(call.func)
                qualified = self._context.names.resolve(dotted) if dotted else None
                if not is_operation(qualified):
                    return False
                reads += sum(_is_own(argument, receiver, attribute) for argument in arguments)
        loads = [n for n in walk_nodes(node) if _is_own(n, receiver, attribute)
                 and isinstance(n.ctx, ast.Load)]
        if reads < len(loads):
            parents = _parents(node)
            reads += sum(_computed_with(load, parents) for load in loads)
        return reads > 0 and reads == len(loads)

    def _sets_up(self, key: int) -> bool:
        """``__init__``, ``build`` and the like run before the object is first called:
        what they read was not put there by a trace."""
        name = self._names.get(key, "")
        return name in _SET_UP_METHODS or "build" in name.lower()

    def _traced(self, key: int) -> bool:
        """Another traced function that reads the state runs within a trace too: what it
        sees is the trace's own value (or a tensor of another graph, which fails loudly).
        So does a Keras loss or metric (``def loss(self, y_true, y_pred)``, given to
        ``compile``), or a model's ``compute_loss(x, y, y_pred)``: Keras runs it in the
        train or test step, right after the model's ``call`` in the same graph. And so
        does a method that only such functions call (``_called_only_in_traces``)."""
        known = self._traced_keys.get(key)
        if known is None:
            self._traced_keys[key] = False  # a cycle of calls proves nothing
            node = self._nodes[key]
            known = (is_traced_node(self._context, node) or _loss_signature(node)
                     or self._called_only_in_traces(key))
            self._traced_keys[key] = known
        return known

    def _called_only_in_traces(self, key: int) -> bool:
        """The method ``key`` is called only on the receiver (``self.get_nll(y_true)``), and
        only by functions that run within a trace (``_traced``: a Keras loss method that
        calls it): it runs in their trace too. Its name must be the module's only function
        of that name, and read nowhere else in the module."""
        name = self._names.get(key, "")
        if not name or name.startswith("__") or self._defined[name] != 1:
            return False
        callers = [caller for caller, calls in self._calls.items()
                   for *_, called in calls if called == name]
        text = self._context.text or ""
        return (bool(callers)
                and len(re.findall(r"\.\s*%s\b" % re.escape(name), text)) == len(callers)
                and all(self._traced(caller) for caller in callers))

    # -- building -----------------------------------------------------------------------------
    def _walk(self, body, function: Optional[ast.AST], receiver: Optional[str],
              local: frozenset) -> None:
        for statement in body:
            self._statement(statement, function, receiver, local)

    def _statement(self, statement: ast.stmt, function, receiver, local) -> None:
        """Record the accesses of ``statement``; each belongs to the innermost statement
        that holds it. Nested functions and classes are scopes of their own."""
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for expression in (*statement.decorator_list, *_defaults(statement.args)):
                self._expression(expression, statement, function, receiver, local)
            self._function(statement, receiver, method=function is _CLASS_BODY)
            return
        if isinstance(statement, ast.ClassDef):
            self._walk(statement.body, _CLASS_BODY, None, frozenset())
            return
        if (isinstance(statement, ast.If) and receiver is not None
                and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
                and _receiver(function) == receiver):
            exit_guard = not statement.orelse and guards.exits(statement.body)
            for tested, running in guards.flag_tests(statement.test).items():
                base, _, attribute = tested.partition(".")
                if base == receiver and "." not in attribute:
                    found = self._flag_guards.setdefault(attribute, [])
                    found.append((function, statement, running, False))
                    if exit_guard:
                        found.append((function, statement, not running, True))
        for child in child_nodes(statement):
            if isinstance(child, ast.stmt):
                self._statement(child, function, receiver, local)
            elif isinstance(child, ast.AST):
                self._expression(child, statement, function, receiver, local)

    def _expression(self, root: ast.AST, statement: ast.stmt, function, receiver,
                    local) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Lambda):  # runs as part of the function it is written in
                stack.append(node.body)
                continue
            if isinstance(node, ast.stmt):  # e.g. an ``except`` handler's body
                self._statement(node, function, receiver, local)
                continue
            if _formats_text(node):
                self._formatted.update(id(n) for n in walk_nodes(node)
                                       if isinstance(n, (ast.Attribute, ast.Name)))
            mutation = _mutation_use(node, receiver)
            if mutation is not None:  # ``self.x[k] = v``: neither reads nor sets ``self.x``
                if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
                    self._item(node, statement, function)
                stack.extend(mutation)
                continue
            if (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
                    and _is_own(node.value, receiver)
                    and self._access(node.value, statement, function, receiver, local)):
                self._item(node, statement, function)
                stack.append(node.slice)
                continue
            static = _static_use(node)
            if static is not None:  # ``self.x.shape``, ``x is None``: not the value
                value, rest = static
                stack.extend(rest)
                if not self._access(value, statement, function, receiver, local, static=True):
                    stack.append(value)
                continue
            if self._access(node, statement, function, receiver, local):
                continue
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == receiver
                    and function is not None):
                self._calls.setdefault(id(function), []).append(
                    (node.lineno, node.col_offset, statement, node.func.attr))
            stack.extend(child_nodes(node))

    def _item(self, node: ast.Subscript, statement: ast.stmt, function) -> None:
        """Note the key of an item of ``self.x`` that ``node`` sets or reads."""
        if function is None or function is _CLASS_BODY:
            return
        uses = self.attributes.setdefault(node.value.attr, {}).setdefault(id(function), _Uses())
        key = ast.dump(node.slice)
        if isinstance(node.ctx, ast.Load):
            uses.keyed_loads[(node.value.lineno, node.value.col_offset)] = key
        else:
            uses.item_stores.append((node.lineno, node.col_offset, statement, key))
            if not isinstance(node.slice, ast.Constant):  # ``self.outputs[layer.name] = x``
                uses.item_stores.append((node.lineno, node.col_offset, statement, _ANY_KEY))

    def _function(self, node: ast.AST, enclosing: Optional[str], method: bool) -> None:
        """A method's receiver is its first parameter; a function nested in a method sees
        the method's receiver (unless it rebinds the name)."""
        positional = [*node.args.posonlyargs, *node.args.args]
        self._names[id(node)] = node.name
        self._nodes[id(node)] = node
        local = _local_names(node)
        if method:
            receiver = positional[0].arg if positional else None
        else:
            receiver = enclosing if enclosing not in local else None
        self._walk(node.body, node, receiver, local - {receiver})

    def _access(self, node: ast.AST, statement, function, receiver, local,
                static: bool = False) -> bool:
        """Record ``node`` if it accesses state: ``self.<attribute>``, a global, or another
        object's attribute (``model.history``, for readers outside traced code)."""
        if isinstance(node, ast.Attribute):
            base = node.value
            if receiver is not None and isinstance(base, ast.Name) and base.id == receiver:
                self._record(self.attributes, node.attr, function, node, statement, static)
                if isinstance(node.ctx, ast.Store) and function is not _CLASS_BODY:
                    self._setters.setdefault(node.attr, set()).add(self._names.get(id(function)))
                return True
            if (isinstance(node.ctx, ast.Load) and function is not _CLASS_BODY
                    and not self._module_path(base)):
                self._foreign.setdefault(node.attr, set()).add(id(function) if function else 0)
            return False
        if isinstance(node, ast.Name) and node.id not in local:
            self._record(self.globals, node.id, function, node, statement, static)
            return True
        return False

    def _module_path(self, node: ast.AST) -> bool:
        """``node`` names a module: one an ``import`` binds, or a path of names below it
        (``tf.keras`` in ``tf.keras.losses``: a submodule, not an object whose ``losses``
        a program reads)."""
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and node.id in self._modules

    def _record(self, table, name: str, function, node, statement, static=False) -> None:
        if function is _CLASS_BODY:
            return  # class attributes are defaults, read through ``self`` elsewhere
        uses = table.setdefault(name, {}).setdefault(id(function) if function else 0, _Uses())
        access = (node.lineno, node.col_offset, statement)
        if not isinstance(node.ctx, ast.Load):
            uses.stores.append(access)
            if isinstance(node.ctx, ast.Del):
                uses.deletes.append(node.lineno)
        else:
            (uses.static_loads if static else uses.loads).append(access)
            uses.formatted += id(node) in self._formatted


#: ``super()`` or ``super(Class, self)`` right before a ``.name`` found in the text.
_SUPER_CALL = lazy_compile(r"\bsuper\s*\([^()]*\)\s*\Z")


def _parents(node: ast.AST) -> Dict[int, ast.AST]:
    """``id()`` of each node below ``node`` → its parent."""
    return {id(child): parent for parent in walk_nodes(node)
            for child in ast.iter_child_nodes(parent)}


def _computed_with(load: ast.AST, parents: Dict[int, ast.AST]) -> bool:
    """``load`` (``self.scale``, or a subscript or attribute of it: ``self.scale[:, None]``)
    is an operand of arithmetic (``x * self.scale``): a tensor computed with, not a value
    Python decides on. Not an argument of a call (``_graph_helper`` judges those)."""
    child, parent = load, parents.get(id(load))
    while isinstance(parent, (ast.Subscript, ast.Attribute)) and child is parent.value:
        child, parent = parent, parents.get(id(parent))
    if isinstance(parent, ast.UnaryOp):
        return isinstance(parent.op, ast.USub)
    return isinstance(parent, ast.BinOp) and not isinstance(parent.op, ast.Mod) and not any(
        isinstance(side, (ast.Constant, ast.JoinedStr)) and not isinstance(
            getattr(side, "value", 0), (int, float)) for side in (parent.left, parent.right))


def _receiver(method: ast.AST) -> Optional[str]:
    positional = [*method.args.posonlyargs, *method.args.args]
    return positional[0].arg if positional else None


def _returns_receiver(function: ast.AST) -> bool:
    """Every ``return`` of the method ``function`` returns its receiver (``return self``),
    and it has one."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    receiver = _receiver(function)
    returns = [node for node in own_nodes(function.body) if isinstance(node, ast.Return)]
    return receiver is not None and bool(returns) and all(
        isinstance(node.value, ast.Name) and node.value.id == receiver for node in returns)


def _sets_attribute(statements, receiver: Optional[str], attribute: str) -> bool:
    """One of ``statements`` assigns ``<receiver>.<attribute>``."""
    return receiver is not None and any(
        isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
        and node.attr == attribute and isinstance(node.value, ast.Name)
        and node.value.id == receiver
        for statement in statements for node in walk_nodes(statement))


def _later_statements(function: ast.AST, statement: ast.stmt) -> List[ast.stmt]:
    """The statements after ``statement`` in the block of ``function`` that holds it."""
    for node in walk_nodes(function):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and statement in block:
                return block[block.index(statement) + 1:]
    return []


def _called_methods(statements, method: ast.AST, effects: GraphEffects) -> List[ast.AST]:
    """The methods of ``method``'s class that ``statements`` call on the receiver
    (``self._init(x)``), and those they call in turn."""
    methods = effects.methods(method)
    found: List[ast.AST] = []
    pending = [(statements, _receiver(method))]
    while pending:
        body, receiver = pending.pop()
        for node in (n for statement in body for n in walk_nodes(statement)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == receiver and node.func.attr in methods):
                callee = methods[node.func.attr]
                if callee not in found:
                    found.append(callee)
                    pending.append((callee.body, _receiver(callee)))
    return found


def _refreshed(guard: "FlagGuard", attribute: str, running: bool,
               effects: GraphEffects) -> bool:
    """Code of the class outside the guarded code resets the flag ``self.<attribute>`` to a
    constant that runs the guard again (``running``: its truth value then; set-up methods
    aside) or calls a method the guarded code calls."""
    guarded = _called_methods(guard.body, guard.function, effects)
    names = {method.name for method in guarded}
    inside = {id(node) for statement in guard.body for node in walk_nodes(statement)}
    for method in effects.methods(guard.function).values():
        if method in guarded:
            continue
        receiver = _receiver(method)
        set_up = method.name in _SET_UP_METHODS or "build" in method.name.lower()
        for node in walk_nodes(method):
            if id(node) in inside:
                continue
            if (not set_up and isinstance(node, ast.Assign)
                    and isinstance(node.value, ast.Constant)
                    and bool(node.value.value) == running
                    and any(_is_own(target, receiver, attribute) for target in node.targets)):
                return True
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in names and _is_own(node.func, receiver)):
                return True
    return False


def _modes_at(function: ast.AST, statement: ast.stmt) -> Dict[str, object]:
    """The ``if self.<attribute> == <constant>:`` tests whose body holds ``statement`` in
    ``function`` (attribute → constant)."""
    receiver = _receiver(function) if isinstance(
        function, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    found: Dict[str, object] = {}
    prefix = f"{receiver}."

    def search(body: List[ast.stmt]) -> bool:
        for node in body:
            if node is statement:
                return True
            if not (node.lineno <= statement.lineno <= getattr(node, "end_lineno", 0)):
                continue
            if isinstance(node, ast.If):
                if search(node.body):
                    compared = guards.compared_constant(node.test)
                    if compared is not None and compared[0].startswith(prefix) and (
                            "." not in compared[0][len(prefix):]):
                        found[compared[0][len(prefix):]] = compared[1]
                    return True
                return search(node.orelse)
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(node, field, None)
                if isinstance(inner, list) and search(inner):
                    return True
            if any(search(handler.body) for handler in getattr(node, "handlers", ())):
                return True
        return False

    if receiver is not None:
        search(function.body)
    return found


#: The hooks a Keras model's train and test steps call right after the model's ``call``,
#: in the same graph: ``loss = self.compute_loss(x, y, y_pred, sample_weight)``.
_KERAS_STEP_HOOKS = frozenset({"compute_loss", "compute_metrics"})


def _loss_signature(node: ast.AST) -> bool:
    """``def loss(self, y_true, y_pred, ...)`` or ``def vae_kl_loss(y_true, y_pred)``: the
    signature of a Keras loss or metric; or a model's ``compute_loss``/``compute_metrics``
    hook, which takes ``y_pred``; or a loss of the model's own computed from what its
    ``call`` returned (``def total_loss(self, outputs, inputs=None, step=0)``), which a
    training step can run only after that call, in the same step."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    names = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    return ["y_true", "y_pred"] in (names[:2], names[1:3]) or (
        node.name in _KERAS_STEP_HOOKS and "y_pred" in names) or (
        bool(_LOSS_NAME.search(node.name)) and not _OUTPUTS.isdisjoint(names[1:]))


#: A function named as a loss (``total_loss``, ``compute_losses``, ``loss_fn``).
_LOSS_NAME = re.compile(r"(?:^|_)loss(?:es)?(?:$|_)", re.IGNORECASE)
#: Parameters that take what a model's ``call`` returned.
_OUTPUTS = frozenset({"outputs", "output", "y_pred", "predictions", "preds", "logits",
                      "model_output", "model_outputs"})


def _literal(node: ast.AST) -> bool:
    """A number, string, bytes, ``True``/``False``/``None``, or a negative number."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant)


def _same_constant(node: ast.AST, constant: object) -> bool:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return type(value) is type(constant) and value == constant


def _is_own(node: ast.AST, receiver: Optional[str], attribute: Optional[str] = None) -> bool:
    """``node`` is ``<receiver>.<attribute>`` (any attribute without one)."""
    return (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == receiver and attribute in (None, node.attr))


def _emptied_on_return(function: ast.AST, attribute: str) -> bool:
    """The traced ``function`` empties the container ``self.<attribute>`` before it returns
    (``self.features.append(x)`` … ``self.features.clear()``, ``self.cache = {}``, ``del
    self.items[:]`` as a statement of its own body, not under a condition, with no
    ``return`` before it and no use of the attribute after it): every call starts with the
    container as the one before left it, empty, so what a trace adds to it is scratch."""
    arguments = getattr(function, "args", None)
    if arguments is None or not arguments.args or isinstance(function, ast.Lambda):
        return False
    receiver = arguments.args[0].arg
    body = function.body
    last = max((i for i, statement in enumerate(body)
                if _empties(statement, receiver, attribute)), default=None)
    if last is None:
        return False
    if any(_touches(statement, receiver, attribute) for statement in body[last + 1:]):
        return False
    return not any(isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom))
                   for node in own_nodes(body[:last]))


def _empties(statement: ast.stmt, receiver: str, attribute: str) -> bool:
    """``self.x.clear()``, ``self.x = []`` (``{}``, ``list()``, ``dict()``, ``set()``) or
    ``del self.x[:]``."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        return (isinstance(call.func, ast.Attribute) and call.func.attr == "clear"
                and not call.args and not call.keywords
                and _is_own(call.func.value, receiver, attribute))
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        value = statement.value
        empty = (isinstance(value, (ast.List, ast.Set)) and not value.elts
                 or isinstance(value, ast.Dict) and not value.keys
                 or isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                 and value.func.id in ("list", "dict", "set") and not value.args
                 and not value.keywords)
        return empty and _is_own(statement.targets[0], receiver, attribute)
    if isinstance(statement, ast.Delete) and len(statement.targets) == 1:
        target = statement.targets[0]
        return (isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Slice)
                and target.slice.lower is None and target.slice.upper is None
                and target.slice.step is None
                and _is_own(target.value, receiver, attribute))
    return False


def _touches(statement: ast.stmt, receiver: str, attribute: str) -> bool:
    return any(_is_own(node, receiver, attribute) for node in walk_nodes(statement))


#: Methods that change a container in place.


def _mutation_use(node: ast.AST, receiver: Optional[str]) -> Optional[List[ast.AST]]:
    """For a mutation of ``self.x`` in place (``self.x.append(v)``, ``self.x[k] = v``,
    ``del self.x[k]``), which neither reads nor sets the attribute itself, the
    sub-expressions still to visit; None for any other node."""
    def own(value: ast.AST) -> bool:
        return (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)
                and value.value.id == receiver)

    if receiver is None:
        return None
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in MUTATORS and own(node.func.value)):
        return [*node.args, *(k.value for k in node.keywords)]
    if (isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del))
            and own(node.value)):
        return [node.slice]
    return None


#: What a value is (its static shape, dtype, name, class; whether a layer is built).
_STATIC_ATTRIBUTES = WHAT_IT_IS | {"built"}
_STATIC_CALLS = frozenset({"isinstance", "hasattr", "type", "callable"})


def _static_use(node: ast.AST) -> Optional[Tuple[ast.AST, List[ast.AST]]]:
    """For a use of a value that reads only what it is, not what it holds (its static
    shape or dtype, its type, whether it is None): that value and the other
    sub-expressions still to visit; None for any other node."""
    if isinstance(node, ast.Attribute) and node.attr in _STATIC_ATTRIBUTES:
        return node.value, []
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in _STATIC_CALLS and node.args):
        return node.args[0], [*node.args[1:], *(k.value for k in node.keywords)]
    if (isinstance(node, ast.Compare) and len(node.ops) == 1
            and isinstance(node.ops[0], (ast.Is, ast.IsNot))
            and isinstance(node.comparators[0], ast.Constant)):
        return node.left, []
    return None


def _formats_text(node: ast.AST) -> bool:
    """``"{}".format(...)``, an f-string, ``"%s" % ...`` or ``str(...)``."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "format":
            return isinstance(func.value, ast.Constant) and isinstance(func.value.value, str)
        return isinstance(func, ast.Name) and func.id == "str"
    return False


def _within(node: ast.AST, outer: ast.AST) -> bool:
    """``node`` is written inside ``outer`` (by line span)."""
    return (outer.lineno <= node.lineno
            and getattr(node, "end_lineno", node.lineno) <= getattr(outer, "end_lineno", 0))


def _defaults(arguments: ast.arguments):
    return [d for d in (*arguments.defaults, *arguments.kw_defaults) if d is not None]


def _local_names(function: ast.AST) -> frozenset:
    """Names the function binds itself (parameters, assignments), minus ``global`` ones."""
    arguments = function.args
    names = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    names.update(a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None)
    declared = set()
    body = [function.body] if isinstance(function, ast.Lambda) else function.body
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        stack.extend(child_nodes(node))
    return frozenset(names - declared)
