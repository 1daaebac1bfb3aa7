"""The static path never imports TensorFlow.

Importing the CLI and the flake8 plugin and linting a file through both doors (the CLI's
``main`` and flake8 itself, which loads the plugin through its entry point) must leave
``tensorflow`` out of ``sys.modules``. It runs in a fresh interpreter, because this test
process may already have imported TensorFlow for other tests. The check only proves
something where TensorFlow is importable, so it first makes sure that it is.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap

import pytest

SOURCE = '''\
import tensorflow as tf
from tensorflow import keras


@tf.function(experimental_relax_shapes=True)
def step(x):
    print("x =", x)
    total = tf.Variable(0.0)
    layer = keras.layers.Dense(2)
    return layer(x) + total


tf.config.experimental_run_functions_eagerly(False)
'''

SCRIPT = textwrap.dedent('''\
    import ast
    import contextlib
    import importlib.util
    import io
    import json
    import sys

    path = sys.argv[1]
    report = {"tensorflow_findable": importlib.util.find_spec("tensorflow") is not None}

    import tffunc_lint.doors.cli
    import tffunc_lint.doors.flake8_plugin

    # The CLI door.
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        report["cli_exit"] = tffunc_lint.doors.cli.main(
            ["--isolated", "--output-format", "json", "-j", "1", path])
    report["cli_codes"] = sorted({item["code"] for item in json.loads(output.getvalue())})
    with contextlib.redirect_stdout(io.StringIO()):
        report["rules_exit"] = tffunc_lint.doors.cli.main(["rules"])

    # The plugin, called directly as flake8 calls it ...
    with open(path, encoding="utf-8") as handle:
        lines = handle.readlines()
    plugin = tffunc_lint.doors.flake8_plugin.Flake8Plugin(ast.parse("".join(lines)), path, lines)
    report["plugin_codes"] = sorted({text.split()[0] for _, _, text, _ in plugin.run()})

    # ... and through flake8 itself, which loads it from its entry point.
    from flake8.main import cli as flake8_cli
    report["flake8_exit"] = flake8_cli.main(["--isolated", "--select", "TFF", "-j", "1",
                                             "--output-file", path + ".txt", path])
    with open(path + ".txt", encoding="utf-8") as handle:
        report["flake8_codes"] = sorted({line.split()[1] for line in handle})

    report["forbidden"] = sorted(
        name for name in sys.modules
        if name in ("tensorflow", "keras", "tf_keras")
        or name.startswith(("tensorflow.", "keras.", "tf_keras.")))
    print(json.dumps(report))
''')


def test_linting_never_imports_tensorflow(tmp_path):
    if importlib.util.find_spec("tensorflow") is None:
        pytest.skip("TensorFlow is not installed, so not importing it proves nothing")
    target = tmp_path / "model.py"
    target.write_text(SOURCE, encoding="utf-8")
    script = tmp_path / "static_path_probe.py"
    script.write_text(SCRIPT, encoding="utf-8")

    completed = subprocess.run([sys.executable, str(script), str(target)], cwd=tmp_path,
                               capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout.strip().splitlines()[-1])

    assert report["tensorflow_findable"], "the subprocess cannot find TensorFlow"
    # Both doors really linted the file (every rule fires on it) ...
    assert report["cli_exit"] == 1 and report["rules_exit"] == 0
    assert report["cli_codes"] == ["TFF101", "TFF301", "TFF405"]
    assert report["plugin_codes"] == report["cli_codes"]
    assert report["flake8_exit"] == 1 and report["flake8_codes"] == report["cli_codes"]
    # ... without importing TensorFlow (or Keras).
    assert report["forbidden"] == []
