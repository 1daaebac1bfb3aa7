"""TFF405 suggests a replacement only where every TensorFlow version the project supports
has it: the ``tensorflow-version`` setting, else the project's declared requirement."""

from __future__ import annotations

import pytest

from tffunc_lint import requirements
from tffunc_lint.requirements import SpecifierError, bounds, has_anywhere, has_everywhere
from tests.test_cli import reported, run, write
from tests.test_notebooks import notebook

RELAX = "import tensorflow as tf\n\n@tf.function(experimental_relax_shapes=True)\ndef f(x):\n" \
        "    return x\n"
COMPILE = "import tensorflow as tf\n\n@tf.function(experimental_compile=True)\ndef f(x):\n" \
          "    return x\n"


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    requirements.forget()  # each test writes its own project files
    yield
    requirements.forget()


@pytest.mark.parametrize("spec, expected", [
    ("2.4", ((2, 4), None)),
    (">=2.4,<2.9", ((2, 4), (2, 9))),
    ("==2.2.0", ((2, 2), (2, 3))),
    ("==2.4.*", ((2, 4), (2, 5))),
    ("~=2.4", ((2, 4), (3, 0))),
    ("~=2.4.1", ((2, 4), (2, 5))),
    ("<=2.8", (None, (2, 9))),
    ("!=2.5", (None, None)),
    # a pre-release pins its minor release (softlearning's ``tensorflow==2.2.0rc3``)
    ("==2.2.0rc3", ((2, 2), (2, 3))),
    (">=2.4.0.post1,<2.9.0.dev0", ((2, 4), (2, 9))),
])
def test_bounds(spec, expected):
    assert bounds(spec) == expected


@pytest.mark.parametrize("spec", ["two", ">=", "2.4; python_version<'3.8'", ""])
def test_bad_specifiers_raise(spec):
    with pytest.raises(SpecifierError):
        bounds(spec)


@pytest.mark.parametrize("spec, since, expected", [
    (None, (2, 9), True),          # nothing declared: the newest is targeted
    (">=2.9", (2, 9), True),
    (">=2.4", (2, 9), False),      # 2.4 to 2.8 lack it
    ("<2.9", (2, 9), False),       # no supported version has it
    ("<2.12", (2, 9), True),       # no lower bound: as if the newest were targeted
    ("==2.2.0", (2, 5), False),
])
def test_has_everywhere(spec, since, expected):
    assert has_everywhere(spec, since) is expected


@pytest.mark.parametrize("spec, since, expected", [
    (None, (2, 16), True),
    (">=2.4", (2, 16), True),
    (">=2.4,<2.16", (2, 16), False),   # Keras 3 came with 2.16: never there
    ("==2.15.1", (2, 16), False),
    ("<2.17", (2, 16), True),
])
def test_has_anywhere(spec, since, expected):
    assert has_anywhere(spec, since) is expected


@pytest.mark.parametrize("name, content", [
    # Packt's image-generation book pins the GPU package in its requirements
    ("requirements.txt", "numpy\ntensorflow_gpu==2.2.0  # the book's version\n"),
    ("requirements-gpu.txt", "tensorflow[and-cuda]>=2.4,<2.9 ; sys_platform == 'linux'\n"),
    ("requirements.txt", "tensorboard==2.2.2\ntensorflow==2.2.0rc3\n"),
    # a nightly build of a release (fast-dpsgd's environment)
    ("requirements.txt", "tf-estimator-nightly==2.4.0.dev2020093001\n"
                         "tf-nightly-gpu==2.4.0.dev20201005\n"),
    # pip's hash-checking mode: options after the requirement, lines continued
    ("requirements.txt", "tensorflow==2.1.0 \\\n    --hash=sha256:0123abcd \\\n"
                         "    --hash=sha256:4567ef01\n"),
    # Poetry's own constraints
    ("pyproject.toml", '[tool.poetry.dependencies]\npython = "~3.7"\ntensorflow = "~2.1.0"\n'),
    ("pyproject.toml", '[tool.poetry.dependencies]\ntensorflow-gpu = {version = "2.4.1"}\n'),
    ("pyproject.toml", '[project]\nname = "p"\ndependencies = ["tensorflow>=2.4"]\n'),
    ("setup.cfg", "[options]\ninstall_requires =\n    numpy\n    tensorflow~=2.6\n"),
    ("setup.py", "from setuptools import setup\nsetup(install_requires=['tensorflow>=2.4'])\n"),
])
def test_a_declared_older_tensorflow_keeps_the_old_spelling(capsys, name, content):
    write(name, content)
    write("chapter/notebook_code.py", RELAX)
    assert reported(run(capsys, "--no-cache", "chapter/notebook_code.py")) == []


def test_the_replacement_is_suggested_where_every_version_has_it(capsys):
    write("requirements.txt", "tensorflow>=2.6\n")
    write("a.py", COMPILE)   # jit_compile exists from 2.5
    write("b.py", RELAX)     # reduce_retracing only from 2.9
    assert reported(run(capsys, "--no-cache", "a.py", "b.py")) == [("a.py", 3, "TFF405")]


def test_the_nearest_declaration_decides_and_the_walk_stops_at_the_project_root(capsys):
    write("requirements.txt", "tensorflow==2.4.0\n")
    write("new/setup.py",
          "from setuptools import setup\nsetup(install_requires=['tensorflow>=2.10'])\n")
    write("new/a.py", RELAX)
    write("old/a.py", RELAX)
    write("other/pyproject.toml", '[project]\nname = "other"\n')  # a root that says nothing
    write("other/a.py", RELAX)
    assert reported(run(capsys, "--no-cache", "new", "old", "other")) == [
        ("new/a.py", 3, "TFF405"), ("other/a.py", 3, "TFF405")]


def test_a_package_root_inside_a_repository_takes_the_repository_declaration(capsys):
    """A research repository's ``requirements.txt`` at its top, and a package of it with a
    ``setup.py`` of its own that names no TensorFlow (``src/canvas-vae/setup.py``); a
    package that names one, and a repository's own top, still decide."""
    write(".git/HEAD", "ref: refs/heads/main\n")
    write("requirements.txt", "tensorflow>=2.3.0,!=2.4.0\n")
    write("src/pkg/setup.py", "from setuptools import setup\nsetup(install_requires=['faiss'])\n")
    write("src/pkg/pkg/a.py", RELAX)
    write("src/new/setup.py",
          "from setuptools import setup\nsetup(install_requires=['tensorflow>=2.10'])\n")
    write("src/new/a.py", RELAX)
    write("vendored/.git/HEAD", "ref: refs/heads/main\n")
    write("vendored/a.py", RELAX)
    assert reported(run(capsys, "--no-cache", "src", "vendored")) == [
        ("src/new/a.py", 3, "TFF405"), ("vendored/a.py", 3, "TFF405")]


def test_the_setting_overrides_the_declaration(capsys):
    write("requirements.txt", "tensorflow==2.2.0\n")
    write("pyproject.toml", '[tool.tffunc-lint]\ntensorflow-version = ">=2.9"\n')
    write("a.py", RELAX)
    assert reported(run(capsys, "--no-cache", "a.py")) == [("a.py", 3, "TFF405")]
    write("pyproject.toml", '[tool.tffunc-lint]\ntensorflow-version = "2.4"\n')
    write("requirements.txt", "tensorflow>=2.10\n")
    requirements.forget()
    assert reported(run(capsys, "--no-cache", "a.py")) == []


def test_a_changed_declaration_is_not_hidden_by_the_cache(capsys):
    write("a.py", RELAX)
    assert reported(run(capsys, "a.py")) == [("a.py", 3, "TFF405")]
    write("requirements.txt", "tensorflow==2.4.0\n")
    requirements.forget()  # a new run: the process reads the files again
    assert reported(run(capsys, "a.py")) == []


EAGER = "import tensorflow as tf\n\ntf.config.experimental_run_functions_eagerly(False)\n"


@pytest.mark.parametrize("name, content", [
    # MLPerf's retired ResNet benchmark: its README runs one image
    ("README.md", "Set up:\n- docker image tensorflow/tensorflow:2.4.0-gpu\n"),
    ("Dockerfile", "FROM tensorflow/tensorflow:2.4.0-gpu\nRUN pip install absl-py\n"),
    # a research project whose README runs its own image built on TensorFlow's
    ("README.md", "`./run.sh train --image me/tensorflow-base:2.0.0-rc0-py36-cuda100`\n"),
    ("README.rst", "Install::\n\n    pip install tensorflow-gpu==2.3.0\n"),
    ("Dockerfile", "FROM python:3.7\nRUN apt-get update && pip3 install tensorflow==2.4.1\n"),
    ("README.md", "```\n$ python -m pip install -q tensorflow-gpu==2.3.0 numpy\n```\n"),
    ("environment.yml", "dependencies:\n  - python=3.7\n  - tensorflow=2.4\n"),
    ("README.md", "Requirements:\n\n* `tensorflow-gpu==2.3.0`\n* numpy\n"),
    # a forest point-cloud project (held-out round 104): its environments and Docker file
    # sit in a folder of their own
    ("envs/tf2.2-gpu-env.yml", "dependencies:\n  - python=3.7\n  - tensorflow-gpu=2.2\n"),
    ("envs/Dockerfile", "FROM tensorflow/tensorflow:2.2.2-gpu-py3\n"),
    ("docker/Dockerfile.gpu", "FROM tensorflow/tensorflow:2.4.0-gpu\n"),
    # a cloud provider's NLP examples (held-out round 144): the build's version variable
    ("Dockerfile", "FROM nvidia/cuda:11.0-devel-ubuntu18.04\nENV TENSORFLOW_PIP=tensorflow\n"
                   "ENV TENSORFLOW_VERSION=2.4.0\nENV TENSORFLOW_ADDONS_VERSION=0.12.0\n"),
    ("Dockerfile", "FROM python:3.8\nARG TF_VERSION 2.4.1\nRUN pip install tensorflow\n"),
    # a point-cloud detector's port (held-out round 144): a conda environment named
    # requirements.yaml
    ("requirements.yaml", "name: pointsplit\ndependencies:\n  - python=3.7\n  - pip:\n"
                          "    - tensorflow-estimator==2.5.0\n    - tensorflow-gpu==2.4.0\n"),
])
def test_a_release_pinned_where_the_project_says_how_to_run_it_keeps_the_old_spelling(
        capsys, name, content):
    write(name, content)
    write("model/a.py", COMPILE)   # jit_compile exists from 2.5
    write("model/b.py", RELAX)
    assert reported(run(capsys, "--no-cache", "model")) == []


@pytest.mark.parametrize("content", [
    # Pixel2Mesh's and a Korean Tacotron's requirements: from 2.0 on, where reduce_retracing
    # does not exist yet
    "## Requirements\n- Python 3.6+\n- Tensorflow(version 2.0+) \n",
    "* Python 3.7\n* tensorflow 2.0 이상\n",
    "- tensorflow 2.x\n",
    "1. TensorFlow >= 2.3\n",
    "* **TensorFlow** 2.4.1\n",
    # Open3D's Lagrangian fluids: either framework
    "## Dependencies\n\n- Tensorflow 2.3 or PyTorch 1.6\n- Open3D 0.11 or later\n",
    # a paper's code: the packages of its conda environment, as `conda list` names them
    "A Conda environment was created with the following packages:\n"
    "- tensorflow - 2.7.0\n- tensorflow-probability - 0.15.0\n",
])
def test_a_readme_list_of_requirements_names_the_versions_supported(capsys, content):
    write("README.md", content)
    write("a.py", RELAX)
    assert reported(run(capsys, "--no-cache", "a.py")) == []


@pytest.mark.parametrize("content", [
    "- TensorFlow 2.12\n",                                            # has reduce_retracing
    "- TensorFlow 2.4 is what the paper used, later ones work too\n",  # a sentence
    "- TensorFlow 2.4 or the newest release\n",                        # another sentence
    "A TensorFlow 2.0 implementation; tested with TensorFlow 2.8+.\n",  # prose
    "pip install tensorflow-text==2.4.0\n",                          # another package
    "docker run nvcr.io/nvidia/tensorflow:22.03-tf2-py3\n",           # NVIDIA's numbering
    "Our own README: a book pins `tensorflow_gpu==2.2.0`, so we read it.\n",  # a quote
    "A pin on an install line (`pip install tensorflow==2.4.0`) counts.\n",    # and another
    "The image (`tensorflow/tensorflow:2.4.0-gpu`) a README runs counts.\n",  # an image too
    "An image it runs (`FROM tensorflow/tensorflow:2.4.0-gpu`, `--image …`) counts.\n",
    "a pin on a line that installs (`pip install tensorflow==2.4.0`, `RUN pip install …`)\n",
])
def test_what_names_no_release_of_tensorflow_exactly_keeps_the_newest(capsys, content):
    write("README.md", content)
    write("a.py", RELAX)
    assert reported(run(capsys, "--no-cache", "a.py")) == [("a.py", 3, "TFF405")]


LOCKED_DROPOUT = """import tensorflow as tf


class Gcn(tf.keras.layers.Layer):
    def call(self, x):
        return tf.keras.layers.Dropout(0.1)(x)


model = tf.keras.Sequential([Gcn()])
model.fit(features, labels)
"""


@pytest.mark.parametrize("lock, found", [
    # ncem (held-out round 127): ``tensorflow = "^2.11.1"``, locked at 2.12.0, whose
    # ``tf.keras`` is Keras 2: a Dropout made in ``call`` holds no variable
    ("poetry.lock", []),
    ("uv.lock", []),
    # 2.16 and later are allowed, but nothing says the project runs them
    (None, []),
])
def test_a_lock_file_narrows_the_releases_declared(capsys, lock, found):
    write("pyproject.toml", '[tool.poetry.dependencies]\ntensorflow = "^2.11.1"\n')
    if lock:
        write(lock, '[[package]]\nname = "numpy"\nversion = "1.23.5"\n\n'
                    '[[package]]\nname = "tensorflow"\nversion = "2.12.0"\n')
    write("gcn.py", LOCKED_DROPOUT)
    assert reported(run(capsys, "--no-cache", "gcn.py")) == found


@pytest.mark.parametrize("lock, found", [
    # keypoints-detection (held-out round 187): a Pipfile's ``tensorflow = "*"`` locked at
    # 2.4.1, which has no ``reduce_retracing=``
    ('{"default": {"tensorflow": {"version": "==2.4.1"}}, "develop": {}}', []),
    ('{"default": {"tensorflow": {"version": "==2.12.0"}}}', [("a.py", 3, "TFF405")]),
    ("{not json", [("a.py", 3, "TFF405")]),  # unreadable: declares nothing
])
def test_a_pipfile_lock_names_the_release_the_project_runs(capsys, lock, found):
    write("Pipfile", '[packages]\ntensorflow = "*"\n')
    write("Pipfile.lock", lock)
    write("a.py", RELAX)
    assert reported(run(capsys, "--no-cache", "a.py")) == found


@pytest.mark.parametrize("files, found", [
    ({}, []),                                                   # nothing says which Keras
    ({"requirements.txt": "tensorflow>=2.16\n"}, [("gcn.py", 6, "TFF301")]),
    ({"requirements.txt": "tensorflow>=2.10\n"}, []),           # Keras 2 releases allowed
    # a program importing the module uses Keras 3's API: they run on Keras 3
    ({"train.py": "import gcn\nfrom keras import ops\n\nprint(ops.norm([3.0, 4.0]))\n"},
     [("gcn.py", 6, "TFF301")]),
    # ... unless a program importing it runs only on Keras 2 (a function Keras 3 removed)
    ({"train.py": "import gcn\nfrom keras import ops\n",
      "util.py": "import gcn\nfrom tensorflow.keras import backend as K\n\n"
                 "def width(x):\n    return K.int_shape(x)[-1]\n"}, []),
    # a module that nothing links to the model's by imports tells nothing of its Keras
    ({"ops.py": "from keras import ops\n\ndef norm(x):\n    return ops.norm(x)\n"}, []),
    # a notebook that upgrades TensorFlow to its newest release, and uses the model
    ({"train.ipynb": "!pip install -q --upgrade tensorflow\nimport gcn\n"},
     [("gcn.py", 6, "TFF301")]),
])
def test_dropout_holds_a_seed_variable_where_something_says_keras_3(capsys, files, found):
    for name, content in files.items():
        write(name, notebook(("code", content)) if name.endswith(".ipynb") else content)
    write("gcn.py", LOCKED_DROPOUT)
    assert reported(run(capsys, "--no-cache", "gcn.py", *files)) == found


def test_only_folders_for_environments_say_how_to_run_the_project(capsys):
    # a YAML file of another folder is a configuration, not an environment
    write("configs/train.yml", "dependencies:\n  - tensorflow=2.2\n")
    write("a.py", RELAX)
    assert reported(run(capsys, "--no-cache", "a.py")) == [("a.py", 3, "TFF405")]


def test_requirement_files_come_before_pinned_releases(capsys):
    write("README.md", "pip install tensorflow-gpu==2.3.0\n")
    write("requirements.txt", "tensorflow==2.9.3\n")
    write("a.py", RELAX)
    assert reported(run(capsys, "--no-cache", "a.py")) == [("a.py", 3, "TFF405")]


def test_the_releases_pinned_span_from_the_oldest_to_the_newest(capsys):
    # DreamerV2: its Dockerfile builds on 2.4.2, its README installs 2.6.0
    write("Dockerfile", "FROM tensorflow/tensorflow:2.4.2-gpu\n")
    write("README.md", "pip3 install tensorflow==2.6.0\n")
    write("a.py", EAGER)    # run_functions_eagerly exists from 2.3: on both
    write("b.py", RELAX)    # reduce_retracing only from 2.9: on neither
    assert reported(run(capsys, "--no-cache", "a.py", "b.py")) == [("a.py", 3, "TFF405")]


def test_a_notebook_runs_the_release_it_installs(capsys):
    setup = "!pip install -q tensorflow-gpu==2.3.0\nimport tensorflow as tf\n"
    step = "@tf.function(experimental_relax_shapes=True)\ndef f(x):\n    return x\n"
    write("requirements.txt", "tensorflow>=2.10\n")
    write("old.ipynb", notebook(("code", setup), ("code", step)))
    write("new.ipynb", notebook(("code", "import tensorflow as tf\n"), ("code", step)))
    out = run(capsys, "--no-cache", "old.ipynb", "new.ipynb").out
    assert [line.split(": ")[0] for line in out.splitlines()[:-1]] == [
        "new.ipynb:cell 2:1:14"]
    write("pyproject.toml", '[tool.tffunc-lint]\ntensorflow-version = ">=2.9"\n')
    requirements.forget()
    assert "old.ipynb:cell 2:1:14: TFF405" in run(capsys, "--no-cache", "old.ipynb").out


def test_unreadable_project_files_declare_nothing(capsys):
    write("setup.py", "def broken(:\n")
    write("pyproject.toml", b"[project\n")
    write("a.py", RELAX)
    assert reported(run(capsys, "--no-cache", "a.py")) == [("a.py", 3, "TFF405")]


@pytest.mark.parametrize("name, content, expected", [
    ("setup.py", "from setuptools import setup\nsetup()\n", True),
    ("pyproject.toml", '[project]\nname = "p"\n', True),
    ("pyproject.toml", '[build-system]\nrequires = ["hatchling"]\n', True),
    ("pyproject.toml", '[tool.poetry]\nname = "p"\n', True),
    ("pyproject.toml", "[tool.black]\nline-length = 100\n", False),
    ("setup.cfg", "[metadata]\nname = p\n", True),
    ("setup.cfg", "[flake8]\nmax-line-length = 100\n", False),
    ("p-1.0.dist-info/METADATA", "Name: p\n", True),
    ("requirements.txt", "tensorflow\n", False),
])
def test_a_distribution_is_told_by_the_project_files_above(tmp_path, name, content, expected):
    requirements.forget()
    write(f"root/{name}", content)
    write("root/pkg/sub/m.py", "x = 1\n")
    (tmp_path / "root" / ".git").mkdir()  # the walk stops at the project's root
    assert requirements.is_distributed(str(tmp_path / "root" / "pkg" / "sub" / "m.py")) is expected
