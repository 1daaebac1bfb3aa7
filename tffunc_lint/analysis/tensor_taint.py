"""Which values of a traced function may be tensors: derived from its inputs or from ops.

A simple intraprocedural taint, in statement order. Its sources are:

- the parameters of a function that TensorFlow traces directly (``@tf.function``, Keras
  ``call``, a ``Dataset.map`` or ``tf.map_fn`` callable …), except a method's ``self``/``cls``,
  ``*args``/``**kwargs``, and parameters that visibly hold Python values (a literal default
  such as ``axis=-1``, a default ``None`` that the function's first statements replace
  with one, ``if f is None: f = [1, 2, 1]``, an ``int``/``float``/``bool``/``str``
  annotation, the Keras mode flag ``training``);
- parameters annotated as tensors (``x: tf.Tensor``), in any traced function. A helper that
  traced code merely calls gets Python numbers and NumPy arrays as often as tensors, so its
  other parameters are not sources;
- the results of TensorFlow operations (``tf.shape(x)``, ``tf.reduce_sum(x)``,
  ``tf.math.*``): in a graph they are always symbolic tensors.

A name assigned from an expression that uses a tainted name is tainted from that statement
on (loop bodies are walked twice, so a name tainted late in a loop is tainted in the whole
loop); the two branches of an ``if`` are walked apart, each from the taint before it, and
joined after it. Static properties break the taint:
``x.shape``, ``x.dtype``, ``x.ndim``, ``x.name``, ``len(x)``, ``isinstance(x, ...)``,
``int(x)``, ``set(x)`` (a tensor is not hashable: a set holds none) … are plain Python
values while tracing, and so are the results of NumPy and
SciPy calls (arrays; a NumPy call on a tensor is reported once, where it happens), of
``tf.nest.map_structure`` with a lambda that returns such values, and of a local lambda that
does
(``shape = lambda d: tf.nest.map_structure(lambda x: list(x.shape), d)``).

:func:`is_tainted` answers for one LibCST expression visited in traced code; the walk of a
function's body is done once and cached through ``FileContext.fact``.
"""

from __future__ import annotations

import ast
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from .lazy_libcst import NodeTypes, cst

from .cst_walk import children
from .names import assigned_names, ast_dotted_name
from .ast_walk import walk_nodes

#: Attributes that are static Python values while tracing (or not tensors at all).
STATIC_ATTRIBUTES = frozenset({
    "shape", "dtype", "ndim", "name", "rank", "device", "graph", "op", "get_shape",
    "as_list", "is_fully_defined", "_keras_mask", "__class__", "__name__", "__len__",
    # A mapping's keys are never tensors: a tf.Tensor is not hashable.
    "keys",
})
#: Calls whose result is a Python value even when given a tensor.
STATIC_CALLS = frozenset({
    "builtins.len", "builtins.isinstance", "builtins.issubclass", "builtins.int",
    "builtins.float", "builtins.bool", "builtins.str", "builtins.repr", "builtins.type",
    "builtins.id", "builtins.hasattr", "builtins.callable", "builtins.hash", "builtins.format",
    "tensorflow.get_static_value", "tensorflow.compat.dimension_value",
    "tensorflow.is_tensor", "tensorflow.executing_eagerly", "tensorflow.TensorShape",
    "tensorflow.as_dtype", "tensorflow.DType",
    # A ``TensorProto`` and the NumPy array read back from one.
    "tensorflow.make_tensor_proto", "tensorflow.make_ndarray",
    # Python file objects and file-system queries: Python values, never tensors.
    "builtins.open", "io.open", "tensorflow.io.gfile.GFile", "tensorflow.io.gfile.exists",
    "tensorflow.io.gfile.glob", "tensorflow.io.gfile.listdir", "tensorflow.io.gfile.isdir",
    "tensorflow.gfile.GFile", "tensorflow.gfile.Open",
    # A set holds no tensor: a tf.Tensor is not hashable (``set(state.keys())``).
    "builtins.set", "builtins.frozenset",
})
#: Methods that answer with a NumPy array or a Python value: a tensor's ``.numpy()`` fails
#: in a graph itself (TFF204), and run eagerly what it gives is no tensor.
_TO_PYTHON_METHODS = frozenset({"numpy", "tolist", "item"})
#: Libraries whose functions answer with NumPy arrays or Python values, never tensors (given
#: a tensor while tracing, they fail where they are called).
_ARRAY_LIBRARIES = ("numpy.", "scipy.")
#: Keras ops that answer with a Python value: ``keras.ops.ndim(x)`` is the static rank.
_KERAS_STATIC_OPS = frozenset({"ndim"})
#: Keras backend functions that answer what a value is (``K.int_shape(x)``: its static
#: shape, a tuple of ints), in every Keras namespace.
_KERAS_BACKEND_STATIC = frozenset({"int_shape", "ndim", "dtype", "is_keras_tensor"})
_KERAS_BACKENDS = frozenset({"keras.backend", "tensorflow.keras.backend", "tf_keras.backend",
                             "tensorflow.python.keras.backend", "keras.src.backend"})
#: Namespaces of TensorFlow whose functions are operations: their results are tensors.
_OP_NAMESPACES = frozenset({
    "tensorflow", "tensorflow.math", "tensorflow.nn", "tensorflow.linalg", "tensorflow.random",
    "tensorflow.signal", "tensorflow.image", "tensorflow.strings", "tensorflow.bitwise",
    "tensorflow.sparse", "tensorflow.ragged", "tensorflow.experimental.numpy",
})
#: Lower-case functions of those namespaces that are not operations.
_NOT_OPS = frozenset({
    "function", "name_scope", "device", "init_scope", "control_dependencies", "print",
    "get_logger", "executing_eagerly", "inside_function", "is_tensor", "get_static_value",
    "as_dtype", "custom_gradient", "recompute_grad", "no_gradient", "variable_creator_scope",
    "group", "no_op", "numpy_function", "py_function", "autograph", "type_spec_from_value",
    "register_tensor_conversion_function", "set_random_seed", "set_seed", "get_seed",
    "get_global_generator", "set_global_generator", "experimental_set_numpy_behavior",
})
_PYTHON_TYPES = frozenset({"int", "float", "bool", "str", "bytes", "complex"})
_OPTIONAL = frozenset({"Optional", "typing.Optional"})
#: ``Union[int, str]``: a value of one of the members.
_UNION = frozenset({"Union", "typing.Union"})
#: Containers whose annotation names what they hold (``List[str]``): the items' kind.
_CONTAINERS = frozenset({"List", "list", "Sequence", "Tuple", "tuple", "Iterable", "Set",
                         "set", "FrozenSet", "frozenset", *(f"typing.{name}" for name in (
                             "List", "Sequence", "Tuple", "Iterable", "Set", "FrozenSet"))})
_LITERALS = NodeTypes("Integer", "Float", "Imaginary", "SimpleString", "ConcatenatedString",
                      "FormattedString")
_COMPREHENSIONS = NodeTypes("ListComp", "SetComp", "GeneratorExp", "DictComp")
_SCOPES = NodeTypes("FunctionDef", "ClassDef")

Resolve = Callable[["cst.BaseExpression"], Optional[str]]


def keras_backend_static(qualified: Optional[str]) -> bool:
    """``qualified`` is a Keras backend function that answers with a Python value."""
    module, _, name = (qualified or "").rpartition(".")
    return name in _KERAS_BACKEND_STATIC and module in _KERAS_BACKENDS


def is_operation(qualified: Optional[str]) -> bool:
    """``qualified`` names a TensorFlow operation, whose result is a tensor in a graph."""
    if not qualified:
        return False
    namespace, _, name = qualified.rpartition(".")
    return (namespace in _OP_NAMESPACES and name[:1].islower() and not name.startswith("_")
            and name not in _NOT_OPS and qualified not in STATIC_CALLS)


# -- expressions --------------------------------------------------------------------------------
def expression_tainted(node: cst.CSTNode, tainted: Set[str], resolve: Resolve) -> bool:
    """``node`` may evaluate to a tensor, given the tainted names."""
    if isinstance(node, cst.Name):
        return node.value in tainted
    if isinstance(node, cst.Attribute):
        return (node.attr.value not in STATIC_ATTRIBUTES
                and expression_tainted(node.value, tainted, resolve))
    if isinstance(node, cst.Call):
        return _call_tainted(node, tainted, resolve)
    if isinstance(node, (cst.Lambda, *_LITERALS)):
        return False
    if isinstance(node, cst.Comparison) and all(
            isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn))
            for c in node.comparisons):
        return False
    if isinstance(node, _COMPREHENSIONS):
        return _comprehension_tainted(node, tainted, resolve)
    return any(expression_tainted(child, tainted, resolve) for child in children(node))


def _comprehension_tainted(node: cst.CSTNode, tainted: Set[str], resolve: Resolve) -> bool:
    """A comprehension holds tensors when its element may be one, given what each clause
    binds: ``[k for k, v in inputs.items()]`` lists Python keys even when the values are
    tensors."""
    inner = set(tainted)
    clause: Optional[cst.CompFor] = node.for_in
    while clause is not None:
        inner = _through_clause(clause, inner, resolve)
        clause = clause.inner_for_in
    elements = (node.key, node.value) if isinstance(node, cst.DictComp) else (node.elt,)
    return any(expression_tainted(element, inner, resolve) for element in elements)


def _through_clause(clause: cst.CompFor, tainted: Set[str], resolve: Resolve) -> Set[str]:
    """The tainted names inside a comprehension clause: its targets hold tensors only as
    far as its iterable may (``iterated_names``)."""
    held = (iterated_names(clause.target, clause.iter, resolve)
            if expression_tainted(clause.iter, tainted, resolve) else ())
    return tainted.difference(assigned_names(clause.target)).union(held)


def _static_lambda(node: cst.BaseExpression, tainted: Set[str], resolve: Resolve) -> bool:
    """A lambda whose result is a Python value even when its parameters are tensors
    (``lambda d: tf.nest.map_structure(lambda x: list(x.shape), d)``)."""
    return isinstance(node, cst.Lambda) and not expression_tainted(
        node.body, tainted | set(_lambda_parameters(node.params)), resolve)


def _call_tainted(node: cst.Call, tainted: Set[str], resolve: Resolve) -> bool:
    func = node.func
    if isinstance(func, cst.Name) and func.value + "()" in tainted:
        return False  # a name bound to a static lambda (see ``_Flow._bind``)
    qualified = resolve(func)
    if qualified == "tensorflow.nest.map_structure" and node.args and _static_lambda(
            node.args[0].value, tainted, resolve):
        return False
    if qualified in STATIC_CALLS or keras_backend_static(qualified) or (
            qualified or "").startswith(_ARRAY_LIBRARIES) or (
            (qualified or "").startswith("keras.")
            and qualified.rpartition(".")[2] in _KERAS_STATIC_OPS):
        return False
    if is_operation(qualified):
        return True
    if isinstance(func, cst.Attribute) and qualified is None:
        if func.attr.value in STATIC_ATTRIBUTES or func.attr.value in _TO_PYTHON_METHODS:
            return False
        if expression_tainted(func.value, tainted, resolve):
            return True
    return any(expression_tainted(arg.value, tainted, resolve) for arg in node.args)


# -- values fixed by the trace ------------------------------------------------------------------
#: Attributes that say what a value is (its static shape, dtype, name, class), not what it
#: holds.
WHAT_IT_IS = frozenset({"shape", "dtype", "rank", "ndim", "name", "__class__", "__name__"})
#: Methods with the same kind of answer; ``keys`` because a tensor is never a mapping key.
_WHAT_IT_IS_METHODS = frozenset({"get_shape", "as_list", "as_shape", "is_fully_defined",
                                 "keys"})
#: Builtins that answer what a value is.
_WHAT_IT_IS_CALLS = frozenset({"builtins.len", "builtins.isinstance", "builtins.issubclass",
                               "builtins.type", "builtins.hasattr", "builtins.callable",
                               "tensorflow.TensorShape", "tensorflow.is_tensor"})
#: Attributes listing the variables or layers an object owns (a Keras model's
#: ``trainable_variables``): the same objects on every call, not values computed by it.
_ITS_STATE_OBJECTS = frozenset({
    "trainable_variables", "non_trainable_variables", "variables", "trainable_weights",
    "non_trainable_weights", "weights", "layers", "submodules",
})
#: Builtins that only rearrange their argument.
_REARRANGING = frozenset({"builtins.sorted", "builtins.list", "builtins.tuple",
                          "builtins.set", "builtins.frozenset"})


def literal(node: Optional[cst.BaseExpression]) -> bool:
    """``True``, ``None``, ``-1``, ``"mean"``: the same value whenever it runs."""
    if isinstance(node, cst.Name):
        return node.value in ("True", "False", "None")
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return isinstance(node.expression, (cst.Integer, cst.Float))
    return isinstance(node, (cst.Integer, cst.Float, cst.SimpleString))


def static_value(node: cst.BaseExpression, resolve: Resolve) -> bool:
    """``node`` computes what values are, not what they hold: static shapes and dtypes
    (``x.shape``, ``{k: t.get_shape() for ...}``), whether a value is None
    (``weights is not None``), its type or length, a mapping's sorted keys, the variables
    or layers an object owns (``model.trainable_variables``). The result is the same on
    every call of one trace and recomputed by each retrace, so keeping it from the trace
    freezes nothing."""
    if isinstance(node, cst.Attribute):
        return node.attr.value in WHAT_IT_IS or node.attr.value in _ITS_STATE_OBJECTS
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _WHAT_IT_IS_METHODS:
            return True
        qualified = resolve(func)
        if qualified in _WHAT_IT_IS_CALLS or keras_backend_static(qualified):
            return True
        return (qualified in _REARRANGING and len(node.args) == 1
                and static_value(node.args[0].value, resolve))
    if isinstance(node, cst.Comparison):
        return all(isinstance(c.operator, (cst.Is, cst.IsNot)) and literal(c.comparator)
                   for c in node.comparisons)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return static_value(node.expression, resolve)
    if isinstance(node, cst.BooleanOperation):
        return all(static_value(side, resolve) or literal(side)
                   for side in (node.left, node.right))
    if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        return static_value(node.elt, resolve)
    if isinstance(node, cst.DictComp):
        return static_value(node.value, resolve)
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return bool(node.elements) and all(
            static_value(e.value, resolve) for e in node.elements)
    if isinstance(node, cst.Dict):
        return bool(node.elements) and all(
            isinstance(e, cst.DictElement) and static_value(e.value, resolve)
            for e in node.elements)
    if isinstance(node, cst.Subscript):
        return static_value(node.value, resolve)
    return False


# -- parameters ---------------------------------------------------------------------------------
def annotation_tree(annotation: Optional[cst.Annotation]) -> Optional[ast.expr]:
    """The ``ast`` form of an annotation, string annotations read as the code they hold."""
    if annotation is None:
        return None
    code = cst.Module(body=[]).code_for_node(annotation.annotation)
    try:
        return read_annotation(ast.parse(code, mode="eval").body)
    except SyntaxError:
        return None


def read_annotation(node: Optional[ast.expr]) -> Optional[ast.expr]:
    """An ``ast`` annotation as code: a string annotation (``"tf.Tensor"``) parsed."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return None
    return node


def python_annotation(annotation: Optional[ast.expr], types: FrozenSet[str] = None) -> bool:
    """``int``, ``float``, ``Optional[int]``, ``bool | None``, ``Union[int, str]`` …: a
    Python value (of one of ``types``, by default the Python scalars and strings; with the
    default, also a container of them, ``List[str]``: it holds no tensor)."""
    containers = _CONTAINERS if types is None else frozenset()
    types = _PYTHON_TYPES if types is None else types
    if isinstance(annotation, ast.Name):
        return annotation.id in types
    if isinstance(annotation, ast.Subscript):
        base = annotation.value
        name = base.id if isinstance(base, ast.Name) else (
            f"typing.{base.attr}" if isinstance(base, ast.Attribute) else "")
        inner = annotation.slice
        members = [m for m in (inner.elts if isinstance(inner, ast.Tuple) else [inner])
                   if not _is_none(m) and not (
                       isinstance(m, ast.Constant) and m.value is Ellipsis)]
        if name in _OPTIONAL or name in _UNION or name in containers:
            # ``Union[str, List[str]]``, ``Tuple[int, ...]``: Python values all through
            return bool(members) and all(
                python_annotation(m, None if containers else types) for m in members)
        return False
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = [side for side in (annotation.left, annotation.right) if not _is_none(side)]
        return bool(sides) and all(python_annotation(side, types) for side in sides)
    return False


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def tensor_annotation(annotation: Optional[ast.expr]) -> bool:
    """``tf.Tensor``, ``Optional[tf.Tensor]`` … (not ``tf.TensorSpec``)."""
    if annotation is None:
        return False
    text = ast.unparse(annotation)
    return "Tensor" in text and "Spec" not in text and "Shape" not in text


#: Keyword parameters that Keras and TensorFlow conventions fill with Python booleans
#: (``training=None``: Keras passes ``True``/``False`` from ``fit``/``predict``).
_MODE_FLAGS = frozenset({"training", "is_training"})


def _python_literal(node: Optional[cst.BaseExpression]) -> bool:
    """A default that is a Python literal other than None: ``-1``, ``False``, ``(1, 2)``."""
    if node is None:
        return False
    if isinstance(node, cst.Name):
        return node.value in ("True", "False")
    if isinstance(node, _LITERALS):
        return True
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.expression, _LITERALS)
    if isinstance(node, (cst.Tuple, cst.List)):
        return all(_python_literal(e.value) or (isinstance(e.value, cst.Name)
                                                and e.value.value == "None")
                   for e in node.elements)
    return False


def _defaulted_in_body(function: cst.FunctionDef) -> Set[str]:
    """Parameters whose default ``None`` the function's first statements replace with a
    Python literal (``if f is None: f = [1, 2, 1]``, StyleGAN's blur kernel): the
    parameter holds values of that kind, as its callers pass them."""
    defaults = {param.name.value for param in (*function.params.params,
                                               *function.params.kwonly_params)
                if isinstance(param.default, cst.Name) and param.default.value == "None"}
    found: Set[str] = set()
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    for statement in body:
        if not (isinstance(statement, cst.If) and statement.orelse is None):
            if isinstance(statement, cst.SimpleStatementLine) and all(
                    isinstance(small, (cst.Expr, cst.Assert)) for small in statement.body):
                continue  # a docstring, an assertion
            break
        test = statement.test
        if not (isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name)
                and test.left.value in defaults and len(test.comparisons) == 1
                and isinstance(test.comparisons[0].operator, cst.Is)
                and isinstance(test.comparisons[0].comparator, cst.Name)
                and test.comparisons[0].comparator.value == "None"):
            break
        lines = (statement.body.body if isinstance(statement.body, cst.IndentedBlock)
                 else [statement.body])
        smalls = [small for line in lines for small in getattr(line, "body", ())]
        if (len(smalls) == 1 and isinstance(smalls[0], cst.Assign)
                and len(smalls[0].targets) == 1
                and isinstance(smalls[0].targets[0].target, cst.Name)
                and smalls[0].targets[0].target.value == test.left.value
                and _python_literal(smalls[0].value)):
            found.add(test.left.value)
        else:
            break
    return found


def tensor_parameters(params: cst.Parameters, is_method: bool, entry: bool) -> Set[str]:
    """The parameters that may hold tensors (see the module docstring); ``entry`` says
    TensorFlow traces the function directly."""
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    if is_method and (params.posonly_params or params.params):
        every = every[1:]
    names = set()
    for param in every:
        annotation = annotation_tree(param.annotation)
        if tensor_annotation(annotation) or (
                entry and not _python_literal(param.default)
                and not python_annotation(annotation)
                and param.name.value not in _MODE_FLAGS):
            names.add(param.name.value)
    return names


# -- statements ---------------------------------------------------------------------------------
class _Flow:
    """The names tainted before each statement of one function, in statement order."""

    def __init__(self, resolve: Resolve):
        self.resolve = resolve
        self.before: Dict[cst.CSTNode, FrozenSet[str]] = {}

    def _mark(self, node: cst.CSTNode, tainted: Set[str]) -> None:
        self.before[node] = self.before.get(node, frozenset()) | frozenset(tainted)

    def suite(self, suite: Optional[cst.CSTNode], tainted: Set[str]) -> None:
        if suite is None:
            return
        if isinstance(suite, (cst.IndentedBlock, cst.SimpleStatementSuite)):
            for statement in suite.body:
                self.statement(statement, tainted)
        elif isinstance(suite, cst.BaseSuite):
            return
        elif isinstance(suite, (cst.Else, cst.Finally, cst.ExceptHandler, cst.MatchCase)):
            self.suite(suite.body, tainted)
        else:
            self.statement(suite, tainted)

    def statement(self, node: cst.CSTNode, tainted: Set[str]) -> None:
        """Walk ``node``, adding to ``tainted`` the names it taints."""
        self._mark(node, tainted)
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                self.statement(small, tainted)
        elif isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            self._assign(node, tainted)
        elif isinstance(node, cst.If):
            # A name tainted in one branch is not tainted in the other: each starts from
            # what holds before the ``if``; both reach the code after it. Where the test
            # says a name is of a kind no tensor is (``isinstance(image, Image.Image)``), it
            # holds no tensor in the body.
            body, orelse = set(tainted) - _not_tensors(node.test, self.resolve), set(tainted)
            self.suite(node.body, body)
            self.suite(node.orelse, orelse)
            tainted |= body | orelse
        elif isinstance(node, (cst.For, cst.While)):
            for _ in range(2):  # names tainted late in the body reach its start
                self._mark(node, tainted)
                if isinstance(node, cst.For) and expression_tainted(
                        node.iter, tainted, self.resolve):
                    tainted.update(iterated_names(node.target, node.iter, self.resolve))
                self.suite(node.body, tainted)
            self.suite(node.orelse, tainted)
        elif isinstance(node, cst.With):
            for item in node.items:
                if item.asname is not None:
                    self._bind(item.asname.name, item.item, tainted)
            self.suite(node.body, tainted)
        elif isinstance(node, cst.Try):
            self.suite(node.body, tainted)
            for handler in node.handlers:
                self.suite(handler, tainted)
            self.suite(node.orelse, tainted)
            self.suite(node.finalbody, tainted)
        elif isinstance(node, cst.Match):
            for case in node.cases:
                self.suite(case, tainted)

    def _assign(self, node: cst.CSTNode, tainted: Set[str]) -> None:
        if isinstance(node, cst.Assign):
            for target in node.targets:
                self._bind(target.target, node.value, tainted)
        elif node.value is not None:
            self._bind(node.target, node.value, tainted)

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression,
              tainted: Set[str]) -> None:
        if expression_tainted(value, tainted, self.resolve):
            tainted.update(assigned_names(target))
        elif isinstance(target, cst.Name) and _static_lambda(value, tainted, self.resolve):
            # Calling it gives a Python value: marked as ``name()``, never a variable name.
            tainted.add(target.value + "()")


#: Types an ``isinstance`` test may name whose instances can hold a tensor or be one.
_MAY_HOLD_TENSORS = frozenset({
    "builtins.object", "builtins.list", "builtins.tuple", "builtins.dict", "builtins.set",
    "builtins.frozenset"})
_ABSTRACT_MODULES = ("typing.", "collections.", "abc.")


def _not_tensors(test: cst.BaseExpression, resolve: Resolve) -> Set[str]:
    """Names ``test`` proves to hold no tensor where it is true: ``isinstance(x, T)``, alone
    or joined by ``and``, with ``T`` (each of a tuple of types) a type no tensor is an
    instance of: a Python scalar or string, a NumPy array, a class of another library or
    of the project; not a container, nor an abstract or TensorFlow or Keras type."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _not_tensors(test.left, resolve) | _not_tensors(test.right, resolve)
    if not (isinstance(test, cst.Call) and resolve(test.func) == "builtins.isinstance"
            and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name)):
        return set()
    kinds = test.args[1].value
    kinds = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
    for kind in kinds:
        name = resolve(kind)
        if not name or name in _MAY_HOLD_TENSORS or name.startswith(_ABSTRACT_MODULES) or (
                name.partition(".")[0] in ("tensorflow", "keras", "tf_keras")):
            return set()
    return {test.args[0].value.value}


def iterated_names(target: cst.BaseExpression, iterable: cst.BaseExpression,
                   resolve: Resolve) -> List[str]:
    """The names of a loop's ``target`` that may hold a tensor when ``iterable`` may hold
    some: not the keys of a mapping (``for k, v in inputs.items()``, ``for k in d.keys()``:
    a tensor is not hashable, a key is a Python value), nor ``enumerate``'s counter."""
    element = None
    if isinstance(iterable, cst.Call) and not iterable.args:
        method = iterable.func.attr.value if isinstance(iterable.func, cst.Attribute) else None
        if method == "keys":
            return []
        if method == "items":
            element = 1
    elif (isinstance(iterable, cst.Call) and iterable.args
          and resolve(iterable.func) == "builtins.enumerate"):
        element = 1
    if element is not None and isinstance(target, (cst.Tuple, cst.List)) and len(
            target.elements) == 2:
        return list(assigned_names(target.elements[element].value))
    return list(assigned_names(target))


# -- queries from a rule ------------------------------------------------------------------------
def _lambda_parameters(params: cst.Parameters) -> tuple:
    return tuple(p.name.value for p in (*params.posonly_params, *params.params,
                                        *params.kwonly_params))


def _own_lambda(ancestors: Sequence[cst.CSTNode], function: ast.AST) -> Optional[cst.Lambda]:
    """The LibCST lambda of a traced lambda: the innermost with the same parameters."""
    own = tuple(a.arg for a in (*function.args.posonlyargs, *function.args.args,
                                *function.args.kwonlyargs))
    for node in reversed(ancestors):
        if isinstance(node, cst.Lambda) and _lambda_parameters(node.params) == own:
            return node
    return None


def _filled_with_literals(context, node: cst.FunctionDef) -> FrozenSet[str]:
    """Of a Keras class's ``call``, the parameters after the inputs that every call of the
    module's objects of that class fills with a Python literal (``self.conv(x, 3)``, where
    ``self.conv = ConvBlock(...)``): what its callers pass, not a tensor."""
    if node.name.value != "call":
        return frozenset()
    info = context.graph.index.functions.get(context.function.key)
    if info is None or info.class_qualname is None:
        return frozenset()
    return context.fact("literal_call_arguments", _literal_call_arguments).get(
        info.class_qualname, frozenset())


def _literal_call_arguments(context) -> Dict[str, FrozenSet[str]]:
    """Class → the parameters of its ``call`` (see ``_filled_with_literals``) that the
    module's calls of its objects, one or more, all fill with a Python literal: objects that
    an attribute of ``self`` holds (``self.conv = ConvBlock(8)``), or a name a module-level
    statement or function binds, each bound to objects of that class only."""
    tree = context.tree
    if tree is None:
        return {}
    classes = {s.name: s for s in tree.body if isinstance(s, ast.ClassDef)}
    if not classes:
        return {}
    holds: Dict[str, Set[Optional[str]]] = {}  # "Holder.attr" / "scope:name" → classes
    uses: List[Tuple[str, ast.Call]] = []
    for statement in tree.body:
        is_class = isinstance(statement, ast.ClassDef)
        scope = f"{statement.name}:" if isinstance(statement, _AST_FUNCTIONS) else ""
        for node in ast.walk(statement):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
                made = (value.func.id if isinstance(value, ast.Call)
                        and isinstance(value.func, ast.Name) and value.func.id in classes
                        else None)
                if is_class and isinstance(target, ast.Attribute) and isinstance(
                        target.value, ast.Name) and target.value.id == "self":
                    holds.setdefault(f"{statement.name}.{target.attr}", set()).add(made)
                elif not is_class and isinstance(target, ast.Name):
                    holds.setdefault(scope + target.id, set()).add(made)
            elif isinstance(node, ast.Call):
                func = node.func
                if is_class and isinstance(func, ast.Attribute) and isinstance(
                        func.value, ast.Name) and func.value.id == "self":
                    uses.append((f"{statement.name}.{func.attr}", node))
                elif not is_class and isinstance(func, ast.Name):
                    uses.append((scope + func.id, node))
    calls: Dict[str, List[ast.Call]] = {}
    for key, call in uses:
        made = holds.get(key, set())
        if len(made) == 1 and None not in made:
            calls.setdefault(next(iter(made)), []).append(call)
    found: Dict[str, FrozenSet[str]] = {}
    for name, made_calls in calls.items():
        method = next((item for item in classes[name].body if isinstance(item, ast.FunctionDef)
                       and item.name == "call"), None)
        if method is None or method.args.vararg or method.args.kwarg or any(
                isinstance(a, ast.Starred) for call in made_calls for a in call.args) or any(
                k.arg is None for call in made_calls for k in call.keywords):
            continue  # ``self.block(x, *sizes)``: where each value goes is not known
        positional = [a.arg for a in (*method.args.posonlyargs, *method.args.args)][1:]
        literal = set()
        for slot, parameter in enumerate(positional[1:], start=1):
            given = [next((k.value for k in call.keywords if k.arg == parameter),
                          call.args[slot] if slot < len(call.args) else None)
                     for call in made_calls]
            if all(value is not None and _python_literal_ast(value) for value in given):
                literal.add(parameter)
        if literal:
            found[name] = frozenset(literal)
    return found


_AST_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _python_literal_ast(node: ast.expr) -> bool:
    """A Python number, string or boolean written out, or a tuple or list of them."""
    if isinstance(node, ast.Constant):
        return node.value is not None and not isinstance(node.value, type(Ellipsis))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _python_literal_ast(node.operand)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_python_literal_ast(e) for e in node.elts)
    return False


def _is_method(context, node: cst.FunctionDef) -> bool:
    info = context.graph.index.functions.get(context.function.key)
    if info is None or info.class_qualname is None:
        return False
    if info.qualname != f"{info.class_qualname}.{node.name.value}":
        return False
    return not any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod"
                   for d in node.decorators)


class _FunctionTaint:
    """The taint of one traced function: its sources and its statement-ordered flow."""

    def __init__(self, scope: cst.CSTNode, sources: Set[str], flow: Optional[_Flow]):
        self.scope, self.sources, self.flow = scope, sources, flow

    def at(self, ancestors: Sequence[cst.CSTNode]) -> Set[str]:
        """Names tainted where the last of ``ancestors`` is."""
        if self.flow is not None:
            for node in reversed(ancestors):
                if node is self.scope:
                    break
                state = self.flow.before.get(node)
                if state is not None:
                    return set(state)
        return set(self.sources)


def _numpy_helpers(context) -> FrozenSet[str]:
    """Module-level functions that return NumPy values whatever they are given (every
    ``return`` is a NumPy call, an attribute or method of one, arithmetic of those, or a
    literal: kapre's ``_rdft_matrix(n)``): calling one gives a Python value, not a tensor."""
    tree = context.tree
    if tree is None:
        return frozenset()

    def numpy_valued(node: ast.AST, names: Set[str]) -> bool:
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            return node.id in names
        if isinstance(node, ast.Attribute):
            return numpy_valued(node.value, names)
        if isinstance(node, ast.Call):
            dotted = ast_dotted_name(node.func)
            qualified = context.names.resolve(dotted, line=node.lineno) if dotted else None
            if qualified and qualified.startswith("numpy."):
                return True
            return isinstance(node.func, ast.Attribute) and numpy_valued(node.func.value, names)
        if isinstance(node, ast.BinOp):
            return numpy_valued(node.left, names) and numpy_valued(node.right, names)
        if isinstance(node, ast.UnaryOp):
            return numpy_valued(node.operand, names)
        return False

    found = set()
    for statement in tree.body:
        if not isinstance(statement, ast.FunctionDef) or statement.decorator_list:
            continue
        assigned: Dict[str, List[ast.AST]] = {}
        returns: List[Optional[ast.AST]] = []
        for node in walk_nodes(statement):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                 ast.ClassDef)) and node is not statement:
                break  # nested scopes: too much to follow
            if isinstance(node, ast.Return):
                returns.append(node.value)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    for name in walk_nodes(target):
                        if isinstance(name, ast.Name):
                            assigned.setdefault(name.id, []).append(
                                node.value if target is name else None)
        else:
            names: Set[str] = set()
            changed = True
            while changed:  # names bound only to NumPy values, in any order
                changed = False
                for name, values in assigned.items():
                    if name not in names and all(v is not None and numpy_valued(v, names)
                                                 for v in values):
                        names.add(name)
                        changed = True
            if returns and all(r is not None and numpy_valued(r, names) for r in returns):
                found.add(statement.name)
    return frozenset(found)


def _function_taint(context, parameters: bool = True) -> Optional[_FunctionTaint]:
    function = context.function
    if function is None or function.node is None:
        return None
    scope: Optional[cst.CSTNode]
    if isinstance(function.node, ast.Lambda):
        scope = _own_lambda(context.ancestors, function.node)
    else:
        scope = next((a for a in reversed(context.ancestors) if isinstance(a, cst.FunctionDef)),
                     None)
    if scope is None:
        return None
    cache: Dict[object, _FunctionTaint] = context.tree_fact("tensor_taint", lambda _: {})
    cached = cache.get((function.key, parameters))
    if cached is not None and cached.scope is scope:
        return cached
    entry = function.reason.via is None and parameters
    if isinstance(scope, cst.Lambda):
        taint = _FunctionTaint(scope, tensor_parameters(scope.params, False, entry), None)
    else:
        sources = tensor_parameters(scope.params, _is_method(context, scope), entry) - (
            _defaulted_in_body(scope)) - _filled_with_literals(context, scope)
        flow = _Flow(context.qualified_name)
        helpers = context.fact("numpy_helpers", _numpy_helpers)
        flow.suite(scope.body, set(sources) | {name + "()" for name in helpers})
        taint = _FunctionTaint(scope, sources, flow)
    cache[(function.key, parameters)] = taint
    return taint


def _enclosing_scopes(ancestors: Sequence[cst.CSTNode], scope: cst.CSTNode
                      ) -> List[cst.CSTNode]:
    """Lambdas and comprehension clauses that bind names where the visited node is, between
    the traced function and the node, outermost first."""
    inner: List[cst.CSTNode] = []
    for node in reversed(ancestors):
        if node is scope or isinstance(node, _SCOPES):
            break
        inner.append(node)
    path = list(reversed(inner))
    found: List[cst.CSTNode] = []
    for index, node in enumerate(path):
        child = path[index + 1] if index + 1 < len(path) else None
        if isinstance(node, (cst.Lambda, cst.CompFor)):
            found.append(node)
        elif isinstance(node, _COMPREHENSIONS) and child is not node.for_in:
            clause: Optional[cst.CompFor] = node.for_in
            while clause is not None:  # the element sees every clause
                found.append(clause)
                clause = clause.inner_for_in
    return found


def is_tainted(context, node: cst.BaseExpression, parameters: bool = True) -> bool:
    """``node``, visited now in traced code, may be a tensor: it derives from the traced
    function's inputs or from a TensorFlow operation. ``parameters``: whether the inputs of
    a directly traced function count (else only those annotated as tensors)."""
    taint = _function_taint(context, parameters)
    resolve = context.qualified_name
    if taint is None:
        return expression_tainted(node, set(), resolve)
    tainted = taint.at(context.ancestors)
    for scope in _enclosing_scopes(context.ancestors, taint.scope):
        if isinstance(scope, cst.Lambda):
            tainted.difference_update(_lambda_parameters(scope.params))
            continue
        tainted = _through_clause(scope, tainted, resolve)
    return expression_tainted(node, tainted, resolve)
