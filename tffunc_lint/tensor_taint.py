"""Which values of a traced function may be tensors: those derived from its parameters.

A simple intraprocedural, flow-insensitive taint. A traced function's parameters hold tensors
(``self``/``cls`` of a method, ``*args``/``**kwargs``, and parameters that visibly hold
Python values do not: a literal default such as ``axis=-1``, an ``int``/``float``/``bool``/
``str`` annotation). A name assigned from an expression that uses a tainted name is tainted
too. Static properties break the taint: ``x.shape``, ``x.dtype``, ``x.ndim``, ``x.name``,
``len(x)``, ``isinstance(x, ...)``, ``int(x)`` … are plain Python values while tracing, and so
are the results of NumPy calls (a NumPy call on a tensor is reported once, where it happens).

The result is a set of names per function, computed once on the ``ast`` tree and shared by
the rules through ``FileContext.fact``; :func:`is_tainted` evaluates one LibCST expression
against it, taking lambdas and comprehensions around the expression into account.
"""

from __future__ import annotations

import ast
from typing import Callable, Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

#: Attributes that are static Python values while tracing (or not tensors at all).
STATIC_ATTRIBUTES = frozenset({
    "shape", "dtype", "ndim", "name", "rank", "device", "graph", "op", "get_shape",
    "as_list", "is_fully_defined", "_keras_mask", "__class__", "__name__", "__len__",
})
#: Calls whose result is a Python value even when given a tensor.
STATIC_CALLS = frozenset({
    "builtins.len", "builtins.isinstance", "builtins.issubclass", "builtins.int",
    "builtins.float", "builtins.bool", "builtins.str", "builtins.repr", "builtins.type",
    "builtins.id", "builtins.hasattr", "builtins.callable", "builtins.hash", "builtins.format",
    "tensorflow.get_static_value", "tensorflow.compat.dimension_value",
    "tensorflow.is_tensor", "tensorflow.executing_eagerly", "tensorflow.TensorShape",
    "tensorflow.as_dtype", "tensorflow.DType",
})
_PYTHON_TYPES = frozenset({"int", "float", "bool", "str", "bytes", "complex"})
_OPTIONAL = frozenset({"Optional", "typing.Optional"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)

Resolve = Callable[[str], Optional[str]]


# -- the names of one function ------------------------------------------------------------------
def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _python_annotation(annotation: Optional[ast.expr]) -> bool:
    """``int``, ``float``, ``Optional[int]``, ``bool`` …: the parameter holds a Python value."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return False
    if isinstance(annotation, ast.Name):
        return annotation.id in _PYTHON_TYPES
    if isinstance(annotation, ast.Subscript):
        base = annotation.value
        name = base.id if isinstance(base, ast.Name) else (
            f"typing.{base.attr}" if isinstance(base, ast.Attribute) else "")
        return name in _OPTIONAL and _python_annotation(annotation.slice)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = (annotation.left, annotation.right)
        return all(_python_annotation(side) or _is_none(side) for side in sides)
    return False


def _python_literal(node: Optional[ast.expr]) -> bool:
    """A default that is a Python literal other than None: ``-1``, ``False``, ``(1, 2)``."""
    if node is None or _is_none(node):
        return False
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return True
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_python_literal(e) or _is_none(e) for e in node.elts)
    return False


def tensor_parameters(function: ast.AST, is_method: bool) -> FrozenSet[str]:
    """The parameters that may hold tensors."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults: List[Optional[ast.expr]] = [None] * (len(positional) - len(args.defaults))
    defaults += list(args.defaults)
    pairs = list(zip(positional, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults))
    if is_method and positional:
        pairs = pairs[1:]
    return frozenset(arg.arg for arg, default in pairs
                     if not _python_literal(default) and not _python_annotation(arg.annotation))


def _is_method(function: ast.AST, class_qualname: Optional[str], qualname: str) -> bool:
    if class_qualname is None or qualname != f"{class_qualname}.{getattr(function, 'name', '')}":
        return False
    return not any(isinstance(d, ast.Name) and d.id == "staticmethod"
                   for d in getattr(function, "decorator_list", ()))


def _own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """Nodes of the function's own scope (not of nested functions, classes or lambdas)."""
    body = function.body if isinstance(function.body, list) else [function.body]
    stack = list(body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            continue
        stack.extend(ast.iter_child_nodes(node))


def _bindings(function: ast.AST) -> List[Tuple[ast.expr, ast.expr]]:
    """(target, value) pairs of the function's own assignments, loops and with-items."""
    pairs: List[Tuple[ast.expr, ast.expr]] = []
    for node in _own_nodes(function):
        if isinstance(node, ast.Assign):
            pairs.extend((target, node.value) for target in node.targets)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value:
            pairs.append((node.target, node.value))
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            pairs.append((node.target, node.iter))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            pairs.extend((item.optional_vars, item.context_expr) for item in node.items
                         if item.optional_vars is not None)
    return pairs


def _target_names(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _target_names(element)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)


def tainted_names(function: ast.AST, is_method: bool, resolve: Resolve) -> FrozenSet[str]:
    """Names of ``function`` that may hold tensors derived from its parameters."""
    tainted: Set[str] = set(tensor_parameters(function, is_method))
    pairs = [(list(_target_names(target)), value) for target, value in _bindings(function)]
    changed = True
    while changed:
        changed = False
        for names, value in pairs:
            if names and not tainted.issuperset(names) and expression_tainted(
                    value, tainted, resolve):
                tainted.update(names)
                changed = True
    return frozenset(tainted)


def _ast_dotted(node: ast.expr) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def expression_tainted(node: ast.AST, tainted: Set[str], resolve: Resolve) -> bool:
    """``node`` may evaluate to a tensor derived from a tainted name."""
    if isinstance(node, ast.Name):
        return node.id in tainted
    if isinstance(node, ast.Attribute):
        return (node.attr not in STATIC_ATTRIBUTES
                and expression_tainted(node.value, tainted, resolve))
    if isinstance(node, ast.Call):
        func = node.func
        dotted = _ast_dotted(func)
        qualified = resolve(dotted) if dotted else None
        if qualified in STATIC_CALLS or (qualified or "").startswith("numpy."):
            return False
        if isinstance(func, ast.Attribute):
            if func.attr in STATIC_ATTRIBUTES:
                return False
            if expression_tainted(func.value, tainted, resolve):
                return True
        arguments = [*node.args, *(k.value for k in node.keywords)]
        return any(expression_tainted(a, tainted, resolve) for a in arguments)
    if isinstance(node, (ast.Lambda, ast.Constant, ast.JoinedStr)):
        return False
    if isinstance(node, ast.Compare) and all(
            isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
        return False
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        return any(expression_tainted(g.iter, tainted, resolve) for g in node.generators)
    return any(expression_tainted(child, tainted, resolve)
               for child in ast.iter_child_nodes(node))


# -- queries from a rule ------------------------------------------------------------------------
def _resolver(context, local_names: FrozenSet[str]) -> Resolve:
    return lambda dotted: context.names.resolve(dotted, local_names)


def _function_taint(context) -> FrozenSet[str]:
    """Tainted names of the traced function being visited (cached per file and function)."""
    function = context.function
    if function is None or function.node is None:
        return frozenset()
    cache: Dict[object, FrozenSet[str]] = context.fact("tensor_taint", lambda _: {})
    if function.key not in cache:
        info = context.graph.index.functions.get(function.key)
        is_method = info is not None and _is_method(function.node, info.class_qualname,
                                                    info.qualname)
        resolve = _resolver(context, function.local_names)
        cache[function.key] = tainted_names(function.node, is_method, resolve)
    return cache[function.key]


def _to_ast(node: cst.BaseExpression) -> Optional[ast.expr]:
    code = cst.Module(body=[]).code_for_node(node)
    try:
        return ast.parse(f"(\n{code}\n)", mode="eval").body
    except (SyntaxError, ValueError):
        return None


def _lambda_parameters(params: cst.Parameters) -> Tuple[str, ...]:
    return tuple(p.name.value for p in (*params.posonly_params, *params.params,
                                        *params.kwonly_params))


def _enclosing_scopes(ancestors: Sequence[cst.CSTNode], function: ast.AST
                      ) -> List[cst.CSTNode]:
    """Lambdas and comprehension clauses around the visited node, outermost first, up to
    the traced function (a def, or a lambda handed to a graph API)."""
    own = None
    if isinstance(function, ast.Lambda):
        own = tuple(a.arg for a in (*function.args.posonlyargs, *function.args.args,
                                    *function.args.kwonlyargs))
    found: List[cst.CSTNode] = []
    for node in reversed(ancestors):
        if isinstance(node, cst.FunctionDef):
            break
        if isinstance(node, cst.Lambda) and _lambda_parameters(node.params) == own:
            break
        if isinstance(node, (cst.Lambda, cst.CompFor)):
            found.append(node)
    return list(reversed(found))


def _cst_target_names(target: cst.BaseExpression) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _cst_target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _cst_target_names(target.value)


def is_tainted(context, node: cst.BaseExpression) -> bool:
    """``node``, visited now in traced code, may be a tensor derived from the parameters of
    the traced function."""
    tainted = set(_function_taint(context))
    if not tainted:
        return False
    resolve = _resolver(context, context.local_names)
    for scope in _enclosing_scopes(context.ancestors, context.function.node):
        if isinstance(scope, cst.Lambda):
            tainted.difference_update(_lambda_parameters(scope.params))
            continue
        iterable = _to_ast(scope.iter)
        names = set(_cst_target_names(scope.target))
        if iterable is not None and expression_tainted(iterable, tainted, resolve):
            tainted.update(names)
        else:
            tainted.difference_update(names)
    expression = _to_ast(node)
    return expression is not None and expression_tainted(expression, tainted, resolve)
