"""TFF101 print-in-tf-function."""

import re

import libcst as cst

from ..rule import Rule


#: Keywords of print() that tf.print() accepts with the same meaning.
_TF_PRINT_KEYWORDS = frozenset({"sep", "end"})


class PrintInTfFunction(Rule):
    """`print()` in traced code runs once per trace, not once per call.

    ## What it does
    Flags calls to the built-in `print` in code that TensorFlow traces into a graph
    (a `@tf.function` body, and the functions it calls).

    ## Why is this bad?
    `tf.function` runs the Python body only while it traces a graph. A Python `print` is
    not part of that graph: it prints once, on the first call (and again on each retrace),
    and then never again, even though the function keeps running. Its output also shows
    symbolic tensors (`Tensor("x:0", shape=(), dtype=float32)`) instead of values.
    `tf.print` is a graph operation: it runs on every call and prints the values.

    ## Example
    ```python
    import tensorflow as tf

    @tf.function
    def step(x):
        print("x =", x)
        return x * 2
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    @tf.function
    def step(x):
        tf.print("x =", x)
        return x * 2
    ```

    ## Known problems
    Printing once per trace is sometimes what you want, to watch when a function retraces
    (the TensorFlow guide does exactly that). Keep such a `print` and add `# noqa: TFF101`.
    `tf.print` writes to standard error by default; pass
    `output_stream=sys.stdout` to keep printing to standard output.

    `tffunc-lint --fix --unsafe-fixes` rewrites `print(...)` to `tf.print(...)` (unsafe
    because the program then prints on every call, to standard error) when the module imports
    TensorFlow under a name and the call passes only positional arguments, `sep=` or `end=`
    (`file=` and `flush=` have no `tf.print` equivalent).

    ## References
    - [Better performance with tf.function: Python side effects](https://www.tensorflow.org/guide/function#executing_python_side_effects)
    - [`tf.print`](https://www.tensorflow.org/api_docs/python/tf/print)
    """

    code = "TFF101"
    name = "print-in-tf-function"
    message = "print() runs only while TensorFlow traces the function, not on every call; use tf.print()"
    triggers = (re.compile(r"(?<![\w.])print\s*\("),)

    unsafe_fixable = True

    def visit_Call(self, node: cst.Call) -> None:
        if (self.context.qualified_name(node.func) == "builtins.print"
                and not self.context.in_eager_branch()):
            self.report(node, replacement=self._tf_print(node), unsafe=True)

    def _tf_print(self, node: cst.Call):
        """``tf.print(...)`` with the same arguments, when that means the same thing."""
        alias = self.context.module_alias("tensorflow")
        if alias is None or alias in self.context.local_names:
            return None
        for arg in node.args:
            if arg.star or (arg.keyword is not None and arg.keyword.value not in _TF_PRINT_KEYWORDS):
                return None
        return node.with_changes(func=cst.Attribute(cst.Name(alias), cst.Name("print")))
