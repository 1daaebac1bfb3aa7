"""Jupyter notebooks: code cells linted as one program, findings at (cell, line in cell),
IPython syntax masked, fixes written back into the fixed cells only."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tffunc_lint.config import Settings
from tffunc_lint.doors import cli
from tffunc_lint.engine import lint_file
from tffunc_lint.notebook import Notebook

NOTEBOOKS = Path(__file__).parent / "fixtures" / "notebooks"


def notebook(*cells, indent=1, ensure_ascii=False, newline="\n", string_source=False,
             language="python") -> str:
    """nbformat 4 JSON: ``("md", text)`` or ``("code", text)`` cells."""
    rows = []
    for kind, text in cells:
        source = text if string_source else text.splitlines(keepends=True)
        if kind == "code":
            rows.append({"cell_type": "code", "execution_count": None, "metadata": {},
                         "outputs": [], "source": source})
        else:
            rows.append({"cell_type": "markdown", "metadata": {}, "source": source})
    data = {"cells": rows, "metadata": {"language_info": {"name": language}},
            "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(data, indent=indent, ensure_ascii=ensure_ascii) + newline


def run(capsys, *args):
    code = cli.main(["--isolated", *args])
    out, err = capsys.readouterr()
    return code, out, err


def finding_lines(out: str):
    """The text output's finding lines (without a closing summary line)."""
    return [line for line in out.splitlines() if ": TFF" in line]


def positions(capsys, *args):
    """(cell, line, column, code) of each finding, from the JSON output."""
    code, out, err = run(capsys, "--output-format", "json", *args)
    assert err == "", err
    return [(f["cell"], f["line"], f["column"], f["code"]) for f in json.loads(out)]


IMPORT = ("code", "%load_ext autoreload\n!pip install tensorflow\nimport tensorflow as tf\n")
PRINT_STEP = ("code", "@tf.function\ndef step(x):\n    print(x)\n    return x\n\n\n"
                      "step(tf.constant(1.0))\n")


# -- the TensorFlow guides, rebuilt as notebooks ------------------------------------------------

# "Better performance with tf.function": the guide's pitfalls the linter reports today.
FUNCTION_GUIDE = {
    (21, 12, 17, "TFF401"), (21, 13, 17, "TFF401"),  # train(num_steps=10), (num_steps=20)
    (44, 6, 3, "TFF401"), (44, 8, 3, "TFF401"),  # f(1) f(1) f(2): the second reuses a trace
    (46, 5, 3, "TFF101"),  # print('Python side effect')
    (46, 6, 3, "TFF102"),  # external_list.append(x) (rebound in cell 56, after its last call)
    (47, 10, 7, "TFF103"),  # self.counter += 1 (the init_scope version, cell 48, is silent)
    (54, 6, 3, "TFF103"), (55, 4, 3, "TFF103"),  # global x = a + 1 (leaky_function)
    (51, 3, 22, "TFF106"),  # next(iterator) on iter([1, 2, 3]), before cell 52 rebinds it
    (58, 4, 12, "TFF302"),  # the first recursive_fn calls itself
    (59, 5, 12, "TFF302"),  # recursive_fn calls itself
    (61, 3, 14, "TFF201"),  # buggy_add reads foo, rebound to 100 in cell 62
    (61, 11, 35, "TFF401"), (62, 4, 35, "TFF401"),  # recommended_add(foo): foo is 1, then 100
    # evaluate reads model.bias of simple_model, which cell 67 changes between two calls;
    # the evaluate of cell 70, for BetterModel's tf.Variable bias, is another function
    (66, 9, 29, "TFF202"),
    (73, 3, 7, "TFF301"),  # v = tf.Variable(1.0) in f
}

AUTOGRAPH_ZH = {
    # print('追踪变量：', a) in double (cell 9) announces tracing: not reported
    # print("追踪： num_steps = {}".format(num_steps)) in train announces tracing too
    (12, 10, 17, "TFF401"), (12, 11, 17, "TFF401"),  # train(num_steps=10), then 20
    # print("追踪：", x) in f (cell 16) announces tracing: not reported
    (16, 5, 3, "TFF401"), (16, 7, 3, "TFF401"),  # f(1) f(1) f(2): the second reuses a trace
}


@functools.lru_cache(maxsize=None)
def _guide(name: str):
    """(cell, line, column, code) of the findings in a guide notebook, linted once."""
    result = lint_file(str(NOTEBOOKS / f"{name}.ipynb"), Settings(root=str(NOTEBOOKS)).resolved())
    return frozenset((f.cell, f.line, f.column, f.code) for f in result.findings)


def test_function_guide_reports_its_pitfalls_at_their_cells():
    assert _guide("function_guide") == FUNCTION_GUIDE


def test_autograph_guide_reports_its_pitfalls_at_their_cells():
    assert _guide("autograph_zh") == AUTOGRAPH_ZH


def test_intro_to_graphs_guide_is_clean():
    assert _guide("intro_to_graphs") == set()


# -- positions, magics and the cell order ------------------------------------------------------


def test_findings_at_cell_positions_with_silent_counterparts(tmp_path, capsys):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook(
        ("md", "# Training\n"),
        IMPORT,
        ("code", "%%time\n@tf.function\ndef step(x):\n    print(x)\n    return x\n"),
        ("md", "the fix"),
        ("code", "@tf.function\ndef good(x):\n    tf.print(x)\n    return x\n"),
        ("code", "%%bash\n@tf.function\ndef f(x):\n    print(x)\n"),
        ("code", "for i in range(3):\n    %time step(i)\nsteps = !ls\nstep?\n?step\n"
                 "t = %timeit -o step(1)\n"),
        ("code", "def later(x):\n    print(x)\n"),
    ), encoding="utf-8")
    assert positions(capsys, str(path)) == [(3, 4, 5, "TFF101")]
    code, out, _ = run(capsys, str(path))
    [line] = finding_lines(out)
    assert code == 1
    assert line.startswith(f"{path}:cell 3:4:5: TFF101 ")
    assert line.endswith("[traced: @tf.function at cell 3, line 2]")


def test_names_flow_from_cell_to_cell_in_order(tmp_path, capsys):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook(
        IMPORT,
        ("code", "def helper(x):\n    print('in helper')\n    return x\n"),
        ("md", "text"),
        ("code", "step = tf.function(lambda x: helper(x))\n"),
        ("code", "history = []\n"),
        ("code", "@tf.function\ndef record(x):\n    history.append(x)\n    return x\n\n\n"
                 "record(tf.constant(1.0))\n"),
    ), encoding="utf-8")
    assert positions(capsys, str(path)) == [(2, 2, 5, "TFF101"), (6, 3, 5, "TFF102")]
    code, out, _ = run(capsys, "--show-traced", str(path))
    assert out.splitlines() == [
        f"{path}:cell 2:1: helper [traced: called from <lambda> at cell 4, line 1 "
        f"(tf.function(...) at cell 4, line 1)]",
        f"{path}:cell 4:1: <lambda> [traced: tf.function(...) at cell 4, line 1]",
        f"{path}:cell 6:2: record [traced: @tf.function at cell 6, line 1]",
    ]


ATTENTION = ("code", "class Attention(tf.keras.layers.Layer):\n"
                     "    def call(self, x):\n"
                     "        self.attention_weights = tf.nn.softmax(x)\n"
                     "        return x * self.attention_weights\n")
DECORATED = ("code", "class Scale(tf.keras.Model):\n"
                     "    @tf.function\n"
                     "    def call(self, x):\n"
                     "        return 2 * x\n")
OWN_TRAINER = ("code", "class Trainer:\n"
                       "    def fit(self, model, data):\n"
                       "        for x in data:\n"
                       "            model(x)\n")


@pytest.mark.parametrize("training, expected", [
    # A notebook is a whole program: trained by a loop of its own, its layers run eagerly.
    ("layer = Attention()\nscale = Scale()\ntrainer = Trainer()\n"
     "trainer.fit(layer, [tf.ones(2)])\ntrainer.fit(scale, [tf.ones(2)])\n"
     "layer.attention_weights\n", []),
    ("import numpy as np\nlayer = Attention()\nfor x in [tf.ones(2)]:\n    layer(x)\n"
     "np.save('weights', layer.attention_weights)\n", []),
    # Keras runs them in graphs: fit on a Keras model, or something that may be one; or
    # the notebook's own traced code calls them (a tf.function training step).
    # (Scale, which nothing runs, keeps its decorator: it is what compiles direct calls.)
    ("layer = Attention()\n@tf.function\ndef step(x):\n    return layer(x)\n"
     "step(tf.ones(2))\nlayer.attention_weights\n", [(2, 3, 9, "TFF103")]),
    # tfdiffeq: fit on another library's model (pysindy) runs none of the notebook's
    # classes; the models only its own eager loop calls keep their decorators.
    ("from pysindy import SINDy\nscale = Scale()\nfor x in [tf.ones(2)]:\n    scale(x)\n"
     "SINDy().fit(x)\nsindy = SINDy()\nsindy.fit(x, run_eagerly=True)\n", []),
    # A model asked to run eagerly runs its layers eagerly: Attention's weights are values.
    # (TFF407 needs the notebook to ask Keras to run eagerly, which the decorator defeats)
    ("layer = Attention()\nscale = Scale()\nmodel = tf.keras.Sequential([layer, scale])\n"
     "model.compile('sgd', 'mse', run_eagerly=True)\n"
     "model.fit(tf.ones((4, 2)), tf.ones((4, 2)))\n"
     "layer.attention_weights\n", [(3, 2, 5, "TFF407")]),
    # ... until a compile without it sets it back
    ("layer = Attention()\nscale = Scale()\nmodel = tf.keras.Sequential([layer, scale])\n"
     "model.run_eagerly = True\nmodel.compile('sgd', 'mse')\n"
     "model.fit(tf.ones((4, 2)), tf.ones((4, 2)))\n"
     "layer.attention_weights\n", [(2, 3, 9, "TFF103"), (3, 2, 5, "TFF407")]),
    ("layer = Attention()\nscale = Scale()\nmodel = tf.keras.Sequential([layer, scale])\n"
     "model.compile('sgd', 'mse')\nmodel.fit(tf.ones((4, 2)), tf.ones((4, 2)))\n"
     "layer.attention_weights\n", [(2, 3, 9, "TFF103")]),
    ("layer = Attention()\nscale = Scale()\nmodel = build(layer, scale)\n"
     "model.run_eagerly = True\n"
     "model.fit(tf.ones((4, 2)), tf.ones((4, 2)))\nlayer.attention_weights\n",
     [(3, 2, 5, "TFF407")]),
    ("layer = Attention()\nmodel = tf.keras.Sequential([layer])\nmodel.save('saved')\n"
     "model.run_eagerly = True\nlayer.attention_weights\n",
     [(2, 3, 9, "TFF103"), (3, 2, 5, "TFF407")]),
    ("layer = Attention()\ninputs = tf.keras.Input((2,))\n"
     "model = tf.keras.Model(inputs, Scale()(layer(inputs)))\nmodel.run_eagerly = True\n"
     "model.predict(tf.ones((4, 2)))\nlayer.attention_weights\n",
     [(3, 2, 5, "TFF407")]),
    ("layer = Attention()\ninputs = tf.keras.Input((2,))\n"
     "model = tf.keras.Model(inputs, layer(inputs))\n"
     "model.predict(tf.ones((4, 2)))\nlayer.attention_weights\n", [(2, 3, 9, "TFF103")]),
    # A functional model that nothing fits, predicts with or exports: building it ran
    # each layer's call once on symbolic inputs, and nothing runs them in a graph.
    ("layer = Attention()\ninputs = tf.keras.Input((2,))\n"
     "model = tf.keras.Model(inputs, layer(inputs))\nmodel.run_eagerly = True\n"
     "model.summary()\nlayer(tf.ones((1, 2)))\nlayer.attention_weights\n", []),
])
def test_keras_layers_of_a_notebook_trained_eagerly_are_not_traced(tmp_path, capsys,
                                                                   training, expected):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook(IMPORT, ATTENTION, DECORATED, OWN_TRAINER, ("code", training)),
                    encoding="utf-8")
    assert positions(capsys, str(path)) == expected


def test_keras_layers_of_a_module_are_traced_whoever_trains_them(tmp_path, capsys):
    path = tmp_path / "layers.py"
    path.write_text("import tensorflow as tf\n" + ATTENTION[1] + DECORATED[1] + OWN_TRAINER[1]
                    + "def train():\n    layer = Attention()\n"
                    + "    Trainer().fit(layer, [tf.ones(2)])\n"
                    + "    return layer.attention_weights\n", encoding="utf-8")
    # The decorated call of Scale is not redundant here: nothing in the module lets Keras
    # run Scale, and importers may call it directly, eagerly (TFF407 needs Keras to run it).
    assert positions(capsys, str(path)) == [(None, 4, 9, "TFF103")]
    # The same training done at module level, in an application's script that nothing
    # imports: its own eager loop runs the layer, as a notebook's does.
    path.write_text("import tensorflow as tf\n" + ATTENTION[1] + DECORATED[1] + OWN_TRAINER[1]
                    + "layer = Attention()\ntrainer = Trainer()\ntrainer.fit(layer, [tf.ones(2)])\n"
                    + "layer.attention_weights\n", encoding="utf-8")
    assert positions(capsys, str(path)) == []


SOLVER = ("code", "@tf.function\ndef runge_kutta(x, dt):\n    return x + dt * x\n\n\n"
                  "@tf.function\ndef solver(x):\n    for _ in range(4):\n"
                  "        x = runge_kutta(x, 0.1)\n    return x\n\n\n"
                  "solver(tf.ones(2))\n")


def test_a_notebook_function_called_only_from_traced_code_is_redundantly_decorated(
        tmp_path, capsys):
    # A physics book's notebook: the public `runge_kutta` has no callers outside the
    # notebook, and its only caller is traced, so its own tf.function adds nothing.
    path = tmp_path / "solver.ipynb"
    path.write_text(notebook(("code", "import tensorflow as tf\n"), SOLVER), encoding="utf-8")
    assert positions(capsys, str(path)) == [(2, 1, 1, "TFF407")]
    # The same code as a script, which other code may import: a public function's callers
    # may be elsewhere (tensorflow/examples' pix2pix module, a script and a library).
    script = tmp_path / "solver.py"
    script.write_text("import tensorflow as tf\n" + SOLVER[1]
                      + "if __name__ == '__main__':\n    pass\n", encoding="utf-8")
    assert positions(capsys, str(script)) == []
    # A later cell that calls it eagerly keeps the decorator useful.
    path.write_text(notebook(("code", "import tensorflow as tf\n"), SOLVER,
                             ("code", "runge_kutta(tf.ones(2), 0.5)\n")), encoding="utf-8")
    assert positions(capsys, str(path)) == []


SCRIPT = ("import tensorflow as tf\n" + ATTENTION[1] + OWN_TRAINER[1]
          + "layer = Attention()\ntrainer = Trainer()\ntrainer.fit(layer, [tf.ones(2)])\n"
          + "checkpoint = tf.train.Checkpoint(layer=layer)\ncheckpoint.save('ckpt')\n"
          + "layer.attention_weights\n")


@pytest.mark.parametrize("start", [
    "if __name__ == '__main__':\n    pass\n",
    "import argparse\nargs = argparse.ArgumentParser().parse_args()\n"])
def test_a_script_nothing_imports_is_a_whole_program(tmp_path, capsys, start):
    # tfdiffeq's odenet_mnist.py: a script that trains its model with an eager loop of its
    # own (and checkpoints it, which is not Keras running it) runs its layers eagerly, as a
    # notebook does; once another module imports a layer and fits it, Keras traces it.
    script = tmp_path / "train.py"
    script.write_text(start + SCRIPT, encoding="utf-8")
    assert positions(capsys, str(script)) == []
    (tmp_path / "user.py").write_text("from train import Attention\n", encoding="utf-8")
    assert positions(capsys, str(tmp_path)) == []  # imported, never used
    (tmp_path / "user.py").write_text(
        "import tensorflow as tf\nfrom train import Attention\n\n"
        "model = tf.keras.Sequential([Attention()])\nmodel.compile('sgd', 'mse')\n"
        "model.fit(tf.ones((2, 2)), tf.ones((2, 2)))\n", encoding="utf-8")
    assert positions(capsys, str(tmp_path)) == [(None, 4 + start.count("\n"), 9, "TFF103")]


DISTORTION = ("code", "import numpy as np\n\nclass Distort(tf.keras.layers.Layer):\n"
              "    def call(self, x):\n        return x * np.random.uniform(0.5, 1.5)\n\n"
              "    def get_config(self):\n        return super(Distort, self).get_config()\n")
FIT = ("code", "model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
               "model.compile('sgd', 'mse')\nmodel.fit(tf.ones((4, 2)), tf.ones((4, 1)))\n")


@pytest.mark.parametrize("use, expected", [
    # a Coursera lab shows AutoGraph's code for fizzbuzz and never calls it; a vision book's
    # notebook defines a distortion layer it never uses: a program that never names a
    # function or class never runs it
    (("code", "print(tf.autograph.to_code(step.python_function))\n"), []),
    (("code", "# Distort is kept for a later notebook\n"), [(3, 5, 20, "TFF104")]),
    (("code", "%timeit step(tf.constant(1.0))\n"), [(2, 3, 5, "TFF101")]),
    (("code", "model.add(Distort())\n"), [(3, 5, 20, "TFF104")]),
    (("code", "step(tf.constant(1.0))\n"), [(2, 3, 5, "TFF101")]),
])
def test_what_a_program_never_names_is_never_traced(tmp_path, capsys, use, expected):
    path = tmp_path / "nb.ipynb"
    step = ("code", "@tf.function\ndef step(x):\n    print(x)\n    return x\n")
    path.write_text(notebook(IMPORT, step, DISTORTION, FIT, use), encoding="utf-8")
    assert positions(capsys, str(path)) == expected


@pytest.mark.parametrize("training, expected", [
    # MorvanZhou's NLP tutorials: model modules beside the scripts that import them, all
    # trained with eager loops of their own; the models run as the scripts run them.
    ("trainer = Trainer()\ntrainer.fit(layer, [tf.ones(2)])\n", []),
    # a script that lets Keras run the model makes its module's layers traced
    ("model = tf.keras.Sequential([layer])\nmodel.compile('sgd', 'mse')\n"
     "model.fit(tf.ones((4, 2)), tf.ones((4, 2)))\n", [("layers.py", 4, 9, "TFF103")]),
])
def test_a_module_only_eager_scripts_import_runs_eagerly(tmp_path, capsys, training,
                                                         expected):
    (tmp_path / "layers.py").write_text(
        "import tensorflow as tf\n" + ATTENTION[1]
        + "    def weights(self):\n        return self.attention_weights\n", encoding="utf-8")
    (tmp_path / "blocks.py").write_text("from layers import Attention\n", encoding="utf-8")
    (tmp_path / "train.py").write_text(
        "import tensorflow as tf\nfrom blocks import Attention\n" + OWN_TRAINER[1]
        + "layer = Attention()\n" + training + "if __name__ == '__main__':\n    pass\n",
        encoding="utf-8")
    code, out, err = run(capsys, "--output-format", "json", str(tmp_path))
    assert [(os.path.basename(f["path"]), f["line"], f["column"], f["code"])
            for f in json.loads(out)] == expected


@pytest.mark.parametrize("use, expected", [
    # AlphaStar's deprecated pseudocode: its agent calls the encoder eagerly
    ("print(encoder(tf.ones((1, 4))))\n", []),
    ("model = tf.keras.Sequential([encoder])\nmodel.fit(tf.ones((4, 4)), tf.ones((4, 8)))\n",
     [("pseudocode/network.py", 6, 16, "TFF301")]),
])
def test_a_script_imports_the_module_of_its_own_folder_when_two_share_a_name(
        tmp_path, capsys, use, expected):
    layer = ("import tensorflow as tf\n\n\nclass Encoder(tf.keras.layers.Layer):\n"
             "    def call(self, x):\n"
             "        return tf.keras.layers.Dense(8)(x)\n")
    for folder in ("", "pseudocode"):
        (tmp_path / folder).mkdir(exist_ok=True)
        (tmp_path / folder / "network.py").write_text(layer, encoding="utf-8")
    # beside the root's network.py, a training script fits its encoder
    (tmp_path / "train.py").write_text(
        "import tensorflow as tf\nfrom network import Encoder\n\n"
        "model = tf.keras.Sequential([Encoder()])\n"
        "model.fit(tf.ones((4, 4)), tf.ones((4, 8)))\n", encoding="utf-8")
    (tmp_path / "pseudocode" / "agent.py").write_text(
        "import tensorflow as tf\nfrom network import Encoder\n\nencoder = Encoder()\n"
        + use + "if __name__ == '__main__':\n    pass\n", encoding="utf-8")
    code, out, err = run(capsys, "--output-format", "json", str(tmp_path))
    found = [(os.path.relpath(f["path"], tmp_path), f["line"], f["column"], f["code"])
             for f in json.loads(out)]
    assert found == [("network.py", 6, 16, "TFF301")] + expected


def test_an_object_change_reaches_the_def_in_force_at_its_cell(tmp_path, capsys):
    model = ("code", "class Model(tf.Module):\n    def __init__(self):\n"
                     "        self.bias = 0.0\n")
    evaluate = ("code", "@tf.function\ndef evaluate(model, x):\n    return x + model.bias\n")
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook(
        IMPORT, model, evaluate,
        ("code", "m = Model()\nevaluate(m, 1.0)\n"),
        evaluate,  # a new function: the calls below reach it, not the one in cell 3
        ("code", "m.bias += 5.0\nevaluate(m, 1.0)\n"),
    ), encoding="utf-8")
    assert positions(capsys, str(path)) == []
    path.write_text(notebook(
        IMPORT, model, evaluate,
        ("code", "m = Model()\nevaluate(m, 1.0)\n"),
        ("code", "m.bias += 5.0\nevaluate(m, 1.0)\n"),
        evaluate,
        ("code", "evaluate(m, 1.0)\n"),
    ), encoding="utf-8")
    assert positions(capsys, str(path)) == [(3, 3, 16, "TFF202")]


def test_magics_are_masked_in_place_and_strings_are_left_alone():
    book = Notebook.parse(notebook(
        ("code", "%load_ext autoreload\nimport os\n"),
        ("code", "for i in range(2):\n    !echo {i}\n    %time os.getcwd()\n"
                 "files = !ls\nout = %sx ls\nos?\n??os.path\nfirst, = !ls\n"
                 "text = '''\n%not a magic\n!nor this\n'''\nvalue = (1\n     % 2)\n"),
        ("code", "%%writefile x.py\nprint(1)\n"),
        ("code", "%%timeit -n 1\nos.getcwd()"),
        # Colab runs a cell magic after comment lines (tensorflow/workshops' %%html cells)
        ("code", "# A marquee.\n\n%%html\n<marquee>Hello</marquee>\n"),
        # automagic: line magics and shell aliases without % (basenji's `ls ./data`; a
        # TensorRT notebook's `ll tf1_pb`, an alias IPython defines on POSIX systems)
        ("code", "pip install tensorflow\nls ./data/coolers/\nls = 1\nll tf1_pb/\nll = 2\n"),
        # the magic an extension adds, once loaded (a course's `%load_ext tensorboard`,
        # then `tensorboard --logdir=logs`)
        ("code", "%load_ext tensorboard\ntensorboard --logdir=logs\ntensorboard = None\n"),
        # doctest prompts, which IPython strips (diffusers' Korean docs)
        ("code", ">>> import os\n\n >>> for i in range(2):\n...     os.getcwd()\n"),
        # a function pasted from a doctest with its first prompt left out: IPython strips
        # the prompts when the second line has one (a study repository's NumPy notes)
        ("code", "def conv(fld):\n...     return float(fld)\n"),
        # an indented cell magic, which IPython dedents first (Google Cloud's ML course)
        ("code", " %%bash\n gcloud ai custom-jobs create \\\n   --region=us-central1\n"),
        # a cell magic that runs its body as a cell, which starts with one (SageMaker's
        # examples); and its Python counterparts
        ("code", "%%time\n%%bash\npython3 create_vocab.py \\\n    --train corpus.en\n"),
        ("code", "%%capture\n\n%%timeit -n 1\nos.getcwd()\n"),
        ("code", "%%time\n%%capture out\nx = 1\n"),
        # IPython's quoting and calling escapes (an EfficientDet notebook ends a cell with
        # a lone `;`, which IPython runs as `("")`); a comma that starts a continuation
        # line is Python's
        ("code", ";\n,print a b\n/print 1\nvalues = [1\n          , 2]\n"),
        # a shell command continued on a line that starts with a path (a course's
        # `!cp /content/results/* \` then the drive folder)
        ("code", "!cp /content/results/* \\\n    /content/drive/projects\n"),
    ).encode("utf-8"))
    assert book.errors == []
    cells = book.text.split("# tffunc-lint: end of cell\n")
    assert cells == [
        "# %load_ext autoreload\nimport os\n",
        "for i in range(2):\n    pass\n    pass\nfiles = ...\nout = ...\n# os?\n# ??os.path\n"
        "first, = ...\n"
        "text = '''\n%not a magic\n!nor this\n'''\nvalue = (1\n     % 2)\n",
        "\n\n",
        "# %%timeit -n 1\nos.getcwd()\n",
        "\n\n\n\n",
        "# pip install tensorflow\n# ls ./data/coolers/\nls = 1\n# ll tf1_pb/\nll = 2\n",
        "# %load_ext tensorboard\n# tensorboard --logdir=logs\ntensorboard = None\n",
        "import os\n\nfor i in range(2):\n    os.getcwd()\n",
        "def conv(fld):\n    return float(fld)\n",
        "\n\n\n",
        "\n\n\n\n",
        "# %%capture\n\n# %%timeit -n 1\nos.getcwd()\n",
        "# %%time\n# %%capture out\nx = 1\n",
        "# ;\n# ,print a b\n# /print 1\nvalues = [1\n          , 2]\n",
        "# !cp /content/results/* \\\n\n",
        "",
    ]
    assert book.cell_map.locate(4) == (2, 1)
    assert book.cell_map.locate(19) == (3, 1)


def test_cells_are_numbered_counting_markdown_and_raw_cells(tmp_path, capsys):
    path = tmp_path / "nb.ipynb"
    data = json.loads(notebook(("md", "a"), IMPORT, ("md", "b"), PRINT_STEP))
    data["cells"].insert(0, {"cell_type": "raw", "metadata": {}, "source": ["raw"]})
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    assert positions(capsys, str(path)) == [(5, 3, 5, "TFF101")]


def test_noqa_per_cell_line_and_per_file_ignores(tmp_path, capsys):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook(
        IMPORT,
        ("code", "@tf.function\ndef step(x):\n    print(x)  # noqa: TFF101\n"
                 "    print(x)\n    return x\n\n\nstep(tf.constant(1.0))\n"),
    ), encoding="utf-8")
    assert positions(capsys, str(path)) == [(2, 4, 5, "TFF101")]
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tffunc-lint]\nper-file-ignores = { "*.ipynb" = ["TFF101"] }\n')
    code = cli.main(["--output-format", "json", str(path)])
    out, _ = capsys.readouterr()
    assert (code, json.loads(out)) == (0, [])


def test_output_formats_and_statistics(tmp_path, capsys):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook(("md", "x"), IMPORT, PRINT_STEP), encoding="utf-8")
    _, out, _ = run(capsys, "--output-format", "github", str(path))
    assert out.startswith(f"::error title=tffunc-lint (TFF101),file={path},line=3,col=5,"
                          f"endLine=3,endColumn=13::cell 3: TFF101 ")
    _, out, _ = run(capsys, "--output-format", "json", str(path))
    [item] = json.loads(out)
    assert (item["cell"], item["line"], item["end_line"], item["trace"]) == (
        3, 3, 3, [{"how": "@tf.function", "path": str(path), "line": 1, "cell": 3}])
    assert item["reason"] == "@tf.function at cell 3, line 1"
    _, out, _ = run(capsys, "--statistics", str(path))
    assert out == "    1  TFF101  print-in-tf-function\n"


def test_python_files_keep_a_null_cell(tmp_path, capsys):
    path = tmp_path / "a.py"
    path.write_text("import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n")
    _, out, _ = run(capsys, "--output-format", "json", str(path))
    assert [item["cell"] for item in json.loads(out)] == [None]


def test_directories_are_walked_for_notebooks_honouring_exclude(tmp_path, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "generated").mkdir()
    text = notebook(IMPORT, PRINT_STEP)
    for name in ("a/nb.ipynb", "generated/g.ipynb"):
        (tmp_path / name).write_text(text, encoding="utf-8")
    code, out, _ = run(capsys, "--exclude", "generated", str(tmp_path))
    assert code == 1
    assert [line.split(": ")[0] for line in finding_lines(out)] == [
        f"{tmp_path / 'a' / 'nb.ipynb'}:cell 2:3:5"]


def test_a_notebook_is_not_importable_by_other_modules(tmp_path, capsys):
    (tmp_path / "nb.ipynb").write_text(notebook(
        ("code", "def helper(x):\n    print('in helper')\n    return x\n")), encoding="utf-8")
    (tmp_path / "mod.py").write_text(
        "import tensorflow as tf\nfrom nb import helper\n\n"
        "@tf.function\ndef f(x):\n    return helper(x)\n")
    assert positions(capsys, str(tmp_path)) == []


def test_reasons_in_python_modules_point_at_notebook_cells(tmp_path, capsys):
    (tmp_path / "helpers.py").write_text("def helper(x):\n    print('in helper')\n    return x\n")
    (tmp_path / "use.ipynb").write_text(notebook(
        ("md", "x"), ("code", "import tensorflow as tf\nfrom helpers import helper\n"),
        ("code", "@tf.function\ndef step(x):\n    return helper(x)\n\n\nstep(1.0)\n")),
        encoding="utf-8")
    code, out, _ = run(capsys, str(tmp_path))
    helpers, use = tmp_path / "helpers.py", tmp_path / "use.ipynb"
    [line] = finding_lines(out)
    assert line.startswith(f"{helpers}:2:5: TFF101 ")
    assert line.endswith(f"[traced: called from step at {use}:cell 3:3 "
                         f"(@tf.function at {use}:cell 3:1)]")


def test_other_languages_are_skipped(tmp_path, capsys):
    path = tmp_path / "r.ipynb"
    path.write_text(notebook(("code", "x <- c(1, 2)\nprint(x)\n"), language="R"))
    code, out, err = run(capsys, str(path))
    assert (code, finding_lines(out), err) == (0, [], "")


@pytest.mark.parametrize("kernel, skipped", [
    # Swift for TensorFlow on Colab: only the kernel's name says the language
    ({"name": "swift", "display_name": "Swift"}, True),
    ({"name": "ir", "display_name": "R"}, True),
    ({"name": "julia-1.9", "display_name": "Julia 1.9.3"}, True),
    # a Python environment's kernel, whatever its name
    ({"name": "tf2", "display_name": "TensorFlow 2 (rust-free)"}, False),
    ({"name": "conda-env-ml-py", "display_name": "Python [conda env:ml]"}, False),
])
def test_a_kernel_of_another_language_is_skipped(tmp_path, capsys, kernel, skipped):
    path = tmp_path / "k.ipynb"
    data = json.loads(notebook(("code", 'let np = Python.import("numpy")\n')))
    data["metadata"] = {"kernelspec": kernel}
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = run(capsys, str(path))
    assert ([line.split(": ")[1][:6] for line in finding_lines(out)]
            == ([] if skipped else ["TFF000"]))


def test_python_2_notebooks_are_skipped(tmp_path, capsys):
    # an old course notebook on a python2 kernel: `print i` is its Python
    data = json.loads(notebook(("code", "for i in range(2):\n    print i\n")))
    data["metadata"] = {"kernelspec": {"name": "python2", "language": "python"},
                        "language_info": {"name": "python", "version": "2.7.12"}}
    path = tmp_path / "old.ipynb"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = run(capsys, str(path))
    assert (code, finding_lines(out), err) == (0, [], "")


#: A cell whose findings depend on the TensorFlow the notebook runs on: a Dropout made in a
#: traced function (a seed variable in Keras 3, TFF301) and a keyword renamed in 2.9 (TFF405).
_DAE = ("code", (
    "@tf.function\n"
    "def corrupting(x):\n"
    "    dropout = tf.keras.layers.Dropout(0.3)\n"
    "    return dropout(x, training=True)\n"
    "\n\n"
    "corrupting(tf.ones((2, 2)))\n"
    "@tf.function(experimental_relax_shapes=True)\n"
    "def scale(x):\n"
    "    return x * 2\n"))


@pytest.mark.parametrize("python, expected", [
    # a generative-models notebook last run on Python 3.6: TensorFlow 2.6 at the newest,
    # whose Dropout holds no variable and which has no `reduce_retracing=` yet
    ("3.6.5", []),
    # Python 3.7: TensorFlow before 2.12, Keras 2 (Dropout is free), but 2.9 to 2.11 have
    # the new keyword
    ("3.7.3", [(2, 8, 14, "TFF405")]),
    # Python 3.10: a release with the new keyword, Keras 2 or 3: nothing says Keras 3
    ("3.10.12", [(2, 8, 14, "TFF405")]),
    (None, [(2, 8, 14, "TFF405")]),
    # Python 3.12: TensorFlow 2.16 at the oldest, with Keras 3
    ("3.12.3", [(2, 3, 15, "TFF301"), (2, 8, 14, "TFF405")]),
])
def test_the_python_a_notebook_last_ran_bounds_its_tensorflow(tmp_path, capsys, python,
                                                              expected):
    data = json.loads(notebook(IMPORT, _DAE))
    if python:
        data["metadata"]["language_info"]["version"] = python
    path = tmp_path / "dae.ipynb"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert positions(capsys, str(path)) == expected


@pytest.mark.parametrize("source, output, expected", [
    # TensorFlow 2.1: neither Keras 3 nor the new keyword
    ("print(tf.__version__)", {"output_type": "stream", "name": "stdout", "text": ["2.1.0\n"]},
     []),
    ("tf.__version__", {"output_type": "execute_result", "execution_count": 2, "metadata": {},
                        "data": {"text/plain": ["'2.8.4'"]}}, []),
    # 2.15: the new keyword, Keras 2
    ("print('TensorFlow', tf.__version__, 'NumPy', np.__version__)",
     {"output_type": "stream", "name": "stdout", "text": ["TensorFlow 2.15.0 NumPy 1.26.4\n"]},
     [(3, 8, 14, "TFF405")]),
    ("print(tf.__version__)", {"output_type": "stream", "name": "stdout", "text": ["2.17.0\n"]},
     [(3, 3, 15, "TFF301"), (3, 8, 14, "TFF405")]),
    # printed by a module the cell imports
    ("from helpers import *", {"output_type": "stream", "name": "stdout",
                               "text": ["TensorFlow Version: 2.1.0\n"]}, []),
    # another package's release, on a line that names a TensorFlow package
    ("x = 1", {"output_type": "stream", "name": "stdout", "text": [
        "Requirement already satisfied: tensorflow-io-gcs-filesystem>=0.23.1 in /usr/lib "
        "(0.26.0)\n"]}, [(3, 8, 14, "TFF405")]),
    # two versions read, no name says which is TensorFlow's: nothing learnt
    ("print(np.__version__, tf.__version__)",
     {"output_type": "stream", "name": "stdout", "text": ["1.19.5 2.1.0\n"]},
     [(3, 8, 14, "TFF405")]),
])
def test_the_tensorflow_a_notebook_shows_it_ran_bounds_its_tensorflow(tmp_path, capsys, source,
                                                                      output, expected):
    data = json.loads(notebook(IMPORT, ("code", source), _DAE))
    data["cells"][1]["outputs"] = [output]
    path = tmp_path / "dae.ipynb"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert positions(capsys, str(path)) == expected


# -- bad input ---------------------------------------------------------------------------------


def test_bad_notebooks_are_reported_and_the_run_goes_on(tmp_path, capsys):
    (tmp_path / "a_invalid.ipynb").write_text("{not json", encoding="utf-8")
    (tmp_path / "b_nocells.ipynb").write_text('{"nbformat": 3, "worksheets": []}\n')
    (tmp_path / "c_badcell.ipynb").write_text(notebook(
        IMPORT, ("code", "def broken(:\n    pass\n"), PRINT_STEP), encoding="utf-8")
    (tmp_path / "d.py").write_text("x = 1\n")
    found = positions(capsys, str(tmp_path))
    assert found == [(None, 1, 1, "TFF000"), (None, 1, 1, "TFF000"),
                     (2, 1, 12, "TFF000"), (3, 3, 5, "TFF101")]
    _, out, _ = run(capsys, str(tmp_path))
    lines = finding_lines(out)
    assert lines[0].startswith(f"{tmp_path / 'a_invalid.ipynb'}:1:1: TFF000 cannot read "
                               f"notebook: invalid JSON")
    assert lines[1] == (f"{tmp_path / 'b_nocells.ipynb'}:1:1: TFF000 cannot read notebook: "
                        f"no 'cells' list (nbformat 4 expected)")
    assert lines[2].startswith(f"{tmp_path / 'c_badcell.ipynb'}:cell 2:1:12: TFF000 syntax "
                               f"error")


def test_a_syntax_error_names_the_line_of_its_own_cell(tmp_path, capsys):
    # kubeflow's NER pipeline: an unterminated string in cell 3; Python says "detected at
    # line 2" of that cell, which must not be read as line 2 of the whole notebook
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook(IMPORT, ("code", "x = 1\n"),
                             ("code", "y = (\n    'gs://bucket/data.csv,\n)\n")),
                    encoding="utf-8")
    code, out, err = run(capsys, str(path))
    [line] = finding_lines(out)
    assert line.startswith(f"{path}:cell 3:2:")
    assert "(detected at cell 3, line 2)" in line


def _lines_by_kernel(tmp_path, capsys, cell):
    """The findings (without paths) of a notebook with ``cell`` between an import and a
    traced step, on a kernel one Python newer than the one running, and one older."""
    running = sys.version_info[:2]
    newer, older = f"{running[0]}.{running[1] + 1}", f"{running[0]}.{running[1] - 1}"
    lines = {}
    for version in (newer, older):
        data = json.loads(notebook(IMPORT, ("code", cell), PRINT_STEP))
        data["metadata"]["language_info"]["version"] = f"{version}.0"
        path = tmp_path / f"nb_{version}.ipynb"
        path.write_text(json.dumps(data), encoding="utf-8")
        _, out, _ = run(capsys, str(path))
        lines[version] = [line.split(": ", 1)[1] for line in finding_lines(out)]
    return lines[newer], lines[older]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="this Python parses PEP 701 f-strings")
def test_a_cell_only_a_newer_kernel_may_parse_is_reported_as_not_analysed(tmp_path, capsys):
    # a course notebook on a Python 3.13 kernel: `f"{d["k"]}"` (PEP 701) ran there; the
    # Python running the linter is older and does not parse it
    running = sys.version_info[:2]
    newer = f"{running[0]}.{running[1] + 1}"
    on_newer, on_older = _lines_by_kernel(tmp_path, capsys, 'd = {"k": 1}\nx = f"{d["k"]}"\n')
    assert on_newer[0].startswith(
        f"TFF000 not analysed: the notebook's kernel is Python {newer}, and Python "
        f"{running[0]}.{running[1]}, which runs tffunc-lint, cannot parse this cell (")
    assert on_older[0].startswith("TFF000 syntax error: ")
    assert [line[:6] for line in on_newer] == [line[:6] for line in on_older] == [
        "TFF000", "TFF101"]  # the other cells are linted all the same


def test_a_cell_no_python_parses_is_a_syntax_error_on_any_kernel(tmp_path, capsys):
    # an exercise left unfinished (`train_targets = `) in a notebook of a newer kernel:
    # no Python parses it, and running the linter under that kernel would not help
    on_newer, on_older = _lines_by_kernel(tmp_path, capsys, "train_targets = \n")
    assert on_newer[0].startswith("TFF000 syntax error: ")
    assert [line[:6] for line in on_newer] == [line[:6] for line in on_older] == [
        "TFF000", "TFF101"]


def test_a_one_percent_magic_with_a_body_runs_as_datalab_runs_it(tmp_path, capsys):
    # TensorFlow without a PhD's Datalab notebooks: `%bq query --name q` then SQL; Datalab
    # adds the second `%` to a line magic that has a body, Jupyter does not
    bash = ("code", "%bash\necho $PROJECT\n")
    datalab, jupyter = tmp_path / "datalab.ipynb", tmp_path / "jupyter.ipynb"
    datalab.write_text(notebook(
        IMPORT, ("code", "%bq query --name stations\nSELECT stationid\nFROM daily\n"), bash,
        ("code", "%time\nx = (\n"), ("code", "%matplotlib inline\ndef broken(:\n"),
        PRINT_STEP), encoding="utf-8")
    jupyter.write_text(notebook(IMPORT, bash, PRINT_STEP), encoding="utf-8")
    assert positions(capsys, str(datalab)) == [
        (4, 2, 5, "TFF000"),  # a Python body (%time) that does not parse
        (5, 2, 12, "TFF000"),  # a line magic (no cell magic of that name) before Python
        (6, 3, 5, "TFF101")]
    assert positions(capsys, str(jupyter)) == [(2, 2, 6, "TFF000"), (3, 3, 5, "TFF101")]


def test_an_empty_notebook_file_is_reported_as_empty(tmp_path, capsys):
    (tmp_path / "empty.ipynb").write_bytes(b"")  # untranslated chapters of a book repository
    _, out, _ = run(capsys, str(tmp_path))
    assert finding_lines(out) == [
        f"{tmp_path / 'empty.ipynb'}:1:1: TFF000 cannot read notebook: the file is empty"]


def test_fix_writes_nothing_to_a_notebook_with_a_broken_cell(tmp_path, capsys):
    path = tmp_path / "nb.ipynb"
    text = notebook(IMPORT, ("code", "def broken(:\n"), PRINT_STEP)
    path.write_text(text, encoding="utf-8")
    code, _, _ = run(capsys, "--fix", "--unsafe-fixes", str(path))
    assert code == 1
    assert path.read_text(encoding="utf-8") == text


# -- --fix writes back only the fixed cell ---------------------------------------------------


FIX_CELLS = (
    ("md", "# Überblick — ünïcödé\n"),
    IMPORT,
    ("code", "%%time\n@tf.function\ndef step(x):\n    print(x)  # é\n    %time g(x)\n"
             "    return x\n"),
    ("code", "print('eager, fine')\nx = 1\nstep(tf.constant(1.0))"),
)


@pytest.mark.parametrize("style", [
    {},  # what Jupyter writes: indent 1, UTF-8 as is, trailing newline
    {"indent": 2, "ensure_ascii": True, "newline": ""},
    {"indent": 4, "string_source": True, "bom": True},
])
def test_fix_round_trip_changes_only_the_fixed_cell(tmp_path, capsys, style):
    path = tmp_path / "nb.ipynb"
    style = dict(style)
    bom = style.pop("bom", False)
    before = (b"\xef\xbb\xbf" if bom else b"") + notebook(*FIX_CELLS, **style).encode("utf-8")
    # The fixture keeps its outputs and odd metadata byte for byte too.
    path.write_bytes(before)
    code, out, _ = run(capsys, "--fix", "--unsafe-fixes", str(path))
    assert (code, finding_lines(out)) == (0, [])
    after = path.read_bytes()
    assert after == before.replace(b"    print(x)", b"    tf.print(x)", 1)
    assert after.count(b"tf.print(x)") == 1


def test_fix_keeps_a_notebook_that_changed_while_it_was_linted(tmp_path, capsys, monkeypatch):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook(IMPORT, PRINT_STEP), encoding="utf-8")
    edited = notebook(IMPORT, PRINT_STEP, ("code", "y = 2\n"))
    real = cli.lint_project

    def lint_then_edit(*args, **kwargs):
        results = real(*args, **kwargs)
        path.write_text(edited, encoding="utf-8")
        return results

    monkeypatch.setattr(cli, "lint_project", lint_then_edit)
    _, _, err = run(capsys, "--fix", "--unsafe-fixes", str(path))
    assert f"{path}: fix skipped: the file changed while it was linted" in err
    assert path.read_text(encoding="utf-8") == edited


# -- flake8 through nbqa -------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("nbqa", path=os.path.dirname(sys.executable)) is None,
                    reason="nbqa is not installed (pip install nbqa)")
def test_flake8_door_through_nbqa(tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook(("md", "x"), IMPORT, PRINT_STEP), encoding="utf-8")
    nbqa = shutil.which("nbqa", path=os.path.dirname(sys.executable))
    done = subprocess.run([nbqa, "flake8", str(path), "--select", "TFF"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    # nbqa numbers code cells only (cell_2 is the notebook's third cell).
    [line] = done.stdout.splitlines()
    assert ":cell_2:3:5: TFF101 " in line


def test_lines_named_in_messages_are_cell_lines(tmp_path, capsys):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook(
        IMPORT, ("code", "scale = 1.0\n"), ("md", "x"),
        ("code", "@tf.function\ndef f(x):\n    return x * scale\n"),
        ("code", "f(tf.constant(1.0))\nscale = 2.0\nf(tf.constant(1.0))\n")), encoding="utf-8")
    _, out, _ = run(capsys, str(path))
    [line] = finding_lines(out)
    assert line.startswith(f"{path}:cell 4:3:16: TFF201 global `scale` is rebound "
                           f"(cell 5, line 2), ")


def test_sarif_results_name_the_cell(tmp_path, capsys):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook(("md", "x"), IMPORT, PRINT_STEP), encoding="utf-8")
    _, out, _ = run(capsys, "--output-format", "sarif", str(path))
    [result] = json.loads(out)["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith("nb.ipynb")
    assert (location["region"]["startLine"], location["region"]["startColumn"]) == (3, 5)
    assert result["properties"]["cell"] == 3
    assert result["message"]["text"].startswith("cell 3: print() ")


def test_a_second_run_from_the_cache_places_findings_the_same(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text("[tool.tffunc-lint]\n")
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook(("md", "x"), IMPORT, PRINT_STEP), encoding="utf-8")
    first = [cli.main(["--output-format", "json", str(path)]), capsys.readouterr().out]
    second = [cli.main(["--output-format", "json", str(path)]), capsys.readouterr().out]
    assert first == second
    assert [(f["cell"], f["line"]) for f in json.loads(second[1])] == [(3, 3)]


# -- a cell whose first line is indented (IPython removes that indent) -------------------------


INDENTED = ("code", "  @tf.function\n  def step(x):\n      print(x)\n      return x\n"
                    "  step(tf.constant(1.0))\n")


def test_an_indented_cell_is_dedented_as_ipython_does_with_columns_kept(tmp_path, capsys):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook(IMPORT, INDENTED), encoding="utf-8")
    assert positions(capsys, str(path)) == [(2, 3, 7, "TFF101")]


def test_fix_leaves_a_dedented_cell_alone(tmp_path, capsys):
    path = tmp_path / "nb.ipynb"
    text = notebook(IMPORT, INDENTED)
    path.write_text(text, encoding="utf-8")
    run(capsys, "--fix", "--unsafe-fixes", str(path))
    assert path.read_text(encoding="utf-8") == text


@pytest.mark.parametrize("program, expected", [
    # Kaggle's convolution exercise: eager operations only, so the switch changes nothing
    ("x = tf.nn.relu(tf.constant([-1.0, 2.0]))\n", []),
    # a tf.function of its own: the switch makes it eager Python
    ("@tf.function\ndef step(x):\n    return tf.nn.relu(x)\nstep(tf.constant([1.0]))\n",
     [(2, 1, 1, "TFF406")]),
])
def test_an_eager_switch_matters_only_where_the_program_traces(tmp_path, capsys, program,
                                                               expected):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook(("code", "import tensorflow as tf\n"),
                             ("code", "tf.config.run_functions_eagerly(True)\n"),
                             ("code", program)), encoding="utf-8")
    assert positions(capsys, str(path)) == expected


def test_an_extension_magic_needs_its_extension():
    """Without ``%load_ext tensorboard`` first, ``tensorboard --logdir=log_dir`` is Python,
    and not valid (a notebook's saved output shows the ``SyntaxError``)."""
    book = Notebook.parse(notebook(
        ("code", "tensorboard --logdir=log_dir\n"),
        ("code", "%load_ext tensorboard\n"),
        ("code", "tensorboard --logdir=log_dir\n"),
    ).encode("utf-8"))
    assert [line for line, _, _ in book.errors] == [1]


@pytest.mark.parametrize("ran, expected", [
    ("2.1.0", []),
    ("2.15.0", [("models.py", 4, "TFF405")]),
    (None, [("models.py", 4, "TFF405")]),
])
def test_the_tensorflow_a_notebook_ran_bounds_the_modules_it_imports(tmp_path, capsys, ran,
                                                                     expected):
    """The project's programs share one environment: a module that a notebook last run on
    TensorFlow 2.1 imports runs on 2.1 too, where ``reduce_retracing=`` does not exist."""
    (tmp_path / "models.py").write_text(
        "import tensorflow as tf\n\n\n@tf.function(experimental_relax_shapes=True)\n"
        "def scale(x):\n    return x * 2\n")
    data = json.loads(notebook(("code", "import tensorflow as tf\nfrom models import scale\n"
                                        "print(tf.__version__)\n"),
                               ("code", "scale(tf.ones(2))\n")))
    if ran:
        data["cells"][0]["outputs"] = [{"output_type": "stream", "name": "stdout",
                                        "text": [ran + "\n"]}]
    (tmp_path / "train.ipynb").write_text(json.dumps(data), encoding="utf-8")
    _, out, _ = run(capsys, "--output-format", "json", str(tmp_path))
    assert sorted((os.path.basename(f["path"]), f["line"], f["code"])
                  for f in json.loads(out)) == expected
