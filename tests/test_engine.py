"""Engine internals that fixtures cannot reach."""

import ast
import sys

import pytest

from tffunc_lint import engine
from tffunc_lint.analysis.graph_context import GraphContext
from tffunc_lint.config import Settings

from .conftest import PACKAGE_FIXTURES, ROOT, TEST_FIXTURES, expected_findings, lint_snippet


def test_wrong_ordinal_function_keys_fall_back_to_positions(monkeypatch):
    """If the n-th LibCST def were not the n-th indexed one, positions decide instead."""
    source = (PACKAGE_FIXTURES / "TFF301" / "bad.py").read_text(encoding="utf-8")
    expected = sorted(expected_findings(PACKAGE_FIXTURES / "TFF301" / "bad.py"))
    real_keys_in = GraphContext.keys_in

    def reversed_keys(self, first, last):
        defs, lambdas = real_keys_in(self, first, last)
        return list(reversed(defs)), lambdas

    monkeypatch.setattr(GraphContext, "keys_in", reversed_keys)
    assert sorted((f.line, f.code) for f in lint_snippet(source)) == expected


def test_a_fallback_from_inside_a_traced_function_restarts_untraced(monkeypatch):
    """A mismatch found inside a traced function (a lambda the index did not list) restarts
    the walk from the module's own context: module-level code is not traced."""
    source = (
        "import tensorflow as tf\n\n\n"
        "@tf.function\n"
        "def double(x):\n"
        "    return tf.py_function(lambda v: v * 2, [x], tf.float32)\n\n\n"
        "tf.config.run_functions_eagerly(True)\n"
        "print(double(tf.constant(1.0)).numpy())\n")
    real_keys_in = GraphContext.keys_in

    def without_lambdas(self, first, last):
        return real_keys_in(self, first, last)[0], []

    monkeypatch.setattr(GraphContext, "keys_in", without_lambdas)
    assert [(f.line, f.code) for f in lint_snippet(source)] == [(9, "TFF406")]


def test_region_without_a_trigger_is_not_parsed(monkeypatch):
    import libcst

    parsed = []
    real_parse = libcst.parse_module
    monkeypatch.setattr(libcst, "parse_module",
                        lambda text: parsed.append(text) or real_parse(text))
    findings = lint_snippet("""
        import tensorflow as tf

        @tf.function
        def quiet(x):
            return x + 1

        @tf.function
        def loud(x):
            print(x)
            return x
    """)
    assert [(f.line, f.code) for f in findings] == [(10, "TFF101")]
    assert len(parsed) == 1 and "def loud" in parsed[0] and "def quiet" not in parsed[0]


def test_fix_rewrites_fixable_findings_and_keeps_every_other_byte():
    from tffunc_lint.config import Settings
    from tffunc_lint.engine import lint_source

    from .conftest import ROOT

    FIX_FIXTURES = ROOT / "tests" / "fix_fixtures"

    before = (FIX_FIXTURES / "tff101_before.py").read_bytes()
    after = (FIX_FIXTURES / "tff101_after.py").read_bytes()
    result = lint_source("before.py", before, Settings(unsafe_fixes=True).resolved(), fix=True)
    assert result.fixed_source == after
    assert result.fixes_applied == 3
    assert [(f.line, f.code) for f in result.findings] == [(9, "TFF101"), (10, "TFF101")]


def test_unsafe_fixes_are_not_applied_by_default():
    from tffunc_lint.config import Settings
    from tffunc_lint.engine import lint_source

    from .conftest import ROOT

    FIX_FIXTURES = ROOT / "tests" / "fix_fixtures"

    before = (FIX_FIXTURES / "tff101_before.py").read_bytes()
    result = lint_source("before.py", before, Settings().resolved(), fix=True)
    assert result.fixed_source == before.replace(b"experimental_relax_shapes", b"reduce_retracing")
    assert not any(f.fixable for f in result.findings if f.code == "TFF101")


_CLEAN = """\
import tensorflow as tf
x = 1
@tf.function
def step(x):
    y = x + 1

    return y
class Model:
    def call(self, x):
        return x
z = step(x)
"""
_TRAPS = [  # a line in column 0 that does not start a top-level statement
    'TEXT = """\ndef not_a_function():\n    pass\n"""\n',
    "x = (1,\ny)\n",
    "z = 1 + \\\nw\n",
    "if x:\n    pass\nelse:\n    pass\n",
    "try:\n    pass\nexcept ValueError:\n    pass\nfinally:\n    pass\n",
    "@tf.function(\n  jit_compile=True)\ndef f():\n    pass\n",
    "def broken(:\n    pass\n",
    "x = (1\ny = 2\n",
]


@pytest.mark.parametrize("trap", [""] + _TRAPS)
def test_a_long_module_parsed_in_pieces_gives_the_tree_ast_parse_gives(monkeypatch, trap):
    source = _CLEAN + trap + _CLEAN
    monkeypatch.setattr(engine, "_CHUNK_LINES", 1)
    lines = engine.split_lines(source)
    try:
        expected = ast.dump(ast.parse(source), include_attributes=True)
    except SyntaxError as error:
        with pytest.raises(SyntaxError) as raised:
            engine.parse_module(source, lines, "m.py")
        assert (raised.value.msg, raised.value.lineno) == (error.msg, error.lineno)
        return
    parsed = []
    real_parse = ast.parse
    monkeypatch.setattr(ast, "parse", lambda text, **kw: parsed.append(text) or real_parse(text))
    tree = engine.parse_module(source, lines, "m.py")
    assert ast.dump(tree, include_attributes=True) == expected
    if not trap:
        assert len(parsed) > 4  # in pieces, not parsed whole


_BLOCK = '''

@tf.function
def step_{n}(x):
    print("step", x)
    CACHE.append(x)
    return x + random.random()
'''
_LONG = ('"""A long module."""\nimport random\n\nimport tensorflow as tf\n\nCACHE = []\n'
         + "".join(_BLOCK.format(n=n) for n in range(4))
         + '\nTEXT = """\ndef not_a_function():\n    print(1)\n"""\n'
         + "".join(_BLOCK.format(n=n) for n in range(4, 8)).replace(
             'print("step", x)\n', 'print("step", x)  # noqa: TFF101\n', 1)
         + '\n\n@tf.function(experimental_relax_shapes=True)\ndef last(x):\n'
           '    return x\n')


def _in_pieces(monkeypatch, target: int) -> None:
    monkeypatch.setattr(engine, "PIECE_CHARS", 0)
    monkeypatch.setattr(engine, "_PIECE_TARGET", target)


def _everything(findings):
    return [(f.line, f.column, f.end_line, f.end_column, f.code, f.message,
             f.statement_line, f.fixable) for f in findings]


@pytest.mark.parametrize("target", [1, 150, 400])
def test_a_module_linted_in_pieces_reports_what_it_reports_whole(monkeypatch, target):
    """Each piece is linted after the module's preamble (its imports, the list it defines),
    with every line at its own number; a piece ending inside a string is joined to the
    next; a ``# noqa`` in a later piece applies."""
    whole = lint_snippet(_LONG)
    assert {f.code for f in whole} == {"TFF101", "TFF102", "TFF104", "TFF405"}
    assert len([f for f in whole if f.code == "TFF101"]) == 7  # one silenced by its noqa
    pieces = []
    real_lint_text = engine.lint_text
    monkeypatch.setattr(engine, "lint_text",
                        lambda *a, **k: pieces.append(a[1]) or real_lint_text(*a, **k))
    _in_pieces(monkeypatch, target)
    assert _everything(lint_snippet(_LONG)) == _everything(whole)
    assert len(pieces) >= 2
    assert all(len(piece) < len(_LONG) for piece in pieces)


@pytest.mark.parametrize("error", ["def broken(:\n    pass\n", 'S = """\nnever closed\n',
                                   "x = (1,\n"])
def test_a_syntax_error_in_a_later_piece_is_the_module_s_one_finding(monkeypatch, error):
    broken = _LONG + "\n" + error + _BLOCK.format(n=9) + _BLOCK.format(n=10)
    expected = _everything(lint_snippet(broken))
    assert [f[4] for f in expected] == ["TFF000"]
    _in_pieces(monkeypatch, 150)
    assert _everything(lint_snippet(broken)) == expected


def test_a_rule_that_needs_every_use_of_a_function_is_not_run_in_pieces(monkeypatch):
    """TFF407 reports a private tf.function that only traced code calls; a call from
    untraced code in another piece would not be seen, so the rule is not run at all."""
    source = _LONG + (
        "\n\n@tf.function\ndef _helper(x):\n    return x\n\n\n"
        "@tf.function\ndef outer(x):\n    return _helper(x)\n")
    assert "TFF407" in {f.code for f in lint_snippet(source)}
    _in_pieces(monkeypatch, 150)
    assert "TFF407" not in {f.code for f in lint_snippet(source)}


def test_a_piece_walked_from_its_own_lines_counts_the_preamble_s_tf_functions(monkeypatch):
    """Module-scope rules walk a piece from its own first line (its blank stand-in lines
    would be LibCST nodes too); TFF402 matches the tf.functions it meets to the module's
    by order, so the preamble's `tf.function(...)` must not shift that order."""
    source = ("import tensorflow as tf\n\nsquare = tf.function(tf.square)\n"
              + "".join(_BLOCK.format(n=n) for n in range(3))
              + "\n\ndef run(xs):\n    for x in xs:\n"
                "        tf.function(tf.abs)(x)\n    return xs\n"
              + "".join(_BLOCK.format(n=n) for n in range(3, 5)))
    whole = _everything(lint_snippet(source))
    assert "TFF402" in {f[4] for f in whole}
    _in_pieces(monkeypatch, 150)
    assert _everything(lint_snippet(source)) == whole


def test_a_module_switched_off_by_flake8_noqa_stays_off_in_pieces(monkeypatch):
    _in_pieces(monkeypatch, 150)
    assert lint_snippet("# flake8: noqa\n" + _LONG) == []


def test_a_module_linted_in_pieces_is_not_fixed(monkeypatch):
    _in_pieces(monkeypatch, 150)
    result = engine.lint_source("m.py", _LONG.encode(), Settings().resolved(), fix=True)
    assert result.fixed_source is None
    assert "linted in pieces" in result.fix_error
    assert [f.code for f in result.findings if f.fixable] == ["TFF405"]


_PYTHON_FIXTURES = sorted([*PACKAGE_FIXTURES.glob("*/*.py"), *TEST_FIXTURES.glob("rules/*.py"),
                           *(ROOT / "tests" / "fix_fixtures").glob("*_before.py")])


@pytest.mark.parametrize("path", _PYTHON_FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_module_rules_walk_runs_of_statements_as_they_walk_the_whole_tree(monkeypatch, path):
    """Module-scope rules walk a long module as trees of a few statements each (one LibCST
    tree of it would take some 500 bytes a character): the same findings, the same fix."""
    source = path.read_bytes()
    settings = Settings().resolved()
    whole = engine.lint_source(str(path), source, settings, fix=True)
    monkeypatch.setattr(engine, "_WHOLE_TREE_CHARS", 0)
    monkeypatch.setattr(engine, "_PIECE_TARGET", 1)
    runs = engine.lint_source(str(path), source, settings, fix=True)
    assert _everything(runs.findings) == _everything(whole.findings)
    assert _everything(runs.fixed_findings) == _everything(whole.fixed_findings)
    assert runs.fixed_source == whole.fixed_source


# -- a file linted on its own (the flake8 plugin) -----------------------------------------
_NO_WAY_INTO_A_TRACE = (
    "import numpy as np\n"
    "import tensorflow as tf\n\n\n"
    "def total(x):\n"
    "    \"\"\"A function that sums, eagerly (no tf.function here).\"\"\"\n"
    "    print(x)  # this function runs in Python\n"
    "    return tf.reduce_sum(np.asarray(x))\n\n\n"
    "NOTE = 'the predef call names no Keras method'\n")

#: Each way into a trace, in a file without the others, with a finding in what it traces.
_WAYS_INTO_A_TRACE = {
    "tf.function under another name": (
        "from tensorflow import function as compiled\n\n\n"
        "@compiled\n"
        "def step(x):\n"
        "    print(x)\n"
        "    return x\n"),
    "tf.function bound to another name": (
        "import tensorflow as tf\n\n"
        "compile_step = tf.function\n\n\n"
        "@compile_step\n"
        "def step(x):\n"
        "    print(x)\n"
        "    return x\n"),
    "tf.function above a method, in a module whose prose says function": (
        '"""Each function here is traced."""\n'
        "import tensorflow as tf\n\n\n"
        "class Trainer:\n"
        '    """Runs the step function."""\n\n'
        "    @tf.function\n"
        "    def step(self, x):\n"
        "        print(x)\n"
        "        return x\n"),
    "tf.function in a module whose lines end in a carriage return alone": (
        "import tensorflow as tf\r\r\r"
        "# a function\r"
        "@tf.function\r"
        "def step(x):\r"
        "    print(x)\r"
        "    return x\r"),
    "a Dataset method": (
        "import numpy as np\n"
        "import tensorflow as tf\n\n\n"
        "def jitter(x):\n"
        "    return x + np.random.uniform()\n\n\n"
        "ds = tf.data.Dataset.range(3)\n"
        "ds = ds \\\n    .map(jitter)\n"),
    "a Keras method": (
        "import tensorflow as tf\n\n\n"
        "class Scale(tf.keras.layers.Layer):\n"
        "    def call(self, x):\n"
        "        print(x)\n"
        "        return x * 2\n"),
    "a graph API": (
        "import tensorflow as tf\n\n\n"
        "def double(x):\n"
        "    print(x)\n"
        "    return x * 2\n\n\n"
        "doubled = tf.vectorized_map(double, tf.range(3))\n"),
    "an extra traced decorator": (
        "from mylib.compile import jit\n\n\n"
        "@jit\n"
        "def step(x):\n"
        "    print(x)\n"
        "    return x\n"),
}


def test_a_file_alone_without_a_way_into_a_trace_is_not_indexed():
    settings = Settings().resolved()
    alone = engine.lint_text("total.py", _NO_WAY_INTO_A_TRACE, settings, alone=True)
    in_a_project = engine.lint_text("total.py", _NO_WAY_INTO_A_TRACE, settings)
    assert alone.findings == in_a_project.findings == []
    assert alone.index is None and in_a_project.index is not None


@pytest.mark.parametrize("way", sorted(_WAYS_INTO_A_TRACE))
def test_a_file_alone_with_a_way_into_a_trace_is_linted_in_full(way):
    settings = Settings(extra_traced_decorators=("mylib.compile.jit",)).resolved()
    source = _WAYS_INTO_A_TRACE[way]
    alone = engine.lint_text("step.py", source, settings, alone=True)
    assert len(alone.findings) == 1
    assert alone.findings == engine.lint_text("step.py", source, settings).findings
    assert alone.index is not None


def test_a_file_alone_with_a_module_rule_trigger_is_indexed():
    """A module rule may report outside traced code: its trigger words keep the index."""
    source = "options = dict(experimental_compile=True)\n"
    result = engine.lint_text("options.py", source, Settings().resolved(), alone=True)
    assert result.index is not None


PEP_701 = [
    # astronet-triage (held-out round 127): a replacement field over several lines
    'def f(names):\n    raise ValueError(\n        f"Missing: {\n'
    '            ",".join(names)\n        }"\n    )\n',
    'd = {"k": 1}\nx = f"{d["k"]}"\n',   # the f-string's own quote inside its braces
]


@pytest.mark.parametrize("source", PEP_701)
def test_an_f_string_only_newer_python_parses_is_analysed(source):
    """Python 3.12 accepts these f-strings (PEP 701); an older Python, running the linter,
    cannot parse them with ``ast``, but LibCST can: the module is analysed all the same."""
    assert lint_snippet(source) == []


def test_a_module_with_newer_f_strings_is_linted_as_written():
    # the traced print after the f-string is found, at its own line and column
    source = ('import tensorflow as tf\nd = {"k": "é"}\nlabel = f"{d["k"]}: {\n  d}"\n\n'
              '@tf.function\ndef step(x):\n    y = f"{d["k"]}"; print(x)\n    return x\n')
    findings = lint_snippet(source)
    assert [(f.code, f.line, f.column) for f in findings] == [("TFF101", 8, 22)]


def test_a_fix_in_a_module_with_newer_f_strings_keeps_every_other_byte():
    source = ('import tensorflow as tf\nd = {"k": 1}\n\n@tf.function\ndef step(x):\n'
              '    y = f"{d["k"]}"\n    print("x:", x)\n    return x\n')
    result = engine.lint_text("step.py", source, Settings(unsafe_fixes=True).resolved(),
                              fix=True)
    assert result.fix_error is None and result.fixed_source is not None
    assert result.fixed_source == source.replace("    print(", "    tf.print(")


def test_a_newer_f_string_in_a_module_the_running_python_cannot_parse_otherwise():
    """Blanking the f-strings does not make the rest parse (here a ``type`` statement,
    Python 3.12's too): under an older Python the file is said to be not analysed."""
    findings = lint_snippet('d = {"k": 1}\nx = f"{d["k"]}"\ntype Pair = tuple[int, int]\n')
    if sys.version_info >= (3, 12):
        assert findings == []
    else:
        assert [f.code for f in findings] == ["TFF000"]
        assert findings[0].message.startswith("not analysed: Python 3.")
        assert "run tffunc-lint under Python 3.12 or later" in findings[0].message


@pytest.mark.parametrize("source", ['x = f"abc\n', 'x = f"{y\n', 'x = "{y\n'])
def test_an_f_string_no_python_parses_is_a_syntax_error(source):
    findings = lint_snippet(source)
    assert [(f.code, f.message.split(":")[0]) for f in findings] == [("TFF000", "syntax error")]
