"""TFF202 captured-mutable-attribute."""

from __future__ import annotations

import re
from typing import Dict, Optional, Set, Tuple

from ..analysis.lazy_libcst import NodeTypes, cst

from ..analysis.lazy_import import lazy_module
from ..rule import Rule
from ..analysis.patterns import lazy_compile

rebinding = lazy_module("..analysis.rebinding", __package__)
state_use = lazy_module("..analysis.state_use", __package__)

#: Where an attribute is written, not read.
_TARGETS = NodeTypes("AssignTarget", "AugAssign", "AnnAssign", "Del", "For", "AsName")
_UNPACKING = NodeTypes("Tuple", "List", "Element", "StarredElement")
_STATEMENTS = NodeTypes("BaseSmallStatement", "BaseCompoundStatement")


#: The reason graph context gives a Keras step method.
_KERAS_STEP = lazy_compile(r"Keras \w+\.(?:train_step|test_step|predict_step)\(\)")
_SET_UP_OR_COMPILE = frozenset({"compile", "__init__", "build"})


class CapturedMutableAttribute(Rule):
    """A traced function reads a plain-Python attribute that other code changes.

    ## What it does
    Flags the first read, in each traced function, of an attribute of `self` (or of a
    parameter, or of a module-level instance) that code of the module reassigns with a
    plain Python value outside the object's set-up: `self.bias += 5.0` in a method,
    `self.mode = "eval"`, `model.scale = 2` on an instance. A value computed by calls counts
    when it updates the attribute from its own old value, as state does that changes call
    after call (`self.size = min(self.size + len(batch), limit)`); one computed from a
    configuration (`self.size = len(vocabulary)`) does not. So does arithmetic in place,
    whatever it is given (`self.beta /= self.factor`, an adaptive penalty): the trace keeps
    the number, or the eager tensor, it read; unless the same method set the attribute
    before (`self.count = len(a)`, then `self.count += len(b)`), building the value up in
    one call. So does a value a method of the class returns (`self.tau = self.update_tau()`)
    when it computes a Python number from state the class updates in place (a cosine
    schedule of `self.global_step`, which `self.global_step += 1` moves on).

    ## Why is this bad?
    A `tf.function` reads Python attributes only while it traces, and bakes their values
    into the graph as constants. An object with the same identity is the same cache key, so
    later calls reuse the graph even after the attribute has changed: the function keeps
    computing with the old value, silently. `tf.Variable` attributes are read on every call.

    ## Example
    ```python
    import tensorflow as tf

    class SimpleModel(tf.Module):
        def __init__(self):
            self.bias = 0.0
            self.weight = 2.0

        def add_bias(self, amount):
            self.bias += 5.0

        @tf.function
        def __call__(self, x):
            return self.weight * x + self.bias
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    class SimpleModel(tf.Module):
        def __init__(self):
            self.bias = tf.Variable(0.0)
            self.weight = 2.0

        def add_bias(self, amount):
            self.bias.assign_add(5.0)

        @tf.function
        def __call__(self, x):
            return self.weight * x + self.bias
    ```

    ## Known problems
    A flag that `__call__` sets for the span of one call and sets back after it
    (`self.entered = True`, `out = super().__call__(x)`, `self.entered = False`) is not a
    reassignment: every call of the object passes through `__call__`, so every trace made
    inside reads the same value. The same in another method (`train()` around
    `self.step(x)`) is reported: `predict()` may call the same traced step without it.
    Not reported either: a flag set around the call of Keras's own `fit` (`evaluate`,
    `predict` …) in an override of it (`self.augmented = True`, `super().fit(x, y)`, then
    set back): each of those runs traces a function of its own, which sees the value set;
    unless two overrides set the flag to different values (`fit`'s validation and
    `evaluate` share one traced function). Nor a flag set for the span of an export
    and set back, in any method (`self._serving = True`, `f.get_concrete_function()`,
    `tf.saved_model.save(...)`, `self._serving = False`): the traces made for the export
    are meant to see it, and every other trace sees the value it is set back to.
    In a Keras `train_step`, `test_step` or `predict_step` (and code they call), an
    attribute that only `compile()` reassigns is not reported: `compile()` drops the traced
    step function, so the next `fit` traces again with the new value.
    A flag of a layer that a program switches only after the last run (`fit`, `evaluate`,
    `predict` …) of every model made before the switch is not reported either
    (`encoder.downstream = True`, then `probe = keras.Sequential([..., encoder, ...])` and
    `probe.fit(...)`): each model run after it is a new object, whose functions Keras traces
    with the new value; nor one switched on a model before anything runs it (`model =
    TinyVGG()`, `model.track_layer_output = True`, then `model.fit(...)`): its first run
    traces with the new value. Running a model run before the switch again is reported.
    Attributes assigned only in `__init__`, `build` (or a method named for building, such
    as a base class's `subclass_build` hook), `__post_init__`, `setUp`, the hooks
    Keras runs while it loads a saved model (`load_assets`, `load_own_variables`), or a
    method that adds weights or changes which weights train (`self.add_weight(...)`,
    `layer.trainable = False`, as LoRA's `enable_lora()` does: Keras must compile the model
    again after such a change, and the traced step is made anew), attributes
    that hold TensorFlow objects anywhere (`tf.Variable`, layers, tensors, `add_weight`,
    arithmetic on attributes that hold them: `1 / self.std`),
    and changes made inside `with tf.init_scope():` are not reported. Nor is lazy
    initialisation, which sets an attribute once while it is still unset: an assignment in
    the body of `if not self.x:` / `if self.x is None:` / `if not hasattr(self, "x"):`, or in
    a method that the class (or a subclass) calls only there and from its set-up methods,
    or from methods that only those call in turn (`__init__` → `_setup()` →
    `_setup_model()`, up to four calls deep). A flag set that
    way (`self._is_initialized = True`, `self.built = True`) is not state that changes. Reads
    in code that runs only once (under such a test, or in a method reached only from there,
    including `if not self.ready:` whose body does `self.ready.assign(True)` on a
    `tf.Variable`) take the value of that one time. The
    test of such an `if`, when its body sets the attribute, is not reported either, even if
    other code resets the flag; nor is a run-once flag's own test (`if self.check:` whose
    body clears `self.check`): TFF103 reports that flag when the block it guards changes
    state. A read that follows, in the same traced function, its own
    assignment of the attribute (`self.calls += 1`, then `f"call_{self.calls}"`) sees the
    value just set; the assignment itself is TFF103's. So does a read in a method whose
    every call follows, in a traced caller, a statement setting the attribute (`self.k +=
    1`, then `self._helix(x)`, in a loop the trace unrolls). Nor is an attribute that only the
    traced method itself reassigns, besides set-up (`if self._first_call: build(x)`, then
    `self._first_call = False` at its end): no other code changes it between calls, and
    TFF103 judges the write. Nor is an attribute that every store in the module sets to
    one and the same literal (`self.BATCH_SIZE = 16` in `train()`, before its loop calls
    the step): a trace reads the value every later call would read. Nor is an attribute
    read by a `tf.function` written inside a
    method that keeps it there (it calls the function or hands it to a call such as
    `strategy.run`, never returns or stores it): each run of the method makes and traces a
    new function, so a change made between runs is read by the next one; a change the
    method itself makes (an assignment, or a call of a method that assigns the attribute)
    still counts. A guard that returns early
    (`if self.x: return`, then `self.x = True`) is not recognised. Only literal-like values
    count as plain Python: numbers, strings, booleans, `not x` and arithmetic on literals
    and attributes (`self.step + 1`); a value computed by another call is not judged. The type of a
    parameter is known only when every call of a module-level `tf.function` passes an object
    the module makes (`model = SimpleModel()`, then `evaluate(model, x)`): then only a
    change of that object's attribute between two calls that pass it counts, in statement
    order (cell order in a notebook), or a method of its class that changes it; a later
    `def` of the same name is another function, with its own calls. Otherwise `model.bias`
    is reported when some class of the module reassigns a Python `bias` and none holds a
    TensorFlow object there. Changes made by other modules are not seen, except
    those of a Keras callback: an attribute that a hook (`on_epoch_end` …) of any class of
    the project sets on `self.model`, the model Keras trains, counts for the project's
    Keras models that read it in traced code and store no TensorFlow object there (an
    epoch count or a KL weight set between epochs, which the traced step never sees); a
    notebook's callbacks count for its own models only, as nothing imports a notebook. Creating a new
    `tf.function` after changing the object is the guide's other fix.

    ## References
    - [Better performance with tf.function: Depending on Python objects](https://www.tensorflow.org/guide/function#depending_on_python_objects)
    - [Better performance with tf.function: Changing Python global and free variables](https://www.tensorflow.org/guide/function#changing_python_global_and_free_variables)
    """

    code = "TFF202"
    name = "captured-mutable-attribute"
    message = ("`{obj}.{attr}` is a Python value reassigned elsewhere (line {line}), but the "
               "traced function reads it only while tracing and keeps the old value; use a "
               "tf.Variable (and `.assign()`) or pass it as an argument")

    def __init__(self, context):
        super().__init__(context)
        self._seen: Set[Tuple[object, str]] = set()
        self._assigned: Dict[Tuple[object, str, str], cst.CSTNode] = {}

    @classmethod
    def facts(cls, context) -> rebinding.AttributeRebinding:
        return context.fact("attribute-rebinding", rebinding.attribute_rebinding)

    @classmethod
    def triggers_for(cls, context):
        if not context.graph:
            return ()
        attributes = sorted(cls.facts(context).attributes() | set(
            context.graph.callback_writes))
        if not attributes:
            return ()
        return (re.compile(r"\.(?:%s)\b" % "|".join(map(re.escape, attributes))),)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        function = self.context.function
        if function is None or not isinstance(node.value, cst.Name):
            return
        obj, attribute = node.value.value, node.attr.value
        statement = self._assignment(node)
        if statement is not None:
            self._assigned.setdefault((function.key, obj, attribute), statement)
            return
        if (function.key, attribute) in self._seen or self._called(node):
            return
        if self.context.in_one_time_setup():
            return  # set-up that runs once reads the value of that one time
        written = self._assigned.get((function.key, obj, attribute))
        if written is not None and not any(a is written for a in self.context.ancestors):
            return  # reads the value this function has just set (TFF103 reports the write)
        classes = self._classes(obj)
        if classes is None:
            return
        facts = self.facts(self.context)
        passed = None if classes else self._passed(obj)
        if passed is not None:  # the objects every call passes, and when they change
            classes = {c for cls in passed.classes for c in facts.family(cls)}
            line = rebinding.Rebinding.of(self.context).attribute_change(passed, attribute, facts)
        else:
            line = (facts.rebound_in(classes, attribute) if classes
                    else facts.rebound_anywhere(attribute))
        where = None
        if line is None and classes:
            where = self._set_by_callback(classes, attribute, facts)
            line = -1 if where is not None else None  # in a callback, not in this code
        if (line is None or self._tests_own_initialisation(node, classes)
                or where is None and self._reset_by_compile(classes, attribute)
                or passed is None and self._only_set_here(classes, attribute, line)
                or passed is None and where is None
                and state_use.StateUse.of(self.context).one_constant(attribute)
                or state_use.StateUse.of(self.context).set_first_in_each_trace(function.node, attribute)
                or self._fresh_each_run(classes, attribute)
                or self._set_before_new_models(classes, attribute)):
            return
        self._seen.add((function.key, attribute))
        self.report(node, self.message.format(obj=obj, attr=attribute,
                                              line=line if where is None else where))

    def _set_by_callback(self, classes: Set[str], attribute: str,
                         facts: rebinding.AttributeRebinding) -> Optional[str]:
        """Where a Keras callback of the project sets the attribute on the model it trains
        (``self.model.epochs = epoch + 1`` in ``on_epoch_end``), for a Keras model class
        that stores no TensorFlow object there: Keras runs the hook between two calls of
        the model's traced step (``GraphContext.callback_writes``); None otherwise."""
        graph = self.context.graph
        found = graph.callback_writes.get(attribute)
        if found is None or any(attribute in facts.tensorflow.get(cls, ()) for cls in classes):
            return None
        if not any(graph.keras_classes.get(cls, ("",))[0] == "Model" for cls in classes):
            return None
        path, line = found
        return str(line) if path == self.context.path else f"{line} of {_base_name(path)}"

    def _only_set_here(self, classes: Set[str], attribute: str, line: int) -> bool:
        """The traced method itself is the only code, besides set-up, that reassigns the
        attribute (``if self._first_call: build()`` ... ``self._first_call = False`` at its
        end): no other code changes it between calls; the write is TFF103's to judge."""
        function = self.context.function
        node = function.node if function is not None else None
        if node is None or not getattr(node, "lineno", 0) <= line <= getattr(
                node, "end_lineno", 0):
            return False
        method = function.qualname.rpartition(".")[2]
        facts = self.facts(self.context)
        writers = {name for cls in classes
                   for name, attributes in facts.writers.get(cls, {}).items()
                   if attribute in attributes and not rebinding.is_setup_method(name)}
        return writers == {method} and not any(
            attr == attribute for _, attr, _ in facts.changes)

    def _fresh_each_run(self, classes: Set[str], attribute: str) -> bool:
        """Every trace that reads the attribute belongs to a ``tf.function`` made anew by
        each run of the function it is written in (``Rebinding.one_run``), and that run
        neither assigns the attribute nor calls a method that does: the changes happen
        between runs, and the next run traces a new function with the new value."""
        run = rebinding.Rebinding.of(self.context).one_run(self.context.function.key)
        if run is None:
            return False
        facts = self.facts(self.context)
        writers = {name for cls in classes or facts.writers
                   for name, attributes in facts.writers.get(cls, {}).items()
                   if attribute in attributes}
        return not rebinding.changes_attribute(run, attribute, writers)

    def _set_before_new_models(self, classes: Set[str], attribute: str) -> bool:
        """Only Keras runs trace the method, no method of the classes but set-up assigns
        the attribute, and each statement of the program that does comes after every run of
        the models made before it (``Rebinding.before_new_models``): a flag switched on
        trained layers for a new model built from them, which Keras traces afresh."""
        reason = self.context.reason
        if reason is None or not reason.by_keras():
            return False
        facts = self.facts(self.context)
        if any(attribute in facts.by_methods.get(cls, {}) for cls in classes or facts.by_methods):
            return False
        lines = [line for _, changed, line in facts.changes if changed == attribute]
        return bool(lines) and rebinding.Rebinding.of(self.context).before_new_models(lines)

    def _reset_by_compile(self, classes: Set[str], attribute: str) -> bool:
        """In a Keras ``train_step``/``test_step``/``predict_step`` (or code they call), an
        attribute that only ``compile()`` reassigns is read afresh: ``compile()`` drops the
        traced step function, and the next ``fit``/``evaluate`` traces a new one."""
        root = self.context.reason.chain()[-1] if self.context.reason else None
        if root is None or not _KERAS_STEP.match(root.how):
            return False
        facts = self.facts(self.context)
        methods = {method for cls in classes for method, attributes in
                   facts.writers.get(cls, {}).items() if attribute in attributes}
        return bool(methods) and methods <= _SET_UP_OR_COMPILE

    def _passed(self, parameter: str) -> Optional[rebinding.PassedObjects]:
        """What the calls of the traced function pass for ``parameter``, when known."""
        return rebinding.Rebinding.of(self.context).passed_objects(self.context.function.key, parameter)

    def _classes(self, obj: str) -> Optional[Set[str]]:
        """The classes ``obj`` may be an instance of: those of the traced method's family
        for its ``self``, of the instance's class; an empty set for a parameter (any class);
        None for other names."""
        facts = self.facts(self.context)
        function = self.context.function
        info = self.context.graph.index.functions.get(function.key)
        cls = info.class_qualname if info is not None else None
        if cls is not None and obj == _self_name(function, info):
            return facts.family(cls)
        if obj in function.parameters:
            return set()
        if obj not in self.context.local_names and obj in facts.instances:
            return facts.family(facts.instances[obj])
        return None

    def _assignment(self, node: cst.Attribute) -> Optional[cst.CSTNode]:
        """The statement assigning ``node`` (``self.x = …``, ``self.x += …``,
        ``a, self.x = …``, ``del self.x``, ``for self.x in …``), or None."""
        ancestors = self.context.ancestors
        child = node
        for index in range(len(ancestors) - 2, -1, -1):
            parent = ancestors[index]
            if isinstance(parent, _UNPACKING):
                child = parent
                continue
            if isinstance(parent, _TARGETS) and (getattr(parent, "target", None) is child
                                                 or getattr(parent, "name", None) is child):
                for statement in reversed(ancestors[:index + 1]):
                    if isinstance(statement, _STATEMENTS):
                        return statement
                return parent
            return None
        return None

    def _called(self, node: cst.Attribute) -> bool:
        """``self.x()``: a method call, not a read of a value."""
        ancestors = self.context.ancestors
        parent = ancestors[-2] if len(ancestors) > 1 else None
        return isinstance(parent, cst.Call) and parent.func is node

    def _tests_own_initialisation(self, node: cst.Attribute, classes: Set[str]) -> bool:
        """``node`` is read in the test of ``if not self.x:`` (``if self.x is None:``,
        ``if self.check:``) whose body sets ``self.x``, or calls a method of the class that
        does: a lazy initialisation guard or a run-once flag, which runs while tracing and
        then holds (TFF103 reports the flag when the block it guards adds operations)."""
        ancestors = self.context.ancestors
        child: cst.CSTNode = node
        for parent in reversed(ancestors[:-1]):
            if isinstance(parent, cst.If):
                if parent.test is not child:
                    return False
                obj, attribute = node.value.value, node.attr.value
                return _tests_flag(parent.test, obj, attribute) and _sets(
                    parent.body, obj, attribute, classes, self.facts(self.context))
            if isinstance(parent, (cst.BaseSuite, *_STATEMENTS)):
                return False
            child = parent
        return False


def _is_attribute(node: cst.CSTNode, obj: str, attribute: str) -> bool:
    return (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)
            and node.value.value == obj and node.attr.value == attribute)


def _tests_flag(test: cst.BaseExpression, obj: str, attribute: str) -> bool:
    """``test`` holds only while ``obj.attribute`` is unset (``not obj.attribute``,
    ``obj.attribute is None``, ``not hasattr(obj, "attribute")``) or only while it is set
    (``obj.attribute``, a flag the guarded block then clears), or a combination."""
    if _is_attribute(test, obj, attribute):
        return True
    if isinstance(test, cst.BooleanOperation):
        left = _tests_flag(test.left, obj, attribute)
        right = _tests_flag(test.right, obj, attribute)
        return left or right if isinstance(test.operator, cst.And) else left and right
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = test.expression
        if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name) and (
                inner.func.value == "hasattr" and len(inner.args) == 2):
            target, name = inner.args[0].value, inner.args[1].value
            return (isinstance(target, cst.Name) and target.value == obj
                    and isinstance(name, cst.SimpleString)
                    and name.evaluated_value == attribute)
        return _is_attribute(inner, obj, attribute)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        return (_is_attribute(test.left, obj, attribute)
                and isinstance(target.operator, (cst.Is, cst.Equal))
                and isinstance(target.comparator, cst.Name)
                and target.comparator.value == "None")
    return False


def _sets(body: cst.CSTNode, obj: str, attribute: str, classes: Set[str],
          facts: rebinding.AttributeRebinding) -> bool:
    """``body`` assigns ``obj.attribute``, or calls ``obj.method()`` that does."""
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.AssignTarget) and _is_attribute(node.target, obj, attribute):
            return True
        if isinstance(node, cst.AnnAssign) and _is_attribute(node.target, obj, attribute):
            return True
        if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                and isinstance(node.func.value, cst.Name) and node.func.value.value == obj
                and facts.assigns(classes, node.func.attr.value, attribute)):
            return True
        stack.extend(node.children)
    return False


def _self_name(function, info) -> Optional[str]:
    """How the traced function spells its instance: the first parameter of a method, or
    ``self`` seen from a function nested in a method."""
    node = function.node
    args = getattr(node, "args", None)
    params = [a.arg for a in (*args.posonlyargs, *args.args)] if args is not None else []
    if info.qualname == f"{info.class_qualname}.{info.key[2] if info.key[0] == 'def' else ''}":
        return params[0] if params else None
    return None if "self" in params else "self"


def _base_name(path: str) -> str:
    return path.replace("\\", "/").rpartition("/")[2]
