"""TFF405 deprecated-tf-function-api."""

from __future__ import annotations

from ..analysis.lazy_libcst import cst

from ..analysis.tensorflow_versions import tests_for_tensorflow_1
from ..requirements import bounds, has_everywhere
from ..rule import Rule, Scope

_RENAMED_ARGUMENTS = {
    "experimental_relax_shapes": "reduce_retracing",
    "experimental_compile": "jit_compile",
}
_RENAMED_FUNCTIONS = {
    "tensorflow.config.experimental_run_functions_eagerly": "run_functions_eagerly",
}
#: The TensorFlow release that added each replacement.
_SINCE = {"reduce_retracing": (2, 9), "jit_compile": (2, 5), "run_functions_eagerly": (2, 3)}


class DeprecatedTfFunctionApi(Rule):
    """Deprecated `tf.function` arguments and eager-mode switch, with their replacements.

    ## What it does
    Flags `experimental_relax_shapes=` (now `reduce_retracing=`) and `experimental_compile=`
    (now `jit_compile=`) passed to `tf.function`, and calls to
    `tf.config.experimental_run_functions_eagerly` (now `tf.config.run_functions_eagerly`).
    `tffunc-lint --fix` renames them.

    ## Why is this bad?
    These spellings are deprecated: TensorFlow warns about them and newer releases drop
    them, at which point the code fails with a `TypeError` or `AttributeError`. The
    replacements behave the same.

    ## Example
    ```python
    import tensorflow as tf

    @tf.function(experimental_relax_shapes=True)
    def scale(x):
        return x * 2

    tf.config.experimental_run_functions_eagerly(False)
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    @tf.function(reduce_retracing=True)
    def scale(x):
        return x * 2

    tf.config.run_functions_eagerly(False)
    ```

    ## Known problems
    A replacement is suggested only where every TensorFlow version the project supports has
    it (`reduce_retracing=` from 2.9, `jit_compile=` from 2.5, `run_functions_eagerly` from
    2.3): the `tensorflow-version` setting (`">=2.4"`), else the TensorFlow requirement of the
    nearest `requirements*.txt`, `pyproject.toml` (`[project] dependencies`, or Poetry's
    `~2.1.0`), `setup.cfg` (`install_requires`) or `setup.py` above the file, up to the project's root
    (`tensorflow-gpu==2.2.0` keeps `experimental_relax_shapes=`); where those name no
    TensorFlow, the releases a README, `Dockerfile` or conda environment (`environment.yml`,
    `requirements.yaml`) pins (a `tensorflow/tensorflow:2.4.0-gpu` image, `pip install
    tensorflow==2.4.0`, a Docker build's `ENV TENSORFLOW_VERSION=2.4.0`) or name in a list
    of requirements (`- Tensorflow (version 2.0+)`: from 2.0 on); a file that
    installs a release itself (a notebook's `!pip install tensorflow==2.3.0`) runs that one.
    The versions are narrowed by the module's own code: a module that uses an API
    TensorFlow removed runs only on the releases before the removal
    (`tf.keras.mixed_precision.experimental`, removed in 2.9, keeps
    `experimental_relax_shapes=`), a notebook last run with an old Python only on the
    releases that supported it (Python 3.6: before 2.7), and a notebook whose saved output
    shows the release it ran (a cell printing `tf.__version__`: `2.1.0`) on that release or
    older ones. Where nothing declares a lowest
    release, a module with a branch for TensorFlow 1 (`if tf_version < 2:`,
    `tf.__version__.startswith("1.")`) is written for TensorFlow 1 too, and keeps its
    spelling; a test against a release of TensorFlow 2 (`if TF_VERSION < 2.3:`) does not
    count (it often guards the call itself, or outlives the releases it was for), nor do
    tests of other versions (`sys.version_info`, `torch.__version__`). A version named only
    in prose
    ("tested with TensorFlow 2.1") is not read. Only calls that resolve to TensorFlow through the module's imports are recognised; a
    keyword passed through `**kwargs` is not seen. The fix is skipped when the new keyword is
    already present.

    ## References
    - [`tf.function`](https://www.tensorflow.org/api_docs/python/tf/function)
    - [`tf.config.run_functions_eagerly`](https://www.tensorflow.org/api_docs/python/tf/config/run_functions_eagerly)
    """

    code = "TFF405"
    in_tests = True  # wrong in a test as anywhere
    name = "deprecated-tf-function-api"
    message = "deprecated tf.function API"
    scope = Scope.MODULE
    triggers = tuple(_RENAMED_ARGUMENTS) + ("experimental_run_functions_eagerly",)
    fixable = True

    def _available(self, new: str) -> bool:
        """Every TensorFlow version the project supports has the replacement. Where nothing
        declares a lowest version, a branch of the module's for TensorFlow 1 (``if tf_version
        < 2:``) says it runs there too."""
        since = _SINCE[new]
        spec = self.context.tensorflow_versions()
        if not has_everywhere(spec, since):
            return False
        if self.context.tensorflow_setting:
            return True
        if not self.context.fact("tests_for_tensorflow_1", tests_for_tensorflow_1):
            return True
        lowest = bounds(spec)[0] if spec else None
        return lowest is not None and lowest >= (2, 0)  # the branch is for releases left behind

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.qualified_name(node.func)
        if qualified == "tensorflow.function":
            present = {arg.keyword.value for arg in node.args if arg.keyword is not None}
            for arg in node.args:
                new = _RENAMED_ARGUMENTS.get(arg.keyword.value) if arg.keyword else None
                if new is None or not self._available(new):
                    continue
                replacement = (arg.with_changes(keyword=cst.Name(new))
                               if new not in present else None)
                self.report(arg, f"`{arg.keyword.value}=` is deprecated; use `{new}=`",
                            replacement=replacement)
        elif qualified in _RENAMED_FUNCTIONS and self._available(_RENAMED_FUNCTIONS[qualified]):
            new = _RENAMED_FUNCTIONS[qualified]
            replacement = (node.func.with_changes(attr=cst.Name(new))
                           if isinstance(node.func, cst.Attribute) else None)
            self.report(node.func, f"`tf.config.experimental_run_functions_eagerly` is "
                                   f"deprecated; use `tf.config.{new}`",
                        replacement=replacement)
