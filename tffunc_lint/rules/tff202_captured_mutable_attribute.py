"""TFF202 captured-mutable-attribute."""

from __future__ import annotations

import re
from typing import Optional, Set, Tuple

import libcst as cst

from ..rebinding import AttributeRebinding, attribute_rebinding
from ..rule import Rule

#: Where an attribute is written, not read.
_TARGETS = (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del, cst.For, cst.AsName)
_UNPACKING = (cst.Tuple, cst.List, cst.Element, cst.StarredElement)


class CapturedMutableAttribute(Rule):
    """A traced function reads a plain-Python attribute that other code changes.

    ## What it does
    Flags the first read, in each traced function, of an attribute of `self` (or of a
    parameter, or of a module-level instance) that code of the module reassigns with a
    plain Python value outside the object's set-up: `self.bias += 5.0` in a method,
    `self.mode = "eval"`, `model.scale = 2` on an instance.

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
    Attributes assigned only in `__init__`, `build`, `__post_init__` or `setUp`, attributes
    that hold TensorFlow objects anywhere (`tf.Variable`, layers, tensors, `add_weight`),
    and changes made inside `with tf.init_scope():` are not reported. Only literal-like values
    count as plain Python: numbers, strings, booleans, `not x` and arithmetic on literals
    and attributes (`self.step + 1`); a value computed by a call is not judged. The type of a
    parameter is not known: `model.bias` is reported when some class of the module reassigns
    a Python `bias`. Changes made by other modules are not seen. Creating a new
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

    @classmethod
    def facts(cls, context) -> AttributeRebinding:
        return context.fact("attribute-rebinding", attribute_rebinding)

    @classmethod
    def triggers_for(cls, context):
        if not context.graph:
            return ()
        attributes = sorted(cls.facts(context).attributes())
        if not attributes:
            return ()
        return (re.compile(r"\.(?:%s)\b" % "|".join(map(re.escape, attributes))),)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        function = self.context.function
        if function is None or not isinstance(node.value, cst.Name):
            return
        attribute = node.attr.value
        if (function.key, attribute) in self._seen or self._written(node):
            return
        line = self._rebound(node.value.value, attribute)
        if line is None:
            return
        self._seen.add((function.key, attribute))
        self.report(node, self.message.format(obj=node.value.value, attr=attribute, line=line))

    def _rebound(self, obj: str, attribute: str) -> Optional[int]:
        facts = self.facts(self.context)
        function = self.context.function
        info = self.context.graph.index.functions.get(function.key)
        cls = info.class_qualname if info is not None else None
        if cls is not None and obj == _self_name(function, info):
            return facts.rebound_in(facts.family(cls), attribute)
        if obj in function.parameters:
            return facts.rebound_anywhere(attribute)
        if obj not in self.context.local_names and obj in facts.instances:
            return facts.rebound_in(facts.family(facts.instances[obj]), attribute)
        return None

    def _written(self, node: cst.Attribute) -> bool:
        """``self.x = …``, ``self.x += …``, ``a, self.x = …``, ``del self.x``, ``self.x()``."""
        ancestors = self.context.ancestors
        child = node
        for parent in reversed(ancestors[:-1]):
            if isinstance(parent, _UNPACKING):
                child = parent
                continue
            if isinstance(parent, cst.Call):
                return parent.func is child
            if isinstance(parent, _TARGETS):
                return getattr(parent, "target", None) is child or getattr(
                    parent, "name", None) is child
            return False
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
