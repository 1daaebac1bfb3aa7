"""LibCST, and the analyses only a running rule needs, are imported only when used.

Importing LibCST costs more than linting a typical file, so the doors, the configuration,
the engine, the rules and a cached result must not import it; only a file with traced code
that some rule's trigger points at (or a module-scope rule's trigger) does. Likewise the
analyses a rule runs on (``lazy_import``). Each check runs in a fresh interpreter, since this
test process has imported them long ago.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

NO_TRACED_CODE = '''\
"""A TensorFlow module without traced code: the word function is everywhere."""
import tensorflow as tf


def loss_function(x):
    print("a Python function")
    return tf.reduce_sum(x)
'''

NOTHING_TO_REPORT = '''\
import tensorflow as tf


@tf.function
def step(x):
    return x * 2
'''

PRINT_IN_TF_FUNCTION = '''\
import tensorflow as tf


@tf.function
def step(x):
    print(x)
    return x * 2
'''

SCRIPT = textwrap.dedent('''\
    import ast, json, sys
    import tffunc_lint.doors.cli
    import tffunc_lint.doors.flake8_plugin
    from tffunc_lint.rule import all_rules
    all_rules()
    report = {"imported": "libcst" in sys.modules}
    path = sys.argv[1]
    code = tffunc_lint.doors.cli.main(["--no-cache", "-q", "--exit-zero", path])
    text = open(path).read()
    plugin = tffunc_lint.doors.flake8_plugin.Flake8Plugin(
        ast.parse(text), path, text.splitlines(keepends=True))
    report["flake8"] = [message.split()[0] for _, _, message, _ in plugin.run()]
    report["linted"] = "libcst" in sys.modules
    print(json.dumps(report))
''')


def _run(tmp_path: Path, source: str) -> dict:
    path = tmp_path / "module.py"
    path.write_text(source)
    output = subprocess.run([sys.executable, "-c", SCRIPT, str(path)], capture_output=True,
                            text=True, check=True, cwd=tmp_path).stdout
    return json.loads(output.splitlines()[-1])


def test_importing_the_doors_and_every_rule_imports_no_libcst(tmp_path):
    assert _run(tmp_path, "")["imported"] is False


def test_a_file_without_traced_code_is_linted_without_libcst(tmp_path):
    report = _run(tmp_path, NO_TRACED_CODE)
    assert report == {"imported": False, "flake8": [], "linted": False}


def test_traced_code_that_no_trigger_points_at_is_linted_without_libcst(tmp_path):
    report = _run(tmp_path, NOTHING_TO_REPORT)
    assert report == {"imported": False, "flake8": [], "linted": False}


def test_a_finding_still_needs_and_gets_libcst(tmp_path):
    report = _run(tmp_path, PRINT_IN_TF_FUNCTION)
    assert report == {"imported": False, "flake8": ["TFF101"], "linted": True}


def test_reading_a_cached_result_imports_no_rule_and_no_libcst(tmp_path):
    (tmp_path / "module.py").write_text(PRINT_IN_TF_FUNCTION)
    command = [sys.executable, "-m", "tffunc_lint", "-q", "--exit-zero", "--output-format",
               "json", "module.py"]
    cold = subprocess.run(command, capture_output=True, text=True, check=True, cwd=tmp_path)
    script = ("import sys\n"
              "sys.argv = " + repr(["tffunc-lint"] + command[3:]) + "\n"
              "from tffunc_lint.doors.cli import main\n"
              "main()\n"
              "print([m for m in ('libcst', 'tffunc_lint.rules.tff101_print') "
              "if m in sys.modules], file=sys.stderr)\n")
    warm = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, cwd=tmp_path)
    assert json.loads(warm.stdout) == json.loads(cold.stdout) != []
    assert warm.stderr.strip().splitlines()[-1] == "[]"


def test_a_python_file_is_linted_without_the_notebook_reader_or_a_toml_parse(tmp_path):
    """Nor does a run over ``.py`` files load what only notebooks, the cache or the
    configuration need: the notebook reader (with ``json``), ``pickle``, or a TOML parser
    for a ``pyproject.toml`` that does not name the linter."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "example"\n')
    (tmp_path / "module.py").write_text(NOTHING_TO_REPORT)
    script = ("import sys\n"
              "from tffunc_lint.doors.cli import main\n"
              "code = main(['--no-cache', '-q', 'module.py'])\n"
              "print(code, [m for m in ('tffunc_lint.notebook', 'json', 'pickle', 'tomllib',"
              " 'configparser') if m in sys.modules])\n")
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True, cwd=tmp_path).stdout
    assert output.splitlines()[-1] == "0 []"


def test_importing_the_doors_and_every_rule_compiles_no_regular_expression():
    """Patterns are compiled when first used (``patterns.lazy_compile``): compiling the
    sixty-odd module-level patterns took about a fifth of the start-up every editor save
    pays, and a run uses few of them."""
    script = ("import re, sys\n"
              "compiled = []\n"
              "original = re.compile\n"
              "def counting(*args, **kwargs):\n"
              "    caller = sys._getframe(1).f_globals.get('__name__', '')\n"
              "    if caller.startswith('tffunc_lint'):\n"
              "        compiled.append((caller, args[0][:30]))\n"
              "    return original(*args, **kwargs)\n"
              "re.compile = counting\n"
              "import tffunc_lint.doors.cli, tffunc_lint.doors.flake8_plugin\n"
              "from tffunc_lint.rule import all_rules\n"
              "all_rules()\n"
              "print(len(compiled), compiled[:3])\n")
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True).stdout
    assert output.splitlines()[-1] == "0 []"


def test_a_lazy_pattern_matches_as_the_compiled_one_does():
    from tffunc_lint.analysis.patterns import lazy_compile

    pattern = lazy_compile(r"(?P<word>b+)", re.IGNORECASE)
    assert pattern.search("aBbc").group("word") == "Bb"
    assert [m.group() for m in pattern.finditer("b-B")] == ["b", "B"]
    assert pattern.sub("x", "abba") == "axa"
    assert (pattern.pattern, pattern.flags & re.IGNORECASE) == (r"(?P<word>b+)", re.IGNORECASE)


#: Analyses that no rule's trigger needs: imported by the first rule that runs on them.
RULE_ANALYSES = ("container_provenance", "graph_effects", "loop_kind", "rebinding",
                 "scoped_state", "state_use", "tensor_taint", "trace_output")

EXECUTED = textwrap.dedent('''\
    import sys
    def executed():
        """The rule analyses whose code has run: a lazy module's namespace, read without
        the attribute access that would run it, has no ``__builtins__`` until then."""
        found = []
        for name in %r:
            module = sys.modules.get("tffunc_lint.analysis." + name)
            if module is not None and "__builtins__" in object.__getattribute__(module, "__dict__"):
                found.append(name)
        return found
''') % (RULE_ANALYSES,)


def test_importing_every_rule_runs_none_of_the_analyses_rules_run_on():
    script = EXECUTED + textwrap.dedent('''\
        import tffunc_lint.doors.cli, tffunc_lint.doors.flake8_plugin
        from tffunc_lint.rule import all_rules
        print(len(all_rules()), executed())
    ''')
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True).stdout
    count, executed = output.splitlines()[-1].split(" ", 1)
    assert int(count) > 20 and executed == "[]"


def test_a_rule_that_runs_imports_its_analyses(tmp_path):
    (tmp_path / "module.py").write_text(PRINT_IN_TF_FUNCTION)
    script = EXECUTED + textwrap.dedent('''\
        from tffunc_lint.doors.cli import main
        main(["--no-cache", "-q", "--exit-zero", "--select", "TFF101", "module.py"])
        print(executed())
    ''')
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True, cwd=tmp_path).stdout
    assert "module.py:6:5: TFF101" in output
    executed = output.splitlines()[-1]
    assert "'trace_output'" in executed and "'rebinding'" not in executed


def test_a_lazy_module_runs_on_first_read_and_serves_later_imports(tmp_path, monkeypatch):
    from tffunc_lint.analysis.lazy_import import lazy_module

    package = tmp_path / "lazy_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "heavy.py").write_text("import sys\nsys.ran_heavy = True\nVALUE = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delattr(sys, "ran_heavy", raising=False)
    try:
        heavy = lazy_module(".heavy", "lazy_pkg")
        assert not hasattr(sys, "ran_heavy")
        assert heavy.VALUE == 42 and sys.ran_heavy is True
        from lazy_pkg.heavy import VALUE
        from lazy_pkg import heavy as again

        assert VALUE == 42 and again is heavy is lazy_module("lazy_pkg.heavy", "")
    finally:
        for name in ("lazy_pkg.heavy", "lazy_pkg"):
            sys.modules.pop(name, None)
        monkeypatch.delattr(sys, "ran_heavy", raising=False)
