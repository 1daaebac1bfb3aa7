"""TFF103 python-state-mutation."""

from __future__ import annotations

import ast
import re
from typing import Optional, Tuple

from ..analysis.lazy_libcst import cst

from ..analysis.lazy_import import lazy_module
from ..analysis.guarded_code import flag_guard_tests
from ..analysis.module_index import TF_FUNCTION
from ..analysis.names import ast_dotted_name, dotted_name
from ..analysis.patterns import words, lazy_compile
from ..rule import Rule

container_provenance = lazy_module("..analysis.container_provenance", __package__)
local_calls = lazy_module("..analysis.local_calls", __package__)
loop_kind = lazy_module("..analysis.loop_kind", __package__)
graph_effects = lazy_module("..analysis.graph_effects", __package__)
scoped_state = lazy_module("..analysis.scoped_state", __package__)
state_use = lazy_module("..analysis.state_use", __package__)
tensor_taint = lazy_module("..analysis.tensor_taint", __package__)

#: Methods whose assignments set a new object up, not change its state; and any method
#: whose name says it builds (``build``, Keras' ``_build_from_signature``, ``_maybe_build``):
#: they run once, behind a ``built`` flag.
_SET_UP_METHODS = frozenset({"__init__", "__new__", "__post_init__", "__setstate__"})


#: A statement whose target is ``name.attr`` (possibly among a tuple's targets).
_ATTRIBUTE_TARGETS = lazy_compile(
    r"^[ \t]*[(\[]?(?:[\w.]+\s*,\s*)*\w+\s*\.\s*\w+\s*(?:,\s*[\w.]+\s*)*[)\]]?\s*"
    r"(?::[^=\n]+)?(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)", re.MULTILINE)
_ATTRIBUTE_BASE = lazy_compile(r"(?<![\w.])(\w+)\s*\.\s*\w+")


#: Bounds that give their own result back when applied to it again (``min(min(a, b), b)``).
_BOUNDS = frozenset({"builtins.min", "builtins.max"})

#: Functions whose result holds one of their arguments cast to a dtype: (position in the
#: result, parameter, position of the parameter). TensorFlow Addons' CRF log-likelihood hands
#: back ``tf.cast(transition_params, ...)``, the variable itself when it has that dtype.
_RETURNS_OWN = {
    "tensorflow_addons.text.crf_log_likelihood": (1, "transition_params", 3),
    "tensorflow_addons.text.crf.crf_log_likelihood": (1, "transition_params", 3),
}

#: Conversions that return their argument itself when it already has the type asked for.
_CONVERSIONS = frozenset({"tensorflow.cast", "tensorflow.dtypes.cast",
                          "tensorflow.convert_to_tensor"})


def _flag_value(value: Optional[cst.BaseExpression]) -> Optional[bool]:
    """The truth value of a flag's new value (``True``, ``False``, a number); None for
    anything else."""
    if isinstance(value, cst.Name) and value.value in ("True", "False"):
        return value.value == "True"
    if isinstance(value, (cst.Integer, cst.Float)):
        return bool(value.evaluated_value)
    return None


def _flag_combination(value: cst.BaseExpression, resolve) -> bool:
    """``self.a and self.b``, ``self.a or not self.b``, ``self.fused and not isinstance(x,
    tf.SparseTensor) and self.dtype == tf.float16``: attributes, constants and what values
    are (types, dtypes, shapes), compared or joined by ``and``/``or``/``not``. Applying it
    again to its own result changes nothing."""
    if isinstance(value, cst.BooleanOperation):
        return _flag_operand(value.left, resolve) and _flag_operand(value.right, resolve)
    return False


def _flag_operand(value: cst.BaseExpression, resolve) -> bool:
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Not):
        return _flag_operand(value.expression, resolve)
    if isinstance(value, cst.BooleanOperation):
        return _flag_combination(value, resolve)
    if isinstance(value, cst.Name):
        return value.value in ("True", "False")
    if isinstance(value, cst.Comparison):
        return all(isinstance(c.operator, (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot))
                   for c in value.comparisons) and all(
            _flag_operand(side, resolve) or tensor_taint.literal(side)
            for side in [value.left] + [c.comparator for c in value.comparisons])
    return (isinstance(value, cst.Attribute) and (dotted_name(value) or "").count(".") == 1
            or tensor_taint.static_value(value, resolve))


def _constant(value: cst.BaseExpression) -> object:
    """The Python value of a literal (see ``tensor_taint.literal``)."""
    return ast.literal_eval(cst.Module([]).code_for_node(value))


def _flag_message(target: str, guard: ast.If, operation: graph_effects.Operation) -> str:
    through = f", through `{operation.through}`" if operation.through else ""
    return (f"`{target}` is a Python flag: tf.function reads it only while tracing, so the "
            f"initialisation it guards (`{operation.text}` at line {operation.line}{through}) "
            "is part "
            "of the graph and runs on every call, and a retrace that sees the flag set drops "
            "it; keep the flag in a tf.Variable and branch with tf.cond, or run the "
            "initialisation eagerly (before training, or in build())")


class PythonStateMutation(Rule):
    """Python state outside the traced function is rebound while tracing.

    ## What it does
    Flags assignments, in traced code, to a name declared `global` or `nonlocal`, and to an
    attribute of `self` or of another object that outlives the call (a module global, a
    variable of an enclosing function that is not traced): `self.counter += 1`,
    `holder.field = t`. Also flags the assignment that sets a Python flag guarding
    data-dependent initialisation (`if not self.initialized: self._init(x);
    self.initialized = True`).

    ## Why is this bad?
    `tf.function` runs the Python body only while it traces a graph. The assignment happens
    once per trace, not once per call: a Python counter stops counting after the first call,
    and every decision taken from it is frozen into the graph. The guide's model guards
    `v.assign_add(1)` with `if self.counter == 0: self.counter += 1`, and returns 1, 2, 3
    instead of 1, 1, 1. Assigning a tensor leaks it: the attribute keeps a symbolic tensor of
    the trace, which has no `.numpy()` and cannot be used by later calls. Keep state that
    changes per call in a `tf.Variable` (`self.counter.assign_add(1)`), return values
    instead of storing them, or move one-time Python bookkeeping into
    `with tf.init_scope():`.

    The harm needs the value to live past the trace that sets it, so an assignment is
    reported only with evidence of that: the traced code reads the state before it sets it
    (`self.counter += 1`, `if self.step == 0:`, `self.h = f(self.h)`: a value carried from
    call to call), or code outside the trace reads it (an untraced method or property,
    another object's `layer.last_logits` in untraced code, module-level code, or for a
    `nonlocal` variable the enclosing function's own code after the traced function and
    its untraced helpers). `self.x` in a method of another class is an attribute of that
    class's objects: it counts only when one object can be of both classes (one derives
    from the other, a class of the module derives from both, or one of them is a mixin the
    module never instantiates). A layer's `call` is also run eagerly by a program that calls
    the layer (or model) itself: there a reader outside the class, such as a notebook cell
    plotting `layer.last_attn_scores`, most often follows such an eager call, and only the
    class's own methods and properties (its API, read whenever a user asks, also after
    `fit`) count as readers. Scratch
    state, set and then used within the same call (`self.kernel = sample(...)` then
    `x @ self.kernel`), is computed afresh by every trace and is not reported. Nor is a
    reader that runs only under another value of a configuration attribute than the
    assignment (`if self.mode == "fixed":` around the reader, `if self.mode == "learned":`
    around the assignment, `self.mode` set only in `__init__` or `build`): it never sees
    what the trace stored.

    A counter (`self.epoch += 1`) in a `@tf.function` def that the function defining it
    calls once and lets nowhere else (`def train(self): @tf.function def _train(): ...;
    return _train()`) counts right: each call makes a new `tf.function` and traces it, so
    its Python code runs on every call; not in a loop that AutoGraph runs as a graph loop
    (over a dataset or a tensor), whose body is traced once.

    A Python flag that guards initialisation (`if not self.initialized: ...;
    self.initialized = True`, or `if self.first_call: ...; self.first_call = False`, or
    `if self.initialized: return ...` before the initialisation; also when the flag is set
    after the `if`, or by a method the guarded code calls) is read only while tracing: the guarded code runs once, on the first trace, which is right for code that
    only creates variables and layers or does Python work. But when that code adds
    operations that change state to the graph (a variable's `assign`, `assign_add` …, or an
    attribute set to the result of a TensorFlow operation or of a layer call, also in
    methods of the class it calls), those operations are part of the graph: they run on
    every call, re-initialising from each batch, and a retrace, which sees the flag set,
    drops them. This is reported at the flag's assignment. Keep the flag in a `tf.Variable`
    and branch with `tf.cond` (as tensorflow-addons' `WeightNormalization` does), or run the
    initialisation eagerly, before training or in `build()`.

    ## Example
    ```python
    import tensorflow as tf

    class Model(tf.Module):
        def __init__(self):
            self.v = tf.Variable(0)
            self.counter = 0

        @tf.function
        def __call__(self):
            if self.counter == 0:
                self.counter += 1
                self.v.assign_add(1)
            return self.v
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    class Model(tf.Module):
        def __init__(self):
            self.v = tf.Variable(0)
            self.counter = 0

        @tf.function
        def __call__(self):
            if self.counter == 0:
                with tf.init_scope():
                    self.counter += 1
                    self.v.assign_add(1)
            return self.v
    ```

    ## Known problems
    Test modules (`test_*.py`, `*_test.py`, `conftest.py`, files under `tests/`) are not
    checked: a test that records trace-time state (a spy layer, a list of traced shapes)
    does it on purpose.
    An attribute converted in place to a type the trace knows statically
    (`self.inv_freq = tf.cast(self.inv_freq, x.dtype)`, `tf.convert_to_tensor(self.x)`) is
    not reported: once converted, converting again returns it as it is, and when it already
    has that type nothing is set at all. A conversion that does change the type leaks a
    symbolic tensor that a later trace fails on; that is missed. Nor is an attribute bounded
    by its own value and what values are (`self.group_size = min(self.group_size,
    x.shape[0])`): bounding it again changes nothing, and a new shape retraces. Nor is an
    attribute that a call gives back as it was passed (`log_likelihood,
    self.transition_params = tfa.text.crf_log_likelihood(..., self.transition_params)`,
    which returns the variable cast to the dtype it has: the variable itself), or one given a
    default only when it has none (`self.width = 8 if self.width is None else self.width`).
    A Keras loss or metric method of the class (`def loss(self, y_true, y_pred)`, given to
    `compile`) reads the state within the trace: Keras runs it in the train or test step
    right after `call` (a CRF layer's sequence lengths); so does a loss of the class's own
    computed from the outputs of `call` (`def total_loss(self, outputs, inputs=None)`,
    named as a loss and taking `outputs`, `y_pred`, `logits` …), which a training step
    can run only after that call, in the same step. So do a method of the class that
    only such methods call (`self.get_negative_log_likelihood(y_true)`), and a loss
    function of the module (`def vae_kl_loss(y_true, y_pred)` reading `vae.mean`).
    A method that traced code reaches only on objects it makes itself (`registry =
    Registry(); registry.insert(...)`) changes a new object, which lives within the trace:
    its attributes are not outside state. One it reaches only on an object a class holds
    (`self.pool = ImagePool(50)`, then `self.pool.query(x)` in the traced step) is reported
    only for state it carries from call to call (the pool's count, read before it is set):
    the object's other methods may run within the same trace, called by code the analysis
    does not follow (a decoding loop handed the decoder whose initial state the model set).
    An uncalled method that uses the state only as an input of TensorFlow operations on
    its arguments (`tf.gather(x, self.index)`) is taken as a graph-building helper that
    subclasses call from traced code, not as a reader outside the trace; an attribute that
    a traced function makes and deletes again (`del self._count`) lives within that call.
    A method that returns its object (`return self`, as a BERT layer whose caller reads
    `bert(x).get_sequence_output()`) hands its attributes over as its outputs: they are
    read where it is called, in the caller's trace, and only a value carried from call to
    call is reported.
    A placeholder given its real value once (`if self.axis == -1: self.axis = rank - 1`,
    a plain assignment that does not read the placeholder) is set-up, not state; so is a
    negative axis made non-negative once (`if self.axis < 0: self.axis += rank`).
    Not reported: code inside `with tf.init_scope():`; a context manager that sets state
    for its `with` block and sets it back on exit (assignments before and after the `yield`
    of a generator, or in `__enter__` and `__exit__`), or a function that sets it in a
    `try` and sets it back in its `finally`, or keeps the old value in a local, sets the
    attribute, calls something and sets it back from the local (`orig = self.kernel`,
    `self.kernel = standardised`, `x = super().call(x)`, `self.kernel = orig`): the state
    opens and closes within the trace; the lazy-initialisation pattern
    `if self.v is None: self.v = tf.Variable(...)` (or `if not hasattr(self, "v"):`, or
    a Python flag whose guarded code only creates variables and layers, computes their
    initial values, or does Python work; a layer called there only to build it, its result
    thrown away, adds nothing the graph keeps; nor a flag that other code of the class
    resets, or whose guarded methods other code calls without it, as edward2's sampled
    weights, which `get_initial_state` samples again: a refreshed cache, not one-time
    initialisation);
    assignments of new variables, weights and Keras layers (TFF301 checks those); and
    assignments in `__init__` and `build` methods, which set an object up once. Attributes
    of parameters other than `self` are not reported (the object may be made by the caller
    for this call), nor are attributes of attributes (`self.optimizer.learning_rate = lr`,
    often a property that assigns a variable). Reads of what a value is rather than what it
    holds (`self.kernel.shape`, `isinstance(self.kernel, T)`, `self.x is None`) do not count
    as reads in traced code; reads by other traced functions do not count either (they run
    within a trace). A counter of traces (`num_traces += 1`, a name that says it counts
    traces) is kept on purpose and not reported, nor is a counter every read of which
    formats it into text (`self._call_id += 1` for `name=f"enqueue_{self._call_id}"`): it
    makes op names unique per trace, which is what such code wants. Attributes are matched by name within the
    module, so a reader in another class of the same module counts. A cache read outside
    the trace on purpose (`self._last_inputs = inputs`) is reported; add
    `# noqa: TFF103` to keep it. Facts about what values are, not what they hold, are
    not reported: static shapes and dtypes (`self._output_shape = x.shape`), whether an
    input is given (`self._weighted = weights is not None`), types, lengths, a mapping's
    sorted keys, the variables or layers an object owns (`self.train_vars =
    self.model.trainable_variables`); they are the same on every call of one trace and each
    retrace sets them again. Nor is a constant (`self._was_called = True`) that no code outside the set-up
    methods sets to anything else, or a boolean combination of Python flags and of what
    values are (`self.will_freeze = self.will_freeze and self.trainable`, `self.fused =
    self.fused and not isinstance(x, tf.SparseTensor)`): every call after the first
    would store the value the attribute already holds, so storing it once per trace changes
    nothing; the same for a
    `global` or `nonlocal` flag (`first_call = False`) that no other code sets again. Nor
    is an attribute that the traced function's own body sets to constants twice or more,
    outside branches and loops, set for part of each call and set back before it returns
    (`model.trainable = False`, the evaluation, `model.trainable = True`): every call,
    traced or not, leaves it as the last one set. A
    flag that other code resets (`self._done = False` in `reset()`) is reported.

    ## References
    - [Better performance with tf.function: Changing Python global and free variables](https://www.tensorflow.org/guide/function#changing_python_global_and_free_variables)
    - [Better performance with tf.function: All outputs of a tf.function must be return values](https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values)
    - [`tf.init_scope`](https://www.tensorflow.org/api_docs/python/tf/init_scope)
    """

    code = "TFF103"
    name = "python-state-mutation"
    message = ("assigning Python state outside the traced function happens only while "
               "tf.function traces (not on every call) and leaks symbolic tensors; use a "
               "tf.Variable, return the value, or move one-time set-up into "
               "`with tf.init_scope():`")

    triggers = (lazy_compile(words(["global", "nonlocal"]) + r"\b"), _ATTRIBUTE_TARGETS)

    @classmethod
    def triggers_for(cls, context):
        """``global``/``nonlocal``, or an attribute target whose base outlives the call."""
        def outside_attribute(text: str) -> bool:
            return any(base in container_provenance.outliving_names(context)[1]
                       for match in _ATTRIBUTE_TARGETS.finditer(text)
                       for base in _ATTRIBUTE_BASE.findall(match.group(0)))

        return (cls.triggers[0], outside_attribute)

    def report(self, node: cst.CSTNode, message=None, **kwargs) -> None:
        """Once per statement, however many of its targets are outside state."""
        if self._reported is not node:
            self._reported = node
            super().report(node, message, **kwargs)

    _reported = None

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._target(node, target.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node, node.target, None)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._target(node, node.target, node.value)

    def _target(self, statement: cst.CSTNode, target: cst.BaseExpression,
                value: Optional[cst.BaseExpression]) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            own = self._returned_argument(value)
            for position, element in enumerate(target.elements):
                if own is not None and position == own[0] and dotted_name(
                        element.value) == own[1]:
                    continue  # ``ll, self.t = crf_log_likelihood(..., self.t)``: its own value
                self._target(statement, element.value, None)
            return
        if isinstance(target, cst.StarredElement):
            target = target.value
        if isinstance(target, cst.Name):
            self._name(statement, target.value)
        elif isinstance(target, cst.Attribute):
            self._attribute(statement, target, value)

    def _name(self, statement: cst.CSTNode, name: str) -> None:
        function = self.context.function
        if function is None or function.node is None:
            return
        own = container_provenance.module_scopes(self.context).bindings(function.node)
        if name not in own.declared_global and name not in own.declared_nonlocal:
            return
        found = container_provenance.origin(self.context, name)
        if found.provenance is container_provenance.Provenance.GLOBAL and not self._outlives_trace(
                statement, name, lambda use: use.global_outlives_trace(function.node, name)):
            return
        if (found.provenance is container_provenance.Provenance.CLOSURE and found.scope is not None
                and not self._outlives_trace(statement, name, lambda use: (
                    use.closure_outlives_trace(function.node, name, found.scope)))):
            return
        value = getattr(statement, "value", None)
        if (isinstance(statement, cst.Assign) and tensor_taint.literal(value)
                and not state_use.StateUse.of(self.context).name_changed_elsewhere(
                    function.node, name, _constant(value))):
            return  # a one-way flag: storing it once per trace leaves the same state
        if found.provenance in (container_provenance.Provenance.GLOBAL, container_provenance.Provenance.CLOSURE) and not self._exempt(name):
            keyword = "global" if name in own.declared_global else "nonlocal"
            self.report(statement, f"assigning `{keyword} {name}` happens only while "
                                   "tf.function traces (not on every call) and leaks symbolic "
                                   "tensors; use a tf.Variable or return the value")

    def _attribute(self, statement: cst.CSTNode, target: cst.Attribute,
                   value: Optional[cst.BaseExpression]) -> None:
        dotted = dotted_name(target)
        if dotted is None or dotted.count(".") != 1:
            return
        found = container_provenance.origin(self.context, dotted)
        if found.provenance not in (container_provenance.Provenance.ATTRIBUTE, container_provenance.Provenance.GLOBAL,
                                    container_provenance.Provenance.CLOSURE):
            return
        flag = _flag_value(value)
        if found.provenance is container_provenance.Provenance.ATTRIBUTE and flag is not None and not (
                self._in_set_up_method()):
            guarded = self._guarded_operation(dotted, flag)
            if guarded is not None:
                self.report(statement, _flag_message(dotted, *guarded))
                return
        if self._exempt(dotted) or (value is not None and (
                self._creates_state(value) or self._fixed_by_trace(value)
                or self._converts_itself(value, dotted)
                or self._bounds_itself(value, dotted)
                or self._defaults_itself(value, dotted))):
            return
        function = self.context.function
        attribute = dotted.partition(".")[2]
        if (found.provenance is container_provenance.Provenance.ATTRIBUTE and function is not None
                and function.node is not None
                and not self._outlives_trace(statement, dotted, lambda use: (
                    use.attribute_outlives_trace(function.node, attribute,
                                                 self._layer_run_eagerly_too(),
                                                 self._held_object())))):
            return
        if (found.provenance is container_provenance.Provenance.ATTRIBUTE and function is not None
                and function.node is not None and tensor_taint.literal(value)
                and not state_use.StateUse.of(self.context).changed_elsewhere(
                    function.node, attribute, _constant(value))):
            return
        if tensor_taint.literal(value) and self._set_and_set_back(statement, dotted):
            return
        self.report(statement, f"assigning `{dotted}` changes Python state that outlives the "
                               "call: it happens only while tf.function traces (not on every "
                               "call) and leaks symbolic tensors; use a tf.Variable, return "
                               "the value, or move one-time set-up into "
                               "`with tf.init_scope():`")

    def _set_and_set_back(self, statement: cst.CSTNode, dotted: str) -> bool:
        """The traced function's own body (not a branch or a loop of it) sets ``dotted`` to
        literals twice or more, this statement one of them: a value set for part of each
        call and set back before it returns (``model.trainable = False`` … ``model.trainable
        = True``), which every call, traced or not, leaves as the last one set."""
        ancestors = self.context.ancestors
        for index in range(len(ancestors) - 1, -1, -1):
            if not isinstance(ancestors[index], cst.FunctionDef):
                continue
            body = ancestors[index].body
            if index + 2 >= len(ancestors) or ancestors[index + 1] is not body:
                return False
            line = ancestors[index + 2]
            writes = [small for top in body.body if isinstance(top, cst.SimpleStatementLine)
                      for small in top.body if isinstance(small, cst.Assign)
                      and tensor_taint.literal(small.value)
                      and any(dotted_name(target.target) == dotted for target in small.targets)]
            return (isinstance(line, cst.SimpleStatementLine) and statement in line.body
                    and len(writes) >= 2 and any(write is statement for write in writes))
        return False

    def _layer_run_eagerly_too(self) -> bool:
        """The traced code is a layer's ``call`` (or what it calls), and the program calls
        its layers eagerly too: what code outside the class reads of it may be a value of
        such a call (see ``state_use``)."""
        reason = self.context.reason
        return (reason is not None and reason.by_layer_call()
                and self.context.graph.calls_layers_eagerly())

    def _held_object(self) -> bool:
        """The traced code is a method of an object another class holds (``self.pool =
        ImagePool(50)``; ``self.pool.query(x)``), reached only that way: only a value it
        carries from call to call is evidence, since other code may use the object within
        the trace in ways the analysis does not follow."""
        reason = self.context.reason
        return reason is not None and reason.held

    def _fixed_by_trace(self, value: cst.BaseExpression) -> bool:
        """The value is the same on every call of one trace: what values are (shapes,
        dtypes, ``w is not None``, sorted keys), recomputed by each retrace; or a boolean
        combination of Python flags (``self.freeze and self.trainable``), which gives the
        same result however often it runs."""
        return (tensor_taint.static_value(value, self.context.qualified_name)
                or _flag_combination(value, self.context.qualified_name))

    def _defaults_itself(self, value: cst.BaseExpression, target: str) -> bool:
        """``self.width = 8 if self.width is None else self.width`` (or ``self.width or 8``):
        the attribute's own value, or a default when it has none. Once set, setting it again
        keeps it, so once per trace leaves it as every call would."""
        fixed = self._known_while_tracing
        if isinstance(value, cst.BooleanOperation) and isinstance(value.operator, cst.Or):
            return dotted_name(value.left) == target and fixed(value.right)
        if not isinstance(value, cst.IfExp):
            return False
        test = value.test
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
                and dotted_name(test.left) == target
                and isinstance(test.comparisons[0].comparator, cst.Name)
                and test.comparisons[0].comparator.value == "None"):
            return False
        operator = test.comparisons[0].operator
        own, default = ((value.orelse, value.body) if isinstance(operator, cst.Is)
                        else (value.body, value.orelse) if isinstance(operator, cst.IsNot)
                        else (None, None))
        return own is not None and dotted_name(own) == target and fixed(default)

    def _returned_argument(self, value: Optional[cst.BaseExpression]
                           ) -> Optional[Tuple[int, Optional[str]]]:
        """(position in the result, the argument as dotted name) when ``value`` calls a
        function that returns that argument converted to the type it has (``_RETURNS_OWN``)."""
        if not isinstance(value, cst.Call):
            return None
        known = _RETURNS_OWN.get(self.context.qualified_name(value.func) or "")
        if known is None:
            return None
        result, parameter, position = known
        for index, arg in enumerate(value.args):
            if arg.star:
                return None
            if (arg.keyword is not None and arg.keyword.value == parameter
                    or arg.keyword is None and index == position):
                return result, dotted_name(arg.value)
        return None

    def _converts_itself(self, value: cst.BaseExpression, target: str) -> bool:
        """``self.x = tf.cast(self.x, x.dtype)`` (or ``tf.convert_to_tensor(self.x)``): the
        attribute's own value converted to a type the trace knows statically. Once done,
        doing it again changes nothing, and when the value already has that type the
        conversion returns it as it is (transformers' ``inv_freq``)."""
        if not isinstance(value, cst.Call) or not value.args or value.args[0].keyword:
            return False
        if self.context.qualified_name(value.func) not in _CONVERSIONS:
            return False
        if dotted_name(value.args[0].value) != target:
            return False
        return all(tensor_taint.static_value(arg.value, self.context.qualified_name)
                   or isinstance(arg.value, (cst.Name, cst.Attribute))
                   and (dotted_name(arg.value) or "").startswith(("tf.", "np.", "tensorflow."))
                   for arg in value.args[1:])

    def _bounds_itself(self, value: cst.BaseExpression, target: str) -> bool:
        """``self.group_size = min(self.group_size, x.shape[0])``: the attribute's own value
        bounded by what values are (shapes, literals). Applying it again to its own result
        changes nothing, and each retrace for a new shape applies it again, so running it
        once per trace leaves the attribute as running it on every call would."""
        if not isinstance(value, cst.Call) or len(value.args) < 2:
            return False
        if self.context.qualified_name(value.func) not in _BOUNDS:
            return False
        own = [arg for arg in value.args if dotted_name(arg.value) == target]
        return len(own) == 1 and all(
            not arg.keyword and not arg.star and (
                arg is own[0] or self._known_while_tracing(arg.value))
            for arg in value.args)

    def _known_while_tracing(self, node: cst.BaseExpression) -> bool:
        """A literal, or what values are (shapes, dtypes): the same on every call of a
        trace."""
        return tensor_taint.literal(node) or tensor_taint.static_value(
            node, self.context.qualified_name)

    def _outlives_trace(self, statement: cst.CSTNode, target: str, outlives) -> bool:
        """Evidence that the state must live past the trace that sets it (see
        ``state_use``): carried from call to call or read by other code; a counter of
        traces is kept on purpose."""
        increment = (isinstance(statement, cst.AugAssign)
                     and isinstance(statement.value, (cst.Integer, cst.Float)))
        use = state_use.StateUse.of(self.context)
        if state_use.StateUse.counts_traces(target, increment) or (
                increment and "." in target
                and use.only_names_things(target.rpartition(".")[2])):
            return False
        if increment and self._traces_on_every_call() and not loop_kind.in_graph_loop(
                self.context):
            return False  # counts on every call: each call is the first of a new tf.function
        return outlives(use)

    def _traces_on_every_call(self) -> bool:
        """The traced function is a ``@tf.function`` def that the function defining it calls
        once and lets nowhere else (``local_calls``): each call makes a new one and traces it,
        so its Python code runs on every call."""
        function = self.context.function
        node = function.node if function is not None else None
        if node is None or not any(
                self.context.names.resolve(ast_dotted_name(
                    d.func if isinstance(d, ast.Call) else d) or "") == TF_FUNCTION
                for d in node.decorator_list):
            return False
        return local_calls.called_once_where_made(self.context.tree, node)

    def _in_set_up_method(self) -> bool:
        function = self.context.function
        name = function.qualname.rpartition(".")[2] if function is not None else ""
        return name in _SET_UP_METHODS or "build" in name.lower()

    def _exempt(self, target: str) -> bool:
        function = self.context.function
        return (self._in_set_up_method() or self.context.in_one_time_setup((target,))
                or function is not None and function.node is not None
                and scoped_state.restored_on_exit(self.context.tree, function.node, target))

    def _guarded_operation(self, target: str, value: bool
                           ) -> Optional[Tuple[ast.If, graph_effects.Operation]]:
        """The Python flag ``target`` guards code in traced code (``if not
        self.initialized:``) that sets it (to ``value``, which closes the guard), and that
        code adds an operation to the graph that
        changes state on every call: the guard and that operation (see ``state_use`` and
        ``graph_effects``). None when the guarded code only sets things up."""
        function = self.context.function
        if function is None or function.node is None:
            return None
        attribute = target.partition(".")[2]
        tests = None
        guards = state_use.StateUse.of(self.context).flag_guards(function.node, attribute, value)
        for guard in guards:
            if guard.function is function.node:  # the flag is set in the guarded code here
                if tests is None:
                    tests = [ast.dump(test)
                             for test in flag_guard_tests(self.context.ancestors, target)]
                if ast.dump(guard.node.test) not in tests:
                    continue
            operation = graph_effects.GraphEffects.of(self.context).operation(
                guard.body, guard.function, ignore=frozenset({attribute}))
            if operation is not None:
                return guard.node, operation
        return None

    def _creates_state(self, value: cst.BaseExpression) -> bool:
        """A new variable, weight or Keras layer: TFF301's business, not this rule's."""
        if not isinstance(value, cst.Call):
            return False
        qualified = self.context.qualified_name(value.func) or ""
        if qualified == "tensorflow.Variable" or qualified.startswith(
                ("keras.layers.", "keras.optimizers.")):
            return True
        func = value.func
        return isinstance(func, cst.Attribute) and func.attr.value in (
            "add_weight", "add_variable")
