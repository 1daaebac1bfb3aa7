"""Cross-module graph context: a package linted as one project."""

import ast
import json
import os
import shutil

import pytest

from tffunc_lint.analysis.module_index import MAIN_GUARD, ModuleIndex
from tffunc_lint.doors.cli import main

from .conftest import ROOT, expected_findings

PROJECT = ROOT / "tests" / "fixtures_project"


def lint_project_json(capsys, *paths):
    code = main(["--isolated", "--output-format", "json", *map(str, paths)])
    return code, json.loads(capsys.readouterr().out)


def _where(capsys, *paths, code=None):
    """Each finding of one run as (file name, line, code), sorted; as (file name, line),
    of ``code`` only, when it is given."""
    _, findings = lint_project_json(capsys, *paths)
    if code is not None:
        return sorted((os.path.basename(f["path"]), f["line"]) for f in findings
                      if f["code"] == code)
    return sorted((os.path.basename(f["path"]), f["line"], f["code"]) for f in findings)


def test_findings_across_modules_match_annotations(capsys):
    code, findings = lint_project_json(capsys, PROJECT)
    expected = {(str(path), line, code)
                for path in PROJECT.rglob("*.py") for line, code in expected_findings(path)}
    assert code == 1 and expected
    assert {(f["path"], f["line"], f["code"]) for f in findings} == expected


def test_cross_module_reason_names_the_caller_and_its_file(capsys):
    _, findings = lint_project_json(capsys, PROJECT)
    train = PROJECT / "proj" / "train.py"
    by_path = {f["path"]: f for f in findings}
    assert by_path[str(PROJECT / "proj" / "losses.py")]["reason"] == (
        f"called from train_step at {train}:12 (@tf.function at {train}:9)")
    assert by_path[str(PROJECT / "proj" / "cycle_b.py")]["trace"] == [
        {"how": "called from ping", "path": str(PROJECT / "proj" / "cycle_a.py"), "line": 5},
        {"how": "called from accuracy", "path": str(PROJECT / "proj" / "metrics.py"), "line": 6},
        {"how": "called from train_step", "path": str(train), "line": 11},
        {"how": "@tf.function", "path": str(train), "line": 9},
    ]
    assert by_path[str(PROJECT / "proj" / "models.py")]["reason"] == "Keras Layer.call() at line 5"


def test_a_module_linted_alone_knows_only_itself(capsys):
    code, findings = lint_project_json(capsys, PROJECT / "proj" / "losses.py")
    assert (code, findings) == (0, [])


@pytest.mark.parametrize("backend, traced", [
    ("import tensorflow as tf", True),
    # keras-rs' ``embedding/jax/distributed_embedding.py``: the JAX backend's subclass
    ("import jax", False),
])
def test_a_method_a_base_class_calls_on_self_is_the_subclass_own(
        capsys, tmp_path, backend, traced):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "emb"\n')  # a library
    (tmp_path / "base.py").write_text(
        "import keras\n\n\nclass Embedding(keras.layers.Layer):\n"
        "    def preprocess(self, x):\n        return x\n\n"
        "    def call(self, x):\n        return self.preprocess(x)\n", encoding="utf-8")
    (tmp_path / "sub.py").write_text(
        f"{backend}\n\nfrom base import Embedding\n\n\nclass Sub(Embedding):\n"
        "    def preprocess(self, x):\n        return x\n", encoding="utf-8")
    assert main(["--isolated", "--no-cache", "--show-traced", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Embedding.preprocess [traced: called from Embedding.call" in out
    assert ("Sub.preprocess [traced: called from Embedding.call" in out) == traced


def test_show_traced_lists_each_traced_function_with_its_reason(capsys):
    assert main(["--isolated", "--show-traced", str(PROJECT / "proj" / "train.py")]) == 0
    train = PROJECT / "proj" / "train.py"
    assert capsys.readouterr().out == f"{train}:10: train_step [traced: @tf.function at line 9]\n"


def test_show_traced_as_json_carries_the_reason_chain(capsys):
    proj = PROJECT / "proj"
    assert main(["--isolated", "--show-traced", "--output-format", "json",
                 str(proj / "train.py"), str(proj / "losses.py")]) == 0
    records = json.loads(capsys.readouterr().out)
    train, losses = str(proj / "train.py"), str(proj / "losses.py")
    # Without the package's __init__ (which re-exports l2), the call on line 13 is the one.
    assert {"path": losses, "line": 1, "cell": None, "function": "l2",
            "reason": f"called from train_step at {train}:13 (@tf.function at {train}:9)",
            "trace": [{"how": "called from train_step", "path": train, "line": 13,
                       "cell": None},
                      {"how": "@tf.function", "path": train, "line": 9, "cell": None}],
            } in records
    assert [(r["path"], r["function"]) for r in records if r["path"] == train] == [
        (train, "train_step")]


def test_project_decorator_that_wraps_tf_function_is_an_entry_point(capsys):
    _, findings = lint_project_json(capsys, PROJECT)
    agent = str(PROJECT / "proj" / "agent.py")
    assert [(f["line"], f["reason"]) for f in findings if f["path"] == agent] == [
        (7, "@utils.function (wraps tf.function) at line 5"),
        (13, "@utils.function (wraps tf.function) at line 11"),
    ]


def _passes(monkeypatch):
    """The file names of each pass's jobs, in order, as a run makes them."""
    from tffunc_lint import runner

    rounds = []
    original = runner._map

    def recording(jobs, workers):
        rounds.append(sorted(job[0].rpartition("/")[2] for job in jobs))
        return original(jobs, workers)

    monkeypatch.setattr(runner, "_map", recording)
    return rounds


def test_only_modules_that_learn_from_the_project_are_linted_again(monkeypatch):
    from tffunc_lint import runner
    from tffunc_lint.config import Settings

    rounds = _passes(monkeypatch)
    files = sorted(str(p) for p in (PROJECT / "proj").glob("*.py"))
    settings = Settings().resolved()
    runner.lint_project(files, lambda path: settings)
    first, again = rounds
    assert len(first) == len(files)
    # Traced only from another module, or asking a predicate another module defines.
    assert {"losses.py", "cycle_b.py", "tokenizer.py"} <= set(again)
    # Nothing traced there, alone or in the project: one pass is enough.
    assert "utils.py" not in again and "eager.py" not in again


def test_a_module_learning_only_which_classes_are_keras_is_linted_again_only_for_tff407(
        capsys, monkeypatch, tmp_path):
    # Which classes derive from Keras through the project, and which steps linted code calls
    # itself, are read only to judge a tf.function on a Keras graph method (TFF407).
    rounds = _passes(monkeypatch)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "models"\n')  # a library
    (tmp_path / "base.py").write_text(
        "import tensorflow as tf\n\n\nclass Base(tf.keras.Model):\n    pass\n",
        encoding="utf-8")
    (tmp_path / "plain.py").write_text(
        "from base import Base\n\n\nclass Plain(Base):\n    def build(self, shape):\n"
        "        self.scale = 2.0\n", encoding="utf-8")
    (tmp_path / "fitted.py").write_text(
        "import tensorflow as tf\n\nfrom base import Base\n\n\nclass Fitted(Base):\n"
        "    @tf.function\n    def train_step(self, data):\n        return {}\n\n\n"
        "def train(x, y):\n    fitted = Fitted()\n"
        "    fitted.compile(loss=\"mse\", run_eagerly=True)\n    return fitted.fit(x, y)\n",
        encoding="utf-8")
    _, found = lint_project_json(capsys, tmp_path)
    assert [(f["path"].rpartition("/")[2], f["line"], f["code"]) for f in found] == [
        ("fitted.py", 7, "TFF407")]
    assert rounds[1:] == [["fitted.py"]]


def test_a_module_learning_only_that_it_runs_on_keras_3_is_linted_again_only_for_dropout(
        capsys, monkeypatch, tmp_path):
    # Keras 3 changes findings only where a module makes a layer with a seed variable
    # (TFF301); a program that says Keras 3 used to have every module it imports linted
    # twice.
    rounds = _passes(monkeypatch)
    step = ("import tensorflow as tf\n\n\nclass Block(tf.keras.layers.Layer):\n"
            "    def call(self, x):\n        return {}(x)\n\n\n"
            "model = tf.keras.Sequential([Block()])\nmodel.fit(features, labels)\n")
    (tmp_path / "plain.py").write_text(step.format("tf.nn.relu"), encoding="utf-8")
    (tmp_path / "noisy.py").write_text(step.format("tf.keras.layers.Dropout(0.1)"),
                                       encoding="utf-8")
    (tmp_path / "train.py").write_text(
        "from keras import ops\n\nimport noisy\nimport plain\n\n"
        "print(ops.norm([3.0, 4.0]), plain.model, noisy.model)\n", encoding="utf-8")
    _, found = lint_project_json(capsys, tmp_path)
    assert [(f["path"].rpartition("/")[2], f["line"], f["code"]) for f in found] == [
        ("noisy.py", 6, "TFF301")]
    assert rounds[1:] == [["noisy.py"]]


def test_a_dropout_made_outside_traced_code_is_not_linted_again_for_keras_3(
        capsys, monkeypatch, tmp_path):
    # Only a seed layer made in traced code depends on Keras 3: a module whose Dropout is
    # made in ``__init__`` finds the same whatever Keras the program runs on.
    rounds = _passes(monkeypatch)
    (tmp_path / "block.py").write_text(
        "import tensorflow as tf\n\n\nclass Block(tf.keras.layers.Layer):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.drop = tf.keras.layers.Dropout(0.1)\n\n"
        "    def call(self, x):\n        return self.drop(x)\n\n\n"
        "model = tf.keras.Sequential([Block()])\nmodel.fit(features, labels)\n",
        encoding="utf-8")
    (tmp_path / "train.py").write_text(
        "from keras import ops\n\nimport block\n\nprint(ops.norm([3.0, 4.0]), block.model)\n",
        encoding="utf-8")
    assert _where(capsys, tmp_path) == [] and rounds[1:] == []


def test_a_module_no_rule_asks_the_releases_of_is_not_linted_again_for_them(
        capsys, monkeypatch, tmp_path):
    # The program uses an API TensorFlow 2.9 removed, so the modules it imports run on
    # earlier releases: that changes a finding only where a rule asks (TFF405's
    # replacements, TFF301's seed layers), not in a module whose step only prints.
    rounds = _passes(monkeypatch)
    (tmp_path / "steps.py").write_text(
        "import tensorflow as tf\n\n\n@tf.function\ndef step(x):\n"
        "    print(x)\n    return x * 2\n", encoding="utf-8")
    (tmp_path / "train.py").write_text(
        "import tensorflow as tf\n\nimport steps\n\n"
        "tf.keras.mixed_precision.experimental.set_policy('mixed_float16')\n"
        "print(steps.step(tf.constant(1.0)))\n", encoding="utf-8")
    assert _where(capsys, tmp_path) == [("steps.py", 6, "TFF101")]
    assert rounds[1:] == []


def test_a_model_reading_none_of_what_callbacks_set_is_not_linted_again(
        capsys, monkeypatch, tmp_path):
    # A callback of the project sets ``self.model.epochs``: only a model whose code reads
    # ``epochs`` may find it changed between two runs of its traced step.
    rounds = _passes(monkeypatch)
    model = ("import tensorflow as tf\n\n\nclass Net(tf.keras.Model):\n"
             "    def __init__(self):\n        super().__init__()\n"
             "        self.{0} = 0\n        self.dense = tf.keras.layers.Dense(1)\n\n"
             "    def train_step(self, data):\n"
             "        x, y = data\n        with tf.GradientTape() as tape:\n"
             "            loss = tf.reduce_mean((self.dense(x) - y) ** 2) * self.{0}\n"
             "        grads = tape.gradient(loss, self.trainable_variables)\n"
             "        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))\n"
             "        return {{'loss': loss}}\n")
    (tmp_path / "reads.py").write_text(model.format("epochs"), encoding="utf-8")
    (tmp_path / "other.py").write_text(model.format("scale"), encoding="utf-8")
    (tmp_path / "callbacks.py").write_text(
        "import tensorflow as tf\n\n\nclass Count(tf.keras.callbacks.Callback):\n"
        "    def on_epoch_end(self, epoch, logs=None):\n"
        "        self.model.epochs = epoch + 1\n", encoding="utf-8")
    assert _where(capsys, tmp_path) == [("reads.py", 13, "TFF202")]
    assert rounds[1:] == [["reads.py"]]


@pytest.mark.parametrize("folder, expected", [
    ("10_attention", []),
    ("attention", [("Luong.py", 10, "TFF204")]),
])
def test_the_init_of_a_folder_no_import_can_name_runs_nothing(capsys, tmp_path, folder,
                                                              expected):
    # A lesson's folder: its ``__init__.py`` re-exports the layer, but no import statement
    # names a package ``10_attention``, so only the folder's script uses the layer, and
    # calls it eagerly. The ``__init__`` of a package may hand the layer to code not linted.
    lesson = tmp_path / folder
    lesson.mkdir()
    (lesson / "__init__.py").write_text("from .Luong import Luong\n", encoding="utf-8")
    (lesson / "Luong.py").write_text(
        "import tensorflow as tf\n\n\nclass Luong(tf.keras.layers.Layer):\n"
        "    def __init__(self, units):\n        super().__init__()\n"
        "        self.dense = tf.keras.layers.Dense(units)\n\n"
        "    def call(self, x):\n        print(self.dense(x).numpy())\n        return x\n",
        encoding="utf-8")
    (lesson / "main.py").write_text(
        "import tensorflow as tf\nfrom Luong import Luong\n\n\ndef main():\n"
        "    print(Luong(4)(tf.ones((1, 4))))\n\n\nif __name__ == \"__main__\":\n"
        "    main()\n", encoding="utf-8")
    assert _where(capsys, tmp_path) == expected


@pytest.mark.parametrize("test_imports_main", [False, True])
def test_a_program_that_tests_import_is_still_a_program(capsys, tmp_path, test_imports_main):
    # The program makes the layer and calls it eagerly in its own GradientTape loop; a test
    # that imports the program to call ``main()`` makes it no library for others to use.
    (tmp_path / "blocks.py").write_text(
        "import tensorflow as tf\n\n\nclass Noisy(tf.keras.layers.Layer):\n"
        "    def call(self, x):\n        print(x.numpy())\n        return x\n",
        encoding="utf-8")
    (tmp_path / "main.py").write_text(
        "import tensorflow as tf\n\nfrom blocks import Noisy\n\n\ndef main():\n"
        "    layer = Noisy()\n    with tf.GradientTape():\n        layer(tf.ones(2))\n\n\n"
        "if __name__ == \"__main__\":\n    main()\n", encoding="utf-8")
    if test_imports_main:
        (tmp_path / "test_main.py").write_text(
            "from main import main\n\n\ndef test_main():\n    main()\n", encoding="utf-8")
    assert _where(capsys, tmp_path) == []


@pytest.mark.parametrize("loop, expected", [
    ("    with tf.GradientTape():\n        model(tf.ones((2, 2)))\n", []),
    ("    model.compile(loss='mse')\n    model.fit(tf.ones((2, 2)), tf.ones((2, 2)))\n",
     [("denoise.py", 7, "TFF204")]),
])
def test_keras_classes_a_package_hands_on_run_as_their_users_do(
        capsys, tmp_path, loop, expected):
    # ``defences/__init__.py`` hands the block on with ``*`` (and a module of the package
    # imports from the package itself); the model that names the block is run by the
    # program: eagerly in its own loop, or by ``fit``.
    defences = tmp_path / "adv" / "defences"
    defences.mkdir(parents=True)
    (tmp_path / "adv" / "__init__.py").write_text("", encoding="utf-8")
    (defences / "__init__.py").write_text(
        "from .classifier import Classifier\nfrom .gan import GAN\nfrom .denoise import *\n",
        encoding="utf-8")
    (defences / "classifier.py").write_text("class Classifier:\n    pass\n", encoding="utf-8")
    (defences / "gan.py").write_text(
        "from adv.defences import Classifier\n\n\nclass GAN:\n    def __init__(self):\n"
        "        self.classifier = Classifier()\n", encoding="utf-8")
    (defences / "denoise.py").write_text(
        "import tensorflow as tf\n\n\nclass Denoise(tf.keras.Model):\n    def call(self, x):\n"
        "        x = x + 1\n        print(x.numpy())\n        return x\n", encoding="utf-8")
    (tmp_path / "adv" / "models.py").write_text(
        "import tensorflow as tf\n\nfrom adv.defences import Denoise\n\n\n"
        "class Target(tf.keras.Model):\n    def __init__(self):\n        super().__init__()\n"
        "        self.block = Denoise()\n\n    def call(self, x):\n"
        "        return self.block(x)\n", encoding="utf-8")
    (tmp_path / "train.py").write_text(
        "import tensorflow as tf\n\nfrom adv.models import Target\n\n\ndef main():\n"
        "    model = Target()\n" + loop + "\n\nif __name__ == \"__main__\":\n    main()\n",
        encoding="utf-8")
    assert _where(capsys, tmp_path) == expected


def test_a_library_module_of_the_same_name_is_not_the_project_module():
    # ``from tensorflow.keras import models`` beside ``from nets import models``: what the
    # importer uses of the project's ``nets.models`` is still known (it was taken for the
    # project's module, read in ways the index does not follow: handed on whole).
    from tffunc_lint.analysis.graph_context import _names_used

    def index(path, text):
        return ModuleIndex.build(path, path[:-3].replace("/", "."), ast.parse(text),
                                 text.splitlines(True))

    nets = index("nets/models.py", "import tensorflow as tf\n\n\nclass Net(tf.keras.Model):\n"
                                   "    pass\n")
    train = index("train.py", "from tensorflow.keras import models\n\n"
                              "from nets import models as nets_models\n\n"
                              "net = nets_models.Net()\nlayers = models.Sequential()\n")
    names = _names_used(nets, [train], lambda other: None)
    assert names is not None and "Net" in names


def test_the_second_pass_reuses_the_first_pass_index(monkeypatch):
    from tffunc_lint import runner
    from tffunc_lint.analysis.module_index import ModuleIndex
    from tffunc_lint.config import Settings

    built, again = [], []
    build, original_map = ModuleIndex.build.__func__, runner._map

    def counting_build(cls, path, *args, **kwargs):
        built.append(path)
        return build(cls, path, *args, **kwargs)

    def recording(jobs, workers):
        again[:] = [job[0] for job in jobs]
        return original_map(jobs, workers)

    monkeypatch.setattr(ModuleIndex, "build", classmethod(counting_build))
    monkeypatch.setattr(runner, "_map", recording)
    files = sorted(str(p) for p in (PROJECT / "proj").glob("*.py"))
    settings = Settings().resolved()
    reused = {r.path: r.findings for r in runner.lint_project(files, lambda path: settings)}
    assert again and sorted(built) == files  # one index per file, none built again

    # The same findings as when the second pass builds the indexes anew.
    views = runner._project_views
    monkeypatch.setattr(runner, "_project_views",
                        lambda *args: [job[:5] + (None,) for job in views(*args)])
    built.clear()
    rebuilt = {r.path: r.findings for r in runner.lint_project(files, lambda path: settings)}
    assert sorted(built) == sorted(files + again)
    assert rebuilt == reused and any(reused.values())


def test_an_index_of_another_text_is_not_used():
    from tffunc_lint.config import Settings
    from tffunc_lint.engine import lint_text

    settings = Settings().resolved()
    traced = ("import tensorflow as tf\n\n@tf.function\ndef f(x):\n"
              "    print(x)\n    return x\n")
    other = "import tensorflow as tf\n\ndef f(x):\n    return x\n"
    stale = lint_text("m.py", other, settings).index
    assert stale is not None and stale.text_hash == hash(other)
    expected = lint_text("m.py", traced, settings).findings
    assert [f.code for f in expected] == ["TFF101"]
    assert lint_text("m.py", traced, settings, index=stale).findings == expected


def test_a_private_helper_a_test_calls_through_its_module_is_not_redundant(capsys, tmp_path):
    # google-research/federated: modules without __init__.py (named by their stem) whose
    # tests import them by package path and call a private tf.function eagerly.
    algs = tmp_path / "algs"
    algs.mkdir()
    (algs / "falcon.py").write_text(
        "import tensorflow as tf\n\n\n@tf.function\ndef _actions(logits):\n"
        "    return tf.nn.softmax(logits)\n\n\n@tf.function\ndef step(logits):\n"
        "    return _actions(logits)\n", encoding="utf-8")
    _, found = lint_project_json(capsys, str(algs))
    assert [(f["line"], f["code"]) for f in found] == [(4, "TFF407")]
    (algs / "falcon_test.py").write_text(
        "import tensorflow as tf\n\nfrom bandits.algs import falcon\n\n\n"
        "def test_actions():\n    assert falcon._actions(tf.zeros([2])).shape == (2,)\n",
        encoding="utf-8")
    assert lint_project_json(capsys, str(algs)) == (0, [])


def test_a_private_method_a_test_calls_on_an_object_is_not_redundant(capsys, tmp_path):
    # A normalizing-flows library: its tests call a flow's private tf.function steps
    # (``tsnf._permute(z, identity)``) eagerly, on an instance of the class.
    flows = tmp_path / "flows"
    flows.mkdir()
    (flows / "triangular.py").write_text(
        "import tensorflow as tf\n\n\nclass Triangular:\n    @tf.function\n"
        "    def _permute(self, z, perm):\n        return tf.matmul(z, perm)\n\n"
        "    @tf.function\n    def forward(self, z, perm):\n"
        "        return self._permute(z, perm)\n", encoding="utf-8")
    _, found = lint_project_json(capsys, str(flows))
    assert [(f["line"], f["code"]) for f in found] == [(5, "TFF407")]
    (flows / "test_triangular.py").write_text(
        "import tensorflow as tf\n\nfrom .triangular import Triangular\n\n\n"
        "def test_permute():\n    flow = Triangular()\n"
        "    assert flow._permute(tf.eye(2), tf.eye(2)).shape == (2, 2)\n",
        encoding="utf-8")
    assert lint_project_json(capsys, str(flows)) == (0, [])


_SCRIPT = """\
import argparse

import tensorflow as tf

args = argparse.ArgumentParser().parse_args()
original = tf.keras.Sequential([tf.keras.layers.Dense(1)])


@tf.function
def batch_loss(x, y):
    return tf.reduce_sum((y - original(x)) ** 2)


loss_fn = batch_loss
batch_loss(tf.ones([2, 1]), tf.ones([2, 1]))
original = tf.keras.Sequential([tf.keras.layers.Dense(1)])
"""


def test_a_script_that_another_module_imports_is_not_a_whole_program(tmp_path, capsys):
    """Alone, the script's unused alias never runs; once a module imports it, the alias
    may be called after the rebinding, with the first model's trace."""
    (tmp_path / "train.py").write_text(_SCRIPT)
    _, alone = lint_project_json(capsys, tmp_path / "train.py")
    assert alone == []
    (tmp_path / "evaluate.py").write_text("from train import loss_fn\n")
    _, together = lint_project_json(capsys, tmp_path)
    assert [(f["line"], f["code"]) for f in together] == [(11, "TFF201")]


APP = ROOT / "tests" / "fixtures_app"


def test_a_class_an_application_never_names_is_not_run(capsys):
    """Of the application's layers, the training script imports two by name and one module
    whole; the layer nothing names never runs, and neither does the print in its call."""
    code, findings = lint_project_json(capsys, APP)
    expected = {(str(path), line, code)
                for path in APP.rglob("*.py") for line, code in expected_findings(path)}
    assert code == 1 and len(expected) == 6
    assert {(f["path"], f["line"], f["code"]) for f in findings} == expected


def test_a_package_folder_of_scripts_runs_its_layers_as_its_scripts_do(capsys, tmp_path):
    """The recommender's folder has an ``__init__.py``, but its scripts import the model
    and the layer by their stems: the training script's eager loop runs them eagerly; once
    it calls ``fit``, Keras traces the layer's ``call``."""
    _, findings = lint_project_json(capsys, APP)
    assert not [f for f in findings if "recsys" in f["path"]]
    copy = tmp_path / "app"
    shutil.copytree(APP, copy)
    train = copy / "recsys" / "train.py"
    train.write_text(train.read_text().replace(
        "    optimizer = tf.keras.optimizers.Adam()\n",
        "    model.compile('adam', 'mse')\n    model.fit(tf.ones((8, 4)), tf.ones((8, 4)))\n"
        "    optimizer = tf.keras.optimizers.Adam()\n"))
    _, findings = lint_project_json(capsys, copy)
    assert [(os.path.basename(f["path"]), f["line"], f["code"]) for f in findings
            if "recsys" in f["path"]] == [("layer.py", 8, "TFF301")]


def test_a_package_of_an_application_runs_its_layers_as_its_scripts_do(capsys, tmp_path):
    """A recommender's scripts import the model by its package's name (``from
    recsys.model import Recommender``): in an application, part of no distribution, that
    is all the code that runs it, and its eager loop runs the layer eagerly."""
    for root in ("app", "distribution"):
        copy = tmp_path / root
        shutil.copytree(APP, copy)
        for name, old, new in [("train.py", "from model import", "from recsys.model import"),
                               ("model.py", "from layer import", "from recsys.layer import")]:
            path = copy / "recsys" / name
            path.write_text(path.read_text().replace(old, new))
    _, findings = lint_project_json(capsys, tmp_path / "app")
    assert not [f for f in findings if "recsys" in f["path"]]
    # a distribution: others may install the package and fit the model
    (tmp_path / "distribution" / "setup.cfg").unlink()
    (tmp_path / "distribution" / "pyproject.toml").write_text('[project]\nname = "recsys"\n')
    _, findings = lint_project_json(capsys, tmp_path / "distribution")
    assert [(os.path.basename(f["path"]), f["line"], f["code"]) for f in findings
            if "recsys" in f["path"]] == [("layer.py", 8, "TFF301")]


def _variational_findings(capsys, root):
    _, findings = lint_project_json(capsys, root)
    return [f["line"] for f in findings if f["path"].endswith("encoders.py")]


@pytest.mark.parametrize("name, text", [
    # the script's own class derives from the one it imports, under its name or another,
    # and the script fits it
    ("relabel.py", "from encoders import *\n\n\nclass Relabelled(VariationalEncoder):\n"
                   "    pass\n\n\nencoder = Relabelled()\nencoder.compile('adam', 'mse')\n"
                   "encoder.fit(tf.zeros((8, 4)), tf.zeros((8, 4)))\n"),
    ("relabel.py", "from encoders import *\n\n\nclass VariationalEncoder(VariationalEncoder):"
                   "\n    pass\n\n\nencoder = VariationalEncoder()\n"
                   "encoder.compile('adam', 'mse')\nencoder.fit(tf.zeros((8, 4)), "
                   "tf.zeros((8, 4)))\n"),
    ("relabel.py", "import tensorflow as tf\nfrom encoders import VariationalEncoder\n\n\n"
                   "class VariationalEncoder(VariationalEncoder):\n    pass\n\n\n"
                   "encoder = VariationalEncoder()\nencoder.compile('adam', 'mse')\n"
                   "encoder.fit(tf.zeros((8, 4)), tf.zeros((8, 4)))\n"),
    # a script that looks names up as it runs may use any
    ("plan.py", "from encoders import *\n\nencoder = globals()['Variational' + 'Encoder']()\n"),
    # a module that imports it with ``*`` hands its names on to those importing it so
    ("common.py", "from encoders import *\n"),
])
def test_a_script_importing_with_a_star_names_what_its_code_reads(capsys, tmp_path, name, text):
    """The experiment scripts import the encoders with ``*``: the encoder none of them reads
    (one names it in a comment, one defines its own) never runs; these scripts may run it."""
    assert _variational_findings(capsys, APP) == [8]
    copy = tmp_path / "app"
    shutil.copytree(APP, copy)
    (copy / "experiments" / name).write_text(text)
    if name == "common.py":
        (copy / "experiments" / "extra.py").write_text(
            "from common import *\n\nencoder = VariationalEncoder()\n")
    assert _variational_findings(capsys, copy) == [8, 17]
    if name == "common.py":  # what is handed on counts only where it is read
        (copy / "experiments" / "extra.py").write_text("from common import *\n")
        assert _variational_findings(capsys, copy) == [8]


_STAR_OPS = ("import tensorflow as tf\n\n\nclass BatchNorm(tf.keras.layers.Layer):\n"
             "    def call(self, x, training=None):\n"
             "        return tf.keras.layers.BatchNormalization()(x, training=training)\n")
_STAR_NETWORKS = ("from ops import *\n\n\nclass Generator(tf.keras.Model):\n"
                  "    def __init__(self):\n        super().__init__()\n"
                  "        self.model = tf.keras.Sequential([BatchNorm()])\n\n"
                  "    def call(self, x):\n        return self.model(x)\n")
_EAGER_LOOP = ("generator = Generator()\noptimizer = tf.keras.optimizers.Adam()\n"
               "for step in range(10):\n    with tf.GradientTape() as tape:\n"
               "        loss = tf.reduce_mean(generator(tf.ones((4, 4)), training=True))\n"
               "    grads = tape.gradient(loss, generator.trainable_variables)\n"
               "    optimizer.apply_gradients(zip(grads, generator.trainable_variables))\n")
_FIT = ("generator = Generator()\ngenerator.compile('adam', 'mse')\n"
        "generator.fit(tf.ones((4, 4)), tf.ones((4, 4)))\n")


@pytest.mark.parametrize("legacy", [False, True])
@pytest.mark.parametrize("training, expected", [(_EAGER_LOOP, []), (_FIT, [("ops.py", 6)])])
def test_a_star_import_of_layers_runs_them_as_its_importers_do(
        capsys, tmp_path, legacy, training, expected):
    """A GAN's models import its layers with ``*`` (``from ops import *``), and its script
    trains them in an eager ``GradientTape`` loop: the layer's ``call`` runs eagerly. So
    too when an old copy of the code in ``legacy/`` has an ``ops.py`` of its own, which its
    own script fits: each script imports the module of its own folder."""
    (tmp_path / "ops.py").write_text(_STAR_OPS)
    (tmp_path / "networks.py").write_text(_STAR_NETWORKS)
    (tmp_path / "train.py").write_text("from networks import *\n\n" + training)
    if legacy:
        (tmp_path / "legacy").mkdir()
        (tmp_path / "legacy" / "ops.py").write_text(_STAR_OPS)
        (tmp_path / "legacy" / "train.py").write_text(
            "from ops import *\n\nmodel = tf.keras.Sequential([BatchNorm()])\n"
            "model.compile('adam', 'mse')\nmodel.fit(tf.ones((4, 4)), tf.ones((4, 4)))\n")
    _, findings = lint_project_json(capsys, tmp_path)
    assert sorted((os.path.relpath(f["path"], tmp_path), f["line"]) for f in findings
                  if f["code"] == "TFF301") == sorted(expected + (
                      [(os.path.join("legacy", "ops.py"), 6)] if legacy else []))


def _unused_layer_findings(capsys, *paths):
    _, findings = lint_project_json(capsys, *paths)
    return [f["line"] for f in findings if f["path"].endswith("layers.py")
            and 11 <= f["line"] <= 21]


def test_a_class_others_may_import_is_run_whoever_names_it(capsys, tmp_path):
    """The same code as a distribution (others install it and import its layers), linted
    without the code that uses it, or with a package that hands the module on to its
    importers (``from . import layers`` in its ``__init__``): the unused layer's print is
    reported."""
    assert _unused_layer_findings(capsys, APP / "nets" / "layers.py") == [20]
    exported = tmp_path / "exported"
    shutil.copytree(APP, exported)
    (exported / "nets" / "__init__.py").write_text("from . import layers\n")
    assert _unused_layer_findings(capsys, exported) == [20]
    for name, text in [("pyproject.toml", '[project]\nname = "app"\n'),
                       ("setup.py", "from setuptools import setup\nsetup()\n")]:
        project = tmp_path / name
        shutil.copytree(APP, project)
        (project / name).write_text(text)
        assert _unused_layer_findings(capsys, project) == [20]


@pytest.mark.parametrize("text, lines", [
    ("def reset(layer):\n    layer.reset_debug_vars()\n", []),  # a word of its own only
    ("def score(model, x):\n    return model.eval(x)\n", []),  # a method, not the builtin
    ("def make(name):\n    return globals()[name]()\n", [20]),
    ("def make(name):\n    return eval(name)()\n", [20]),
])
def test_a_module_that_may_look_its_classes_up_may_run_any(capsys, tmp_path, text, lines):
    """A module that may look a name up as it runs (``globals()[name]``, ``eval``) may
    run the layer nothing names; names that only contain such a word do not count."""
    copy = tmp_path / "app"
    shutil.copytree(APP, copy)
    layers = copy / "nets" / "layers.py"
    layers.write_text(layers.read_text() + "\n\n" + text)
    assert _unused_layer_findings(capsys, copy) == lines


@pytest.mark.parametrize("call, lines", [
    ("importlib.reload(layers)\n", []),  # runs the module again, reads none of its names
    ("show(layers)\n", [20]),  # handed on whole: any of its names may be read
])
def test_a_module_reloaded_is_not_handed_on(capsys, tmp_path, call, lines):
    """A notebook-style script imports the layers module whole and reloads it after an
    edit (``importlib.reload(layers)``): that reads no class of it, so the layer nothing
    names still never runs; a module handed to another function may have any read."""
    copy = tmp_path / "app"
    shutil.copytree(APP, copy)
    train = copy / "train.py"
    train.write_text("import importlib\n\nfrom nets import layers\nfrom show import show\n"
                     + call + train.read_text())
    (copy / "show.py").write_text("def show(module):\n    print(vars(module))\n")
    assert _unused_layer_findings(capsys, copy) == lines


def test_the_graph_reads_the_functions_only_of_modules_it_follows_code_into():
    """The process joining a project holds every module's index: the functions of an
    unpickled index stay pickled until the call graph asks for them, and the graph asks
    only in modules where it follows code (here ``losses``, called from a traced step;
    ``eager`` has nothing traced and calls nothing traced)."""
    import pickle

    from tffunc_lint.analysis.graph_context import ProjectGraph
    from tffunc_lint.config import Settings
    from tffunc_lint.engine import lint_file

    settings = Settings().resolved()
    files = sorted(str(p) for p in (PROJECT / "proj").glob("*.py"))
    built = [lint_file(path, settings).index for path in files]
    sent = [pickle.loads(pickle.dumps(index)) for index in built]
    assert not any("functions" in vars(index) for index in sent)

    graph, again = ProjectGraph(built), ProjectGraph(sent)
    traced, traced_again = graph.trace(), again.trace()
    assert traced_again == traced and any(traced.values())
    for index, copy in zip(built, sent):
        assert again.view_of(copy, traced_again[copy.path]) == graph.view_of(
            index, traced[index.path])
        assert copy.bound_names() == index.names.bound()
    loaded = {os.path.basename(copy.path) for copy in sent if "functions" in vars(copy)}
    assert "losses.py" in loaded and "eager.py" not in loaded

    # Asked for, they are the functions built; released, they are read again.
    losses = next(copy for copy in sent if copy.path.endswith("losses.py"))
    original = built[sent.index(losses)]
    assert {key: (f.qualname, list(f.edges)) for key, f in losses.functions.items()} == {
        key: (f.qualname, list(f.edges)) for key, f in original.functions.items()}
    losses.release()
    assert "functions" not in vars(losses) and losses.functions.keys() == original.functions.keys()
    # Sent on again, an unpickled index sends the pickle it received.
    assert pickle.loads(pickle.dumps(losses)).__dict__["_pickled_functions"] is not None
    assert (pickle.loads(pickle.dumps(losses)).__dict__["_pickled_functions"]
            == losses.__dict__["_pickled_functions"])


def test_resolving_a_method_reads_no_functions_of_its_module():
    """``self.encoder(x)`` calls what the class's methods assigned to ``self.encoder``, if
    they did: the class says which attributes its methods assign (``ClassInfo.assigned``,
    kept with the classes), so resolving a method call leaves an unpickled index's
    functions pickled; so does telling two indexes apart, which compares no field. (Asking
    the functions instead took 80 MB more, of 430, to lint a TensorFlow install.)"""
    import pickle

    from tffunc_lint.analysis.graph_context import ProjectGraph

    text = ("class Net:\n"
            "    def __init__(self):\n"
            "        self.encoder = self.encoder()\n\n"
            "    def encoder(self):\n"
            "        return lambda x: x\n\n"
            "    def run(self, x):\n"
            "        return self.encoder(x)\n")
    built = ModuleIndex.build("nets.py", "nets", ast.parse(text), text.splitlines(True))
    sent = pickle.loads(pickle.dumps(built))
    graph = ProjectGraph([sent])
    assert graph.resolve(sent, ("method", "Net", "encoder")) is None
    assert graph.resolve(sent, ("method", "Net", "run")) == ("nets.py", ("def", 8, "run"))
    again = pickle.loads(pickle.dumps(built))
    assert sent == sent and sent != again and again not in (None, sent)
    assert "functions" not in vars(sent) and "functions" not in vars(again)
    assert sent.classes["Net"].assigned == ("encoder",)


def test_a_module_names_each_callee_once():
    """A module that calls and passes the same names many times holds one target (and one
    decorator spelling) for each, in its index and once pickled: the process joining a
    project holds every module's calls and decorations."""
    import pickle

    text = ("import tensorflow as tf\n"
            "from lib import export, run\n\n\n"
            "@export('a')\n"
            "def a(x):\n"
            "    return run(tf.cast, x), run(tf.cast, x)\n\n\n"
            "@export('b')\n"
            "def b(x):\n"
            "    return run(tf.cast, x)\n")
    built = ModuleIndex.build("m.py", "m", ast.parse(text), text.splitlines(True))
    for index in (built, pickle.loads(pickle.dumps(built))):
        passed = index.passed_callables
        assert len(passed) == 3 and len({id(entry[0]) for entry in passed}) == 1
        assert len({id(entry[2]) for entry in passed}) == 1
        assert len({(id(e.target), id(e.how)) for e in index.decorated}) == 1
        edges = [edge for f in index.functions.values() for edge in f.edges
                 if edge[0] == ("external", "lib.run")]
        assert len(edges) == 3 and len({id(edge[0]) for edge in edges}) == 1


def test_an_unpickled_index_holds_only_its_own_fields():
    """The process joining a project holds every module's index: one unpickled keeps, in
    its attribute table, only the fields not at their default (the class answers for the
    others, with immutable empties), and the names most modules import are one string
    for all of them. (20 and 14 MB of 309 to lint a TensorFlow install.)"""
    import pickle

    texts = {"a": "import tensorflow as tf\nfrom os import path\n\n\ndef f(x):\n"
                  "    return tf.cast(x, 'int32')\n",
             "b": "import tensorflow as tf\nfrom os import path\n"}
    sent = []
    for name, text in texts.items():
        built = ModuleIndex.build(f"{name}.py", name, ast.parse(text), text.splitlines(True))
        sent.append(pickle.loads(pickle.dumps(built)))
    a, b = sent
    assert b.keras_runs == () and b.module_calls == frozenset() and b.dataset_names is True
    assert not b.compiles_keras and b.text_hash is None and b.unnamed == ()
    assert set(vars(b)) == {"path", "module", "imports", "_pickled_functions",
                            "_pickled_bindings", "_pickled_words", "_summary", "_bound",
                            "nodes"}
    assert [id(s) for pair in a.imports for s in pair] == [
        id(s) for pair in b.imports for s in pair]
    assert a.bound_names()["tf"] is b.bound_names()["tf"]
    # Sent on again, it is the same index.
    again = pickle.loads(pickle.dumps(a))
    assert again.same_to_the_graph(a) and again.functions.keys() == a.functions.keys()


def _collector_state(job):
    import gc

    from tffunc_lint.finding import FileResult
    from tffunc_lint.runner import _Done

    return _Done(FileResult(job[0], [], fix_error=str(gc.isenabled())), True, False)


def test_workers_collect_garbage_cycles(monkeypatch):
    """The pool is forked while the caller pauses the cyclic collector (unpickling the
    results): a worker must not inherit the pause, or every file's garbage cycles stay."""
    import multiprocessing

    import pytest

    from tffunc_lint import runner

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("workers are forked only where fork exists")
    monkeypatch.setattr(runner, "_lint_job", _collector_state)
    workers = runner._Workers(2)
    try:
        results, _ = workers.map([(f"m{n}.py", None, False, None, None, None)
                                  for n in range(runner.PARALLEL_THRESHOLD)])
    finally:
        workers.close()
    assert {result.fix_error for result in results} == {"True"}


def _football_findings(capsys, root):
    _, findings = lint_project_json(capsys, root)
    return sorted((os.path.basename(f["path"]), f["line"], f["code"]) for f in findings
                  if "football" in f["path"])


@pytest.mark.parametrize("path, old, new", [
    # the entry point no longer switches: the agent's step traces
    ("football/train.py", "    tf.config.run_functions_eagerly(True)\n", ""),
    # the entry point makes the agent before it switches: the agent's set-up may call it
    ("football/train.py", "    tf.config.run_functions_eagerly(True)\n    agent = Agent()\n",
     "    agent = Agent()\n    tf.config.run_functions_eagerly(True)\n"),
    # the script's main guard no longer calls the entry point
    ("football/train.py", "    train()\n", "    Agent().act(tf.ones([4]))\n"),
    # a test imports the agent too, in a process that never switched
    ("football/agent_test.py", "", "from football.agent import Agent\n\n\n"
                                   "def test_act():\n    Agent().act([0.0] * 4)\n"),
])
def test_an_agent_only_eager_programs_run_does_not_trace(capsys, tmp_path, path, old, new):
    """``train.py``'s entry point turns tf.function off for the process first thing, then
    makes the agent, which nothing else imports: its decorated step runs as Python, and
    ``.numpy()`` has a value. Where a process may run the step before the switch, or
    without it, the step traces."""
    assert _football_findings(capsys, APP) == []
    copy = tmp_path / "app"
    shutil.copytree(APP, copy)
    target = copy / path
    text = target.read_text() if target.exists() else ""
    assert old in text
    target.write_text(text.replace(old, new, 1) if old else new)
    assert _football_findings(capsys, copy) == [("agent.py", 13, "TFF204")]


def test_importing_a_module_that_switches_tf_function_off_runs_eagerly(capsys, tmp_path):
    """``multi.py`` imports models that turn tf.function off as they are imported, from a
    folder without ``__init__.py`` (``from shared.eager_models import dense_net``): its
    decorated step runs as Python; without the import, it traces."""
    copy = tmp_path / "app"
    shutil.copytree(APP, copy)
    multi = copy / "football" / "multi.py"
    multi.write_text(multi.read_text().replace(
        "from shared.eager_models import dense_net\n",
        "\n\ndef dense_net():\n    return tf.keras.Sequential([tf.keras.layers.Dense(4)])\n"))
    assert _football_findings(capsys, copy) == [("multi.py", 17, "TFF204")]


_DETECTOR = {
    "detection/utils/misc.py": (
        "import tensorflow as tf\n\n\n"
        "def pad_shapes(meta):\n"
        "    return tf.cast(meta, tf.int32).numpy()\n"),
    "detection/models/heads.py": (
        "import tensorflow as tf\n\n"
        "from detection.utils.misc import pad_shapes\n\n\n"
        "class Head(tf.keras.layers.Layer):\n"
        "    def call(self, x):\n"
        "        return x * float(pad_shapes(x).sum())\n"),
    "train_detector.py": (
        "import tensorflow as tf\n\n"
        "from detection.models.heads import Head\n\n"
        "print(tf.__version__)\n"
        "model = Head()\n"
        "for step in range(10):\n"
        "    with tf.GradientTape() as tape:\n"
        "        loss = tf.reduce_mean(model(tf.ones((2, 4))))\n"),
}


@pytest.mark.parametrize("extra, found", [
    ({}, []),
    # the script lets Keras run the model
    ({"train_detector.py": "model.compile('adam', 'mse')\n"
                           "model.fit(tf.ones((2, 4)), tf.ones((2, 4)))\n"},
     [("misc.py", 5, "TFF204")]),
    # a distribution: others may import the layer and fit it
    ({"pyproject.toml": '[project]\nname = "detection"\n'}, [("misc.py", 5, "TFF204")]),
    # a module imports the script: its code is not all that uses what it makes
    ({"evaluate.py": "import tensorflow as tf\n\nimport train_detector\n\n"
                     "train_detector.model.predict(tf.ones((2, 4)))\n"},
     [("misc.py", 5, "TFF204")]),
    # ... though one that only runs it runs the layer as the script does
    ({"evaluate.py": "import train_detector\n"}, []),
    # the script hands the model to a trainer of the project whose tf.function step calls
    # it (a diffusion model's trainer, round 176)
    ({"detection/trainer.py": "import tensorflow as tf\n\n\nclass Trainer:\n"
                              "    def __init__(self, model):\n        self.model = model\n\n"
                              "    @tf.function\n    def step(self, x):\n"
                              "        return self.model(x)\n",
      "train_detector.py": "from detection.trainer import Trainer\n\n"
                           "Trainer(model).step(tf.ones((2, 4)))\n"},
     [("misc.py", 5, "TFF204")]),
    # ... not one whose steps run eagerly, nor one whose traced code calls no model
    ({"detection/trainer.py": "import tensorflow as tf\n\n\nclass Trainer:\n"
                              "    def __init__(self, model):\n        self.model = model\n\n"
                              "    def step(self, x):\n        return self.model(x)\n\n"
                              "    @tf.function\n    def scale(self, x):\n"
                              "        return x * 2\n",
      "train_detector.py": "from detection.trainer import Trainer\n\n"
                           "Trainer(model).step(tf.ones((2, 4)))\n"}, []),
])
def test_a_script_without_a_main_guard_runs_its_layers_as_it_runs_them(
        capsys, tmp_path, extra, found):
    """A training script that does its work at module level (a loop, ``print``), which
    nothing imports, of an application: the layer it calls in an eager loop runs eagerly,
    and so does the helper the layer's module imports through folders without
    ``__init__.py``; once it calls ``fit``, Keras traces the layer."""
    for name, text in _DETECTOR.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    for name, text in extra.items():
        path = tmp_path / name
        path.write_text((path.read_text() if path.exists() else "") + text)
    assert _where(capsys, tmp_path) == found


_VAE = ("import tensorflow as tf\n\n\nclass LinearVAE(tf.keras.Model):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.fc = tf.keras.layers.Dense(4)\n\n"
        "    def call(self, x):\n"
        "        return tf.keras.layers.BatchNormalization()(self.fc(x))\n")


@pytest.mark.parametrize("evaluation, found", [
    # its own `evaluate`, defined below the method that calls it: an eager loop too
    ("self.evaluate(data)", []),
    # Keras's `evaluate` of the model: Keras traces `call`
    ("self.model.evaluate(data, data)", [("vae.py", 10)]),
])
def test_a_trainer_that_calls_its_own_evaluate_runs_its_model_eagerly(
        capsys, tmp_path, evaluation, found):
    """A study project's VAE trainer (round 178): a plain class whose ``train`` runs the
    model in a ``GradientTape`` loop and then calls ``self.evaluate(...)``, its own method,
    defined further down; not Keras's ``evaluate``."""
    (tmp_path / "vae.py").write_text(_VAE)
    (tmp_path / "main.py").write_text(
        "import tensorflow as tf\nfrom vae import LinearVAE\n\n\nclass MainVAE(object):\n"
        "    def __init__(self):\n        self.model = LinearVAE()\n\n"
        "    def train(self, data):\n        with tf.GradientTape():\n"
        "            self.model(data)\n"
        f"        return {evaluation}\n\n"
        "    def evaluate(self, data):\n        return self.model(data)\n\n\n"
        "if __name__ == '__main__':\n    MainVAE().train(tf.ones((2, 4)))\n")
    assert _where(capsys, tmp_path, code="TFF301") == found


_DETECTOR_MODEL = (
    "import tensorflow as tf\nfrom tensorflow.keras import Model\n"
    "from tensorflow.keras.layers import Input, Layer\n\n\n"
    "class Block(Layer):\n    def call(self, x):\n        print('Block:', x)\n"
    "        return x * 2\n\n\n"
    "class Yolo(Model):\n    def __init__(self):\n        super().__init__()\n"
    "        self.block = Block()\n\n    def call(self, x):\n        return self.block(x)\n\n"
    "    def model(self, shape):\n        x = Input(shape=shape)\n"
    "        return Model(inputs=[x], outputs=self.call(x))\n")


@pytest.mark.parametrize("use, found", [
    ("yolo.model((4,)).summary()\n", []),
    ("yolo.model((4,)).predict(tf.ones((1, 4)))\n", [("model.py", 8, "TFF101")]),
    ("tf.saved_model.save(yolo.model((4,)), 'saved')\n", [("model.py", 8, "TFF101")]),
    # a recommender's training script: fitting a model asked to run eagerly traces nothing
    ("model = yolo.model((4,))\nmodel.compile('sgd', 'mse')\nmodel.run_eagerly = True\n"
     "model.fit(tf.ones((1, 4)), tf.ones((1, 4)))\n", []),
    ("model = yolo.model((4,))\nmodel.compile('sgd', 'mse', run_eagerly=True)\n"
     "model.fit(tf.ones((1, 4)), tf.ones((1, 4)))\n", []),
    ("model = yolo.model((4,))\nmodel.run_eagerly = True\nmodel = yolo.model((4,))\n"
     "model.fit(tf.ones((1, 4)), tf.ones((1, 4)))\n", [("model.py", 8, "TFF101")]),
])
def test_a_functional_model_nothing_runs_leaves_its_layers_eager(capsys, tmp_path, use, found):
    """A YOLO detector's model builds a functional twin of itself (``Model(inputs,
    self.call(Input(...)))``) to load weights into, and the detection script calls the
    model eagerly: building ran each layer's ``call`` once on symbolic inputs, and the
    debug ``print`` shows every eager call's values. Once the script predicts with the
    functional model, or exports it, Keras runs the layers in a graph; not when it asked
    the model to run eagerly first."""
    (tmp_path / "model.py").write_text(_DETECTOR_MODEL)
    (tmp_path / "detect.py").write_text(
        "import tensorflow as tf\nfrom model import Yolo\n\nyolo = Yolo()\n" + use
        + "print(yolo(tf.ones((1, 4))))\n")
    assert _where(capsys, tmp_path) == found


_NET = ("import tensorflow as tf\n\n\nclass Net(tf.keras.Model):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.dense = tf.keras.layers.Dense(2)\n\n"
        "    def call(self, x):\n        print('logits', x)\n        return self.dense(x)\n")
_PREDICT = "\n    def predict(self, x):\n        return tf.argmax(self(x), -1)\n"


@pytest.mark.parametrize("own, script, found", [
    # the class's own predict runs the model eagerly, for an object of known class or not
    (_PREDICT, "net = Net()\nprint(net.predict(tf.ones((1, 4))))\n", []),
    (_PREDICT, "class Runner:\n    def __init__(self):\n        self.net = Net()\n\n"
               "    def run(self):\n        return self.net.predict(tf.ones((1, 4)))\n\n\n"
               "print(Runner().run())\n", []),
    # a project module's own evaluate function is not Keras's
    (_PREDICT, "import tools\n\ntools.evaluate(Net(), tf.ones((1, 4)))\n", []),
    # Keras's predict traces the model's call
    ("", "net = Net()\nprint(net.predict(tf.ones((1, 4))))\n", [("model.py", 10, "TFF101")]),
    ("", "class Runner:\n    def __init__(self):\n        self.net = Net()\n\n"
         "    def run(self):\n        return self.net.predict(tf.ones((1, 4)))\n\n\n"
         "print(Runner().run())\n", [("model.py", 10, "TFF101")]),
])
def test_a_model_s_own_predict_is_not_keras_running_it(capsys, tmp_path, own, script, found):
    """A Keras model of an OCR project that defines its own ``evaluate`` (a decoding loop),
    or ``predict``, runs that when the script calls it: Keras traces nothing. The class's
    debug ``print`` shows values on every eager call."""
    (tmp_path / "model.py").write_text(_NET + own)
    (tmp_path / "tools.py").write_text(
        "def evaluate(model, data):\n    return model(data)\n")
    (tmp_path / "train.py").write_text(
        "import tensorflow as tf\nfrom model import Net\n\n" + script)
    assert _where(capsys, tmp_path) == found


_TEXTBOOK_SCRIPT = (
    "import tensorflow as tf\n\n"
    "tf.config.experimental_run_functions_eagerly(True)\n"
    "a = tf.Variable(3.0)\nresult = tf.sqrt(a * 4.0)\n"
    "print('result: {}'.format(result.numpy()))\n")


_DATASET_MAP = ("@tf.py_function(Tout=tf.float32)\ndef resampled(x):\n    return x.numpy()\n\n\n"
                "def scaled(x):\n    return resampled(x) / 2.0\n\n\n"
                "def convert(x):\n    return scaled(x)\n\n\n"
                "dataset = tf.data.Dataset.range(4).map(convert)\n"
                "dataset.save('resampled')\n")


_OWN_MODEL = ("class Logistic(tf.keras.Model):\n    def __init__(self):\n"
              "        super().__init__()\n        self.dense = tf.keras.layers.Dense(1)\n\n"
              "    def call(self, x):\n        return self.dense(x)\n\n\n"
              "model = Logistic()\n")


@pytest.mark.parametrize("extra, files, found", [
    # eager operations only: the switch changes nothing
    ("", {}, [("simple_graph.py", 3, "TFF405")]),
    # a tf.function of its own: the switch makes it eager Python
    ("@tf.function\ndef step(x):\n    return x * 2\nprint(step(a))\n", {},
     [("simple_graph.py", 3, "TFF405"), ("simple_graph.py", 3, "TFF406")]),
    # the project's tf.function, imported: the switch makes it eager Python
    ("from steps import step\nprint(step(a))\n",
     {"steps.py": "import tensorflow as tf\n\n\n@tf.function\ndef step(x):\n"
                  "    return x * 2\n"},
     [("simple_graph.py", 3, "TFF405"), ("simple_graph.py", 3, "TFF406")]),
    # another module imports the script: its code is not all that uses the switch
    ("", {"run_all.py": "import simple_graph\n"},
     [("simple_graph.py", 3, "TFF405"), ("simple_graph.py", 3, "TFF406")]),
    # a model of its own, trained by an eager loop and exported: the export traces `call`
    # whatever the switch says, and nothing else runs a graph
    (_OWN_MODEL + "with tf.GradientTape() as tape:\n    loss = model(tf.ones((1, 2)))\n"
     "model.save('saved/1')\n", {}, [("simple_graph.py", 3, "TFF405")]),
    # ... fitted by Keras, which the switch makes run eagerly
    (_OWN_MODEL + "model.compile('sgd', 'mse')\nmodel.fit(tf.ones((2, 2)), tf.ones((2, 1)))\n"
     "model.save('saved/1')\n", {},
     [("simple_graph.py", 3, "TFF405"), ("simple_graph.py", 3, "TFF406")]),
    # a dataset pipeline (a resampling script): tf.data traces its functions whatever the
    # switch says, also a helper they call and a model they run
    (_DATASET_MAP, {}, [("simple_graph.py", 3, "TFF405")]),
    (_OWN_MODEL + _DATASET_MAP.replace("return scaled(x)", "return model(scaled(x))"), {},
     [("simple_graph.py", 3, "TFF405")]),
    # ... beside a tf.function of its own, which the switch makes eager Python
    (_DATASET_MAP + "@tf.function\ndef step(x):\n    return x * 2\nprint(step(a))\n", {},
     [("simple_graph.py", 3, "TFF405"), ("simple_graph.py", 3, "TFF406")]),
])
def test_an_eager_switch_in_a_script_of_eager_operations_changes_nothing(
        capsys, tmp_path, extra, files, found):
    """A textbook's script (no main guard, its work at module level, nothing imports it) turns
    ``tf.function`` off and then runs only eager operations: there is nothing to switch."""
    script = tmp_path / "chap_5" / "simple_graph.py"
    script.parent.mkdir()
    script.write_text(_TEXTBOOK_SCRIPT + extra)
    for name, text in files.items():
        (script.parent / name).write_text(text)
    _, findings = lint_project_json(capsys, tmp_path)
    assert sorted((os.path.basename(f["path"]), f["line"], f["code"])
                  for f in findings if f["path"].endswith("simple_graph.py")) == found


_APPLICATION = {
    ".gitignore": "*.h5\n",
    "train.py": ("import tensorflow as tf\nfrom model import Net\n\n\n"
                 "def main():\n    model = Net()\n    model.compile('sgd', 'mse')\n"
                 "    model.fit(tf.ones((2, 4)), tf.ones((2, 4)))\n\n\n"
                 "if __name__ == '__main__':\n    main()\n"),
    "model.py": ("import tensorflow as tf\n\n\nclass Net(tf.keras.Model):\n"
                 "    def call(self, x):\n        print('Net:', x)\n        return x\n"),
    # an older model nothing imports any more: its code never runs
    "old_model.py": ("import tensorflow as tf\n\n\nclass Model(tf.keras.Model):\n"
                     "    def __init__(self):\n        super(Model, self).__init__()\n\n"
                     "    def call(self, x):\n        print('Model:', x)\n        return x\n"),
}


@pytest.mark.parametrize("extra, paths, found", [
    # the project's folder: every module that may import old_model.py is linted
    ({}, ["."], [("model.py", 6)]),
    # a list of files (as pre-commit passes): others may import it
    ({}, ["model.py", "old_model.py"], [("model.py", 6), ("old_model.py", 9)]),
    # a folder inside a project: its modules may be imported from outside it
    ({"models/.keep": ""}, ["models"], [("old_model.py", 9)]),
    # a distribution: whoever installs it may import the module
    ({"pyproject.toml": '[project]\nname = "net"\n'}, ["."],
     [("model.py", 6), ("old_model.py", 9)]),
    # another module imports it and uses its class
    ({"evaluate.py": "import tensorflow as tf\nfrom old_model import Model\n\n"
                     "print(Model().predict(tf.ones((2, 4))))\n"}, ["."],
     [("model.py", 6), ("old_model.py", 9)]),
])
def test_a_module_nothing_imports_in_a_whole_application_never_runs(
        capsys, tmp_path, monkeypatch, extra, paths, found):
    """Linting an application's root folder sees every module that could import another:
    a module that none imports and that is no program (``models/Model.py`` that the
    training scripts replaced) never runs. A list of files, a folder inside the project or
    a distribution does not tell that."""
    for name, text in {**_APPLICATION, **extra}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    if paths == ["models"]:
        (tmp_path / "old_model.py").rename(tmp_path / "models" / "old_model.py")
    monkeypatch.chdir(tmp_path)
    assert _where(capsys, *paths, code="TFF101") == found


def test_the_cache_keeps_a_whole_project_s_views_apart(capsys, tmp_path, monkeypatch):
    """The same files linted as the project's folder, then as a list, then as the folder
    again, with the cache on: each run answers as an uncached one would."""
    for name, text in _APPLICATION.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    runs = [["."], ["model.py", "old_model.py", "train.py"], ["."]]
    found = [sorted((os.path.basename(f["path"]), f["line"])
                    for f in lint_project_json(capsys, *paths)[1] if f["code"] == "TFF101")
             for paths in runs]
    assert os.path.isdir(tmp_path / ".tffunc_lint_cache")
    assert found == [[("model.py", 6)], [("model.py", 6), ("old_model.py", 9)],
                     [("model.py", 6)]]


@pytest.mark.parametrize("setup, found", [
    # TensorFlow 2: fit traces the layer's call
    ("", [("layers.py", 6)]),
    # TensorFlow 1 with eager execution: Keras runs the model eagerly
    ("tf.enable_eager_execution()\n", []),
    # TensorFlow 1's graph mode: Keras builds the model into a graph once
    ("sess = tf.Session()\n", []),
    ("tf.compat.v1.disable_v2_behavior()\n", []),
    ("sess = tf.compat.v1.Session()\n", []),
    # other ``tf.compat.v1`` APIs used from TensorFlow 2 are not TensorFlow 1 code
    ("tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)\n", [("layers.py", 6)]),
])
def test_keras_does_not_trace_code_written_for_tensorflow_1(capsys, tmp_path, setup, found):
    """A GAN project of TensorFlow 1.11 turns on eager execution in its solver and calls
    its layers directly; its Keras ``call``s are never traced by ``tf.function``."""
    (tmp_path / "layers.py").write_text(
        "import tensorflow as tf\n\n\nclass Scale(tf.keras.layers.Layer):\n"
        "    def call(self, x):\n        print('scale', x)\n        return x * 2\n")
    (tmp_path / "solver.py").write_text(
        "import tensorflow as tf\n" + setup + "from layers import Scale\n\n\n"
        "def main():\n    model = tf.keras.Sequential([Scale()])\n"
        "    model.compile('sgd', 'mse')\n    model.fit(tf.ones((2, 4)), tf.ones((2, 4)))\n\n\n"
        "if __name__ == '__main__':\n    main()\n")
    assert _where(capsys, tmp_path, code="TFF101") == found


def test_a_repository_whose_root_is_a_package_imports_its_modules_by_their_tails(
        capsys, tmp_path):
    """A repository with an ``__init__.py`` at its root names its modules after the
    root's folder (``repo.nets.layers``), while its scripts, run from the root, import
    ``nets.layers``: that module is imported; ``nets/old.py`` beside it is not."""
    layer = ("import tensorflow as tf\n\n\nclass {0}(tf.keras.layers.Layer):\n"
             "    def call(self, x):\n        print('{0}:', x)\n        return x\n")
    files = {
        "repo/__init__.py": "", "repo/.gitignore": "*.h5\n", "repo/nets/__init__.py": "",
        "repo/nets/layers.py": layer.format("Scale"), "repo/nets/old.py": layer.format("Old"),
        "repo/train.py": ("import tensorflow as tf\nfrom nets.layers import Scale\n\n\n"
                          "if __name__ == '__main__':\n"
                          "    model = tf.keras.Sequential([Scale()])\n"
                          "    model.compile('sgd', 'mse')\n"
                          "    model.fit(tf.ones((2, 4)), tf.ones((2, 4)))\n"),
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert _where(capsys, tmp_path / "repo", code="TFF101") == [("layers.py", 6)]


_NVAE = (
    "import tensorflow as tf\n\n\n"
    "class NVAE(tf.keras.Model):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.dense = tf.keras.layers.Dense(4)\n"
    "        self.steps = 0\n\n"
    "    def call(self, x):\n"
    "        return self.dense(x)\n\n"
    "    def train_step(self, data):\n"
    "        beta = min(self.steps / 100, 1)\n"
    "        loss = beta * tf.reduce_mean(self(data))\n"
    "        self.steps += 1\n"
    "        return {'loss': loss}\n")


@pytest.mark.parametrize("compile_call, predict, found", [
    # every compile asks for eager runs: fit runs train_step eagerly, on every batch
    ("model.compile(optimizer='adam', run_eagerly=True)", "", []),
    ("model.compile(optimizer='adam', run_eagerly=True)",
     "print(model.predict(tf.ones((1, 4))))\n", []),
    # Keras traces train_step
    ("model.compile(optimizer='adam')", "", [("models.py", 16, "TFF103")]),
    ("model.compile(optimizer='adam', run_eagerly=args.debug)", "",
     [("models.py", 16, "TFF103")]),
])
def test_a_project_that_compiles_only_eagerly_trains_eagerly(capsys, tmp_path, compile_call,
                                                             predict, found):
    """NVAE's training script compiles the model with ``run_eagerly=True`` and hands it to
    the function that fits it: Keras runs ``train_step`` eagerly, and the step counter
    counts every batch. Keras refuses to fit a model before ``compile()``; a project whose
    every ``compile`` asks for eager runs never trains in a graph."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "models.py").write_text(_NVAE)
    (tmp_path / "train.py").write_text(
        "import argparse\n\nimport tensorflow as tf\nfrom models import NVAE\n\n\n"
        "def train(model, data):\n    model.fit(data, epochs=2)\n\n\n"
        "def main(args):\n    model = NVAE()\n"
        f"    {compile_call}\n    train(model, tf.ones((8, 4)))\n"
        + "".join(f"    {line}\n" for line in predict.splitlines()) +
        "\n\nif __name__ == '__main__':\n    main(argparse.ArgumentParser().parse_args())\n")
    assert _where(capsys, tmp_path) == found


_CLUSTERING = (
    "import matplotlib.pyplot as plt\nimport tensorflow as tf\n\n"
    "tf.config.run_functions_eagerly(True)\n\n\n"
    "def plot_matrix(matrix):\n"
    "    plt.imshow(matrix{read})\n\n\n"
    "@tf.function\n"
    "def loss_function(y_true, y_pred):\n"
    "    plot_matrix(y_pred)\n"
    "    return tf.reduce_mean(y_true - y_pred)\n\n\n"
    "for step in range(10):\n"
    "    print(loss_function(tf.ones((2, 2)), tf.zeros((2, 2))))\n")


@pytest.mark.parametrize("read, found", [
    # the loss plots its matrix through a helper: it needs eager execution, and the
    # switch is what makes the script run
    (".numpy()", []),
    # nothing needs it: the switch only slows the loss down
    ("", [("clustering.py", 4)]),
])
def test_an_eager_switch_that_traced_code_needs_is_not_a_leftover(capsys, tmp_path, read, found):
    """A clustering script's loss (a ``tf.function``) plots its matrices with
    ``.numpy()``: traced, it would fail; the script switches ``tf.function`` off on
    purpose."""
    (tmp_path / "clustering.py").write_text(_CLUSTERING.format(read=read))
    assert _where(capsys, tmp_path, code="TFF406") == found


def test_an_eager_switch_a_keras_step_needs_is_not_a_leftover(capsys, tmp_path):
    """BERT4NILM's ``train_step`` logs ``loss.numpy()``; a guarded read needs no switch."""
    model = ("import tensorflow as tf\n\ntf.config.run_functions_eagerly(True)\n\n\n"
             "class Net(tf.keras.Model):\n"
             "    def train_step(self, data):\n"
             "        loss = tf.reduce_mean(self(data))\n"
             "{log}"
             "        return {{'loss': loss}}\n\n\n"
             "model = Net()\nmodel.compile(optimizer='adam')\nmodel.fit(tf.ones((4, 2)))\n")
    (tmp_path / "bert4nilm.py").write_text(model.format(
        log="        print(loss.numpy())\n"))
    assert _where(capsys, tmp_path, code="TFF406") == []
    (tmp_path / "bert4nilm.py").write_text(model.format(
        log="        if tf.executing_eagerly():\n            print(loss.numpy())\n"))
    assert _where(capsys, tmp_path, code="TFF406") == [("bert4nilm.py", 3)]


@pytest.mark.parametrize("script, found", [
    # Keras runs something of no known class: the model may be traced
    ("def run(model, x):\n    return model.predict(x)\n\n\n"
     "print(run(Net(), tf.ones((1, 4))))\n", [("model.py", 10, "TFF101")]),
    # predict() with nothing to predict is a method of the project's own
    ("def run(model):\n    return model.predict()\n\n\n"
     "print(Net()(tf.ones((1, 4))), run(Net()))\n", []),
    # scikit-learn's estimators, kept on self or bound in a function
    ("from sklearn.svm import SVC\n\n\nclass Trainer:\n    def __init__(self):\n"
     "        self.svm = SVC()\n\n    def train(self, x, y):\n        self.svm.fit(x, y)\n"
     "        return Net()(tf.constant(x))\n\n\nprint(Trainer().train([[1.0]], [0]))\n", []),
    ("from sklearn.svm import SVC\n\n\ndef train(x, y):\n    svm = SVC()\n"
     "    svm.fit(x, y)\n    return Net()(tf.constant(x))\n\n\nprint(train([[1.0]], [0]))\n",
     []),
    # the same name bound to a model of no known class too
    ("from sklearn.svm import SVC\n\n\ndef train(x, y, model):\n    svm = SVC()\n"
     "    svm.fit(x, y)\n    svm = model\n    svm.fit(x, y)\n\n\n"
     "print(train([[1.0]], [0], Net()))\n", [("model.py", 10, "TFF101")]),
])
def test_runs_that_are_not_keras_s_leave_the_models_eager(capsys, tmp_path, script, found):
    """A graph-classification toolbox wraps scikit-learn's SVC in a Keras model whose
    ``call`` reads ``.numpy()``: the SVC's ``fit`` and the wrapper's own ``predict()`` are
    not Keras runs, and the scripts call the models eagerly."""
    (tmp_path / "model.py").write_text(_NET)
    (tmp_path / "train.py").write_text(
        "import tensorflow as tf\nfrom model import Net\n\n" + script)
    assert _where(capsys, tmp_path) == found


def test_a_package_nothing_imports_beside_imported_ones_never_runs(capsys, tmp_path):
    """The toolbox's scripts import ``methods/GCN``; the imports of ``methods/SVM`` are
    left in a string. Its model never runs; the GCN's, which Keras may run, counts."""
    (tmp_path / ".git").mkdir()
    for name in ("GCN", "SVM"):
        package = tmp_path / "methods" / name
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "models.py").write_text(_NET.replace("Net", name))
    (tmp_path / "methods" / "__init__.py").write_text("")
    (tmp_path / "main.py").write_text(
        "import tensorflow as tf\nfrom methods.GCN.models import GCN\n\n"
        "'''\nfrom methods.SVM.models import SVM\n'''\n\n\n"
        "def run(model, x):\n    return model.predict(x)\n\n\n"
        "if __name__ == '__main__':\n    print(run(GCN(), tf.ones((1, 4))))\n")
    assert _where(capsys, tmp_path) == [("models.py", 10, "TFF101")]
    _, findings = lint_project_json(capsys, tmp_path)
    assert [os.path.relpath(f["path"], tmp_path) for f in findings] == [
        os.path.join("methods", "GCN", "models.py")]


def test_a_script_s_bare_import_finds_the_module_beside_it(capsys, tmp_path):
    """A recommender collection: each model's folder holds ``model.py``, and its
    ``train.py`` runs ``from model import ...`` (Python finds the ``model.py`` beside it).
    The ``model.py`` of the folder without a training script is imported by nothing."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "ctr").mkdir()
    (tmp_path / "ctr" / "__init__.py").write_text("")
    for name in ("din", "ple"):
        package = tmp_path / "ctr" / name
        package.mkdir()
        (package / "__init__.py").write_text("")
        (package / "model.py").write_text(_NET.replace("Net", name.upper()))
    (tmp_path / "ctr" / "din" / "train.py").write_text(
        "import tensorflow as tf\nfrom model import DIN\n\n\n"
        "if __name__ == '__main__':\n    print(DIN().predict(tf.ones((1, 4))))\n")
    _, findings = lint_project_json(capsys, tmp_path)
    assert [os.path.relpath(f["path"], tmp_path) for f in findings] == [
        os.path.join("ctr", "din", "model.py")]


_AGENT = {
    "agent/__init__.py": "",
    "agent/networks.py": (
        "import numpy as np\nimport tensorflow as tf\n\n\n"
        "class Block(tf.keras.layers.Layer):\n"
        "    def call(self, x):\n"
        "        return x + np.random.normal()\n\n\n"
        "class Actor(tf.keras.Model):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.block = Block()\n\n"
        "    def call(self, x):\n"
        "        return self.block(x)\n\n\n"
        "class Critic(tf.keras.Model):\n"
        "    def call(self, x):\n"
        "        return x + np.random.normal()\n"),
    "agent/learner.py": (
        "import tensorflow as tf\n\n"
        "from agent.networks import Actor, Critic\n\n\n"
        "class Learner:\n"
        "    def __init__(self):\n"
        "        self.actor = Actor()\n\n"
        "    def learn(self):\n"
        "        for step in range(10):\n"
        "            with tf.GradientTape() as tape:\n"
        "                loss = tf.reduce_mean(self.actor(tf.ones((2, 4))))\n"),
    "train.py": (
        "from agent.learner import Learner\n\n"
        "if __name__ == '__main__':\n"
        "    Learner().learn()\n"),
}


@pytest.mark.parametrize("extra, found", [
    # an eager loop calls the actor
    ({}, []),
    # a tf.function of the learner calls the actor; nothing reads the critic it imports
    ({"agent/learner.py": "\n    @tf.function\n    def act(self, x):\n"
                          "        return self.actor(x)\n"},
     [("networks.py", 7)]),
    # another program exports the critic: the actor still runs eagerly
    ({"export.py": "import tensorflow as tf\n\nfrom agent.networks import Critic\n\n"
                   "tf.saved_model.save(Critic(), 'critic')\n"},
     [("networks.py", 21)]),
    # the module's main guard calls the critic eagerly: it runs only as the program,
    # not when the learner (whose step is traced) imports the module
    ({"agent/networks.py": "\n\nif __name__ == '__main__':\n"
                           "    print(Critic()(tf.ones((2, 4))))\n",
      "agent/learner.py": "\n    @tf.function\n    def act(self, x):\n"
                          "        return self.actor(x)\n"},
     [("networks.py", 7)]),
    # ... while a main guard that fits it traces it
    ({"agent/networks.py": "\n\nif __name__ == '__main__':\n"
                           "    Critic().fit(tf.ones((2, 4)), tf.ones((2, 4)))\n"},
     [("networks.py", 21)]),
    # another program exports the critic under a name of its own, which the index does
    # not look for: it counts as used
    ({"export.py": "import tensorflow as tf\n\nfrom agent.networks import Critic as critic\n\n"
                   "tf.saved_model.save(critic(), 'critic')\n"},
     [("networks.py", 21)]),
    # a class only an unused model makes runs as that model does: not at all
    ({"agent/networks.py": "\n\nclass Twin(tf.keras.Model):\n    def __init__(self):\n"
                           "        super().__init__()\n        self.critic = Critic()\n",
      "agent/learner.py": "\n    def fit(self):\n"
                          "        self.actor.fit(tf.ones((2, 4)), tf.ones((2, 4)))\n"},
     [("networks.py", 7)]),
    # a distribution: whoever installs it may fit any of its classes
    ({"pyproject.toml": '[project]\nname = "agent"\n',
      "agent/learner.py": "\n    @tf.function\n    def act(self, x):\n"
                          "        return self.actor(x)\n"},
     [("networks.py", 7), ("networks.py", 21)]),
])
def test_a_keras_class_runs_in_a_graph_only_where_the_code_naming_it_does(
        capsys, tmp_path, extra, found):
    """Of an application linted whole, a Keras class's ``call`` is traced only where the
    code that names the class, or code importing that, lets Keras run models (fits,
    predicts, exports, traces code of its own), or where a Keras class that does names it:
    a module with a traced step does not trace the network it imports and never uses, nor
    a network that only an unused model makes, or the demo in a main guard of the
    network's module."""
    for name, text in _AGENT.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    for name, text in extra.items():
        path = tmp_path / name
        path.write_text((path.read_text() if path.exists() else "") + text)
    assert _where(capsys, tmp_path, code="TFF104") == found


def test_the_index_records_the_classes_whose_lines_name_a_class():
    """``ModuleIndex.class_users``: a class's own lines, import statements and comment lines
    do not name it; a comment after code does; a main guard is told apart; a lowercase
    import is not followed; a module that may look names up names every class
    everywhere."""
    text = ("import tensorflow as tf\n"
            "from nets.layers import (Gate,\n"
            "                         Unused, helper)\n"
            "from nets import blocks\n\n\n"
            "class Net(tf.keras.Model):\n"
            "    def __init__(self):\n"
            "        super(Net, self).__init__()\n"
            "        self.gate = Gate()\n"
            "        self.block = blocks.Block()\n\n\n"
            "class Head(tf.keras.layers.Layer):\n"
            "    pass\n\n\n"
            "# class Unused(nn.Module):\n\n"
            "def build():\n"
            "    return Net()  # not Head\n\n\n"
            "if __name__ == '__main__':\n"
            "    print(Gate())\n")
    index = ModuleIndex.build("nets/model.py", "nets.model", ast.parse(text),
                              text.splitlines(True))
    assert index.class_users == {
        "nets.model.Net": ("",), "nets.model.Head": ("",),
        "nets.layers.Gate": ("Net", MAIN_GUARD), "nets.layers.Unused": (),
        "nets.blocks.Block": ("Net",)}
    text += "\nprint(globals()['Head'])\n"
    index = ModuleIndex.build("nets/model.py", "nets.model", ast.parse(text),
                              text.splitlines(True))
    assert index.class_users["nets.layers.Unused"] == ("",)


_GRASPING = (
    "import tensorflow as tf\n\n\n"
    "@tf.function\n"
    "def loss_of(logits, labels):\n"
    "    total = tf.constant(0.)\n"
    "    for logit in logits:\n"
    "        total += tf.reduce_sum(logit * labels)\n"
    "    return total\n\n\n"
    "@tf.function\n"
    "def train_sigmoid(logits, labels):\n"
    "    print(logits)\n"
    "    return loss_of([logits, logits], labels)\n\n\n"
    "def main():\n"
    "    # loss = train_sigmoid(tf.ones(2), tf.ones(2))\n"
    "    return tf.ones(2)\n\n\n"
    "if __name__ == '__main__':\n"
    "    main()\n")


@pytest.mark.parametrize("extra, found", [
    # the only call is commented out: the step never runs, nor the call in it
    ("", []),
    # ... until main calls it
    ("    train_sigmoid(tf.ones(2), tf.ones(2))\n", [("train.py", 14, "TFF101")]),
])
def test_a_function_a_script_never_names_never_runs(capsys, tmp_path, extra, found):
    """Of a project linted whole, a script's module-level function whose name its code has
    nowhere else (a commented-out call does not count) never runs: neither its body is
    traced nor are the calls written in it made (TFF403 would take the list it passes for
    an eager call's)."""
    (tmp_path / "train.py").write_text(_GRASPING + extra)
    assert _where(capsys, tmp_path) == found
    # linted on its own, a script may be imported by modules the run does not see
    assert _where(capsys, tmp_path / "train.py") == [("train.py", 14, "TFF101")]


_AUTOGRAPH_LESSON = (
    "import numpy as np\n"
    "import tensorflow as tf\n\n"
    "x = tf.Variable(1.0)\n\n\n"
    "@tf.function\n"
    "def outer_var():\n"
    "    x.assign_add(1.0)\n"
    "    return x\n\n\n"
    "outer_var()\n\n\n"
    "@tf.function\n"
    "def inner_var():\n"
    "    v = tf.Variable(1.0)\n"
    "    return v\n\n\n"
    "# raises:\n"
    "# inner_var()\n")


@pytest.mark.parametrize("extra, found", [
    # the calls are commented out: the function never runs
    ("", []),
    ("inner_var()\n", [("lesson.py", 18, "TFF301")]),
])
def test_a_function_a_script_working_at_module_level_never_names_never_runs(
        capsys, tmp_path, extra, found):
    """A script without a main guard that does its work in module-level statements (a
    lesson calling its examples), which nothing imports, in an application linted whole:
    a function its code names nowhere else never runs."""
    (tmp_path / "lesson.py").write_text(_AUTOGRAPH_LESSON + extra)
    assert _where(capsys, tmp_path) == found
    # linted on its own, a script may be imported by modules the run does not see
    assert _where(capsys, tmp_path / "lesson.py") == [("lesson.py", 18, "TFF301")]


def test_a_program_that_runs_tests_runs_the_classes_its_runner_finds(capsys, tmp_path):
    """``tf.test.main()`` finds the test classes by their names, which the script's code
    never writes: they run."""
    (tmp_path / "check_ops.py").write_text(
        "import tensorflow as tf\n\n\n"
        "class OpsCheck(tf.test.TestCase):\n"
        "    def test_step(self):\n"
        "        @tf.function\n"
        "        def step(x):\n"
        "            print(x)\n"
        "            return x\n"
        "        for _ in range(3):\n"
        "            step(tf.ones(2))\n\n\n"
        "if __name__ == '__main__':\n"
        "    tf.test.main()\n")
    assert _where(capsys, tmp_path) == [("check_ops.py", 8, "TFF101")]


_DROPOUT_NET = ("import tensorflow as tf\nfrom tensorflow.keras import layers\n\n\n"
                "class Net(tf.keras.Model):\n    def __init__(self):\n        super().__init__()\n"
                "        self.fc = layers.Dense(10)\n\n    def call(self, x, training=False):\n"
                "        x = layers.Dropout(rate=0.5)(x, training=training)\n"
                "        return self.fc(x)\n")


@pytest.mark.parametrize("train_saves, predict_loads, found", [
    # Keras 3 refuses both names: the scripts were written for Keras 2, whose Dropout
    # holds no variable
    ('"./weights/net.h5"', '"./weights/net.h5"', []),
    ('"./weights/net.ckpt"', '"./weights/net.ckpt"', []),
    ('filepath="net.h5"', '"net.h5"', []),
    # names Keras 3 takes: nothing says the scripts run on Keras 2, and the prediction
    # script's set-up says Keras 3
    ('"./weights/net.weights.h5"', '"./weights/net.weights.h5"', [("model.py", 11)]),
    ('path', 'path', [("model.py", 11)]),
    # one program written for Keras 2, the other showing no version: one environment
    ('"net.h5"', 'path', []),
])
def test_a_module_that_only_keras_2_programs_import_runs_on_keras_2(
        capsys, tmp_path, train_saves, predict_loads, found):
    """A course's model module, its training script that saves ``.h5`` weights (Keras 3
    wants ``.weights.h5``) and its prediction script: the Dropout made in ``call`` holds
    no seed variable there (TFF301)."""
    (tmp_path / "model.py").write_text(_DROPOUT_NET)
    (tmp_path / "train.py").write_text(
        "import tensorflow as tf\nfrom model import Net\n\nmodel = Net()\npath = 'w'\n\n\n"
        "@tf.function\ndef train_step(x):\n    return model(x, training=True)\n\n\n"
        "for epoch in range(2):\n    train_step(tf.ones((2, 4)))\n"
        f"    model.save_weights({train_saves})\n")
    (tmp_path / "predict.py").write_text(
        "# Set-up: pip install -U tensorflow\n"
        "import tensorflow as tf\nfrom model import Net\n\nmodel = Net()\npath = 'w'\n"
        f"model.save_weights({predict_loads})\nprint(model.predict(tf.ones((2, 4))))\n")
    assert _where(capsys, tmp_path, code="TFF301") == found


EAGER_VAE = '''"""A notebook's discrete VAE (I-MLE): its layer draws noise in ``tf.function``s
of its own, with TensorFlow and a TensorFlow Probability distribution, and the model is
called eagerly, in a ``GradientTape`` loop."""
import tensorflow as tf
import tensorflow_probability as tfp


class SubsetLayer(tf.keras.layers.Layer):
    def __init__(self, k=10):
        super().__init__()
        self.k = k
        self.gumbel = tfp.distributions.Gumbel(loc=0.0, scale=1.0)

    @tf.function
    def sample_gumbel(self, shape):
        return self.gumbel.sample(shape)

    @tf.function
    def sample_gamma(self, shape):
        draws = tf.map_fn(lambda t: tf.random.gamma(shape, 1.0 / self.k, self.k / t),
                          elems=tf.constant([1.0, 2.0, 3.0]))
        return tf.reduce_sum(draws, 0)

    def call(self, logits):
        return logits + self.sample_gumbel(tf.shape(logits)) + self.sample_gamma(
            tf.shape(logits))


class DiscreteVAE(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.encoder = tf.keras.layers.Dense(8)
        self.subset = SubsetLayer()

    def call(self, x):
        self.sample_y = self.subset(self.encoder(x))
        return self.sample_y


model = DiscreteVAE()
optimizer = tf.keras.optimizers.Adam()
for batch in tf.data.Dataset.from_tensor_slices(tf.zeros((4, 8))).batch(2):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(STEP)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
print(model.sample_y.numpy())
'''

TRAIN_STEP = '''

@tf.function
def train_step(batch):
    return model(batch)
'''


@pytest.mark.parametrize("step, found", [
    # the model called eagerly: nothing traces ``call``, whatever the layer's own
    # ``tf.function``s do
    ("model(batch)", []),
    # a ``tf.function`` step of the program's own that calls the model traces ``call``
    ("train_step(batch)", [("vae.py", 36, "TFF103")]),
])
def test_traced_code_of_a_program_runs_its_models_only_if_it_may_call_one(
        capsys, tmp_path, step, found):
    text = EAGER_VAE.replace("STEP", step)
    if step.startswith("train_step"):
        made = "\nmodel = DiscreteVAE()\n"
        text = text.replace(made, made + TRAIN_STEP)
    (tmp_path / "vae.py").write_text(text)
    assert _where(capsys, tmp_path / "vae.py") == found


_LOSS = '''import tensorflow as tf


class InpaintLoss(tf.keras.Model):
    def call(self, results, target):
        loss = tf.reduce_mean(tf.abs(results - target))
        return loss, {"l1": loss.numpy()}
'''

_TASK = '''import tensorflow as tf
from {package}loss import InpaintLoss
from {package}model import Net

model, loss_function = Net(), InpaintLoss()
optimizer = tf.keras.optimizers.Adam()
for images, targets in tf.data.Dataset.from_tensor_slices(([[1.0]], [[0.0]])):
    with tf.GradientTape() as tape:
        loss, losses = loss_function(model(images), targets)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
model.save_weights("ckpt")
'''

_MODEL = '''import tensorflow as tf


class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1)

    def call(self, x):
        return self.dense(x)
'''


@pytest.mark.parametrize("package, lines", [
    ("", []),  # run from its folder: only the task's eager loop calls the loss
    ("trainer.", [7]),  # a package others may import, and fit what it offers
])
def test_a_packaged_folder_whose_modules_import_by_stem_is_an_application(
        capsys, tmp_path, package, lines):
    """A ``setup.py`` packages ``trainer/``, but its modules import one another by their
    stems (``from model import Net``): they run only from that folder, as one application,
    and the loss model its eager loop calls is not traced. Imported by the package's name,
    the folder is a library's, whose models others may fit."""
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup, find_packages\nsetup(packages=find_packages())\n")
    trainer = tmp_path / "trainer"
    trainer.mkdir()
    (trainer / "__init__.py").write_text("")
    (trainer / "loss.py").write_text(_LOSS)
    (trainer / "model.py").write_text(_MODEL)
    (trainer / "task.py").write_text(_TASK.format(package=package))
    _, findings = lint_project_json(capsys, tmp_path)
    assert [f["line"] for f in findings if f["code"] == "TFF204"] == lines


_LOSSES = ("import tensorflow as tf\n\n\n@tf.function\ndef loss(x):\n"
           "    print(x)  # noqa: TFF101\n    print(x + 1)\n    return x\n")


@pytest.mark.parametrize("copy, imported, found", [
    ("losses_bkp.py", False, []),
    ("losses copy.py", False, []),
    ("losses - Copy.py", False, []),
    ("losses (1).py", False, []),
    ("losses_old2.py", False, []),
    ("losses.bak.py", False, []),
    ("losses_bkp.py", True, [("losses_bkp.py", 7, "TFF101")]),  # the program runs it
    ("metrics_old.py", False, [("metrics_old.py", 7, "TFF101")]),  # a copy of nothing here
    ("losses_older.py", False, [("losses_older.py", 7, "TFF101")]),  # not a copy's name
])
def test_a_kept_copy_of_a_module_that_nothing_imports_never_runs(
        capsys, tmp_path, copy, imported, found):
    """``losses_bkp.py`` beside ``losses.py``: the program runs the module, not its copy,
    and even the copy's ``# noqa`` stays unchecked (TFF001 is selected). A module of a
    package that sets up logging when imported is no program (the silent copies do)."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "losses.py").write_text(_LOSSES)
    (package / copy).write_text(_LOSSES if found else
                                "import logging\nlogging.basicConfig()\n" + _LOSSES)
    if imported:
        (package / "train.py").write_text(
            f"from pkg.losses import loss\nfrom pkg.{copy[:-3]} import loss as old_loss\n\n\n"
            "def run(x):\n    return loss(x) + old_loss(x)\n")
    _, findings = lint_project_json(capsys, "--extend-select", "TFF001", tmp_path)
    assert sorted((os.path.basename(f["path"]), f["line"], f["code"]) for f in findings
                  ) == sorted([("losses.py", 7, "TFF101")] + found)


@pytest.mark.parametrize("copy, importer, found", [
    ("archive/losses.py", None, []),
    ("old/losses.py", "train.py", []),            # ``import losses`` there finds the other
    ("archive/losses.py", "archive/train.py", [("losses.py", 7, "TFF101")]),  # the copy
    ("archive/metrics.py", None, [("metrics.py", 7, "TFF101")]),  # a copy of nothing here
    ("legacy/losses.py", None, [("losses.py", 7, "TFF101")]),  # not a folder for copies
])
def test_a_copy_kept_in_a_folder_for_old_code_that_nothing_imports_never_runs(
        capsys, tmp_path, copy, importer, found):
    """``archive/data.py`` beside ``data.py`` (round 178: a robot-learning project keeps its
    old data loader so): programs import the module beside the folder, by its stem from
    their own folder; only a program in the archive's folder would find the copy."""
    (tmp_path / "losses.py").write_text(_LOSSES)
    (tmp_path / copy).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / copy).write_text(_LOSSES)
    if importer:
        (tmp_path / importer).write_text(
            "import losses\n\n\ndef run(x):\n    return losses.loss(x)\n\n\n"
            "if __name__ == '__main__':\n    run(1.0)\n")
    _, findings = lint_project_json(capsys, tmp_path)
    assert sorted((f["path"].replace(str(tmp_path) + os.sep, ""), f["line"], f["code"])
                  for f in findings if f["code"] == "TFF101") == sorted(
        [("losses.py", 7, "TFF101")]
        + [(os.path.join(os.path.dirname(copy), name), line, code)
           for name, line, code in found])


@pytest.mark.parametrize("original, copy", [
    ("train.py", "train_old.py"),
    ("train.py", "train (1).py"),
    ("train.ipynb", "train-Copy1.ipynb"),
    ("train.ipynb", "train (1).ipynb"),
])
def test_a_copy_of_a_program_runs_on_its_own(capsys, tmp_path, original, copy):
    """A script or a notebook is run, not imported: its copy may be the one run (a
    notebook's copy is often the one its author went on with)."""
    from .test_notebooks import notebook

    script = _LOSSES + ("\n\nloss(1.0)\n" if "(" in copy else
                        "\n\nif __name__ == '__main__':\n    loss(1.0)\n")
    for name in (original, copy):
        text = notebook(("code", script)) if name.endswith(".ipynb") else script
        (tmp_path / name).write_text(text)
    _, findings = lint_project_json(capsys, tmp_path)
    assert sorted(os.path.basename(f["path"]) for f in findings
                  if f["code"] == "TFF101") == sorted([original, copy])


def test_a_callback_in_another_module_sets_what_a_traced_step_reads(capsys, tmp_path):
    """A Keras callback's hook sets ``self.model.epochs``; the model, in another module,
    reads it in its traced ``train_step``: the finding says where the callback sets it.
    Linted alone, the model's module knows no callback."""
    (tmp_path / "network.py").write_text(
        "import tensorflow as tf\n\n\nclass Network(tf.keras.Model):\n"
        "    def __init__(self):\n        super().__init__()\n        self.epochs = 0\n\n"
        "    def train_step(self, data):\n"
        "        return {\"loss\": tf.reduce_mean(data) * self.epochs}\n", encoding="utf-8")
    (tmp_path / "callbacks.py").write_text(
        "import tensorflow as tf\n\n\nclass Count(tf.keras.callbacks.Callback):\n"
        "    def on_epoch_end(self, epoch, logs=None):\n"
        "        self.model.epochs = epoch + 1\n", encoding="utf-8")
    code, findings = lint_project_json(capsys, tmp_path)
    assert [(os.path.basename(f["path"]), f["line"], f["code"]) for f in findings] == [
        ("network.py", 10, "TFF202")]
    assert "(line 6 of callbacks.py)" in findings[0]["message"]
    assert _where(capsys, tmp_path / "network.py") == []


def test_a_notebook_callback_reaches_only_the_notebook_own_models(capsys, tmp_path):
    """Nothing imports a notebook: a callback it defines sets the attribute on its own
    models only, not on those of another notebook that reads an attribute of that name."""
    def notebook(*cells):
        return json.dumps({"cells": [{"cell_type": "code", "source": cell, "metadata": {},
                                      "outputs": [], "execution_count": None}
                                     for cell in cells],
                           "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    (tmp_path / "train.ipynb").write_text(notebook(
        "import tensorflow as tf\n\n\nclass Beta(tf.keras.callbacks.Callback):\n"
        "    def on_epoch_end(self, epoch, logs=None):\n"
        "        self.model.beta = 0.5\n"), encoding="utf-8")
    (tmp_path / "vae.ipynb").write_text(notebook(
        "import tensorflow as tf\n\n\nclass VAE(tf.keras.Model):\n"
        "    def __init__(self):\n        super().__init__()\n        self.beta = 1.0\n\n"
        "    def train_step(self, data):\n"
        "        return {\"loss\": tf.reduce_mean(data) * self.beta}\n",
        "model = VAE()\nmodel.compile(\"adam\")\nmodel.fit(tf.ones((4, 2)), epochs=2)\n"),
        encoding="utf-8")
    assert _where(capsys, tmp_path) == []
