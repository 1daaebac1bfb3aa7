"""TFF201 captured-mutable-global."""

from __future__ import annotations

import re
from typing import Set, Tuple

from ..analysis.lazy_libcst import NodeTypes, cst

from ..analysis.patterns import words
from ..analysis.lazy_import import lazy_module
from ..rule import Rule

rebinding = lazy_module("..analysis.rebinding", __package__)

#: Parents under which a ``Name`` is not a read of a variable.
_NOT_READ = NodeTypes("Attribute", "Arg", "Param", "ImportAlias", "NameItem", "FunctionDef",
                      "ClassDef", "AsName", "Import", "ImportFrom")


class CapturedMutableGlobal(Rule):
    """A traced function reads a global or closure variable that the program rebinds.

    ## What it does
    Flags the first read, in each traced function, of a module-level name or a variable of
    an enclosing function that gets a new value while the function's traces are still in
    use: assigned again, assigned in a loop, updated with `+=`, assigned by a function under
    `global` (or `nonlocal`), between two calls of the same `tf.function` object.

    ## Why is this bad?
    `tf.function` reads Python globals and closure variables only while it traces. Their
    values become constants of the graph, and later calls run that graph: when the program
    changes the variable afterwards, the function keeps using the old value, without any
    error (it does not retrace, since the variable is not an argument). That goes wrong
    only when the rebinding can run between two calls of the same `tf.function` object:
    between its first and its last call in the module's statement order (cell order in a
    notebook), in a loop that also calls it, or in a function (a setter under `global`)
    that can run then. A rebinding before the first call, or after the last one, changes
    nothing a trace sees. A model's `call` that Keras runs is traced once for each kind of
    run (`fit`, `evaluate`, `predict`: each traces a function of its own on its first call,
    and `fit` given validation data traces `evaluate`'s too): when a script or notebook runs
    its models in module-level statements, a rebinding counts only between two runs of the
    same kind on that model, not between `fit` and the first `predict`; a loop that makes a
    new model in each pass (even of a class it defines again) and rebinds the value in the
    same pass has each model traced afresh. A function handed
    to a `tf.data` transformation (`dataset.map(f)`) is traced there, once: the dataset
    keeps the graph, not the function, so that call is one more call, not a later one.

    ## Example
    ```python
    import tensorflow as tf

    scale = 1.0

    @tf.function
    def apply(x):
        return x * scale

    apply(tf.constant(2.0))
    scale = 3.0
    apply(tf.constant(2.0))  # still multiplies by 1.0
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    scale = tf.Variable(1.0)

    @tf.function
    def apply(x):
        return x * scale

    apply(tf.constant(2.0))
    scale.assign(3.0)
    apply(tf.constant(2.0))  # multiplies by 3.0
    ```

    ## Known problems
    A global that only a public function assigns, when nothing in the module calls that
    function (configuration API such as `set_backend(name)`), is not reported: there is no
    sign it runs between two calls; users typically call it up front.
    Names bound once (constants, imports, functions, classes, models) are not reported, nor
    a name that only ever holds `None` and one `tf.Variable`, nor one that only ever holds a
    `tf.GradientTape` (the tape a training loop makes on every pass: a trace reads it only
    to build gradient ops into its graph), nor an import repeated (`import
    tensorflow as tf` again), nor a binding written out again with the same value (a
    notebook's set-up cell copied: the same `def`, or the same `name = value` where the
    value reads only such names and calls only the pure functions of TensorFlow, NumPy,
    `math` and the builtins, no draw, no Keras object, no file). Two bindings in the branches of one `if`/`else` or
    `try`/`except` are alternatives, not a rebinding; so is, for a closure variable, a
    binding in another branch of the `if` than the traced function's `def` (each model type
    building its own model and step), unless a loop around that `if` could run both. A lazily built global, assigned under
    `global` only in the body of `if NAME is None:` or `if not NAME:` (and not in a loop
    there), gets its one value that way and is not reported; any other assignment of it (a
    reset to `None`) still counts.

    Calls are followed in module statement order: each `def` (or `f = tf.function(g)`) is
    its own object, and a call reaches the binding in force at that statement, so a
    function defined again, or re-created after the rebinding, traces afresh and is not
    reported. A helper traced from a `tf.function` shares that function's calls; one traced
    only from other modules is traced when importers call it, after this module's own code
    has run (the helper's eager calls here, such as a configuration read at import, trace
    nothing). A function passed on or stored (`dataset.map(f)`, a class instantiated) may
    be called at any later time, but one that traced code hands to a call
    (`solver.solve(f, ...)` in a `tf.function`) runs when that traced code runs; methods
    and nested functions count as callable any time after their
    module-level code is first used. A function that module-level code never reaches is
    called by importers, after every import-time rebinding: only a function assigning the
    global under `global` can then run between its calls. A setter counts where it is
    called (only before the first call: not reported); a setter that module-level code
    never calls may run at any time after the import.

    A closure variable assigned under `nonlocal` by a set-up function is not rebound when
    that function only runs before the traced function is defined: each use of its name is
    a call (`init()`, `init.get_concrete_function()`) in the enclosing body, outside loops,
    before the traced function; one that is returned or stored may run again and still
    counts. A global changed through another module (`config.scale = 3.0`) is not seen,
    nor calls made through another module before the import finishes. Passing the value as
    an argument is the other fix: each new Python value then retraces the function (see
    TFF401), so prefer a tensor or a `tf.Variable` for values that change often.

    ## References
    - [Better performance with tf.function: Depending on Python global and free variables](https://www.tensorflow.org/guide/function#depending_on_python_global_and_free_variables)
    - [Introduction to graphs and tf.function](https://www.tensorflow.org/guide/intro_to_graphs)
    """

    code = "TFF201"
    name = "captured-mutable-global"
    message = ("global `{name}` is rebound (line {line}), but the traced function reads it only "
               "while tracing and keeps the old value; use a tf.Variable (and `.assign()`) or "
               "pass it as an argument")
    closure_message = ("closure variable `{name}` is rebound after this function is defined "
                       "(line {line}), but the traced function reads it only while tracing and "
                       "keeps the old value; use a tf.Variable (and `.assign()`) or pass it as "
                       "an argument")

    def __init__(self, context):
        super().__init__(context)
        self._seen: Set[Tuple[object, str]] = set()

    @classmethod
    def triggers_for(cls, context):
        if not context.graph:
            return ()
        names = sorted(rebinding.Rebinding.of(context).names())
        if not names:
            return ()
        return (re.compile(words(names) + r"\b"),)

    def visit_Name(self, node: cst.Name) -> None:
        function = self.context.function
        if function is None or node.value in self.context.local_names:
            return
        captured = rebinding.Rebinding.of(self.context).captured(function.key).get(node.value)
        if captured is None or (function.key, node.value) in self._seen:
            return
        ancestors = self.context.ancestors
        parent = ancestors[-2] if len(ancestors) > 1 else None
        if isinstance(parent, _NOT_READ) and not _is_value_of(parent, node):
            return
        self._seen.add((function.key, node.value))
        kind, line = captured
        template = self.closure_message if kind == rebinding.CLOSURE else self.message
        self.report(node, template.format(name=node.value, line=line))


def _is_value_of(parent: cst.CSTNode, node: cst.Name) -> bool:
    """``node`` is read in ``parent``: the object of ``x.attr``, or the value of ``f(k=x)``."""
    if isinstance(parent, cst.Attribute):
        return parent.value is node
    if isinstance(parent, cst.Arg):
        return parent.value is node
    return False
