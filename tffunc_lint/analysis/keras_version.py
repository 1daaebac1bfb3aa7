"""Whether a module is written for Keras 2 (``tf.keras`` before TensorFlow 2.16, or
``tf_keras``), where some layers hold no variables that Keras 3 gives them (``Dropout`` and
the noise layers keep a seed variable in Keras 3 only).

Evidence, any of: the module calls a ``keras.backend`` function that Keras 3 no longer has
(``K.int_shape``, ``K.dot``: the module cannot run on Keras 3), or every TensorFlow version
the project supports is older than 2.16 (see ``requirements``).
"""

from __future__ import annotations

import ast

from .. import requirements
from .names import ast_dotted_name

#: ``keras.backend`` in Keras 3: what is left of the Keras 2 backend module.
_KERAS_3_BACKEND = frozenset({
    "backend", "clear_session", "epsilon", "floatx", "get_uid", "image_data_format",
    "is_float_dtype", "is_int_dtype", "is_keras_tensor", "result_type", "set_epsilon",
    "set_floatx", "set_image_data_format", "standardize_dtype",
})
#: TensorFlow 2.16 made Keras 3 its ``tf.keras``.
KERAS_3_SINCE = (2, 16)


def keras_2_only(context) -> bool:
    """The module runs on Keras 2 only (see the module docstring); a ``context.fact``."""
    if not requirements.has_anywhere(context.tensorflow_versions(), KERAS_3_SINCE):
        return True
    if context.tree is None or "backend" not in context.text:
        return False
    resolve = context.names.resolve
    for node in ast.walk(context.tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            dotted = ast_dotted_name(node.func)
            qualified = resolve(dotted) if dotted else None
            if qualified and qualified.startswith("keras.backend.") and qualified.count(
                    ".") == 2 and qualified.rpartition(".")[2] not in _KERAS_3_BACKEND:
                return True
    return False
