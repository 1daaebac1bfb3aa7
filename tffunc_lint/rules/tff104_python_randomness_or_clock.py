"""TFF104 python-randomness-or-clock."""

from __future__ import annotations

import ast
import re
from typing import FrozenSet, Optional

from ..analysis.lazy_libcst import NodeTypes, cst

from ..analysis.guarded_code import in_eager_branch
from ..analysis.names import ast_dotted_name, dotted_name, function_local_names
from ..analysis.patterns import words, lazy_compile
from ..rule import Rule
from ..analysis.ast_walk import walk_nodes

_RANDOM_FIX = ("use tf.random (stateless ops such as tf.random.stateless_uniform, or a "
               "tf.random.Generator)")
_CLOCK_FIX = "use tf.timestamp()"
#: Module functions that do not draw a value: seeding, state, generator classes.
_NOT_DRAWS = frozenset({"seed", "getstate", "setstate", "get_state", "set_state"})
#: Generator classes and factories: drawing from an unseeded one made in traced code is frozen.
_GENERATORS = frozenset({
    "numpy.random.default_rng", "numpy.random.RandomState", "random.Random",
    "random.SystemRandom",
})
_CLOCK = frozenset({
    "time.time", "time.time_ns", "time.perf_counter", "time.perf_counter_ns",
    "time.monotonic", "time.monotonic_ns", "time.process_time", "time.process_time_ns",
    "time.thread_time", "time.thread_time_ns", "datetime.datetime.now",
    "datetime.datetime.utcnow", "datetime.datetime.today", "datetime.date.today",
})
#: Time functions that read the clock only when called without an argument.
_CLOCK_WITHOUT_ARGUMENT = frozenset({"time.localtime", "time.gmtime", "time.ctime",
                                     "time.asctime"})
_ENTROPY = frozenset({"uuid.uuid1", "uuid.uuid4", "os.urandom", "os.getrandom"})
_SECRETS = "secrets."
#: Attributes of a ``uuid.UUID`` that spell it as text.
_UUID_TEXT = frozenset({"hex", "urn"})
_STRINGS = NodeTypes("SimpleString", "ConcatenatedString", "FormattedString")


def _kind(qualified: str, node: cst.Call) -> Optional[str]:
    """"random", "clock" or "entropy" when calling ``qualified`` draws a fresh value."""
    module, _, name = qualified.rpartition(".")
    if module in ("numpy.random", "random"):
        if name in _NOT_DRAWS or name[:1].isupper() or qualified in _GENERATORS:
            return None
        return "random"
    if qualified in _CLOCK:
        return "clock"
    if qualified in _CLOCK_WITHOUT_ARGUMENT and not node.args:
        return "clock"
    if qualified == "time.strftime" and len(node.args) == 1:
        return "clock"
    if qualified in _ENTROPY or (qualified.startswith(_SECRETS) and name[:1].islower()):
        return "entropy"
    return None


def _builds_a_name(node: cst.Call, ancestors, resolve) -> bool:
    """The UUID ``node`` is spelled into a larger string or passed as a name:
    ``"gru_" + str(uuid.uuid4())``, ``f"run_{uuid.uuid4().hex}"``, ``"{}".format(...)``,
    ``"%s" % ...``, ``"_".join(...)``, ``name=str(uuid.uuid4())``. A unique name per trace is
    the intent there; the bare value (``uuid.uuid4()``, ``.hex``, ``str(...)`` kept as a
    token) is frozen data like any other draw."""
    value: cst.CSTNode = node
    text = False
    path = list(ancestors)
    if path and path[-1] is node:
        path.pop()
    while path:
        parent = path.pop()
        if isinstance(parent, cst.Attribute) and parent.value is value:
            if parent.attr.value not in _UUID_TEXT:
                return False
            value, text = parent, True
        elif isinstance(parent, cst.Arg) and parent.value is value:
            keyword = parent.keyword.value if parent.keyword is not None else ""
            if keyword == "name" or keyword.endswith("_name"):
                return True
            call = path[-1] if path else None
            if not isinstance(call, cst.Call):
                return False
            if resolve(call.func) == "builtins.str" and len(call.args) == 1:
                path.pop()
                value, text = call, True
                continue
            return (isinstance(call.func, cst.Attribute)
                    and call.func.attr.value in ("format", "join")
                    and isinstance(call.func.value, _STRINGS))
        elif isinstance(parent, cst.FormattedStringExpression):
            return True
        elif isinstance(parent, cst.BinaryOperation):
            other = parent.right if parent.left is value else parent.left
            if isinstance(parent.operator, cst.Add):
                return text or isinstance(other, _STRINGS)
            return (isinstance(parent.operator, cst.Modulo) and parent.right is value
                    and isinstance(parent.left, _STRINGS))
        elif isinstance(parent, (cst.Tuple, cst.List, cst.Element)):
            value = parent  # ``"%s-%s" % (a, b)``, ``"_".join([a, b])``
        else:
            return False
    return False


def _unseeded_generator(node: cst.BaseExpression, resolve) -> bool:
    """``np.random.default_rng()`` / ``random.Random()`` made without a fixed seed."""
    if not isinstance(node, cst.Call) or resolve(node.func) not in _GENERATORS:
        return False
    if not node.args:
        return True
    first = node.args[0].value
    return len(node.args) == 1 and isinstance(first, cst.Name) and first.value == "None"


class PythonRandomnessOrClock(Rule):
    """Python randomness or clock reads in traced code become constants of the graph.

    ## What it does
    Flags calls that draw a fresh Python value, such as `np.random.*`, the standard `random`
    module, `time.time()`, `time.perf_counter()`, `datetime.datetime.now()`,
    `uuid.uuid4()`, `os.urandom()` and `secrets.*`, in code that TensorFlow traces.

    ## Why is this bad?
    `tf.function` runs the Python body only while it traces. The value such a call returns
    is computed once, at trace time, and baked into the graph as a constant: every later
    call gets the same "random" number or the same timestamp. Nothing fails, the results are
    just silently wrong (identical dropout masks, identical noise, a frozen clock).
    TensorFlow's own random ops and `tf.timestamp()` are graph operations that run on every
    call.

    ## Example
    ```python
    import numpy as np
    import tensorflow as tf

    @tf.function
    def add_noise(x):
        return x + np.random.normal()
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    generator = tf.random.Generator.from_seed(42)

    @tf.function
    def add_noise(x):
        return x + generator.normal([])
    ```

    ## Known problems
    Seeding (`np.random.seed`, `random.seed`) is not flagged, and neither are draws from a
    generator object made outside the traced function (`rng.normal()` on a
    `np.random.default_rng()` created at module level): the value is frozen just the same,
    but the receiver cannot be told from any other object statically. Draws from a generator
    made inside the traced function are flagged only when it has no fixed seed, since a
    seeded one returns the same values on every call anyway; for the same reason, neither
    are draws from the global state that the function seeds just before, in a block around
    the draw, with a number the same on every call (`np.random.seed(i + 1)` in
    `for i in range(self.num_shuffles):`). Code inside
    `if tf.executing_eagerly():` never runs while tracing and is not flagged.

    A UUID spelled into a name is not flagged: `"gru_" + str(uuid.uuid4())`,
    `f"block_{uuid.uuid4().hex}"`, `"{}-{}".format(prefix, uuid.uuid4())`,
    `"op_%s" % uuid.uuid4().hex`, `"_".join([...])`, or one passed as `name=` (or
    `*_name=`). A name that is unique to each trace (for a function, a layer or an op) is
    what such code wants, and it is a string, not a number used in computation. The UUID
    itself, or its text kept as a value (`tag = uuid.uuid4().hex`, `str(uuid.uuid4())`
    returned or compared), is still flagged: it is frozen like any other draw, so every call
    of the traced function sees the same "unique" tag. All random numbers and clock reads
    are flagged whatever they are used for, except a draw or a clock read that seeds
    TensorFlow's random ops (`seed=random.randint(0, 2**31)`, `seed=int(time.time())`,
    `seed = random.randrange(...)`, returned by a function whose name says it makes seeds),
    and a draw wrapped in `tf.constant(...)`: both are meant to be fixed for the graph, and
    the random ops a frozen seed seeds still draw new values on every call. Nor is a value
    assigned only to local names that the traced function never reads (`batch_z =
    np.random.uniform(...)` left in a step that samples with `tf.random.normal`): a frozen
    value nothing uses changes nothing.

    ## References
    - [Better performance with tf.function: Python side effects](https://www.tensorflow.org/guide/function#executing_python_side_effects)
    - [Random number generation](https://www.tensorflow.org/guide/random_numbers)
    - [`tf.timestamp`](https://www.tensorflow.org/api_docs/python/tf/timestamp)
    """

    code = "TFF104"
    name = "python-randomness-or-clock"
    message = ("Python randomness runs only while tf.function traces: the value is frozen into "
               f"the graph; {_RANDOM_FIX}")
    triggers = (lazy_compile(
        words(["random", "time", "datetime", "date", "uuid", "os", "secrets"],
              [r"\w", r"tf\.", r"tensorflow\."]) + r"\s*\.\s*\w+\s*\(|"
        + words(["now", "utcnow", "today", "default_rng", "RandomState", "Random",
                 "SystemRandom"]) + r"\s*\("),)

    @classmethod
    def triggers_for(cls, context):
        prefixes = ("numpy.random", "random.", "time.", "datetime.", "uuid.", "os.urandom",
                    "os.getrandom", "secrets.")
        imported = context.names.local_names_for(prefixes)
        return cls.triggers + ((re.compile(words(imported) + r"\s*[.(]"),) if imported else ())

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.qualified_name(node.func)
        kind = _kind(qualified, node) if qualified else None
        if kind is None and self._draws_from_unseeded_generator(node):
            kind, qualified = "random", None
        if kind is None or in_eager_branch(self.context.ancestors, self.context.qualified_name):
            return
        if (qualified or "").startswith("uuid.") and _builds_a_name(
                node, self.context.ancestors, self.context.qualified_name):
            return
        feeds = _seed_or_constant(node, self.context.ancestors, self.context.qualified_name)
        if feeds == "seed" and kind != "entropy" or feeds == "constant" and kind == "random":
            return
        if self._never_read() or kind == "random" and _seeded_just_before(
                qualified, self.context.ancestors, self.context.qualified_name):
            return
        spelled = (f"{dotted_name(node.func)}()" if qualified else
                   f"{cst.Module(body=[]).code_for_node(node.func)}() on an unseeded generator")
        if kind == "random":
            message = (f"{spelled} runs only while tf.function traces: the random value is "
                       f"frozen into the graph as a constant; {_RANDOM_FIX}")
        elif kind == "clock":
            message = (f"{spelled} runs only while tf.function traces: the time is frozen "
                       f"into the graph as a constant; {_CLOCK_FIX}")
        else:
            message = (f"{spelled} runs only while tf.function traces: the value is frozen "
                       f"into the graph as a constant; {_RANDOM_FIX}, or tf.py_function on "
                       "purpose")
        self.report(node, message)

    def _never_read(self) -> bool:
        """The value goes only to local names that the traced function never reads
        (``batch_z = np.random.uniform(...)`` left over from a copied GAN step, while the
        step samples with ``tf.random.normal``): a frozen value nothing uses does no harm."""
        function = self.context.function
        if function is None or function.node is None:
            return False
        statement = next((a for a in reversed(self.context.ancestors)
                          if isinstance(a, (cst.Assign, cst.SimpleStatementLine,
                                            cst.BaseCompoundStatement))), None)
        if not isinstance(statement, cst.Assign):
            return False
        targets = set()
        for target in statement.targets:
            if not isinstance(target.target, cst.Name):
                return False  # an attribute, a subscript, an unpacking: it may be read elsewhere
            targets.add(target.target.value)
        if not targets <= function_local_names(function.node):
            return False  # a global, or a name of an enclosing function: read elsewhere
        return not any(isinstance(n, ast.Name) and n.id in targets
                       and isinstance(n.ctx, ast.Load) for n in walk_nodes(function.node))

    def _draws_from_unseeded_generator(self, node: cst.Call) -> bool:
        """``np.random.default_rng().normal()``, or ``rng.normal()`` where this function
        assigned ``rng = np.random.default_rng()``."""
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value in _NOT_DRAWS:
            return False
        resolve = self.context.qualified_name
        if _unseeded_generator(func.value, resolve):
            return True
        if not isinstance(func.value, cst.Name):
            return False
        generators = self.context.fact("tff104.unseeded", lambda _: {})
        function = self.context.function
        if function is None or function.node is None:
            return False
        if function.key not in generators:
            generators[function.key] = self._unseeded_names(function.node)
        return func.value.value in generators[function.key]

    def _unseeded_names(self, function: ast.AST) -> FrozenSet[str]:
        """Local names this function assigns an unseeded generator to."""
        found = set()
        for statement in walk_nodes(function):
            if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                    and isinstance(statement.targets[0], ast.Name)
                    and _ast_unseeded_generator(statement.value, self.context.names)):
                found.add(statement.targets[0].id)
        return frozenset(found)


_SEED = lazy_compile(r"seed", re.IGNORECASE)
#: The seeding function of each module whose global state draws use.
_SEEDING = (("numpy.random.", "numpy.random.seed"), ("random.", "random.seed"))


def _seeded_just_before(qualified: Optional[str], ancestors, resolve) -> bool:
    """Earlier in the same function, in a block around the draw, a statement seeds the
    module's global state with a value that is the same on every call (``np.random.seed(i
    + 1)`` in ``for i in range(self.m):``, then ``np.random.shuffle(indices)``): the draw
    gives the same value on every call anyway, so freezing it changes nothing."""
    seeding = next((seed for prefix, seed in _SEEDING if (qualified or "").startswith(prefix)),
                   None)
    if seeding is None:
        return False
    loops = set()  # names of loops over a fixed range around the draw
    chain = []
    for index in range(len(ancestors) - 1, 0, -1):
        parent, child = ancestors[index - 1], ancestors[index]
        if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            break
        if (isinstance(parent, cst.For) and child is parent.body
                and isinstance(parent.target, cst.Name) and _fixed_range(parent.iter, resolve)):
            loops.add(parent.target.value)
        if isinstance(parent, cst.IndentedBlock):
            chain.append((parent, child))
    for block, child in chain:
        for statement in block.body:
            if statement is child:
                break
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                call = small.value if isinstance(small, cst.Expr) else None
                if (isinstance(call, cst.Call) and resolve(call.func) == seeding
                        and len(call.args) == 1 and _fixed(call.args[0].value, loops)):
                    return True
    return False


def _fixed_range(node: cst.BaseExpression, resolve) -> bool:
    """``range(...)`` of numbers and attributes (``range(self.num_shuffle)``)."""
    return (isinstance(node, cst.Call) and resolve(node.func) == "builtins.range"
            and all(isinstance(arg.value, (cst.Integer, cst.Attribute)) for arg in node.args))


def _fixed(node: cst.BaseExpression, loops) -> bool:
    """Numbers, and names of loops over a fixed range, in arithmetic."""
    if isinstance(node, cst.Integer):
        return True
    if isinstance(node, cst.Name):
        return node.value in loops
    if isinstance(node, cst.BinaryOperation):
        return _fixed(node.left, loops) and _fixed(node.right, loops)
    if isinstance(node, cst.UnaryOperation):
        return _fixed(node.expression, loops)
    return False


def _seed_or_constant(node: cst.Call, ancestors, resolve) -> Optional[str]:
    """"seed" when the value seeds TensorFlow's own random ops (``seed=random.randint(...)``,
    ``seed=int(time.time())``, ``seed = random.randrange(...)``, ``return
    random.randrange(...)`` in a function whose name says it makes seeds): the ops it seeds
    still vary from call to call. "constant" when it is wrapped in ``tf.constant(...)``: a
    draw meant to be fixed for the graph. None otherwise."""
    for parent in reversed(ancestors[:-1]):
        if isinstance(parent, cst.Arg) and parent.keyword is not None and _SEED.search(
                parent.keyword.value):
            return "seed"
        if isinstance(parent, cst.Call) and resolve(parent.func) == "tensorflow.constant":
            return "constant"
        if isinstance(parent, (cst.Assign, cst.AnnAssign)):
            targets = ([t.target for t in parent.targets] if isinstance(parent, cst.Assign)
                       else [parent.target])
            return "seed" if any(isinstance(target, cst.Name) and _SEED.search(target.value)
                                 for target in targets) else None
        if isinstance(parent, cst.Return):
            function = next((a for a in reversed(ancestors) if isinstance(a, cst.FunctionDef)),
                            None)
            return "seed" if function is not None and _SEED.search(function.name.value) else None
        if isinstance(parent, (cst.BaseCompoundStatement, cst.SimpleStatementLine)):
            return None
    return None


def _ast_unseeded_generator(node: ast.expr, names) -> bool:
    if not isinstance(node, ast.Call) or node.keywords:
        return False
    dotted = ast_dotted_name(node.func)
    if dotted is None or names.resolve(dotted) not in _GENERATORS:
        return False
    return not node.args or (len(node.args) == 1 and isinstance(node.args[0], ast.Constant)
                             and node.args[0].value is None)
