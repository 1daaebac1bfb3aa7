"""TFF102 external-container-mutation."""

from __future__ import annotations

import ast
import re
from typing import Optional, Set, Tuple

from ..analysis.lazy_libcst import NodeTypes, cst

from ..analysis.lazy_import import lazy_module
from ..analysis.names import MUTATORS, ast_dotted_name, dotted_name
from ..rule import Rule
from ..analysis.ast_walk import child_nodes
from ..analysis.patterns import lazy_compile

container_provenance = lazy_module("..analysis.container_provenance", __package__)
state_use = lazy_module("..analysis.state_use", __package__)

#: Methods that change a list, dict, set or deque in place.
_MUTATORS = MUTATORS
#: Mutators that only a list or a dict has: safe to report on a value nothing else says is
#: a container (a parameter, an item of a container). ``update``/``add``/``pop`` are also
#: methods of metrics, optimizers and layers.
_CONTAINER_ONLY = frozenset({"append", "extend", "insert", "setdefault"})


def _key_text(node: cst.Subscript) -> Optional[str]:
    key = node.slice[0].slice.value
    return key.evaluated_value if isinstance(key, cst.SimpleString) else None


def _string_items(function: ast.AST):
    """``("set", name, key)`` and ``("del", name, key)`` of the function's own
    ``name["key"] = ...`` and ``del name["key"]`` (not those of nested functions)."""
    stack = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        targets = (node.targets if isinstance(node, ast.Assign)
                   else node.targets if isinstance(node, ast.Delete) else ())
        for target in targets:
            if (isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant)
                    and isinstance(target.slice.value, str)):
                name = ast_dotted_name(target.value)
                if name is not None:
                    kind = "del" if isinstance(node, ast.Delete) else "set"
                    yield kind, name, target.slice.value
        stack.extend(child_nodes(node))


def _base(node: cst.BaseExpression) -> Tuple[Optional[str], int]:
    """The dotted name under a chain of subscripts (``self.stats`` for
    ``self.stats["loss"][0]``) and how many subscripts there are."""
    depth = 0
    while isinstance(node, cst.Subscript):
        node, depth = node.value, depth + 1
    return dotted_name(node), depth


_STRINGS = NodeTypes("SimpleString", "ConcatenatedString", "FormattedString")


def _string_key(node: cst.Subscript) -> bool:
    """``x["key"]``: an item of a dict, not of a tensor."""
    return (len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
            and isinstance(node.slice[0].slice.value, _STRINGS))


_BASE = r"(?<![\w.])([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)"
_MUTATION_PATTERNS = (
    lazy_compile(_BASE + r"(?:\[[^\n]*\])?\.\s*(?:" + "|".join(sorted(_MUTATORS)) + r")\s*\("),
    # ``x[k] = v``, ``self.cache[k] += v``, ``del x[k]`` as statements.
    lazy_compile(r"^[ \t]*" + _BASE + r"\s*\[[^\n]*\]\s*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)",
                 re.MULTILINE),
    lazy_compile(r"^[ \t]*del\b[^\n]*?" + _BASE + r"\s*\[", re.MULTILINE),
)
#: What every mutation pattern needs; a cheap scan before the patterns that name the base.
_ANY_MUTATION = lazy_compile(r"\.\s*(?:" + "|".join(sorted(_MUTATORS)) + r")\s*\("
                             r"|\]\s*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)|\bdel\b")


def _mutated_bases(text: str) -> Set[str]:
    """Dotted names of what ``text`` seems to mutate, read from the lines that can hold one."""
    bases: Set[str] = set()
    lines: Set[int] = set()
    for match in _ANY_MUTATION.finditer(text):
        start = text.rfind("\n", 0, match.start()) + 1
        if start in lines:
            continue
        lines.add(start)
        end = text.find("\n", match.end())
        line = text[start:end if end >= 0 else len(text)]
        bases.update(re.sub(r"\s+", "", m.group(1))
                     for pattern in _MUTATION_PATTERNS for m in pattern.finditer(line))
    return bases


class ExternalContainerMutation(Rule):
    """A Python list, dict or set that outlives the call is mutated in traced code.

    ## What it does
    Flags in-place changes (`append`, `extend`, `insert`, `pop`, `remove`, `clear`,
    `update`, `setdefault`, `add`, `discard`, `x[k] = v`, `del x[k]`) of a Python container
    that exists before the traced function runs and after it returns: a module global, a
    variable of an enclosing function that is not traced, an attribute such as
    `self.history`, or a parameter of a `tf.function`.

    ## Why is this bad?
    `tf.function` runs the Python body only while it traces a graph. A Python list is not
    part of that graph: `history.append(x)` happens once, on the first call (and again on
    each retrace), and never on the calls that reuse the graph. What it stores is a symbolic
    tensor of that trace, which has no value and cannot be used outside it. Mutating a
    parameter of a `tf.function` fails outright: `ValueError: ... should not modify its
    Python input arguments`. Return the values instead, collect them in a `tf.TensorArray`,
    or keep state in a `tf.Variable`.

    It matters when something expects one entry per call: code outside the trace that
    reads the container, or traced code that reads what earlier calls put there.

    ## Example
    ```python
    import tensorflow as tf

    history = []

    @tf.function
    def step(x):
        history.append(x)
        return x * 2
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    history = []

    @tf.function
    def step(x):
        return x * 2

    for value in (1.0, 2.0, 3.0):
        history.append(step(tf.constant(value)))
    ```

    ## Known problems
    Test modules (`test_*.py`, `*_test.py`, `conftest.py`, files under `tests/`) are not
    checked: a test that records trace-time state (a spy layer, a list of traced shapes)
    does it on purpose.
    An item of a parameter that the function sets and deletes again (`state["tape"] =
    tape`, then `del state["tape"]`) is not reported: TensorFlow compares the argument
    before and after the call, and it ends as it came.
    A method that traced code reaches only on objects it makes itself (`registry =
    Registry(); registry.insert(...)`) changes a new object, which lives within the trace:
    its attributes are not outside state.
    A container is reported only when the module shows it is one: a global, closure variable
    or attribute must be bound to a list/dict/set display or constructor (`CACHE = {}`,
    `self.history = []` in `__init__`), so methods called `update` or `add` on metrics,
    optimizers or layers are not reported. Parameters are reported only in a function that
    is itself a `tf.function`, for `append`/`extend`/`insert`/`setdefault` and item
    assignment with a string key. Containers created by the traced function (a local list
    filled by a Python loop) are fine and not reported, nor is code inside
    `with tf.init_scope():`. A local name that aliases an outside container
    (`h = self.history; h.append(x)`) is not followed. A container attribute or global is
    reported only with evidence that the mutation matters (as for TFF103): traced code
    reads it before giving it a new value, or code outside the trace reads it
    (`print(recorder.history)`, an untraced method). One filled afresh on each trace and
    read only by traced code (`self.endpoints = {}` then `self.endpoints["stem"] = x`; a
    sub-layer's `endpoints` read by the traced model, or a layer whose `call` returns the
    layer and whose caller reads `encoder(x).get_all_encoder_layers()`) is scratch and not
    reported; so is an item that the call sets and later reads back under the same key
    (`self.skips[level] = x`, then `self.skips[level]`: a U-Net's skip connections kept by
    level), or after the call set items under computed keys, which may be any
    (`self.outputs[block.name] = x` for each block, then `self.outputs["block_2"]`), while
    a read of the whole container (`self.parts.values()`) still counts.
    Caching on purpose at trace time (a dict of per-shape constants) is reported too; add
    `# noqa: TFF102` to keep it. A memo entry made once under `if key not in self._cache:`
    is lazy initialisation, like `if self.x is None:`, and is not reported.

    ## References
    - [Better performance with tf.function: Changing Python global and free variables](https://www.tensorflow.org/guide/function#changing_python_global_and_free_variables)
    - [Better performance with tf.function: All outputs of a tf.function must be return values](https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values)
    - [`tf.TensorArray`](https://www.tensorflow.org/api_docs/python/tf/TensorArray)
    """

    code = "TFF102"
    name = "external-container-mutation"
    _restored_in: Optional[Tuple[object, Set[Tuple[str, str]]]] = None
    message = ("mutating a Python container that outlives the call happens only while "
               "tf.function traces (not on every call) and leaks symbolic tensors; use return "
               "values, a tf.TensorArray or a tf.Variable")

    @classmethod
    def triggers_for(cls, context):
        """Mutations whose base can outlive the call: ``self``/``cls``, module names,
        parameters of traced functions, variables of functions that enclose traced ones."""
        def triggered(text: str) -> bool:
            bases = _mutated_bases(text)
            if not bases:
                return False
            parameters, names = container_provenance.outliving_names(context)
            may_hold_container = container_provenance.container_evidence(context)
            for dotted in bases:
                parts = dotted.split(".")
                if parts[0] in parameters:
                    return True  # a parameter is reported without knowing its kind
                if parts[0] not in names:
                    continue
                # Anything else is reported only when the module binds it to a container.
                held = parts[1] if parts[0] in container_provenance.RECEIVERS and len(parts) > 1 else parts[0]
                if held in container_provenance.RECEIVERS or may_hold_container(held):
                    return True
            return False

        return (triggered,)

    # -- method calls ---------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in _MUTATORS:
            return
        method = func.attr.value
        name, depth = _base(func.value)
        # ``x.update(...)`` may be a tensor method; ``x[0].add(...)`` may mutate an item.
        self._mutation(node, name, parameter=method in _CONTAINER_ONLY,
                       container=not depth or method in _CONTAINER_ONLY)

    # -- item assignment and deletion --------------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._item(node, target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._item(node, node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._item(node, node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._item(node, node.target)

    def _item(self, statement: cst.CSTNode, target: cst.BaseExpression) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._item(statement, element.value)
            return
        if not isinstance(target, cst.Subscript):
            return
        name, _ = _base(target.value)
        keyed = _string_key(target)
        if keyed and name is not None and (name, _key_text(target)) in self._restored():
            return  # set and deleted again: the argument ends as it came
        self._mutation(statement, name, parameter=keyed, container=True)

    def _restored(self) -> Set[Tuple[str, str]]:
        """``(name, key)`` items the traced function both sets (``state["tape"] = tape``)
        and deletes (``del state["tape"]``): TensorFlow compares an argument before and
        after the call, and such an item leaves it as it was."""
        function = self.context.function
        node = function.node if function is not None else None
        if node is None:
            return set()
        if self._restored_in is None or self._restored_in[0] is not node:
            assigned: Set[Tuple[str, str]] = set()
            deleted: Set[Tuple[str, str]] = set()
            for kind, name, key in _string_items(node):
                (deleted if kind == "del" else assigned).add((name, key))
            self._restored_in = (node, assigned & deleted)
        return self._restored_in[1]

    def _mutation(self, node: cst.CSTNode, name: Optional[str], *, parameter: bool,
                  container: bool) -> None:
        """``name`` is mutated at ``node``: reported when it outlives the call. A parameter
        only when the mutation is one of a Python container (``parameter``) in an entry
        point; another name only when it holds a container (``container``)."""
        if name is None:
            return
        found = container_provenance.origin(self.context, name)
        if not found.outlives_call:
            return
        if found.provenance is container_provenance.Provenance.PARAMETER:
            if parameter and self._entry_point():
                self._report_parameter(node, found)
            return
        if found.kind is not None and container and self._outlives_trace(found, name):
            self._report(node, found, name)

    def _outlives_trace(self, found: container_provenance.Origin, name: str) -> bool:
        """A container the traced function fills afresh on each trace
        (``self.endpoints = {}`` then ``self.endpoints["stem"] = x``) and that no other code
        reads is scratch: the mutation matters only when the container is carried from call
        to call or read elsewhere (see ``state_use``)."""
        function = self.context.function
        if function is None or function.node is None:
            return True
        base, _, attribute = name.partition(".")
        use = state_use.StateUse.of(self.context)
        if found.provenance is container_provenance.Provenance.ATTRIBUTE and attribute:
            return use.attribute_outlives_trace(function.node, attribute.partition(".")[0])
        if found.provenance is container_provenance.Provenance.GLOBAL and not attribute:
            return use.global_outlives_trace(function.node, base)
        return True

    # -- reporting ------------------------------------------------------------------------
    def _entry_point(self) -> bool:
        return container_provenance.is_entry_point(self.context.reason)

    def _report(self, node: cst.CSTNode, found: container_provenance.Origin, name: str) -> None:
        if self.context.in_one_time_setup((name,)):
            return
        self.report(node, f"{found.description} outlives the call: mutating it happens only "
                          "while tf.function traces (not on every call) and leaks symbolic "
                          "tensors; use return values, a tf.TensorArray or a tf.Variable")

    def _report_parameter(self, node: cst.CSTNode, found: container_provenance.Origin) -> None:
        self.report(node, f"mutating {found.description} of a tf.function raises ValueError "
                          "(it must not modify its Python input arguments); use a copy "
                          "(`dict(x)`, `list(x)`) or return the new value")
