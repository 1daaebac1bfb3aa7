"""The TensorFlow versions a module can run on: what its project declares (see
``requirements``), narrowed by the module's own code. A module that uses an API TensorFlow
removed runs only on the releases before the removal:

- ``tf.keras.mixed_precision.experimental`` (and Keras 2's ``keras.mixed_precision.
  experimental``), removed in TensorFlow 2.9;
- a ``keras.backend`` function that Keras 3, ``tf.keras`` since TensorFlow 2.16, no longer
  has (``K.int_shape``, ``K.dot``);
- ``save_weights`` of a file named otherwise than ``*.weights.h5``
  (``model.save_weights("model.h5")``, a TensorFlow checkpoint's path), which Keras 3
  rejects.

A notebook last run with an older Python (its ``language_info.version``) ran a TensorFlow
that still supported that Python: 3.6, for one, before 2.7. A notebook whose saved output
shows the release it ran (a cell printing ``tf.__version__``: ``2.1.0``) was written for
that release or an older one.

A module that a program running only on such releases imports runs only on them too
(``ProjectGraph.runs_before``): a model module that a training script written for
Keras 2 imports is run by Keras 2, and one that notebooks last run on TensorFlow 2.1
import, by 2.1 or older.

A module whose code has a branch for TensorFlow 1 (``if tf_version < 2:``,
``tf.__version__.startswith("1.")``) is written to run on TensorFlow 1 too
(``tests_for_tensorflow_1``). A test against a release of TensorFlow 2 (``if TF_VERSION <
2.3:``) is not taken as such evidence: it often guards the very call that needs it, or
outlives the releases it was written for (a package that uses ``jit_compile=`` elsewhere
and still tests for 2.4).

Rules ask ``FileContext.tensorflow_versions()``: TFF405 suggests a replacement only where
every such version has it (and, where nothing declares a lowest release, the module has no
branch for TensorFlow 1); TFF301 reports ``Dropout`` and the noise layers, which Keras 3
gives a seed variable, only where every such version has Keras 3 or the project's text says
it runs on Keras 3 (``keras_3_evident``).
"""

from __future__ import annotations

import ast
from types import MappingProxyType
from typing import Callable, Iterator, Mapping, Optional, Sequence

from .. import requirements
from ..requirements import Version
from .names import ast_dotted_name
from .ast_walk import child_nodes, walk_nodes
from .patterns import lazy_compile
from .source_lines import SourceLines

#: What TensorFlow removed, by qualified-name prefix, and the release that removed it.
_REMOVED = {
    "tensorflow.keras.mixed_precision.experimental": (2, 9),
    "keras.mixed_precision.experimental": (2, 9),
}
#: The first TensorFlow release that dropped each Python version.
_DROPPED_PYTHON = {(2, 7): (2, 2), (3, 5): (2, 4), (3, 6): (2, 7), (3, 7): (2, 12),
                   (3, 8): (2, 14)}
#: ``keras.backend`` in Keras 3: what is left of the Keras 2 backend module.
_KERAS_3_BACKEND = frozenset({
    "backend", "clear_session", "epsilon", "floatx", "get_uid", "image_data_format",
    "is_float_dtype", "is_int_dtype", "is_keras_tensor", "result_type", "set_epsilon",
    "set_floatx", "set_image_data_format", "standardize_dtype",
})
#: TensorFlow 2.16 made Keras 3 its ``tf.keras``.
KERAS_3_SINCE = (2, 16)
#: The first Python that only TensorFlow releases with Keras 3 support (2.16 and later).
KERAS_3_PYTHON = (3, 12)
_TENSORFLOW = r"\btensorflow(?:[-_](?:cpu|gpu))?(?:[ \t]*>=[ \t]*[\d.]+)?(?![\w.=<>~-])"
#: Keras 3's API: ``keras.ops`` (``from keras import ops``), ``keras_core``, ``keras_hub``,
#: ``keras.random.SeedGenerator``. Each starts with ``keras``, which the search looks for
#: first.
_KERAS_3_API = lazy_compile(
    r"keras(?:\.ops\b|_core\b|_hub\b|\.random\.SeedGenerator\b"
    r"|[ \t]+import[ \t]+(?:\([^)]*|[^\n]*)\bops\b)")
#: An install of ``keras>=3``, or an upgrade of TensorFlow to its newest release (``pip
#: install -U tensorflow``), which has had Keras 3 since 2.16.
_KERAS_3_INSTALL = lazy_compile(
    r"install\b(?:[^\n]*\bkeras[ \t]*(?:>=|==|~=)[ \t]*3"
    r"|[^\n]*?(?:-U|--upgrade)\b[^\n]*?" + _TENSORFLOW
    + r"|[^\n]*?" + _TENSORFLOW + r"[^\n]*?(?:[ \t]-U|--upgrade)\b)")


#: Keras 3 layers that hold a random seed variable: made inside traced code they raise the
#: singleton ValueError too (measured with TF 2.21 / Keras 3.15). Keras 2 (``tf_keras``)
#: versions hold no variable. Whether a module runs on Keras 3 matters to nothing else.
LAYERS_WITH_SEED = frozenset({
    "Dropout", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "GaussianNoise",
    "GaussianDropout", "AlphaDropout",
})


def names_layers_with_seed(text: str) -> bool:
    """The text names one of ``LAYERS_WITH_SEED`` (each ends in ``Dropout`` or
    ``Noise``): without that, whether the module runs on Keras 3 changes none of its
    findings."""
    return "Dropout" in text or "GaussianNoise" in text


def says_keras_3(text: str) -> bool:
    """The text says it runs on Keras 3: its API, or an install of it."""
    return (_KERAS_3_API.search(text) is not None
            or "install" in text and _KERAS_3_INSTALL.search(text) is not None)


#: Text without which a module calls none of the removed APIs above.
_REMOVED_TEXT = ("mixed_precision", "backend", "save_weights")


def removed_before(tree: ast.Module, text: str, resolve: Callable[[str], Optional[str]],
                   bound: Mapping[str, str] = MappingProxyType({}),
                   starts: Optional[Sequence[int]] = None) -> Optional[Version]:
    """The earliest release that removed an API the module's code uses (see the module
    docstring), None when it uses none; ``resolve`` gives a dotted name's qualified name,
    ``bound`` what the module binds its names to (``K`` → ``keras.backend``), ``starts``
    where each line starts in ``text`` (by default, after each newline)."""
    if not any(word in text for word in _REMOVED_TEXT):
        return None
    # Only statements whose lines hold one of these words can use such an API: the names
    # above, ``experimental``, and the module's own names for the modules they are in.
    words = [*_REMOVED_TEXT, "experimental",
             *(name for name, target in bound.items()
               if target.startswith("keras.backend") or "mixed_precision" in target)]
    lines = SourceLines(text, words, starts=starts)
    earliest: Optional[Version] = None

    def used(qualified: Optional[str], is_call: bool) -> None:
        nonlocal earliest
        if not qualified:
            return
        for prefix, version in _REMOVED.items():
            if qualified == prefix or qualified.startswith(prefix + "."):
                earliest = version if earliest is None else min(earliest, version)
        if (is_call and qualified.startswith("keras.backend.") and qualified.count(".") == 2
                and qualified.rpartition(".")[2] not in _KERAS_3_BACKEND):
            earliest = KERAS_3_SINCE if earliest is None else min(earliest, KERAS_3_SINCE)

    for node in _walk_lines(tree, lines):
        if isinstance(node, ast.Import):
            for alias in node.names:
                used(alias.name, False)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                used(f"{node.module}.{alias.name}", False)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if _rejected_by_keras_3(node):
                earliest = KERAS_3_SINCE if earliest is None else min(earliest, KERAS_3_SINCE)
            dotted = ast_dotted_name(node.func)
            used(resolve(dotted) if dotted else None, True)
        elif isinstance(node, ast.Attribute) and node.attr == "experimental":
            dotted = ast_dotted_name(node)
            used(resolve(dotted) if dotted else None, False)
    return earliest


def _walk_lines(tree: ast.AST, lines: SourceLines) -> Iterator[ast.AST]:
    """The nodes of ``tree`` (as ``walk_nodes``, in another order) but those whose lines
    hold none of ``lines``, with all they contain."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if lines.touches(node):
            todo.extend(child_nodes(node))
            yield node


def _rejected_by_keras_3(call: ast.Call) -> bool:
    """``save_weights`` of a file name that Keras 3 refuses: it wants ``*.weights.h5``."""
    if call.func.attr != "save_weights":
        return False
    path = call.args[0] if call.args else next(
        (k.value for k in call.keywords if k.arg == "filepath"), None)
    return (isinstance(path, ast.Constant) and isinstance(path.value, str)
            and not path.value.endswith(".weights.h5"))


def releases_before_python(python: Optional[Version]) -> Optional[Version]:
    """The first TensorFlow release that no longer ran on ``python`` (None: one that still
    does, or not known)."""
    return _DROPPED_PYTHON.get(python) if python else None


def releases_after(ran: Optional[Version]) -> Optional[Version]:
    """The first TensorFlow release after ``ran``, the one a notebook's outputs show it
    last ran (None: not known)."""
    return (ran[0], ran[1] + 1) if ran else None


def narrowest(*befores: Optional[Version]) -> Optional[Version]:
    """The earliest of ``befores`` that are known, or None."""
    known = [before for before in befores if before is not None]
    return min(known) if known else None


def narrowed(spec: Optional[str], *befores: Optional[Version]) -> Optional[str]:
    """``spec`` with the releases from the earliest of ``befores`` on left out. Where the
    declaration and the code disagree, no release is left: what a rule would suggest for
    the declared releases, the code cannot run on."""
    before = narrowest(*befores)
    if before is None:
        return spec
    clause = f"<{before[0]}.{before[1]}"
    return f"{spec},{clause}" if spec else clause


def keras_2_only(context) -> bool:
    """Every TensorFlow version the module can run on is older than Keras 3's (see the
    module docstring); a ``context.fact``."""
    return not requirements.has_anywhere(context.tensorflow_versions(), KERAS_3_SINCE)


#: The name under which rules ask ``keras_3_evident`` of a ``FileContext``.
KERAS_3_FACT = "keras-3"


def keras_3_evident(context) -> bool:
    """Something says the module runs on Keras 3, and nothing that it runs on Keras 2 only
    (``keras_2_only``): every TensorFlow it may run on has Keras 3, or the module's text,
    or that of a linted module linked to it by imports, says it runs on Keras 3
    (``ProjectGraph.keras_3``); a ``context.fact``."""
    if keras_2_only(context):
        return False
    spec = context.tensorflow_versions()
    low = requirements.bounds(spec)[0] if spec else None
    graph = context.graph
    return (low is not None and low >= KERAS_3_SINCE
            or graph is not None and graph.keras_3)


#: What the module's code reads the running TensorFlow's version from.
_VERSION_NAMES = frozenset({"tensorflow.__version__", "tensorflow.version.VERSION",
                            "tensorflow.VERSION"})
_BEFORE = (ast.Lt, ast.GtE)
"""``v < 2.2``, ``v >= 2.2``: the other branch is for the releases before 2.2; ``<=``, ``>``,
``==`` and ``!=`` test 2.2 itself."""


def tested_before(tree: Optional[ast.Module], text: str,
                  resolve: Callable[[str], Optional[str]]) -> Optional[Version]:
    """The earliest release R such that the module's code tests the TensorFlow version
    against a release before R (see the module docstring): one branch of the test is for
    releases before R, so the module runs on one. None when its code tests none. The
    version is read from ``tf.__version__`` or ``tf.version.VERSION``, from a call given the
    ``tensorflow`` module (``get_version(tf)``), or from a name bound to one of these
    (``TF_VERSION = get_version(tf)``); other versions (``sys.version_info``,
    ``torch.__version__``) are not TensorFlow's."""
    if tree is None or "version" not in text.lower():
        return None
    bound = set()
    for node in walk_nodes(tree):
        if isinstance(node, ast.Assign) and _reads_version(node.value, resolve, bound):
            bound.update(t.id for t in node.targets if isinstance(t, ast.Name))
    earliest: Optional[Version] = None
    for node in walk_nodes(tree):
        found = None
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            sides = (node.left, node.comparators[0])
            for side, other in (sides, sides[::-1]):
                release = _release_literal(other)
                if release is not None and _reads_version(side, resolve, bound):
                    strict = isinstance(node.ops[0], _BEFORE)
                    found = release if strict else (release[0], release[1] + 1)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "startswith" and len(node.args) == 1
              and isinstance(node.args[0], ast.Constant) and node.args[0].value in ("1", "1.")
              and _reads_version(node.func.value, resolve, bound)):
            found = (2, 0)  # ``tf.__version__.startswith("1.")``: TensorFlow 1 too
        if found is not None:
            earliest = found if earliest is None else min(earliest, found)
    return earliest


def _reads_version(node: ast.AST, resolve: Callable[[str], Optional[str]],
                   bound: set) -> bool:
    """``node`` computes with the running TensorFlow's version."""
    for inner in walk_nodes(node):
        if isinstance(inner, ast.Name) and inner.id in bound:
            return True
        if isinstance(inner, (ast.Attribute, ast.Name)):
            dotted = ast_dotted_name(inner)
            qualified = resolve(dotted) if dotted else None
            if qualified in _VERSION_NAMES:
                return True
        if isinstance(inner, ast.Call) and any(
                isinstance(arg, ast.Name) and resolve(arg.id) == "tensorflow"
                for arg in inner.args):
            return True
    return False


def _release_literal(node: ast.AST) -> Optional[Version]:
    """The release a literal names: ``2.2``, ``2``, ``"2.2.0"``, ``(2, 2)``, or a parsed
    string (``version.parse("2.2")``, ``LooseVersion("2.2")``)."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            return None
    if isinstance(node, ast.Tuple) and node.elts and all(
            isinstance(e, ast.Constant) and type(e.value) is int for e in node.elts[:2]):
        parts = [e.value for e in node.elts[:2]]
        return (parts[0], parts[1] if len(parts) > 1 else 0)
    if not isinstance(node, ast.Constant) or isinstance(node.value, bool):
        return None
    value = node.value
    if isinstance(value, (int, float)):
        value = repr(value)
    if not isinstance(value, str):
        return None
    pieces = value.split(".")
    try:
        major = int(pieces[0])
        minor = int(pieces[1]) if len(pieces) > 1 and pieces[1] else 0
    except ValueError:
        return None
    return (major, minor) if 1 <= major <= 2 else None


def tests_for_tensorflow_1(context) -> bool:
    """The module being linted has a branch for TensorFlow 1 (see the module docstring and
    ``tested_before``); a ``context.fact``."""
    tested = tested_before(context.tree, context.text, context.names.resolve)
    return tested is not None and tested <= (2, 0)
