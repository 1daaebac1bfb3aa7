"""TFF302 recursive-tf-function."""

from __future__ import annotations

import re
from typing import Dict, FrozenSet, List, Set, Tuple

import libcst as cst

from ..graph_context import ProjectGraph
from ..index import CALLED, FunctionKey
from ..rule import Rule

#: For each traced function of the module: the functions it calls that close a cycle of
#: calls among traced functions, as (name, called as a method).
ClosingCalls = Dict[FunctionKey, FrozenSet[Tuple[str, bool]]]


def recursive_calls(context) -> ClosingCalls:
    """The calls that close a cycle of traced functions in this module.

    Cycles are the strongly connected components of the module's call graph restricted to
    traced functions. Each cycle is entered at its *head*, the member closest to an entry
    point; the calls back into the head close the cycle and are the ones reported.
    """
    graph = context.graph
    index = graph.index
    traced = graph.traced
    project = ProjectGraph([index])
    edges: Dict[FunctionKey, Set[FunctionKey]] = {key: set() for key in traced}
    for key in traced:
        function = index.functions.get(key)
        if function is None:
            continue
        for target, _, how in function.edges:
            if how != CALLED:
                continue
            found = project.resolve(index, target)
            if found and found[0] == index.path and found[1] in traced:
                edges[key].add(found[1])
    closing: Dict[FunctionKey, Set[Tuple[str, bool]]] = {}
    for component in _components(edges):
        if len(component) == 1:
            (only,) = component
            if only not in edges[only]:
                continue
        head = min(component, key=lambda k: (len(traced[k].chain()),
                                             index.functions[k].start))
        target = index.functions[head]
        call = (head[2], target.class_qualname is not None)
        for key in component:
            if head in edges[key]:
                closing.setdefault(key, set()).add(call)
    return {key: frozenset(calls) for key, calls in closing.items()}


def _components(edges: Dict[FunctionKey, Set[FunctionKey]]) -> List[Set[FunctionKey]]:
    """Strongly connected components (Tarjan's algorithm, iterative)."""
    order: Dict[FunctionKey, int] = {}
    low: Dict[FunctionKey, int] = {}
    stack: List[FunctionKey] = []
    on_stack: Set[FunctionKey] = set()
    found: List[Set[FunctionKey]] = []
    for root in edges:
        if root in order:
            continue
        work = [(root, iter(sorted(edges[root])))]
        order[root] = low[root] = len(order)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in order:
                    order[successor] = low[successor] = len(order)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(edges[successor]))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], order[successor])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == order[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                found.append(component)
    return found


class RecursiveTfFunction(Rule):
    """A traced function that calls itself, directly or through other functions.

    ## What it does
    Flags calls that make code traced by TensorFlow recursive: a `tf.function` (or a function
    it calls) that calls itself with a smaller number (`f(n - 1)`), or functions of the module
    that call each other in such a cycle. The finding is at the call that leads back into the
    cycle: the call to itself, or the call back to the function of the cycle closest to the
    `tf.function` entry point.

    ## Why is this bad?
    Recursive `tf.function`s are not supported. Tracing runs the Python body and builds the
    graph of every branch: with a tensor argument, AutoGraph turns `if n > 0:` into a
    `tf.cond` that traces both branches, so the recursive call is traced again and again
    until Python raises `RecursionError`. With Python numbers the recursion ends, but every
    distinct value is a new trace, and the whole recursion is unrolled into the graph.

    ## Example
    ```python
    import tensorflow as tf

    @tf.function
    def countdown(n):
        if n > 0:
            return countdown(n - 1)
        return n
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    @tf.function
    def countdown(n):
        while n > 0:
            n -= 1
        return n
    ```

    ## Known problems
    Only recursion driven by a number is reported: a call back into the cycle whose
    arguments bring a name down (`n - 1`, `n // 2`, `x * 0.5`), or that passes a function's
    own parameters again unchanged. Recursion over a Python structure (`walk(node.left)`,
    `[f(v, depth + 1) for v in d.values()]`) or guarded by a Python flag ends while tracing
    and is not reported, though it is still unrolled into the graph. Only cycles among the
    functions of one module are found, and only through direct calls (`f(...)`,
    `self.f(...)`), not through functions passed as values.

    ## References
    - [Better performance with tf.function: Recursive tf.functions are not supported](https://www.tensorflow.org/guide/function#recursive_tffunctions_are_not_supported)
    - [AutoGraph: control flow](https://www.tensorflow.org/guide/function#autograph_transformations)
    """

    code = "TFF302"
    name = "recursive-tf-function"
    message = ("recursive call in traced code: tracing recurses without end on tensors (or "
               "retraces and unrolls for each Python value); use a loop (`while`, "
               "`tf.while_loop`) instead")

    @classmethod
    def triggers_for(cls, context):
        if not context.graph:
            return ()
        calls = context.fact("recursive-calls", recursive_calls)
        names = sorted({name for found in calls.values() for name, _ in found})
        if not names:
            return ()
        return (re.compile(r"\b(?:%s)\s*\(" % "|".join(map(re.escape, names))),)

    def visit_Call(self, node: cst.Call) -> None:
        function = self.context.function
        if function is None:
            return
        calls = self.context.fact("recursive-calls", recursive_calls).get(function.key)
        if not calls or not self._closes_cycle(node, calls):
            return
        if self._counts_down(node) or self._repeats_itself(node, function):
            self.report(node)

    @staticmethod
    def _closes_cycle(node: cst.Call, calls) -> bool:
        func = node.func
        if isinstance(func, cst.Name):
            return (func.value, False) in calls
        if isinstance(func, cst.Attribute) and (func.attr.value, True) in calls:
            receiver = func.value
            return (isinstance(receiver, cst.Name)
                    or (isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name)
                        and receiver.func.value == "super"))
        return False

    @staticmethod
    def _counts_down(node: cst.Call) -> bool:
        """An argument brings a name down (``n - 1``): recursion driven by a number, endless
        when that number is a tensor. Recursion over the parts of a Python structure
        (``walk(tree.left)``, ``[f(v, depth + 1) for v in d.values()]``) ends while
        tracing."""
        finder = _ArithmeticOnName()
        for arg in node.args:
            arg.value.visit(finder)
        return finder.found

    @staticmethod
    def _repeats_itself(node: cst.Call, function) -> bool:
        """``f(x)`` inside ``def f(x)``: the same arguments again, an endless recursion."""
        ast_node = function.node
        if ast_node is None or getattr(ast_node, "name", None) != _called_name(node):
            return False
        arguments = getattr(ast_node, "args", None)
        params = [a.arg for a in (*arguments.posonlyargs, *arguments.args)] if arguments else []
        if params[:1] in (["self"], ["cls"]) and isinstance(node.func, cst.Attribute):
            params = params[1:]
        passed = [arg.value.value for arg in node.args
                  if not arg.star and arg.keyword is None and isinstance(arg.value, cst.Name)]
        return len(passed) == len(node.args) == len(params) and passed == params


def _called_name(node: cst.Call):
    func = node.func
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


#: Operators that bring a number down towards a base case (``n - 1``, ``n // 2``).
#: Counting up (``level + 1``) is how structure walkers track their depth: not reported.
_SHRINKING = (cst.Subtract, cst.FloorDivide, cst.Divide, cst.RightShift, cst.Multiply)


class _ArithmeticOnName(cst.CSTVisitor):
    """Finds ``n - 1``, ``n // k``, ``x * 0.5`` outside lambdas: a name on one side, and no
    string, list or tuple display on either (``[0] * n`` builds a list)."""

    def __init__(self):
        super().__init__()
        self.found = False

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> bool:
        sides = (node.left, node.right)
        if (isinstance(node.operator, _SHRINKING)
                and any(isinstance(side, _NAMES) for side in sides)
                and not any(isinstance(side, _DISPLAYS) for side in sides)
                and (not isinstance(node.operator, cst.Multiply)
                     or any(isinstance(side, cst.Float) for side in sides))):
            self.found = True
        return not self.found

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


_NAMES = (cst.Name, cst.Attribute, cst.Subscript)
_DISPLAYS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List,
             cst.Tuple, cst.Dict, cst.Set, cst.ListComp)
