"""``tffunc-lint trace``: every cause of a retrace, under real TensorFlow, through each door.

The in-process tests share one TensorFlow import; the CLI runs two subprocesses.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

tf = pytest.importorskip("tensorflow")

from tffunc_lint.trace import recording  # noqa: E402
from tffunc_lint.trace.recording import Recording  # noqa: E402

pytest_plugins = ["pytester"]


def _line() -> int:
    """The caller's next line."""
    return sys._getframe(1).f_lineno + 1


def _function(report, name):
    rows = [row for row in report["functions"] if row["function"] == name]
    assert len(rows) == 1, report
    return rows[0]


def _signature_fix(row):
    namespace = {"tf": tf}
    return eval(row["suggestion"]["input_signature"], namespace)  # noqa: S307


# -- causes -------------------------------------------------------------------------------

def test_python_scalar_changes_then_the_suggested_signature_traces_once():
    def step(x, lr):
        return x * lr

    traced = tf.function(step)
    with recording() as rec:
        traced(tf.ones((4, 3)), 0.001)
        line = _line()
        traced(tf.ones((4, 3)), 0.0009)
    row = _function(rec.data(), "test_python_scalar_changes_then_the_suggested_signature_"
                                "traces_once.<locals>.step")
    assert row["traces"] == 2
    [retrace] = row["retraces"]
    assert retrace["changes"] == [{"path": "lr", "kind": "python-value", "old": "0.001",
                                   "new": "0.0009"}]
    assert retrace["call_site"] == f"tests/test_trace.py:{line} in " \
                                   "test_python_scalar_changes_then_the_suggested_signature_" \
                                   "traces_once"
    assert retrace["fixes"][0]["rule"] == "TFF401 python-scalar-argument"
    suggestion = row["suggestion"]
    assert suggestion["tensor_parameters"] == ["lr"]
    fixed = tf.function(step, input_signature=_signature_fix(row))
    for lr in (0.001, 0.0009, 0.0008):
        fixed(tf.ones((4, 3)), tf.constant(lr))
    assert fixed.experimental_get_tracing_count() == suggestion["predicted_traces"] == 1


def test_shape_change_names_old_and_new_shape_and_signature_has_none():
    @tf.function
    def dense(x):
        return tf.reduce_sum(x, axis=1)

    with recording() as rec:
        dense(tf.ones((32, 128)))
        line = _line()
        dense(tf.ones((32, 97)))
        dense(tf.ones((32, 50)))
    row = rec.data()["functions"][0]
    assert row["traces"] == 3
    first = row["retraces"][0]
    assert first["changes"] == [{"path": "x", "kind": "shape", "old": "(32, 128)",
                                 "new": "(32, 97)"}]
    assert first["call_site"].startswith(f"tests/test_trace.py:{line} ")
    assert row["suggestion"]["input_signature"] == \
        "[tf.TensorSpec(shape=[32, None], dtype=tf.float32)]"
    fixed = tf.function(dense.python_function, input_signature=_signature_fix(row))
    for width in (128, 97, 50, 7):
        fixed(tf.ones((32, width)))
    assert fixed.experimental_get_tracing_count() == row["suggestion"]["predicted_traces"]


def test_dtype_change():
    @tf.function
    def double(x):
        return x + x

    with recording() as rec:
        double(tf.ones((2,)))
        double(tf.ones((2,), tf.float64))
    [retrace] = rec.data()["functions"][0]["retraces"]
    assert retrace["changes"] == [{"path": "x", "kind": "dtype", "old": "float32 (2,)",
                                   "new": "float64 (2,)"}]
    assert "tf.cast" in retrace["fixes"][0]["fix"]


def test_rank_change_and_a_signature_of_unknown_rank():
    @tf.function
    def total(x):
        return tf.reduce_sum(x)

    with recording() as rec:
        total(tf.ones((3,)))
        total(tf.ones((3, 2)))
    row = rec.data()["functions"][0]
    assert row["retraces"][0]["changes"][0]["kind"] == "rank"
    assert row["retraces"][0]["changes"][0]["new"] == "float32 (3, 2)"
    assert row["suggestion"]["input_signature"] == \
        "[tf.TensorSpec(shape=None, dtype=tf.float32)]"
    fixed = tf.function(total.python_function, input_signature=_signature_fix(row))
    fixed(tf.ones((3,)))
    fixed(tf.ones((3, 2)))
    fixed(tf.ones((1, 2, 3)))
    assert fixed.experimental_get_tracing_count() == 1


class Config:
    scale = 2.0


def test_new_python_object_of_a_class():
    @tf.function
    def scaled(x, config):
        return x * config.scale

    with recording() as rec:
        scaled(tf.ones(2), Config())
        scaled(tf.ones(2), Config())
    [change] = rec.data()["functions"][0]["retraces"][0]["changes"]
    assert change["path"] == "config" and change["kind"] == "new-object"
    assert change["old"].startswith("Config object at 0x")
    assert change["new"].startswith("a new Config object at 0x")


def test_a_new_object_at_the_address_of_a_freed_one_is_still_new():
    @tf.function
    def scaled(x, config):
        return x * config.scale

    with recording() as rec:
        first = Config()
        address = id(first)
        scaled(tf.ones(2), first)
        del first
        second = Config()  # CPython hands the freed address to the next object of its size
        if id(second) != address:
            pytest.skip("the interpreter did not reuse the address")
        scaled(tf.ones(2), second)
    [change] = rec.data()["functions"][0]["retraces"][0]["changes"]
    assert change["kind"] == "new-object"
    assert change["new"] == f"a new Config object at {address:#x}"


def test_nesting_structure_change_of_a_python_list():
    @tf.function
    def total(values):
        result = tf.constant(0.0)
        for v in tf.nest.flatten(values):
            result += v
        return result

    with recording() as rec:
        total([tf.constant(1.0), tf.constant(2.0)])
        total([tf.constant(1.0), tf.constant(2.0), tf.constant(3.0)])
        total({"a": tf.constant(1.0)})
    retraces = rec.data()["functions"][0]["retraces"]
    assert retraces[0]["changes"] == [{"path": "values", "kind": "structure",
                                       "old": "list of 2", "new": "list of 3"}]
    assert retraces[0]["fixes"][0]["rule"] == "TFF403 python-data-iterated-in-graph"
    assert retraces[1]["changes"][0]["new"] == "dict with keys a"


def test_recreated_tf_function_and_hoisting_it():
    def add_one(x):
        return x + 1

    with recording() as rec:
        for _ in range(3):
            line = _line()
            tf.function(add_one)(tf.constant(1))
    row = rec.data()["functions"][0]
    assert row["traces"] == 3
    assert {r["cause"] for r in row["retraces"]} == {"recreated"}
    assert row["retraces"][0]["call_site"].startswith(f"tests/test_trace.py:{line} ")
    assert row["retraces"][0]["fixes"][0]["rule"] == "TFF402 tf-function-recreated"
    hoisted = tf.function(add_one)
    for _ in range(3):
        hoisted(tf.constant(1))
    assert hoisted.experimental_get_tracing_count() == row["suggestion"]["predicted_traces"]


def test_no_retrace_for_same_types_and_methods_are_named_by_class():
    class Trainer(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(1.0)

        @tf.function
        def step(self, x):
            return self.w * x

    trainer = Trainer()
    with recording() as rec:
        for value in (1.0, 2.0, 3.0):
            trainer.step(tf.constant(value))
    report = rec.data()
    assert report["traces"] == 1 and report["retraces"] == 0
    row = report["functions"][0]
    assert row["function"].endswith("Trainer.step") and row["kind"] == "method"
    assert row["defined_at"].startswith("tests/test_trace.py:")
    text = rec.report()
    assert "0 retrace(s)" in text


def test_reduce_retracing_relaxation_is_reported():
    relaxed = tf.function(lambda x: x * 2, reduce_retracing=True)
    with recording() as rec:
        relaxed(tf.ones(3))
        relaxed(tf.ones(4))
        relaxed(tf.ones(5))
    row = rec.data()["functions"][0]
    assert row["traces"] == 2
    assert row["retraces"][0]["relaxed_to"] == {"x": "float32 (None,)"}


def test_keras_fit_with_custom_train_step_is_reported_against_the_model():
    keras = pytest.importorskip("keras")

    class Regressor(keras.Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(self(x, training=True) - y))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            return {"loss": loss}

    inputs = keras.Input((4,))
    model = Regressor(inputs, keras.layers.Dense(1)(inputs))
    model.compile(optimizer="sgd")
    x = tf.random.stateless_normal((96, 4), seed=[1, 2])
    y = tf.reduce_sum(x, axis=1, keepdims=True)

    def batches(size):
        return tf.data.Dataset.from_tensor_slices((x, y)).batch(size, drop_remainder=True)

    with recording() as rec:
        model.fit(batches(32), epochs=1, verbose=0)
        line = _line()
        model.fit(batches(24), epochs=1, verbose=0)
    report = rec.data()
    rows = [r for r in report["functions"] if r["kind"] == "keras"]
    assert rows and all(r["function"].startswith("test_keras_fit_with_custom_train_step_is_"
                                                 "reported_against_the_model.<locals>."
                                                 "Regressor.train_step (Keras ") for r in rows)
    step = [r for r in rows if r["function"].endswith("(Keras multi_step_on_iterator)")][0]
    assert step["traces"] == 2
    [retrace] = step["retraces"]
    assert retrace["call_site"].startswith(f"tests/test_trace.py:{line} ")
    assert [(c["path"], c["kind"], c["old"], c["new"]) for c in retrace["changes"]] == [
        ("iterator.element_spec[0]", "shape", "(32, 4)", "(24, 4)"),
        ("iterator.element_spec[1]", "shape", "(32, 1)", "(24, 1)")]
    assert "drop_remainder" in retrace["fixes"][0]["fix"]
    assert all(r["defined_at"].startswith("tests/test_trace.py:") for r in rows)


def test_variables_created_on_the_first_trace_explain_the_second():
    @tf.function
    def lazy(x):
        if not hasattr(lazy, "v"):
            lazy.v = tf.Variable(2.0)
        return lazy.v * x

    with recording() as rec:
        lazy(tf.constant(1.0))
    row = rec.data()["functions"][0]
    assert [r["cause"] for r in row["retraces"]] == ["variables-created"]


# -- the context manager's own API ----------------------------------------------------------

def test_counts_exceeding_and_text_report():
    @tf.function
    def square(x):
        return x * x

    with recording() as rec:
        for n in (1, 2, 3):
            square(n)
    assert rec.counts() == {"test_counts_exceeding_and_text_report.<locals>.square": 3}
    assert rec.exceeding(2) and not rec.exceeding(3)
    text = rec.report()
    assert "x: Python value 1 -> 2" in text
    assert "[TFF401 python-scalar-argument]" in text
    assert json.loads(rec.report("json"))["traces"] == 3


def test_ipython_extension_registers_a_cell_magic_without_ipython(capsys):
    """IPython is not a dependency: a stand-in shell checks the extension's logic (the real
    one calls ``register_magic_function`` and ``run_cell`` the same way)."""
    from tffunc_lint.trace import load_ipython_extension

    class Shell:
        def __init__(self):
            self.user_ns = {"tf": tf}
            self.magics = {}

        def register_magic_function(self, function, magic_kind, magic_name):
            self.magics[(magic_kind, magic_name)] = function

        def run_cell(self, cell):
            exec(compile(cell, "<cell>", "exec"), self.user_ns)  # noqa: S102

    shell = Shell()
    load_ipython_extension(shell)
    magic = shell.magics[("cell", "tffunc_trace")]
    magic("", "f = tf.function(lambda x: x * 2)\nf(1)\nf(2)\n")
    out = capsys.readouterr().out
    assert "x: Python value 1 -> 2" in out and "<cell>:3" in out


# -- the pytest plugin ------------------------------------------------------------------------

PLUGIN_TESTS = '''
import pytest
import tensorflow as tf


@tf.function
def step(x, lr):
    return x * lr


@pytest.mark.max_traces(2)
def test_too_many():
    for lr in (0.1, 0.2, 0.3):
        step(tf.ones(2), lr)


@pytest.mark.max_traces(1)
def test_within_limit():
    for _ in range(3):
        step(tf.ones(5), tf.constant(0.5))


def test_fixture(tffunc_trace):
    f = tf.function(lambda x: x + 1)
    f(tf.ones(1))
    f(tf.ones(2))
    assert sum(tffunc_trace.counts().values()) == 2
'''


def test_pytest_plugin_marker_fixture_and_report(pytester):
    pytester.makepyfile(test_traced=PLUGIN_TESTS)
    result = pytester.runpytest_inprocess("-p", "tffunc_lint.trace.pytest_plugin",
                                          "--tffunc-trace", "-q")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "*tf.function traced more than max_traces(2) times: step 3x*",
        "*tffunc-lint trace*",
        "-- test_traced.py::test_too_many",
        "*lr: Python value 0.1 -> 0.2*",
    ])


def test_pytest_plugin_module_is_cheap_to_import():
    code = ("import sys, tffunc_lint.trace.pytest_plugin; "
            "print(any(m.split('.')[0] in ('tensorflow', 'keras') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


# -- the CLI door ------------------------------------------------------------------------------

PROGRAM = textwrap.dedent('''\
    import sys
    import tensorflow as tf


    @tf.function
    def step(x, lr):
        return x * lr


    for lr in (0.001, 0.0009, 0.0008):
        step(tf.ones((4, 2)), lr)
    raise SystemExit(int(sys.argv[1]))
''')


def _trace_cli(tmp_path, *options, code="0"):
    (tmp_path / "train.py").write_text(PROGRAM)
    return subprocess.run([sys.executable, "-m", "tffunc_lint", "trace", *options, "--",
                           sys.executable, "train.py", code],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)


def test_cli_keeps_the_programs_exit_code_and_reports(tmp_path):
    result = _trace_cli(tmp_path, "--max-traces", "5", code="3")
    assert result.returncode == 3, result.stderr
    assert "step  defined at train.py:5  traced 3 time(s)" in result.stdout
    assert "  trace 2 at train.py:11 in <module>" in result.stdout
    assert "lr: Python value 0.001 -> 0.0009" in result.stdout


def test_cli_max_traces_exceeded_exits_1_with_json(tmp_path):
    result = _trace_cli(tmp_path, "--max-traces", "2", "--output-format", "json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["exceeded"] == ["step"] and report["traces"] == 3


def test_cli_without_tensorflow_exits_2_and_says_what_to_install(monkeypatch, capsys):
    from tffunc_lint.trace import cli

    monkeypatch.setattr(cli, "_tensorflow_available", lambda: False)
    assert cli.main(["--", sys.executable, "-c", "pass"]) == 2
    assert "pip install 'tffunc-lint[verify]'" in capsys.readouterr().err


def test_cli_usage_error_without_a_command(capsys):
    from tffunc_lint.doors import cli

    assert cli.main(["trace", "--max-traces", "3"]) == 2
    assert "no command" in capsys.readouterr().err


def test_a_recording_outside_a_with_block():
    rec = Recording().start()
    try:
        tf.function(lambda x: x)(tf.constant(1))
    finally:
        rec.stop()
    assert rec.data()["traces"] == 1


def test_a_new_combination_of_seen_argument_types():
    @tf.function
    def scale(x, factor):
        return x * factor

    with recording() as rec:
        scale(tf.ones(2), 1)
        scale(tf.ones(3), 2)
        scale(tf.ones(2), 2)
    retraces = rec.data()["functions"][0]["retraces"]
    assert [r["cause"] for r in retraces] == ["arguments", "combination"]
    assert len(retraces[1]["changes"]) == 1
    assert "not together" in rec.report()
