"""TFF401 python-scalar-argument."""

from ..analysis.call_sites import CallSiteReporter
from ..rule import Rule, Scope


class PythonScalarArgument(CallSiteReporter, Rule):
    """A Python number that changes from call to call, passed to a `tf.function`.

    ## What it does
    Flags call sites of a `tf.function` (a `@tf.function` def, `f = tf.function(g)`,
    `self.f = tf.function(...)`) that pass a Python number that varies: a loop variable
    over `range(...)` or over a list of numbers, an expression of one, a counter stepped in
    a loop, or different number literals at different call sites of the same function.
    Also call sites of a plain function of the module that passes the parameter on, as it
    is, to such a `tf.function` (`def fit_epoch(ds, epoch): ... step(x, epoch)`, then
    `fit_epoch(ds, epoch)` in an epoch loop), for a number that varies.

    ## Why is this bad?
    `tf.function` traces a new graph for every new Python value of an argument: Python
    numbers are baked into the graph as constants. A loop that passes `step` as a Python
    `int` retraces on every pass; tracing is the slowest part of `tf.function`, so the loop
    runs slower than plain eager code (TensorFlow warns about "excessive retracing"). A
    tensor of the same dtype and shape reuses one graph for every value.

    ## Example
    ```python
    import tensorflow as tf

    @tf.function
    def train(num_steps):
        for _ in tf.range(num_steps):
            pass
        return num_steps

    for n in range(10):
        train(n)
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    @tf.function
    def train(num_steps):
        for _ in tf.range(num_steps):
            pass
        return num_steps

    for n in range(10):
        train(tf.constant(n))
    ```

    ## Known problems
    Only calls in the same module are seen, by the name the module gives the `tf.function`
    (`train(...)`, `self.train(...)` inside the class), or the plain function that passes
    a parameter on to it (one step: a function that passes it to another such function is
    not followed; a parameter the function binds again first, `epoch =
    tf.constant(epoch)`, is not passed on as it is); a module-level call reaches the
    binding of the name in force at that statement (cell order in a notebook), so a call of a
    plain function of the same name, defined in another cell, is not counted. A function with an `input_signature`
    is never reported, nor one fixed literal used at every call site (a hyper-parameter,
    traced once by design), nor values whose origin is not visible (parameters, attributes).
    A loop variable that the loop's body binds again before the call (`i =
    tf.convert_to_tensor(i)`, also in a branch that may not run) is not the loop's number.
    Nor is the variable of a loop that makes one pass: over `range(...)` of integer
    constants that give one value (`range(EPOCHS)` with `EPOCHS = 1` bound once in the
    module, or a parameter that every call of a module-level function passes as such a
    constant, `fit(EPOCHS)`), or over a list of one repeated number.
    Keras `call` methods are traced by Keras, not reported here. Bools are mode flags, two
    traces by design: `training=True` at one call site and `training=False` at another, a
    loop over `(True, False)`, a comparison (`first=(i == 0)`), `not i` or `bool(i)` are
    not reported, nor the ints 0 and 1 for a parameter the function only tests (`if flag:`,
    `if not flag:`), the older spelling of a mode flag. Only distinct numbers count: `None` (an unset option) or a bool next to
    one number is not reported; `size=32` and `size=64` are, also when `size=None`
    appears too. Nor are distinct literals that each come with other Python objects the
    function is traced for apart anyway (`random_apply(color_jitter, p=0.8)`,
    `random_apply(color_drop, p=0.2)`: a literal, or a function or class of the module, in
    another argument): a tensor there would save no trace. Nor is a number that picks a Python object: an index into a list the
    function iterates with a Python loop (`variables[layer]`), or into a list or tuple the
    class sets (`self.heads[task]`, `self.heads = [...]`); a tensor cannot index a Python
    list, and each object needs a graph of its own. Nor is a call that passes a value
    that straight-line module code (outside functions, loops and branches; the body of
    `if __name__ == "__main__":` counts) passed at an earlier call site: it reuses the
    graph that call traced (`f(1); f(2); f(1)` reports the first two).

    ## References
    - [Better performance with tf.function: Rules of tracing](https://www.tensorflow.org/guide/function#rules_of_tracing)
    - [Better performance with tf.function: Depending on Python values](https://www.tensorflow.org/guide/function#depending_on_python_values)
    """

    code = "TFF401"
    name = "python-scalar-argument"
    message = ("a Python number that varies, passed to a tf.function, traces a new graph for "
               "each value; use a tensor (tf.constant(...)) or an input_signature")
    scope = Scope.MODULE
    triggers = ("function",)
    about_tf_functions = True
