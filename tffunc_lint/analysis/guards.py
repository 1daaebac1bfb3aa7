"""What an ``if`` test says about the code it guards.

Two questions, asked of ``ast`` tests by the index (for call edges) and, through the same
code, by the rules (for the node they are about to report):

* **Is the guarded code traced at all?** ``tf.executing_eagerly()`` is False while
  ``tf.function`` traces, so the body of ``if tf.executing_eagerly():`` runs only eagerly. The
  same holds for tests that can only be true of eager or non-TensorFlow values:
  ``hasattr(x, "numpy")`` (symbolic tensors have no ``numpy``), ``isinstance(x, np.ndarray)``,
  a PyTorch type check, or a Keras backend that is not TensorFlow
  (``keras.config.backend() == "jax"``). :meth:`GuardReader.untraced_if` answers "when the test
  has this truth value, nothing is being traced" as a :data:`Condition`: certainly, never,
  or *if a project predicate behaves so* (``if in_tf_function():`` where
  ``def in_tf_function(): return not tf.executing_eagerly()``), which only the project-wide
  call graph can settle.
* **Is it one-time initialisation?** ``if self.table is None:``, ``if not self.built:``,
  ``if not hasattr(self, "table"):`` guard state that is set once, on the first trace (the
  documented singleton pattern). :func:`init_attributes` names the attributes such a test
  checks.
"""

from __future__ import annotations

import ast
import functools
import operator
import re
from typing import (AbstractSet, Callable, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple,
                    Union)

from .names import ast_dotted_name
from .ast_walk import child_nodes
from .patterns import lazy_compile

#: A predicate's polarity: EAGER — its result being true means nothing is traced;
#: GRAPH — its result being false means nothing is traced.
EAGER, GRAPH = "eager", "graph"

#: True: certainly untraced. A tuple of ``(callee, polarity)`` alternatives: untraced if any
#: callee is a predicate of that polarity. The empty tuple: no such knowledge.
Condition = Union[bool, Tuple[Tuple[object, str], ...]]
NEVER: Condition = ()

Resolve = Callable[[str], Optional[str]]
#: What a no-argument call's callee is, for the call graph to resolve later (or None).
Callee = Callable[[ast.expr], Optional[object]]

_GRAPH_CALLS = frozenset({"tensorflow.inside_function"})
#: Library predicates: true only when nothing is traced (Grain runs plain Python workers).
EAGER_CALLS = frozenset({
    "keras.src.utils.backend_utils.in_grain_data_pipeline",
    "keras.utils.backend_utils.in_grain_data_pipeline",
})
_NOT_TENSORFLOW_TYPES = ("numpy.ndarray", "numpy.generic", "torch.", "jax.")


#: ``tf.is_tensor(x)``: true for every tensor a trace makes.
_TENSOR_TESTS = frozenset({"tensorflow.is_tensor", "tensorflow.debugging.is_tensor"})
_TENSOR_TYPES = frozenset({"tensorflow.Tensor", "tensorflow.python.framework.ops.Tensor"})


def is_executing_eagerly(qualified: Optional[str]) -> bool:
    """``tf.executing_eagerly`` under any TensorFlow spelling
    (``tensorflow.python.eager.context.executing_eagerly``)."""
    return bool(qualified) and qualified.startswith("tensorflow.") and qualified.endswith(
        ".executing_eagerly")


def _flip(polarity: str) -> str:
    return GRAPH if polarity == EAGER else EAGER


def _either(first: Condition, second: Condition) -> Condition:
    """Untraced when either condition holds."""
    if first is True or second is True:
        return True
    return tuple(first) + tuple(second)


def _both(first: Condition, second: Condition) -> Condition:
    """Untraced only when both hold: known only when one of them is certain."""
    if first is True:
        return second
    if second is True:
        return first
    return NEVER


def _certain(flag: bool) -> Condition:
    return True if flag else NEVER


def _string(node: ast.expr) -> Optional[str]:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


class GuardReader:
    """Reads tests with one module's names; ``callee`` turns a predicate call into a target."""

    def __init__(self, resolve: Resolve, callee: Optional[Callee] = None,
                 aliases: Optional[Dict[str, Optional[ast.expr]]] = None,
                 off_flags: AbstractSet[str] = frozenset()):
        self.resolve = resolve
        self.callee = callee
        self.aliases = aliases if aliases is not None else {}
        """Local names bound once to a test (``use_tf = self._use_tf_workflow()``)."""
        self.off_flags = off_flags
        """Tests never true while anything is traced: module flags that are never true
        (``ModuleIndex.off_flags``), not shadowed here, and the attributes that hold Keras's
        eager setting (``ModuleIndex.eager_settings``), also read through a longer chain
        (``self.params.x`` for ``params.x``)."""
        self._settings = tuple("." + flag for flag in off_flags if "." in flag)

    def _qualified(self, node: ast.expr) -> Optional[str]:
        dotted = ast_dotted_name(node)
        return self.resolve(dotted) if dotted else None

    def _fold(self, test: ast.expr, value: bool, term, either, both):
        """What ``term`` says of ``test`` having the truth ``value``, read through ``not``,
        names bound once to a test, and ``and``/``or``: ``a and b`` is true when both are,
        false when either is (and the other way round for ``or``), so ``either`` combines
        the answers of terms any one of which decides, ``both`` those that must all hold."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self._fold(test.operand, not value, term, either, both)
        if isinstance(test, ast.Name) and self.aliases.get(test.id) is not None:
            alias = self.aliases[test.id]
            self.aliases[test.id] = None  # ``a = b or x; b = a and y`` must not loop
            try:
                return self._fold(alias, value, term, either, both)
            finally:
                self.aliases[test.id] = alias
        flag = _compared_to_bool(test)
        if flag is not None:  # ``if flag == True:``, ``if flag is False:``
            return self._fold(flag[0], value == flag[1], term, either, both)
        if isinstance(test, ast.BoolOp):
            answers = [self._fold(v, value, term, either, both) for v in test.values]
            return functools.reduce(
                either if isinstance(test.op, ast.And) == value else both, answers)
        return term(test, value)

    def untraced_if(self, test: ast.expr, value: bool) -> Condition:
        """When ``test`` evaluates to ``value``, is nothing being traced?"""
        return self._fold(test, value, self._untraced_term, _either, _both)

    def _untraced_term(self, test: ast.expr, value: bool) -> Condition:
        if value and (test.__class__ is ast.Name and test.id in self.off_flags
                      or test.__class__ is ast.Constant and not test.value
                      or test.__class__ is ast.Attribute and self._eager_setting(test)):
            # ``if DEBUG:`` of a flag that is never true, ``if 0:``: never runs;
            # ``if self.run_eagerly:``: runs only when Keras runs the model eagerly
            return True
        if isinstance(test, ast.Call):
            return self._call(test, value)
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            return self._backend_comparison(test, value)
        return NEVER

    def _eager_setting(self, test: ast.Attribute) -> bool:
        """``test`` holds Keras's eager setting: an attribute named ``run_eagerly``
        (``self.run_eagerly``), or one the module hands Keras as the setting, read as it
        was handed or through a longer chain (see ``off_flags``)."""
        if test.attr == "run_eagerly":
            return True
        dotted = ast_dotted_name(test)
        return dotted is not None and (dotted in self.off_flags
                                       or any(map(dotted.endswith, self._settings)))

    def non_tensor_if(self, test: ast.expr, value: bool) -> bool:
        """When ``test`` evaluates to ``value``, some value it checks is certainly not a
        TensorFlow tensor: ``not tf.is_tensor(x)``, the ``else`` of
        ``isinstance(x, tf.Tensor)``, or a name bound once to such a test. Code there is
        written for Python and NumPy input (``x.numpy()`` of a result made from a NumPy
        argument), not for the tensors a trace gets; unlike ``untraced_if``, it may still
        run while tracing (a Python list passed down), so only rules about tensor values
        ask it."""
        return self._fold(test, value, self._non_tensor_term, operator.or_, operator.and_)

    def _non_tensor_term(self, test: ast.expr, value: bool) -> bool:
        if value or not isinstance(test, ast.Call) or test.keywords:
            return False
        qualified = self._qualified(test.func)
        if qualified in _TENSOR_TESTS and len(test.args) == 1:
            return True
        if qualified == "builtins.isinstance" and len(test.args) == 2:
            kind = test.args[1]
            kinds = kind.elts if isinstance(kind, ast.Tuple) else [kind]
            names = [self._qualified(k) or "" for k in kinds]
            return bool(names) and all(n in _TENSOR_TYPES for n in names)
        return False

    def excluded(self, test: ast.expr, known_false: Sequence[ast.expr]) -> bool:
        """Code under ``if <test>:`` after ``if <exit test>: return``: the exit test is known
        false there, so if all its other terms are among ``test``'s, one that is false only
        outside tracing must be (``if not tf.executing_eagerly() and tf.is_tensor(x):
        return ...`` then ``if tf.is_tensor(x): x.numpy()``)."""
        if not known_false:
            return False
        terms = None
        for exit_test in known_false:
            conjuncts = _conjuncts(exit_test)
            # Most exit tests have no term false only outside tracing: then none can be
            # left over, and comparing terms (``ast.dump`` of each, slow on long ones) is
            # not needed.
            if not any(self.untraced_if(term, False) is True for term in conjuncts):
                continue
            if terms is None:
                terms = {ast.dump(term) for term in _conjuncts(test)}
            rest = [t for t in conjuncts if ast.dump(t) not in terms]
            if rest and all(self.untraced_if(term, False) is True for term in rest):
                return True
        return False

    def _call(self, call: ast.Call, value: bool) -> Condition:
        qualified = self._qualified(call.func)
        if not call.args and not call.keywords:
            if (isinstance(call.func, ast.Attribute)
                    and call.func.attr in ("executing_eagerly", "inside_function")
                    and not (qualified or "").startswith("tensorflow.")):
                # ``tf.executing_eagerly()`` where ``tf`` is bound by code the imports do not
                # tell (``tf = try_import_tensorflow()``, re-exported by a project module):
                # the name is TensorFlow's.
                qualified = f"tensorflow.{call.func.attr}"
            if qualified in EAGER_CALLS:
                return _certain(value)
            if qualified and qualified.startswith("tensorflow."):
                if is_executing_eagerly(qualified):
                    return _certain(value)
                if qualified in _GRAPH_CALLS:
                    return _certain(not value)
                return NEVER
            callee = self.callee(call.func) if self.callee else None
            if callee is not None:
                return ((callee, EAGER if value else GRAPH),)
            return NEVER
        if not value or len(call.args) != 2:
            return NEVER
        if qualified == "builtins.hasattr":
            return _certain(_string(call.args[1]) == "numpy")
        if qualified == "builtins.isinstance":
            kinds = call.args[1].elts if isinstance(call.args[1], ast.Tuple) else [call.args[1]]
            names = [self._qualified(kind) or "" for kind in kinds]
            return _certain(bool(names)
                            and all(n.startswith(_NOT_TENSORFLOW_TYPES) for n in names))
        return NEVER

    def _backend_comparison(self, test: ast.Compare, value: bool) -> Condition:
        """``keras.config.backend() == "jax"``, ``!= "tensorflow"``, ``in ("jax", "torch")``
        and ``"torch.Tensor" in str(type(x))``."""
        operator, right = test.ops[0], test.comparators[0]
        left = test.left
        if isinstance(operator, (ast.In, ast.NotIn)) and (_string(left) or "").startswith(
                ("torch", "jax")):
            inner = right.args[0] if isinstance(right, ast.Call) and right.args else None
            if (isinstance(right, ast.Call) and self._qualified(right.func) == "builtins.str"
                    and isinstance(inner, ast.Call)
                    and self._qualified(inner.func) == "builtins.type"):
                return _certain(value == isinstance(operator, ast.In))
            return NEVER
        if not (isinstance(left, ast.Call) and not left.args):
            return NEVER
        qualified = self._qualified(left.func) or ""
        if not (qualified.startswith("keras.") and qualified.endswith(".backend")):
            return NEVER
        if isinstance(operator, (ast.Eq, ast.NotEq)) and _string(right) is not None:
            names: Sequence[Optional[str]] = [_string(right)]
            positive = isinstance(operator, ast.Eq)
        elif (isinstance(operator, (ast.In, ast.NotIn))
              and isinstance(right, (ast.Tuple, ast.List, ast.Set))):
            names = [_string(e) for e in right.elts]
            positive = isinstance(operator, ast.In)
            if None in names:
                return NEVER
        else:
            return NEVER
        # The backend is one of ``names`` (positive) or none of them.
        tensorflow_named = "tensorflow" in names
        if positive == value:
            return _certain(not tensorflow_named)
        return _certain(tensorflow_named)

    def predicate_polarity(self, function: ast.AST) -> Optional[Tuple]:
        """A function whose result tells whether code is traced, e.g.
        ``def in_tf_function(): return not tf.executing_eagerly()`` (GRAPH) or
        ``def eager(): return tf.executing_eagerly()`` (EAGER).

        The answer is ``(polarity,)`` when this module settles it, ``(polarity, wanted,
        callee)`` when it has that polarity if the project predicate it delegates to has
        polarity ``wanted``; else None. Recognised shapes: every ``return`` gives such a test
        (or the literal False: ``if tf is None: return False``), or a leading
        ``if <test>: return True`` makes the result true whenever code is traced.
        """
        body = getattr(function, "body", None)
        if not isinstance(body, list):
            return None
        returns = [node for node in _own_nodes(body) if isinstance(node, ast.Return)]
        if not returns:
            return None
        for statement in body:
            if isinstance(statement, (ast.Expr, ast.Assert)) and statement is body[0]:
                continue  # docstring, assertion
            if (isinstance(statement, ast.If) and len(statement.body) == 1
                    and isinstance(statement.body[0], ast.Return)
                    and _constant(statement.body[0].value) is True):
                found = self._form(statement.test, GRAPH)
                if found is not None:
                    return found
            break
        values = [node.value for node in returns
                  if node.value is not None and _constant(node.value) is not False]
        for polarity in (GRAPH, EAGER):
            forms = {self._form(value, polarity) for value in values}
            if len(forms) == 1 and None not in forms:
                return forms.pop()
        return None

    def _form(self, test: ast.expr, polarity: str) -> Optional[Tuple]:
        """``(polarity,)`` when ``test`` is a predicate of that polarity (GRAPH: false only
        outside tracing; EAGER: true only outside tracing); a delegation to a project
        predicate as ``(polarity, wanted, callee)``; else None."""
        condition = self.untraced_if(test, polarity == EAGER)
        if condition is True:
            return (polarity,)
        if isinstance(condition, tuple) and len(condition) == 1:
            callee, wanted = condition[0]
            return (polarity, wanted, callee)
        return None


def _conjuncts(test: ast.expr) -> List[ast.expr]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [term for value in test.values for term in _conjuncts(value)]
    return [test]


def _compared_to_bool(test: ast.expr) -> Optional[Tuple[ast.expr, bool]]:
    """``x == True``, ``x is False``, ``x != True``: the tested expression, and the truth
    value of the test when ``x`` is true."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    right = test.comparators[0]
    if not (isinstance(right, ast.Constant) and right.value in (True, False)
            and isinstance(right.value, bool)):
        return None
    op = test.ops[0].__class__
    if op in (ast.Eq, ast.Is):
        return test.left, right.value
    if op in (ast.NotEq, ast.IsNot):
        return test.left, not right.value
    return None


def never_true_locals(function: ast.AST) -> FrozenSet[str]:
    """Local names of ``function`` that every binding in its own code sets to a false
    constant (``clip_max = False``, ``debug = None``): no parameter, no ``global`` or
    ``nonlocal``, no other kind of binding. ``if clip_max:`` never runs there."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return frozenset()  # a lambda binds nothing but its parameters
    false: Set[str] = set()
    other: Set[str] = set()
    arguments = function.args
    if arguments is not None:
        other.update(a.arg for a in (*arguments.posonlyargs, *arguments.args,
                                     *arguments.kwonlyargs, arguments.vararg,
                                     arguments.kwarg) if a is not None)
    stack = list(function.body)
    while stack:
        node = stack.pop()
        cls = node.__class__
        if cls in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            other.add(node.name)
            continue
        if cls is ast.Lambda:
            continue
        if cls in (ast.Assign, ast.AnnAssign):
            targets = node.targets if cls is ast.Assign else [node.target]
            value = node.value
            if (value.__class__ is ast.Constant and not value.value
                    and all(t.__class__ is ast.Name for t in targets)):
                false.update(t.id for t in targets)
                continue
        elif cls in (ast.Global, ast.Nonlocal):
            other.update(node.names)
        elif cls is ast.Name and node.ctx.__class__ is not ast.Load:
            other.add(node.id)
        elif cls is ast.ExceptHandler and node.name:
            other.add(node.name)
        elif cls.__name__ in ("MatchAs", "MatchStar", "MatchMapping"):
            other.add(getattr(node, "name", None) or getattr(node, "rest", None) or "")
        elif cls in (ast.Import, ast.ImportFrom):
            other.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        stack.extend(child_nodes(node))
    return frozenset(false - other)


def _constant(node: Optional[ast.expr]):
    return node.value if isinstance(node, ast.Constant) else None


def _own_nodes(body: Sequence[ast.stmt]):
    """Statements of a function body, not descending into nested functions or classes."""
    stack = list(body)
    while stack:
        node = stack.pop()
        yield node
        for child in child_nodes(node):
            if isinstance(child, ast.stmt) and not isinstance(
                    child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stack.append(child)


# -- one-time initialisation ---------------------------------------------------------------
def _tested(node: ast.expr) -> Optional[str]:
    """The dotted name a test reads (``self.x``, ``NAME``); an item of one (``cache[0]``)
    is spelled as its container."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return ast_dotted_name(node)


def _attribute_test(node: ast.expr) -> Optional[str]:
    """``hasattr(obj, "x")`` / ``getattr(obj, "x", None)`` → ``"obj.x"``."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("hasattr", "getattr") and len(node.args) >= 2
            and _string(node.args[1])):
        base = ast_dotted_name(node.args[0])
        return f"{base}.{_string(node.args[1])}" if base else None
    return None


#: How ``FunctionInfo.flag_params`` and ``TraceReason.flags`` name a parameter whose default
#: is None, as a flag that is true while the parameter is None: ``labels is None``.
IS_NONE = " is None"


def flag_parameter(flag: str) -> str:
    """The parameter a flag of ``FunctionInfo.flag_params`` is about: ``labels`` for
    ``labels is None``, the flag's own name otherwise."""
    return flag[:-len(IS_NONE)] if flag.endswith(IS_NONE) else flag


def _counted(node: ast.expr) -> Optional[str]:
    """``len(x)`` → ``"x"`` (as ``_tested`` spells it)."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "len" and len(node.args) == 1 and not node.keywords):
        return _tested(node.args[0])
    return None


#: ``len(x) == 0``, ``len(x) <= 0``, ``len(x) < 1``: the container is empty.
_EMPTY_SIZES = frozenset({(0, ast.Eq), (0, ast.LtE), (1, ast.Lt)})


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def init_targets(test: ast.expr, certain: bool = False) -> FrozenSet[str]:
    """What ``test`` being true finds not yet set up, as dotted names (``self.x``, ``x``):
    ``x is None``, ``x == None``, ``not x``, ``not hasattr(self, "x")``,
    ``getattr(self, "x", None) is None``, ``key not in x`` (an entry of ``x``), ``len(x)
    == 0`` (``not len(x)``, ``len(x) < 1``: ``not x`` for a container), and ``and``/``or``
    combinations holding one.
    Empty when it is no such test.

    For ``or``, the names of any branch count (the guarded code sets one of them up);
    with ``certain``, only names every branch finds unset.
    """
    if isinstance(test, ast.BoolOp):
        parts = [init_targets(value, certain) for value in test.values]
        if certain and isinstance(test.op, ast.Or):
            return frozenset.intersection(*parts)
        return frozenset().union(*parts)
    if (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.Is, ast.Eq)) and _is_none(test.comparators[0])):
        name = _attribute_test(test.left) or _tested(test.left)
        return frozenset([name]) if name else frozenset()
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        name = (_attribute_test(test.operand) or _counted(test.operand)
                or _tested(test.operand))
        return frozenset([name]) if name else frozenset()
    if (isinstance(test, ast.Compare) and len(test.ops) == 1 and _counted(test.left)
            and isinstance(test.comparators[0], ast.Constant)
            and (test.comparators[0].value, test.ops[0].__class__) in _EMPTY_SIZES):
        return frozenset([_counted(test.left)])
    if (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.NotIn)):
        # ``key not in self.cache``: the entry of a memo, made once per key.
        name = _tested(test.comparators[0])
        return frozenset([name]) if name else frozenset()
    return frozenset()


def compared_constant(test: ast.expr, operator=ast.Eq) -> Optional[Tuple[str, object]]:
    """``self.mode == "fixed"`` → ``("self.mode", "fixed")``: the dotted name ``test``
    compares with a constant (``-1`` included) by ``operator``, and that constant."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], operator)):
        return None
    value = test.comparators[0]
    negative = isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub)
    if negative:
        value = value.operand
    if not isinstance(value, ast.Constant):
        return None
    name = _tested(test.left)
    constant = value.value
    if name is None or negative and (
            not isinstance(constant, (int, float)) or isinstance(constant, bool)):
        return None
    return name, -constant if negative else constant


def sentinel_targets(test: ast.expr) -> FrozenSet[str]:
    """What ``test`` compares with a number or string for equality (``self.axis == -1``,
    ``mode == "auto"``): a placeholder that code under the test may replace once."""
    found = compared_constant(test)
    if (found is not None and isinstance(found[1], (int, float, str))
            and not isinstance(found[1], bool)):
        return frozenset([found[0]])
    return frozenset()


def negative_index_targets(test: ast.expr) -> FrozenSet[str]:
    """What ``test`` checks for a negative index or axis (``self.axis < 0``): code under
    the test that adds the rank makes it non-negative, once."""
    found = compared_constant(test, ast.Lt)
    if found is not None and found[1] == 0 and not isinstance(found[1], bool):
        return frozenset([found[0]])
    return frozenset()


_BUILT_FLAG = lazy_compile(r"built|initiali[sz]ed", re.IGNORECASE)


def lazy_guard(test: ast.expr) -> bool:
    """The singleton pattern's test, whatever the guarded code sets: ``x is None`` (or
    ``x == None``),
    ``not hasattr(...)``, ``not self.built`` (or another flag saying "built"/"initialized"),
    or a boolean combination holding one."""
    if isinstance(test, ast.BoolOp):
        return any(lazy_guard(value) for value in test.values)
    if isinstance(test, ast.Compare):
        return any(isinstance(op, (ast.Is, ast.Eq)) and _is_none(comparator)
                   for op, comparator in zip(test.ops, test.comparators))
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = test.operand
        if isinstance(inner, ast.Attribute):
            return bool(_BUILT_FLAG.search(inner.attr))
        return (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
                and inner.func.id == "hasattr")
    return False


def flag_tests(test: ast.expr, names: FrozenSet[str] = frozenset()) -> Dict[str, bool]:
    """The Python flags ``test`` reads, as dotted names, each with the truth value it has
    when ``test`` is true: ``not self.x``, ``self.x is False``, ``self.x == False`` (False);
    ``self.x``, ``self.x is True``, ``self.x == True`` (True); ``getattr(self, "x", False)``
    and ``hasattr(self, "x")`` as ``self.x``; and ``and``/``or``
    combinations holding them (``if training and not self.initialized:``). Empty when it
    tests no flag. Plain names count only among ``names`` (parameters that are flags); a
    parameter whose default is None counts as the flag ``<name> is None`` (see
    ``IS_NONE``), which ``labels is None`` tests (True) and ``labels is not None`` (False)."""
    if isinstance(test, ast.BoolOp):
        found: Dict[str, bool] = {}
        for value in test.values:
            found.update(flag_tests(value, names))
        return found
    if (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq))
            and _is_none(test.comparators[0]) and isinstance(test.left, ast.Name)):
        key = test.left.id + IS_NONE
        return {key: isinstance(test.ops[0], (ast.Is, ast.Eq))} if key in names else {}
    wanted = True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        flag, wanted = test.operand, False
    elif (isinstance(test, ast.Compare) and len(test.ops) == 1
          and isinstance(test.ops[0], (ast.Is, ast.Eq))
          and isinstance(test.comparators[0], ast.Constant)
          and isinstance(test.comparators[0].value, bool)):
        flag, wanted = test.left, test.comparators[0].value
    else:
        flag = test
    if isinstance(flag, ast.Name):
        return {flag.id: wanted} if flag.id in names else {}
    name = ast_dotted_name(flag) if isinstance(flag, ast.Attribute) else _attribute_test(flag)
    return {name: wanted} if name else {}


#: Methods that put a first entry into a container: ``if not state: state.append(...)``
#: runs once, as the tensorflow.org guide creates its variables.
FILLS = frozenset({"append", "extend", "insert", "add", "update", "setdefault"})


def clears_tested_flag(body: Sequence[ast.stmt], test: ast.expr) -> bool:
    """``body`` (not its nested functions) clears a flag of ``self`` that ``test`` requires
    to be set (``if self.first_call: ... self.first_call = False``): a run-once flag, so
    the block runs on the first trace only, like the body of ``if not self.built:``."""
    wanted = {name for name, value in flag_tests(test).items()
              if value and name.startswith("self.") and name.count(".") == 1}
    return bool(wanted) and any(
        isinstance(node, ast.Assign) and any(ast_dotted_name(t) in wanted for t in node.targets)
        and isinstance(node.value, ast.Constant) and not node.value.value
        for node in _own_nodes(body))


def sets_tested(body: Sequence[ast.stmt], targets: FrozenSet[str]) -> bool:
    """``body`` (not its nested functions) marks one of ``targets`` as set up: assigns it
    (``self.ready = True``), assigns the variable it names (``self.ready.assign(True)``), or
    fills the container it names (``state.append(v)``, ``cache[key] = v``). The body of
    ``if not self.ready:`` that does so runs once: on the first trace for a Python flag or
    container, on the first call for a ``tf.Variable`` one."""
    if not targets:
        return False
    for node in _own_nodes(body):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            found = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(ast_dotted_name(target.value if isinstance(target, ast.Subscript)
                                   else target) in targets for target in found):
                return True
        elif (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
              and isinstance(node.value.func, ast.Attribute)
              and node.value.func.attr in FILLS | {"assign"}
              and ast_dotted_name(node.value.func.value) in targets):
            return True
    return False


def known_flags(test: ast.expr, value: bool, names: FrozenSet[str] = frozenset()
                ) -> Dict[str, bool]:
    """The Python flags (see ``flag_tests``) whose value ``test`` having ``value`` settles:
    for ``if not self.eager and self.ready:``, the body knows ``self.eager`` False and
    ``self.ready`` True; the ``else`` of ``if self.eager:`` knows it False. Empty when it
    settles none (``or`` in a body, ``and`` in an ``else``). ``names``: as ``flag_tests``."""
    if isinstance(test, ast.BoolOp):
        if isinstance(test.op, ast.And) != value:
            return {}
        found: Dict[str, bool] = {}
        for part in test.values:
            found.update(known_flags(part, value, names))
        return found
    flags = flag_tests(test, names)
    if len(flags) != 1:
        return {}
    ((name, wanted),) = flags.items()
    return {name: wanted if value else not wanted}


def initialised_targets(test: ast.expr) -> FrozenSet[str]:
    """What ``test`` being true finds set up (``self.x is not None``, ``self.x``,
    ``hasattr(self, "x")``, ``key in cache``): code after ``if <test>: return`` runs only
    before it is."""
    if (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.IsNot, ast.NotEq))
            and _is_none(test.comparators[0])):
        name = _attribute_test(test.left) or _tested(test.left)
    elif (isinstance(test, ast.Compare) and len(test.ops) == 1
          and isinstance(test.ops[0], ast.In)):
        name = _tested(test.comparators[0])  # ``key in self.cache``: that entry is made
    else:
        name = _attribute_test(test) or _tested(test)
    return frozenset([name]) if name else frozenset()


def attributes(targets: FrozenSet[str]) -> FrozenSet[str]:
    """The attribute names among ``self.x`` targets."""
    return frozenset(t[5:] for t in targets if t.startswith("self."))


def exits(block: Sequence[ast.stmt]) -> bool:
    """The block always leaves the enclosing block: it ends in return, raise, continue or
    break, or in an ``if``/``else`` whose branches all do."""
    if not block:
        return False
    last = block[-1]
    if isinstance(last, ast.If):
        return bool(last.orelse) and exits(last.body) and exits(last.orelse)
    return isinstance(last, (ast.Return, ast.Raise, ast.Continue, ast.Break))
