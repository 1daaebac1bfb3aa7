"""TFF101 print-in-tf-function."""

from __future__ import annotations

from typing import Optional

from ..analysis.lazy_libcst import cst

from ..analysis.cst_walk import descendants
from ..analysis.lazy_import import lazy_module
from ..analysis.patterns import words, lazy_compile
from ..rule import Rule

loop_kind = lazy_module("..analysis.loop_kind", __package__)
trace_output = lazy_module("..analysis.trace_output", __package__)


_MESSAGE_PER_CALL = ("print() runs only while TensorFlow traces the function, not on every "
                     "call; use tf.print()")
_LOOP_MESSAGE = ("print() in a graph loop (tf.range, tensor or dataset) prints once while "
                 "tracing, not on every iteration; use tf.print()")

#: Keywords of print() that tf.print() accepts with the same meaning.
_TF_PRINT_KEYWORDS = frozenset({"sep", "end"})


class PrintInTfFunction(Rule):
    """`print()` in traced code runs once per trace, not once per call.

    ## What it does
    Flags calls to the built-in `print` in code that TensorFlow traces into a graph
    (a `@tf.function` body, and the functions it calls) when printing once per trace is a
    bug: the print shows a tensor's value, sits in a loop that AutoGraph turns into a graph
    loop, or is a plain message (literal text) that its author expects on every call.

    ## Why is this bad?
    `tf.function` runs the Python body only while it traces a graph. A Python `print` is
    not part of that graph: it prints once, on the first call (and again on each retrace),
    and then never again, even though the function keeps running. Its output also shows
    symbolic tensors (`Tensor("x:0", shape=(), dtype=float32)`) instead of values.
    `tf.print` is a graph operation: it runs on every call and prints the values.

    Printing once per trace is harmless, and often the point, when the message announces
    tracing (`print("Tracing with", x)`, the TensorFlow guide's way to watch retracing) or
    shows static trace-time information (`x.shape`, `x.dtype`, `x.name`, or the tensor
    itself under a label that asks for its shape or dtype, `print("x shape", x)`): those
    are not reported, as TFF105 does not report such logging; nor in a graph loop, whose
    body is traced once: the static properties printed are the same on every pass. Nor are Python values that
    come with tensors: the keys of a mapping of tensors (`for k, v in inputs.items():
    print(k)`; a tensor is not hashable, also in a comprehension, `[k for k, v in
    inputs.items()]`) and `enumerate`'s counter.

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
    Test modules (`test_*.py`, `*_test.py`, `conftest.py`, files under `tests/`) are not
    checked: a print there is a diagnostic of one test run. Nor are prints in code that
    Python traces once and never calls: a dataset function (`Dataset.map(parse)`: tf.data
    runs the graph for every element, the Python body ran once for the pipeline), also one
    decorated with `@tf.function` that Python calls only in the module's straight-line code
    (`parse(path)` once, to look at it), and a signature factory's `@tf.function(input_signature=...)` that its enclosing function
    returns without calling, or a function or method with an `input_signature` that a
    program (a script nothing imports) exports (`tf.saved_model.save`, `signatures=`) and
    calls nowhere (traced for export, served without Python); a print there is all the output there is. The trace reason shown is the one the analysis found first: a
    dataset function that a training step also calls may be taken for a dataset function
    only.
    A message announces tracing when its literal text says so ("tracing", "traced",
    "retracing"); other deliberate trace-time prints need `# noqa: TFF101`. A fixed
    message in a method that Keras runs (`print("call")` in a layer's `call`,
    `print("in train step")` in `train_step`, and in what they call) is not reported: Keras
    traces the method for each of `fit`, `evaluate` and `predict`, and the layer's `call`
    runs eagerly whenever a program calls the layer; such text marks when Keras calls the
    method, as authors mark `__init__` and `build`, more often than it counts steps. Values are
    followed as TFF105 follows them (parameters of directly traced functions, results of
    TensorFlow operations); a value the analysis cannot show is a tensor (a helper's
    parameter, a Python number) gives no evidence of harm and is not reported. A fixed
    message under `if` tests that are Python values while tracing
    (`if len(sizes) == 0: print("Frame too large")`) checks what is being traced, once per
    trace by design, and is not reported either.
    `tf.print` writes to standard error by default; pass
    `output_stream=sys.stdout` to keep printing to standard output.

    `tffunc-lint --fix --unsafe-fixes` rewrites `print(...)` to `tf.print(...)` (unsafe
    because the program then prints on every call, to standard error) when the module imports
    TensorFlow under a name and the call passes only positional arguments, `sep=` or `end=`
    (`file=` and `flush=` have no `tf.print` equivalent). Text formatted in Python would
    print the symbolic tensor on every call, so a simple f-string becomes `tf.print`
    arguments (`print(f"loss {loss} at {step}")` → `tf.print("loss", loss, "at", step)`),
    and a print that formats otherwise (`{x:.2f}`, `{x!r}`, placeholders not separated by
    spaces, a `sep=`, `%`, `.format()`, `str()`) gets no fix.

    ## References
    - [Better performance with tf.function: Python side effects](https://www.tensorflow.org/guide/function#executing_python_side_effects)
    - [`tf.print`](https://www.tensorflow.org/api_docs/python/tf/print)
    """

    code = "TFF101"
    name = "print-in-tf-function"
    message = ("print() shows a symbolic tensor (Tensor(\"...\")) once, while TensorFlow "
               "traces the function, not its value on every call; use tf.print()")
    triggers = (lazy_compile(words(["print"], [r"[\w.]"]) + r"\s*\("),)

    unsafe_fixable = True

    def visit_Call(self, node: cst.Call) -> None:
        if (self.context.qualified_name(node.func) != "builtins.print"
                or self.context.in_eager_branch()):
            return
        message = self._message(node)
        if message is not None:
            self.report(node, message, replacement=self._tf_print(node), unsafe=True)

    def _message(self, node: cst.Call) -> Optional[str]:
        """Why this print is harmful, or None when printing once per trace is the intent
        (see ``trace_output``): it announces tracing, or shows only static trace-time
        information (shapes, dtypes, names)."""
        context = self.context
        if trace_output.announces_tracing(node) or trace_output.labelled_static(node) or trace_output.traced_once_by_design(context):
            return None
        if any(trace_output.shows_tensor_value(context, arg.value) for arg in node.args):
            return self.message
        if loop_kind.in_graph_loop(context) and not trace_output.shows_static_only(node):
            return _LOOP_MESSAGE
        if (trace_output.plain_message(node) and not trace_output.under_static_check(context)
                and not (context.reason is not None and context.reason.by_keras())):
            return _MESSAGE_PER_CALL
        return None

    def _tf_print(self, node: cst.Call):
        """``tf.print(...)`` with the same arguments, when that means the same thing.

        Text formatted in Python would show the symbolic tensor, once per call: a simple
        f-string becomes tf.print arguments (``print(f"loss {loss} at {step}")`` →
        ``tf.print("loss", loss, "at", step)``), other formatting gets no fix."""
        alias = self.context.module_alias("tensorflow")
        if alias is None or alias in self.context.local_names:
            return None
        default_sep = True
        for arg in node.args:
            if arg.star or (arg.keyword is not None and arg.keyword.value not in _TF_PRINT_KEYWORDS):
                return None
            if arg.keyword is not None and arg.keyword.value == "sep":
                default_sep = False
        args = []
        for arg in node.args:
            if arg.keyword is None and _formats_text(arg.value):
                pieces = (_f_string_pieces(arg.value)
                          if default_sep and isinstance(arg.value, cst.FormattedString) else None)
                if pieces is None:
                    return None
                args.extend(cst.Arg(piece) for piece in pieces[:-1])
                args.append(arg.with_changes(value=pieces[-1]))
            else:
                args.append(arg)
        return node.with_changes(func=cst.Attribute(cst.Name(alias), cst.Name("print")),
                                 args=args)


def _formats_text(value: cst.BaseExpression) -> bool:
    """An argument that builds text from values in Python: an f-string with placeholders,
    ``"..." % x``, ``"...".format(x)``, ``str(x)``/``repr(x)``/``format(x)``."""
    for node in descendants(value):
        if isinstance(node, cst.FormattedString) and any(
                isinstance(part, cst.FormattedStringExpression) for part in node.parts):
            return True
        if (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo)
                and isinstance(node.left, (cst.SimpleString, cst.ConcatenatedString,
                                           cst.FormattedString))):
            return True
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Name) and func.value in ("str", "repr", "format"):
                return True
            if (isinstance(func, cst.Attribute) and func.attr.value in ("format", "format_map")
                    and isinstance(func.value, (cst.SimpleString, cst.ConcatenatedString,
                                                cst.FormattedString))):
                return True
    return False


def _f_string_pieces(fstring: cst.FormattedString):
    """The tf.print arguments that print what ``fstring`` prints, separated by tf.print's
    default single space: the text between placeholders must start and end with a space
    (``f"loss {loss} at {step}"`` → ``"loss", loss, "at", step``). None when that cannot be
    said: conversions, format specs, ``{x=}``, placeholders not separated by spaces."""
    quote_prefix = fstring.start[:-len(fstring.end)].replace("f", "").replace("F", "")
    pieces = []
    parts = list(fstring.parts)
    for index, part in enumerate(parts):
        if isinstance(part, cst.FormattedStringExpression):
            if part.conversion is not None or part.format_spec is not None or part.equal:
                return None
            if index and isinstance(parts[index - 1], cst.FormattedStringExpression):
                return None  # f"{a}{b}": nothing to separate them
            pieces.append(part.expression)
            continue
        text = part.value
        after = index > 0  # follows a placeholder (text parts never follow each other)
        before = index < len(parts) - 1
        if after and before and text == " ":
            continue
        if (after and not text.startswith(" ")) or (before and not text.endswith(" ")):
            return None
        text = text[1 if after else 0:len(text) - 1 if before else len(text)]
        text = text.replace("{{", "{").replace("}}", "}")
        pieces.append(cst.SimpleString(f"{quote_prefix}{fstring.end}{text}{fstring.end}"))
    return pieces or None
