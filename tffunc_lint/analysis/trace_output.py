"""What a message written while tracing shows, and whether writing it once per trace is
the intent.

Python output in traced code (``print``, ``logging``) runs while TensorFlow traces, once
per trace. That is harmful when the message shows a tensor's value (the trace has only a
symbolic ``Tensor("add:0", ...)``) or is expected on every call or iteration. It is what
the author wants when the message announces tracing (``print("Tracing with", x)``), shows
static trace-time information (shapes, dtypes, names, configuration), or checks what is
being traced under ``if`` tests that are Python values while tracing. It is all the output
there is when Python never calls the traced function again: a dataset transformation
(``Dataset.map(fn)`` traces ``fn`` once for the whole pipeline) or a serving signature that
a factory returns for export. TFF101 and TFF105 ask this module, so both rules draw the line
in the same place.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Callable, Dict, List, Tuple

from .lazy_libcst import cst

from .tensor_taint import STATIC_ATTRIBUTES, is_tainted
from .ast_walk import child_nodes, walk_nodes
from .module_index import DATASET_METHODS
from .names import ast_dotted_name
from .patterns import lazy_compile

if TYPE_CHECKING:  # pragma: no cover
    from .file_context import FileContext

#: Calls that turn their argument into text: ``str(x)`` of a tensor shows it symbolically.
_TEXT_CALLS = frozenset({"builtins.str", "builtins.repr", "builtins.format", "builtins.ascii"})
_TEXT_METHODS = frozenset({"format", "join", "format_map"})
#: Words of a message's label that name a static property of what it prints.
_STATIC_LABEL = lazy_compile(r"\b(?:shapes?|dtypes?)\b", re.IGNORECASE)
#: Words of a message that announces tracing: "Tracing with", "traced", "retracing", the
#: words the translated guides use ("追踪", "跟踪", "トレース"), "compiling" (what many call
#: a tf.function's trace), and messages that say the Python code is what runs ("The
#: function is running in Python"). Not "Python side effect": the guides print that to
#: show a side effect that does not repeat.
_TRACING = lazy_compile(r"trac(?:e|es|ed|ing)\b|compil(?:e|es|ed|ing)\b|追踪|跟踪|トレース|"
                        r"(?:runs?|running|executes?|executing|executed) (?:in|as) python\b|"
                        r"python (?:runs|is running|executes|is executing)\b",
                        re.IGNORECASE)


def shows_tensor_value(context: "FileContext", node: cst.BaseExpression) -> bool:
    """``node``, an argument of a message, shows a tensor's value (not a static property):
    it is tainted, or text built from a tainted value (an f-string field, ``%`` or
    ``.format`` arguments, ``str(x)``)."""
    if is_tainted(context, node):
        return True
    if isinstance(node, cst.FormattedString):
        return any(shows_tensor_value(context, part.expression) for part in node.parts
                   if isinstance(part, cst.FormattedStringExpression))
    if isinstance(node, cst.ConcatenatedString):
        return shows_tensor_value(context, node.left) or shows_tensor_value(context, node.right)
    if isinstance(node, cst.BinaryOperation):
        return shows_tensor_value(context, node.left) or shows_tensor_value(context, node.right)
    if isinstance(node, cst.IfExp):
        return shows_tensor_value(context, node.body) or shows_tensor_value(context, node.orelse)
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return any(shows_tensor_value(context, element.value) for element in node.elements)
    if isinstance(node, cst.Dict):
        return any(shows_tensor_value(context, element.value) for element in node.elements)
    if isinstance(node, cst.Call):
        func = node.func
        if (context.qualified_name(func) in _TEXT_CALLS
                or isinstance(func, cst.Attribute) and func.attr.value in _TEXT_METHODS):
            return any(shows_tensor_value(context, arg.value) for arg in node.args)
    return False


def announces_tracing(call: cst.Call) -> bool:
    """The message says it is about tracing (``print("Tracing with", x)``,
    ``logging.info("retracing %s", name)``): written once per trace on purpose."""
    return any(_TRACING.search(text) for arg in call.args for text in _literal_text(arg.value))


def labelled_static(call: cst.Call) -> bool:
    """The message's text says it shows a shape or a dtype, and what it prints is the value
    itself, not something computed from it (``print("delta shape", delta)``, ``"memory shape
    : {}".format(memory)``): a traced tensor's text shows its static shape and dtype, what
    the label asks for. ``print("shape", tf.shape(x))`` computes the shape, whose values the
    trace does not have."""
    return any(_STATIC_LABEL.search(text) for arg in call.args
               for text in _literal_text(arg.value)) and all(
        _names_values(arg.value) for arg in call.args if arg.keyword is None)


def _names_values(node: cst.BaseExpression) -> bool:
    """Text and names only: literals, names and attributes (``x``, ``self.h``), also as the
    fields of an f-string, the arguments of ``.format`` or the right side of ``%``."""
    return _text_of(node, lambda value: isinstance(value, (cst.Name, cst.Attribute)))


def _text_of(node: cst.BaseExpression, shown: Callable[[cst.BaseExpression], bool]) -> bool:
    """``node`` is literal text, or a value ``shown`` accepts, also as the fields of an
    f-string, the arguments of ``.format`` or the right side of ``%``."""
    if _is_literal(node) or shown(node):
        return True
    if isinstance(node, cst.FormattedString):
        return all(_text_of(part.expression, shown) for part in node.parts
                   if isinstance(part, cst.FormattedStringExpression))
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
        right = node.right
        values = [e.value for e in right.elements] if isinstance(right, cst.Tuple) else [right]
        return _is_literal(node.left) and all(_text_of(value, shown) for value in values)
    if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "format" and _is_literal(node.func.value)):
        return all(_text_of(arg.value, shown) for arg in node.args)
    return False


def shows_static_only(call: cst.Call) -> bool:
    """What the message shows, besides literal text, is only static properties of tensors
    (``x.shape``, ``x.dtype``, ``x.shape[0]``, ``x.get_shape()``, ``len(x.shape)``), also as
    the fields of an f-string or the arguments of ``%`` and ``.format``: what the trace
    knows, the same on every pass of a loop, written once per trace by design."""
    values = [arg.value for arg in call.args if arg.keyword is None]
    return any(not _is_literal(v) for v in values) and all(
        _text_of(v, _static_property) for v in values)


def _static_property(node: cst.BaseExpression) -> bool:
    """``x.shape``, ``x.dtype``, ``x.shape[0]``, ``x.shape.as_list()``, ``len(x.shape)``."""
    if isinstance(node, cst.Attribute):
        return node.attr.value in STATIC_ATTRIBUTES and node.attr.value != "keys"
    if isinstance(node, cst.Subscript):
        return _static_property(node.value)
    if isinstance(node, cst.Call) and not node.args:
        return _static_property(node.func)
    if (isinstance(node, cst.Call) and isinstance(node.func, cst.Name)
            and node.func.value == "len" and len(node.args) == 1):
        return _static_property(node.args[0].value)
    return False


def plain_message(call: cst.Call) -> bool:
    """Every argument is literal text (``print("Calculating MSE!")``): a message its author
    expects whenever the code runs, with nothing in it that tracing could explain."""
    return bool(call.args) and all(
        _is_literal(arg.value) for arg in call.args if arg.keyword is None) and any(
        arg.keyword is None for arg in call.args)


def under_static_check(context: "FileContext") -> bool:
    """The node being visited is under ``if`` tests (in its own function) that are all
    Python values while tracing (``if x.shape.rank == 0:``), or ranks compared
    (``_fixed_by_trace``): a check of what is being traced, made once per trace by design.
    Under another tensor test AutoGraph builds a ``tf.cond`` and the message would be
    expected each time the condition holds."""
    tests = []
    ancestors = context.ancestors
    for parent, child in zip(reversed(ancestors[:-1]), reversed(ancestors[1:])):
        if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            break
        if isinstance(parent, cst.If) and child is not parent.test:
            tests.append(parent.test)
    return bool(tests) and all(_fixed_by_trace(context, test) for test in tests)


#: Operations whose tensor is the same on every call of one trace: a tensor's rank is part
#: of the trace's input signature.
_FIXED_BY_TRACE = frozenset({"tensorflow.rank", "tensorflow.experimental.numpy.ndim"})


def _fixed_by_trace(context: "FileContext", test: cst.BaseExpression) -> bool:
    """``test`` has one value on every call of a trace: a Python value while tracing, or
    ranks compared (``tf.rank(priors) + 1 == tf.rank(locations)``). A tensor test makes
    AutoGraph build a ``tf.cond``, but one whose branch every call of the trace takes, or
    none does: the check is of what is being traced."""
    if not is_tainted(context, test):
        return True
    if isinstance(test, cst.Call):
        return context.qualified_name(test.func) in _FIXED_BY_TRACE
    if isinstance(test, cst.Comparison):
        return _fixed_by_trace(context, test.left) and all(
            _fixed_by_trace(context, c.comparator) for c in test.comparisons)
    if isinstance(test, (cst.BinaryOperation, cst.BooleanOperation)):
        return _fixed_by_trace(context, test.left) and _fixed_by_trace(context, test.right)
    if isinstance(test, cst.UnaryOperation):
        return _fixed_by_trace(context, test.expression)
    return False


def _literal_text(node: cst.BaseExpression):
    if isinstance(node, cst.SimpleString):
        yield node.raw_value
    elif isinstance(node, cst.ConcatenatedString):
        yield from _literal_text(node.left)
        yield from _literal_text(node.right)
    elif isinstance(node, cst.FormattedString):
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                yield part.value
    elif isinstance(node, cst.BinaryOperation):  # "Tracing %s" % x
        yield from _literal_text(node.left)
    elif (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
          and node.func.attr.value == "format"):
        yield from _literal_text(node.func.value)


def _is_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.ConcatenatedString):
        return _is_literal(node.left) and _is_literal(node.right)
    return isinstance(node, (cst.SimpleString, cst.Integer, cst.Float))


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def traced_once_by_design(context: "FileContext") -> bool:
    """The code runs in a graph that Python builds once and never calls: the function of a
    dataset transformation (``Dataset.map``, ``filter``, ``interleave`` …: traced once
    per pipeline, then run by tf.data), or a signature factory's function
    (``@tf.function(input_signature=...)`` on a nested def that its enclosing function
    returns without calling, alone or among others: traced for export, then served
    without Python). Output made while tracing it is all the output it makes; nobody
    expects it per element or request."""
    reason = context.reason
    if reason is None:
        return False
    root = reason.chain()[-1]
    if root.by_tf_data():
        return True
    if root.how != "@tf.function" or (root.path and root.path != context.path):
        return False
    return (_returned_signature(context, root.function, root.line)
            or _only_mapped(context, root.function)
            or _only_exported(context, root.function, root.line))


def _only_exported(context: "FileContext", qualname: str, decorator_line: int) -> bool:
    """The function or method ``qualname`` pins an ``input_signature``, and the program (a
    whole program: nothing imports it) exports (``tf.saved_model.save``, or a Keras
    ``model.save(path, signatures=...)``; ``signatures=module.serve``, directly or through
    a name) and calls it nowhere: traced for export, then served without Python."""
    cls, _, name = qualname.rpartition(".")
    if "." in cls or not context.graph.whole_program or context.tree is None:
        return False
    defs = (context.tree.body if not cls else
            [item for statement in context.tree.body
             if isinstance(statement, ast.ClassDef) and statement.name == cls
             for item in statement.body])
    node = next((item for item in defs if isinstance(item, _DEFS) and item.name == name
                 and any(d.lineno == decorator_line for d in item.decorator_list)), None)
    if node is None or not any(
            isinstance(d, ast.Call) and any(k.arg == "input_signature" for k in d.keywords)
            for d in node.decorator_list if d.lineno == decorator_line):
        return False
    exported, called, handed = context.fact("trace_output.exports", _exports)
    return exported and name not in called and not any(
        alias in called for alias in handed.get(name, ()))


def _exports(context: "FileContext") -> Tuple[bool, frozenset, Dict[str, set]]:
    """Whether the module exports (``tf.saved_model.save``, a call with ``signatures=``);
    the names it calls, as ``x.name(...)`` or ``name(...)``; and for each attribute or name
    it binds to a plain name (``served = module.serve``, ``served = serve``), those
    names."""
    exported, called, handed = False, set(), {}
    for node in walk_nodes(context.tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, (ast.Attribute, ast.Name)):
                called.add(func.attr if isinstance(func, ast.Attribute) else func.id)
            exported = exported or (ast_dotted_name(func) or "").endswith(
                "saved_model.save") or any(k.arg == "signatures" for k in node.keywords)
        elif isinstance(node, ast.Assign) and isinstance(node.value, (ast.Attribute, ast.Name)):
            value = node.value
            handed.setdefault(value.attr if isinstance(value, ast.Attribute) else value.id,
                              set()).update(target.id for target in node.targets
                                            if isinstance(target, ast.Name))
    return exported, frozenset(called), handed


def _only_mapped(context: "FileContext", qualname: str) -> bool:
    """The ``@tf.function`` ``qualname`` runs only within tf.data's trace of a pipeline
    (``_pipeline_only``): Python calls it nowhere else but once in the module's
    straight-line code (``parse(path)``, to look at what it gives)."""
    return "." not in qualname and qualname in context.fact("trace_output.pipeline_only",
                                                            _pipeline_only)


def _pipeline_only(context: "FileContext") -> frozenset:
    """Module-level defs that Python runs only while tf.data traces a pipeline: handed to a
    dataset transformation (``ds.map(load)``), or called from the body of such a def
    (``load`` from ``load_image_train``), and otherwise called only by the module's
    straight-line code and never in a loop, a comprehension, a lambda, a class or another
    def, nor passed anywhere else. What they print or log while traced is all there is."""
    index = context.graph.index
    if context.tree is None or not any(e.how.startswith("Dataset.") for e in index.entries):
        return frozenset()
    defs = {node.name for node in context.tree.body if isinstance(node, _DEFS)}
    mapped = {entry.target[1][2] for entry in index.entries
              if entry.how.startswith("Dataset.") and entry.target[0] == "local"
              and entry.target[1][2] in defs
              and index.top_level.get(entry.target[1][2]) == entry.target[1]}
    callers: Dict[str, set] = {}  # def → the defs whose bodies call it (None: module code)
    disqualified = set()
    stack = [(node, None, False) for node in context.tree.body]
    while stack:  # not recursive: a long chain of ``a + b + ...`` nests as deep as it is long
        node, owner, repeats = stack.pop()
        if isinstance(node, ast.Name) and node.id in defs and isinstance(node.ctx, ast.Load):
            disqualified.add(node.id)  # a reference not called here: passed somewhere
        if isinstance(node, ast.Call):
            func, arguments = node.func, [*node.args, *(k.value for k in node.keywords)]
            if isinstance(func, ast.Name) and func.id in defs:
                if repeats:
                    disqualified.add(func.id)
                else:
                    callers.setdefault(func.id, set()).add(owner)
            else:
                stack.append((func, owner, repeats))
            for argument in arguments:
                if not (isinstance(func, ast.Attribute) and func.attr in DATASET_METHODS
                        and isinstance(argument, ast.Name)):
                    stack.append((argument, owner, repeats))
            continue
        if isinstance(node, _DEFS) and owner is None and not repeats:
            stack.extend((child, node.name, False) for child in node.body)
            stack.extend((child, owner, repeats) for child in node.decorator_list)
            continue
        inner = repeats or isinstance(node, _REPEATING)
        stack.extend((child, owner, inner) for child in child_nodes(node))
    found = {name for name in defs - disqualified
             if name in mapped or callers.get(name, {None}) - {None}}
    changed = True
    while changed:  # a def called from one that is not pipeline-only is not either
        changed = False
        for name in list(found):
            if any(caller is not None and caller not in found for caller in callers.get(name, ())):
                found.discard(name)
                changed = True
    return frozenset(found)


_REPEATING = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.For,
              ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp,
              ast.GeneratorExp)


def _returned_signature(context: "FileContext", qualname: str, decorator_line: int) -> bool:
    """The def ``qualname`` (decorated at ``decorator_line``) pins an ``input_signature`` and
    is nested in a function that returns it (alone, in a collection, or its concrete
    function) and never calls it."""
    outer = qualname.rpartition(".")[0]
    if not outer:
        return False
    by_name = context.fact("trace_output.defs_by_qualname", _defs_by_qualname)
    nodes = sorted(by_name.get(qualname, []) + by_name.get(outer, []),
                   key=lambda n: getattr(n, "lineno", 0))
    # (a def of that name in each branch of an ``if`` has the same qualname: the decorator
    # line tells them apart)
    node = next((n for n in nodes if isinstance(n, _DEFS) and n.name == qualname.rpartition(
        ".")[2] and any(d.lineno == decorator_line for d in n.decorator_list)), None)
    enclosing = next((n for n in nodes if isinstance(n, _DEFS) and node is not None
                      and n.lineno < node.lineno <= (n.end_lineno or 0)), None)
    if node is None or enclosing is None or not any(
            isinstance(d, ast.Call) and any(k.arg == "input_signature" for k in d.keywords)
            for d in node.decorator_list if d.lineno == decorator_line):
        return False
    name = node.name
    returned = called = False
    for inner in walk_nodes(enclosing):
        if isinstance(inner, ast.Return) and inner.value is not None:
            # ``return serve``, ``return {"serving_default": serve, ...}``,
            # ``return serve.get_concrete_function()``
            returned = returned or any(isinstance(n, ast.Name) and n.id == name
                                       for n in walk_nodes(inner.value))
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name):
            called = called or inner.func.id == name
    return returned and not called


def _defs_by_qualname(context: "FileContext") -> Dict[str, List[ast.AST]]:
    index = context.graph.index
    found: Dict[str, List[ast.AST]] = {}
    for key, info in index.functions.items():
        node = index.nodes.get(key)
        if node is not None:
            found.setdefault(info.qualname, []).append(node)
    return found
