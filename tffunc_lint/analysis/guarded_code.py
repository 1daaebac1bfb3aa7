"""Code that runs only eagerly although it sits in a traced function.

``tf.executing_eagerly()`` is False while ``tf.function`` traces, so the body of
``if tf.executing_eagerly():`` never runs during tracing: it runs only when the function is
called eagerly (``tf.config.run_functions_eagerly(True)``, or a helper also called from eager
code). It is the documented way to keep eager-only Python (``.numpy()``, logging a value) in
code that may be traced, and rules about trace-time behaviour must not flag it.

:func:`in_eager_branch` answers for the node being visited, from the LibCST ancestors the
engine keeps: a branch whose test says nothing is traced (see ``guards``: eager execution,
``hasattr(x, "numpy")``, NumPy or PyTorch values, another Keras backend, a project predicate
such as ``in_tf_function()``), in ``if``/``elif``/``else``, conditional expressions and
``and``/``or``, or code after an early exit such as ``if not tf.executing_eagerly(): return x``.
Tests are read by the same code the index uses for call edges, on their ``ast`` form.

:func:`in_lazy_initialization` answers the other question rules about Python state ask of
the guards around a node: does it set state up once, on the first trace
(``if self.x is None: self.x = ...``)?
"""

from __future__ import annotations

import ast
from functools import lru_cache
from typing import (AbstractSet, Callable, Dict, FrozenSet, Iterable, Iterator, List, Mapping,
                    Optional, Sequence, Tuple)

from .lazy_libcst import cst

from . import guards
from .cst_walk import descendants
from .guards import Condition, GuardReader
from .names import ast_dotted_name, dotted_name

Resolve = Callable[["cst.BaseExpression"], Optional[str]]
#: The polarity of the project predicate a no-argument call spells, if it is one.
Polarity = Callable[[str], Optional[str]]


def _expression(dotted: str) -> cst.BaseExpression:
    parts = dotted.split(".")
    node: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def as_ast(test: cst.BaseExpression) -> Optional[ast.expr]:
    try:
        return ast.parse(f"({_empty_module().code_for_node(test)})", mode="eval").body
    except (SyntaxError, ValueError):
        return None


class _Tests:
    """The guard reader over LibCST tests, with project predicates looked up by spelling."""

    def __init__(self, resolve: Resolve, polarity: Optional[Polarity],
                 function: Optional[cst.FunctionDef],
                 outer_aliases: Optional[Mapping[str, str]] = None,
                 off_flags: AbstractSet[str] = frozenset()):
        aliases: Dict[str, Optional[ast.expr]] = {}
        for name, text in (outer_aliases or {}).items():
            try:
                aliases[name] = ast.parse(text, mode="eval").body
            except SyntaxError:
                aliases[name] = None
        aliases.update(_aliases(function))
        self.reader = GuardReader(lambda dotted: resolve(_expression(dotted)), ast_dotted_name,
                                  aliases, off_flags)
        self.polarity = polarity

    def untraced_if(self, test: cst.BaseExpression, value: bool) -> bool:
        tree = as_ast(test)
        if tree is None:
            return False
        condition: Condition = self.reader.untraced_if(tree, value)
        if condition is True:
            return True
        return bool(self.polarity) and any(
            spelling is not None and self.polarity(spelling) == polarity
            for spelling, polarity in condition)

    def excluded(self, test: cst.BaseExpression, known_false: List[ast.expr]) -> bool:
        tree = as_ast(test) if known_false else None
        return tree is not None and self.reader.excluded(tree, known_false)


def _aliases(function: Optional[cst.FunctionDef]) -> Dict[str, Optional[ast.expr]]:
    """Names the function's own statements bind once to a test (``use_tf = a() or b``)."""
    found: Dict[str, Optional[ast.expr]] = {}
    body = function.body.body if function is not None else ()
    for statement in body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if (isinstance(small, cst.Assign) and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)):
                name = small.targets[0].target.value
                tests = isinstance(small.value, (cst.BooleanOperation, cst.UnaryOperation,
                                                 cst.Call, cst.Comparison))
                found[name] = as_ast(small.value) if tests and name not in found else None
    return found


def _earlier_exit_tests(block: cst.CSTNode, statement: cst.CSTNode) -> List[ast.expr]:
    """Tests of ``if <test>: return ...`` statements before ``statement`` in ``block``."""
    found: List[ast.expr] = []
    if not isinstance(block, (cst.IndentedBlock, cst.Module)):
        return found
    for earlier in block.body:
        if earlier is statement:
            break
        if isinstance(earlier, cst.If) and earlier.orelse is None and exits(earlier.body):
            tree = as_ast(earlier.test)
            if tree is not None:
                found.append(tree)
    return found


def exits(block: Optional[cst.CSTNode], tests: Optional[_Tests] = None) -> bool:
    """The block always leaves the enclosing block: it ends in return, raise, continue or
    break, or in an ``if``/``else`` whose branches all do. With ``tests``, whenever it runs
    traced: a branch that runs only eagerly need not leave (``if not
    tf.executing_eagerly(): raise ...`` leaves a traced block)."""
    if isinstance(block, cst.Else):
        return exits(block.body, tests)
    if isinstance(block, cst.IndentedBlock):
        if not block.body:
            return False
        last = block.body[-1]
        if isinstance(last, cst.If):
            if tests is None:
                return last.orelse is not None and exits(last.body) and exits(last.orelse)
            return ((tests.untraced_if(last.test, True) or exits(last.body, tests))
                    and (tests.untraced_if(last.test, False) or exits(last.orelse, tests)))
        if isinstance(last, cst.SimpleStatementLine):
            small = last.body
        else:
            return False
    elif isinstance(block, cst.SimpleStatementSuite):
        small = block.body
    else:
        return False
    return bool(small) and isinstance(small[-1], (cst.Return, cst.Raise, cst.Continue,
                                                  cst.Break))


def _after_traced_exit_under(block: cst.CSTNode, statement: cst.If, tests: _Tests) -> bool:
    """An earlier ``if`` of ``block`` has the test of ``statement`` and leaves whenever it
    runs traced (``if cache is not None: ... if not tf.executing_eagerly(): raise ...``):
    traced code never gets to ``statement``'s body."""
    if not isinstance(block, (cst.IndentedBlock, cst.Module)):
        return False
    for earlier in block.body:
        if earlier is statement:
            return False
        if (isinstance(earlier, cst.If) and earlier.test.deep_equals(statement.test)
                and exits(earlier.body, tests)):
            return True
    return False


def _after_untraced_exit(body: Sequence[cst.CSTNode], statement: cst.CSTNode,
                         tests: _Tests) -> bool:
    """An earlier statement of ``body`` is ``if <test>: return ...`` whose test is true
    whenever code is traced."""
    for earlier in body:
        if earlier is statement:
            return False
        if (isinstance(earlier, cst.If) and earlier.orelse is None and exits(earlier.body)
                and tests.untraced_if(earlier.test, False)):
            return True
    return False


def in_eager_branch(ancestors: Sequence[cst.CSTNode], resolve: Resolve,
                    polarity: Optional[Polarity] = None,
                    outer_aliases: Optional[Mapping[str, str]] = None,
                    off_flags: AbstractSet[str] = frozenset()) -> bool:
    """The innermost node of ``ancestors`` runs only eagerly, within its function (or never:
    under a module flag that is never true, ``off_flags``). ``outer_aliases``: tests that
    enclosing functions bind to names (``use_xla = not tf.executing_eagerly()``) read by
    this one, as source text."""
    function = next((a for a in reversed(ancestors) if isinstance(a, cst.FunctionDef)), None)
    tests = _Tests(resolve, polarity, function, outer_aliases, off_flags)
    for index in range(len(ancestors) - 1, 0, -1):
        parent, child = ancestors[index - 1], ancestors[index]
        if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            return False
        if isinstance(parent, (cst.If, cst.IfExp)):
            if child is parent.body and tests.untraced_if(parent.test, True):
                return True
            if (child is parent.body and isinstance(parent, cst.If) and index >= 2
                    and tests.excluded(parent.test, _earlier_exit_tests(ancestors[index - 2],
                                                                        parent))):
                return True
            if (child is parent.body and isinstance(parent, cst.If) and index >= 2
                    and _after_traced_exit_under(ancestors[index - 2], parent, tests)):
                return True
            if child is parent.orelse and tests.untraced_if(parent.test, False):
                return True
        elif isinstance(parent, cst.ExceptHandler) and child is parent.body:
            if _catches_op_errors(parent, resolve):
                return True
        elif isinstance(parent, cst.BooleanOperation) and child is parent.right:
            value = isinstance(parent.operator, cst.And)
            if tests.untraced_if(parent.left, value):
                return True
        elif isinstance(parent, (cst.IndentedBlock, cst.Module)):
            if _after_untraced_exit(parent.body, child, tests):
                return True
    return False


#: Where TensorFlow's op errors live: ``tf.errors.InvalidArgumentError`` and the rest.
_OP_ERRORS = ("tensorflow.errors.", "tensorflow.python.framework.errors")


def _catches_op_errors(handler: "cst.ExceptHandler", resolve: Resolve) -> bool:
    """``except tf.errors.InvalidArgumentError:`` (or a tuple of such errors): an op raises
    them when it runs, not while a graph is built, so in traced code the handler runs only
    when the function is called eagerly."""
    kind = handler.type
    if kind is None:
        return False
    kinds = [e.value for e in kind.elements] if isinstance(kind, cst.Tuple) else [kind]
    return all((resolve(k) or "").startswith(_OP_ERRORS) for k in kinds) and bool(kinds)


def _enclosing_tests(ancestors: Sequence[cst.CSTNode]
                     ) -> Iterator[Tuple[cst.BaseExpression, bool]]:
    """The tests of the ``if``s (and conditional expressions) around the innermost node of
    ``ancestors`` within its function, innermost first, each with the truth value it has
    there (True in the body, False in the ``else``)."""
    for index in range(len(ancestors) - 1, 0, -1):
        parent, child = ancestors[index - 1], ancestors[index]
        if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            return
        if isinstance(parent, (cst.If, cst.IfExp)) and child in (parent.body, parent.orelse):
            yield parent.test, child is parent.body


def in_non_tensor_branch(ancestors: Sequence[cst.CSTNode], resolve: Resolve) -> bool:
    """The innermost node of ``ancestors`` runs, within its function, only when a value its
    ``if`` tests is not a tensor (``GuardReader.non_tensor_if``)."""
    function = next((a for a in reversed(ancestors) if isinstance(a, cst.FunctionDef)), None)
    tests: Optional[_Tests] = None
    for test, value in _enclosing_tests(ancestors):
        tests = tests or _Tests(resolve, None, function)
        if _read_test(test, lambda tree: tests.reader.non_tensor_if(tree, value)):
            return True
    return False


def in_other_mode(ancestors: Sequence[cst.CSTNode], flags: Sequence[Tuple[str, bool]]) -> bool:
    """The innermost node of ``ancestors`` runs, within its function, only when a flag of
    ``self``, or a parameter that is a flag, has the other value than ``flags`` (see
    ``TraceReason.flags``) say it has on every way into the trace: ``if self.eager_mode:``
    in code traced only when it is False, ``if debug:`` in a function every traced call
    leaves ``debug=False``."""
    known = dict(flags)
    if not known:
        return False
    names = frozenset(name for name in known if "." not in name)
    for test, value in _enclosing_tests(ancestors):
        wanted = _read_test(test, lambda tree: guards.known_flags(tree, value, names)) or {}
        if any(name in known and known[name] != flag for name, flag in wanted.items()):
            return True
    return False


# -- one-time set-up ---------------------------------------------------------------------------
def in_lazy_initialization(ancestors: Sequence[cst.CSTNode], targets: Iterable[str] = ()
                           ) -> bool:
    """Whether the node being visited sits in the body of ``if self.x is None:`` (or
    ``if not hasattr(self, "x"):``, ``if not self.built:``) within its function: state set
    up once, on the first trace, the documented singleton pattern.

    With ``targets`` (what the node sets, ``self.x`` or a name), also under ``if not self.x:``
    when the guarded code sets ``self.x`` (this node or another statement of that code: one
    block of set-up). After an early exit (``if self.x is not None: return ...``, ``if key in
    cache: return cache[key]``), the code that follows is set-up when it sets what the exit
    tested, in its own statements or in their ``try``/``with``/``if`` blocks (``cache[key] =
    plugin``): with or without ``targets``. So is the ``else`` of such a test
    (``if self.h is not None: ... else: ...; self.h = h``) when it sets what was tested.
    """
    targets = frozenset(targets)
    for index in range(len(ancestors) - 1, 0, -1):
        node, child = ancestors[index - 1], ancestors[index]
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            return False
        if isinstance(node, cst.If) and child is node.body:
            if _read_test(node.test, guards.lazy_guard):
                return True
            tested = _read_test(node.test, guards.init_targets) if targets else frozenset()
            if tested and (targets & tested or _sets(_statements(node.body), tested)):
                return True
            if targets and _replaces_sentinel(ancestors[-1], targets & _read_test(
                    node.test, guards.sentinel_targets)):
                return True
            if targets and _normalises_index(ancestors[-1], targets & _read_test(
                    node.test, guards.negative_index_targets)):
                return True
        elif (isinstance(node, cst.Else) and index >= 2
              and isinstance(ancestors[index - 2], cst.If) and targets):
            # ``if self.h is not None: use it`` / ``else: compute; self.h = h``: the
            # ``else`` runs only while the tested state is unset, as after an early exit.
            tested = _read_test(ancestors[index - 2].test, guards.initialised_targets)
            if _sets_up(tested, targets, _statements(node.body)):
                return True
        elif isinstance(node, (cst.IndentedBlock, cst.Module)):
            body = list(node.body)
            for position, earlier in enumerate(body):
                if earlier is child:
                    break
                if not (isinstance(earlier, cst.If) and earlier.orelse is None
                        and exits(earlier.body)):
                    continue
                tested = _read_test(earlier.test, guards.initialised_targets)
                if _sets_up(tested, targets, _set_up_statements(body[position + 1:])):
                    return True
    return False


def _sets_up(tested: FrozenSet[str], targets: FrozenSet[str],
             statements: Sequence[cst.CSTNode]) -> bool:
    """Code that runs only while ``tested`` is unset (after an early exit on it, or in the
    ``else`` of a test that it is set) is one-time set-up when the node sets what was tested
    or ``statements`` do."""
    return bool(tested) and bool(targets & tested or _sets(statements, tested))


def _replaces_sentinel(statement: cst.CSTNode, tested: FrozenSet[str]) -> bool:
    """``statement`` gives a placeholder its real value once, under ``if self.axis == -1:``:
    a plain assignment whose value does not read the placeholder (``self.axis = rank - 1``;
    not ``self.step = self.step + 1``)."""
    if not tested or not isinstance(statement, cst.Assign):
        return False
    names = {dotted_name(target.target) for target in statement.targets}
    if not names & tested:
        return False
    return not any(isinstance(node, (cst.Name, cst.Attribute)) and dotted_name(node) in tested
                   for node in descendants(statement.value))


def _normalises_index(statement: cst.CSTNode, tested: FrozenSet[str]) -> bool:
    """Under ``if self.axis < 0:``, ``statement`` adds to the index
    (``self.axis = rank + self.axis``, ``self.axis += rank``): a negative axis made
    non-negative once, which the test then keeps from happening again."""
    if not tested:
        return False
    if isinstance(statement, cst.AugAssign):
        return (isinstance(statement.operator, cst.AddAssign)
                and dotted_name(statement.target) in tested)
    if not (isinstance(statement, cst.Assign) and len(statement.targets) == 1):
        return False
    target = dotted_name(statement.targets[0].target)
    value = statement.value
    return (target in tested and isinstance(value, cst.BinaryOperation)
            and isinstance(value.operator, cst.Add)
            and target in (dotted_name(value.left), dotted_name(value.right)))


def flag_guard_tests(ancestors: Sequence[cst.CSTNode], target: str) -> List[ast.expr]:
    """The tests, as ``ast`` expressions, of the ``if`` statements within its function that
    test ``target`` (``self.initialized``) as a Python flag (``if not self.initialized:``;
    see ``guards.flag_tests``) and whose body holds the node being visited, or that come
    before it in a block holding it (``if not self.initialized: ...`` then
    ``self.initialized = True``)."""
    found: List[ast.expr] = []

    def add(test: cst.BaseExpression) -> None:
        tree = as_ast(test)
        if tree is not None and target in guards.flag_tests(tree):
            found.append(tree)

    for index in range(len(ancestors) - 1, 0, -1):
        node, child = ancestors[index - 1], ancestors[index]
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            break
        if isinstance(node, cst.If) and child is node.body:
            add(node.test)
        elif isinstance(node, (cst.IndentedBlock, cst.Module)):
            for earlier in node.body:
                if earlier is child:
                    break
                if isinstance(earlier, cst.If):
                    add(earlier.test)
    return found


def _read_test(test: cst.BaseExpression, read):
    """``read`` applied to the ``ast`` form of a LibCST test (empty if it has none)."""
    tree = as_ast(test)
    return read(tree) if tree is not None else frozenset()


def _statements(block: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    return block.body if isinstance(block, cst.IndentedBlock) else [block]


def _set_up_statements(statements: Sequence[cst.CSTNode]) -> List[cst.CSTNode]:
    """``statements`` and those of the ``try``/``with``/``if`` blocks among them (not of
    loops or nested functions): the code after an early exit that sets things up."""
    found: List[cst.CSTNode] = []
    stack = list(reversed(statements))
    while stack:
        statement = stack.pop()
        found.append(statement)
        if isinstance(statement, (cst.Try, cst.With, cst.If)):
            blocks = [statement.body]
            if isinstance(statement, cst.Try):
                blocks += [h.body for h in statement.handlers]
                blocks += [b.body for b in (statement.orelse, statement.finalbody) if b]
            elif isinstance(statement, cst.If) and isinstance(statement.orelse, cst.Else):
                blocks.append(statement.orelse.body)
            for block in reversed(blocks):
                stack.extend(reversed(list(getattr(block, "body", ()))))
    return found


def _sets(statements: Sequence[cst.CSTNode], names: FrozenSet[str]) -> bool:
    """One of ``statements`` (at their own level) sets one of ``names`` up, as
    ``guards.sets_tested`` reads it: assigns it, assigns the variable it names
    (``self.ready.assign(True)``), or fills the container it names (``state.append(v)``,
    ``cache[key] = v``)."""
    for statement in statements:
        small = getattr(statement, "body", ())
        if not isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            continue
        for item in small:
            if isinstance(item, cst.Assign):
                found = [t.target for t in item.targets]
            elif isinstance(item, cst.AnnAssign):
                found = [item.target]
            elif (isinstance(item, cst.Expr) and isinstance(item.value, cst.Call)
                  and isinstance(item.value.func, cst.Attribute)
                  and item.value.func.attr.value in guards.FILLS | {"assign"}):
                found = [item.value.func.value]
            else:
                continue
            if any(dotted_name(target.value if isinstance(target, cst.Subscript) else target)
                   in names for target in found):
                return True
    return False


@lru_cache(maxsize=None)
def _empty_module():
    """A module to render nodes with (built on first use, when LibCST is imported)."""
    return cst.Module(body=[])
