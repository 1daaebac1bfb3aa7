"""TFF301 variable-created-in-tf-function."""

from __future__ import annotations

import re
from typing import List

from ..analysis.lazy_libcst import cst

from ..analysis.call_sites import OPTIMIZER, call_sites, makes_keras_optimizer
from ..analysis.cst_walk import descendants
from ..analysis.guards import FILLS
from ..analysis.names import dotted_name
from ..analysis.patterns import words, lazy_compile
from ..analysis.tensorflow_versions import KERAS_3_FACT, LAYERS_WITH_SEED, keras_3_evident
from ..rule import Rule

_KERAS_FACTORIES = ("keras.layers.", "keras.optimizers.")
#: Keras layers that own weights. Stateless layers (Activation, pooling, reshaping,
#: merging) create no variable, so making them inside traced code does not raise.
_LAYERS_WITH_WEIGHTS = frozenset({
    "Dense", "EinsumDense", "Embedding", "Conv1D", "Conv2D", "Conv3D", "Convolution1D",
    "Convolution2D", "Convolution3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose",
    "Convolution2DTranspose", "Convolution3DTranspose", "DepthwiseConv1D", "DepthwiseConv2D",
    "SeparableConv1D", "SeparableConv2D", "SeparableConvolution1D", "SeparableConvolution2D",
    "BatchNormalization", "LayerNormalization", "GroupNormalization", "Normalization",
    "LSTM", "GRU", "SimpleRNN", "LSTMCell", "GRUCell", "SimpleRNNCell", "ConvLSTM1D",
    "ConvLSTM2D", "ConvLSTM3D", "Bidirectional", "MultiHeadAttention", "PReLU",
    "LocallyConnected1D", "LocallyConnected2D", "AdditiveAttention",
})
#: ``Normalization(axis, mean, variance)``: given both statistics, the layer keeps them as
#: constant tensors and creates no variable (Keras 2.6 and later, Keras 3).
_STATISTICS = {"mean": 1, "variance": 2}


def _given_its_statistics(node: cst.Call, qualified: str) -> bool:
    """A ``keras.layers.Normalization`` made with its ``mean`` and ``variance``: it only
    adapts, in variables, the statistics it is not given."""
    if qualified != "keras.layers.Normalization":
        return False
    positional = [arg for arg in node.args if arg.keyword is None and not arg.star]
    keywords = {arg.keyword.value for arg in node.args if arg.keyword is not None}
    return all(name in keywords or len(positional) > index
               for name, index in _STATISTICS.items())


#: The optimizer methods that create its variables on their first call.
_APPLIES = frozenset({"apply_gradients", "minimize", "apply"})
_APPLY_TRIGGER = lazy_compile(r"\.\s*(?:apply_gradients|minimize|apply)\s*\(")


class VariableCreatedInTfFunction(Rule):
    """`tf.Variable` (or a Keras layer or optimizer) created on every call of a traced function.

    ## What it does
    Flags `tf.Variable(...)`, and the construction of Keras layers that own weights (`Dense`,
    `Conv2D`, `Embedding`, `BatchNormalization`, recurrent layers …) and of Keras optimizers,
    in code that TensorFlow traces, unless the creation is guarded so that it happens only
    once. Flags too the `apply_gradients` (`apply`, `minimize`) of an optimizer that the
    traced function takes as a parameter, when its calls pass two different Keras
    optimizers the module makes (`train_step(w, x, y, opt1)`, then `train_step(w, x, y,
    opt2)`): an optimizer creates its variables when it is first applied, and the second
    one does so on the trace its new object causes.

    ## Why is this bad?
    A `tf.function` may create variables only once, on its first call. When it sees a
    variable being created, it traces the function again to check that no new variable
    appears, and an unconditional `tf.Variable(...)` creates one on every trace: the call
    fails with `ValueError: tf.function only supports singleton tf.Variables created on the
    first call`. Variables belong to the state of a model, not to a computation step: create
    them once, outside the traced function, and only update them inside.

    ## Example
    ```python
    import tensorflow as tf

    @tf.function
    def accumulate(x):
        total = tf.Variable(0.0)
        total.assign_add(x)
        return total
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    total = tf.Variable(0.0)

    @tf.function
    def accumulate(x):
        total.assign_add(x)
        return total
    ```

    ## Known problems
    Two optimizers are reported only when each is a name bound once (or an attribute the
    class assigns once) to `keras.optimizers.X(...)`, neither is built first
    (`opt.build(variables)`), and no `if` puts the two calls in different branches;
    optimizers passed on through helpers, or made in a loop, are missed. The same error
    comes from two Keras models without weights yet passed to one `tf.function`; that case
    is not reported.
    Creation guarded by `if self.v is None:` or `if not hasattr(self, "v"):` (the singleton
    pattern the guide documents) is not flagged, nor creation inside `with tf.init_scope():`.
    A `not self.built` (or "initialized") flag counts as such a guard too, and so does any
    flag that the guarded code sets when it assigns the new state
    (`if not self.created: self.w = tf.Variable(...); self.created = True`), or a container
    that the guarded code fills (`if not state: state.append(tf.Variable(...))`, the
    guide's own example), or a method called under a run-once flag that the same block
    clears (`if self.first_call: self.make_slots(); self.first_call = False`), or a
    layer's `build` called under `if not self.built:` (Keras's build protocol sets `built`,
    also when `build` leaves it to `super().build()`), with the helpers it calls; other
    guards are not recognised and are reported. A builder handed to a get-or-create call
    (`tf.compat.v1.keras.utils.get_or_create_layer("name", self.build_model)`, or a
    project function whose name says it gets or creates) runs once and is not reported.
    Nor is `call` (and what it calls) of a Keras model whose own method runs it on
    `keras.Input` and makes a functional model of the result (`inputs =
    tf.keras.Input(shape); return tf.keras.Model(inputs, self.call(inputs))`): what Keras
    trains is that model, and `call` made its layers once, while it was built. An object of
    such a class fitted itself, as the subclassed model, is missed.
    Layers
    without weights (`Activation`, pooling, reshaping) are not reported: making them on every
    call is wasteful but does not raise. Nor is a `Normalization` given its `mean` and
    `variance`, which it keeps as constants. `Dropout` and the noise layers hold a seed variable
    only as Keras 3 (the default since TensorFlow 2.16) builds them, and are reported only
    where something says the code runs on Keras 3: the project requires TensorFlow 2.16 or
    later, or the text of one of its linted modules uses Keras 3's API (`keras.ops`,
    `from keras import ops`, `keras_core`, `keras_hub`), installs `keras>=3`, or upgrades
    TensorFlow to its newest release (`pip install -U tensorflow`). Code that says nothing
    of its Keras is not reported: most such code was written for Keras 2, where these
    layers hold no variable. Taken from
    `tf_keras` (Keras 2, no seed variable) they are not reported either, nor in a module
    written for Keras 2
    (it calls a `keras.backend` function Keras 3 no longer has, such as `K.int_shape` or
    `K.dot`, saves weights to a file name Keras 3 refuses, such as
    `model.save_weights("model.h5")`, or uses another API removed before it, such as
    `tf.keras.mixed_precision.experimental`; or a program written so imports it, as a
    course's training script imports its model module; or its project
    supports only TensorFlow older than 2.16; or it is a notebook last run with Python 3.8
    or older, which no TensorFlow with Keras 3 supports), nor where they are made only under
    a test of their own rate (`if self.conv_dropout: x = Dropout(self.conv_dropout)(x)`):
    dropout switched on by configuration, which nothing shows is ever on (a rate of 0 holds
    no seed variable either). A variable created inside
    `with tf.init_scope():` on every trace still raises, but that block is outside graph
    context for every rule and is not reported.

    ## References
    - [Better performance with tf.function: Creating tf.Variables](https://www.tensorflow.org/guide/function#creating_tfvariables)
    - [Better performance with tf.function: Using multiple Keras optimizers](https://www.tensorflow.org/guide/function#using_with_multiple_keras_optimizers)
    - [Introduction to graphs and tf.function](https://www.tensorflow.org/guide/intro_to_graphs)
    """

    code = "TFF301"
    name = "variable-created-in-tf-function"
    message = ("tf.Variable() inside a traced function raises ValueError (tf.function only "
               "supports singleton variables); create it once outside, e.g. in __init__, or "
               "guard it with `if self.v is None:`")

    triggers = (lazy_compile(words(["Variable"]) + r"\s*\(|"
                             + words(["layers", "optimizers"]) + r"\.[A-Z]"),)

    def __init__(self, context):
        super().__init__(context)
        self._applied = set()

    @classmethod
    def triggers_for(cls, context):
        imported = context.names.local_names_for(_KERAS_FACTORIES + ("tensorflow.Variable",))
        found = cls.triggers + ((re.compile(words(imported) + r"\s*\("),) if imported else ())
        if any(a.kind == OPTIMIZER for a in call_sites(context).arguments):
            found += (_APPLY_TRIGGER,)
        return found

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (isinstance(func, cst.Attribute) and func.attr.value in _APPLIES
                and isinstance(func.value, cst.Name)):
            self._second_optimizer(node, func.value.value)
            return
        qualified = self.context.qualified_name(node.func)
        if qualified is None or self._guarded():
            return
        if qualified == "tensorflow.Variable":
            self.report(node)
        elif (self._creates_variables(qualified) and not _given_its_statistics(node, qualified)
              or self._holds_seed(node, qualified)):
            kind = "layer" if qualified.startswith("keras.layers.") else "optimizer"
            self.report(node, f"Keras {kind} {qualified.rpartition('.')[2]}() inside a traced "
                              "function creates new variables on every trace and raises "
                              "ValueError; create it once outside, e.g. in __init__")

    def _second_optimizer(self, node: cst.Call, parameter: str) -> None:
        """``optimizer.apply_gradients(...)`` on a parameter that calls of the traced
        function pass two different Keras optimizers for: each creates its variables on its
        first use, the second on a new trace, which raises (the function guide's "Using
        multiple Keras optimizers")."""
        function = self.context.function
        if (function is None or parameter not in function.parameters
                or (function.key, parameter) in self._applied):
            return
        pair = call_sites(self.context).optimizers(function.key, parameter)
        if not pair:
            return
        self._applied.add((function.key, parameter))
        (first, _), (second, _) = pair[0].value, pair[1].value
        self.report(node, (
            f"calls pass two Keras optimizers for `{parameter}` ({first}, then {second} at "
            f"line {pair[1].line}): an optimizer creates its variables when first applied, "
            "the second one on the new trace its object causes, and tf.function raises "
            "ValueError (variables only on the first call); make a tf.function per "
            "optimizer, or build each first with `optimizer.build(variables)`"))

    def _holds_seed(self, node: cst.Call, qualified: str) -> bool:
        module, _, name = qualified.rpartition(".")
        return (module == "keras.layers" and name in LAYERS_WITH_SEED
                and not self.context.names.imported_from(dotted_name(node.func) or "",
                                                         "tf_keras")
                and not self._optional_by_rate(node)
                and self.context.fact(KERAS_3_FACT, keras_3_evident))

    def _optional_by_rate(self, node: cst.Call) -> bool:
        """Made only under a test of its own rate (``if self.drop_rate: x = Dropout(
        self.drop_rate)(x)``): dropout is an option its author turns on by configuration, and
        a rate of 0 holds no seed variable; nothing says the branch ever runs."""
        rate = next((arg.value for arg in node.args
                     if arg.keyword is None or arg.keyword.value in ("rate", "stddev")), None)
        spelled = dotted_name(rate) if rate is not None else None
        if spelled is None:
            return False
        ancestors = self.context.ancestors
        tests: List[cst.BaseExpression] = []
        for index, ancestor in enumerate(ancestors[:-1]):
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda)):
                tests = []  # only the tests within the function making the layer count
            elif (isinstance(ancestor, (cst.If, cst.IfExp))
                  and ancestors[index + 1] is ancestor.body):
                tests.append(ancestor.test)
        return any(spelled == dotted_name(part) for test in tests for part in descendants(test))

    @staticmethod
    def _creates_variables(qualified: str) -> bool:
        module, _, name = qualified.rpartition(".")
        if module == "keras.layers":
            return name in _LAYERS_WITH_WEIGHTS
        return makes_keras_optimizer(qualified)

    def _guarded(self) -> bool:
        """The singleton pattern (``if self.v is None:``, ``if not hasattr(...)``,
        ``if not self.built:``, a flag the guarded code sets: ``if not self.created: ...
        self.created = True``), or a ``build()`` method."""
        function = self.context.function
        return (self.context.in_one_time_setup(self._assigned())
                or (function is not None and function.qualname.rpartition(".")[2] == "build"))

    def _assigned(self) -> tuple:
        """Where the statement creating the state keeps it: ``self.w`` of ``self.w = ...``,
        ``state`` of ``state.append(...)`` or ``state[key] = ...``."""
        ancestors = self.context.ancestors
        for index in range(len(ancestors) - 1, -1, -1):
            node = ancestors[index]
            if isinstance(node, cst.Assign):
                return tuple(filter(None, (_kept_in(t.target) for t in node.targets)))
            if isinstance(node, (cst.AnnAssign, cst.AugAssign)):
                return tuple(filter(None, (_kept_in(node.target),)))
            if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                    and node.func.attr.value in FILLS and index + 1 < len(ancestors)
                    and ancestors[index + 1] is not node.func):
                return tuple(filter(None, (dotted_name(node.func.value),)))
            if isinstance(node, (cst.SimpleStatementLine, cst.FunctionDef, cst.Lambda)):
                break
        return ()


def _kept_in(target: cst.BaseExpression):
    return dotted_name(target.value if isinstance(target, cst.Subscript) else target)
