"""Arms the tf.function trace recorder in a program run by ``tffunc-lint trace``, then runs
the ``sitecustomize`` this one shadows, if any. Imports no TensorFlow."""

import importlib.machinery
import importlib.util
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
try:
    from tffunc_lint.trace.bootstrap import arm_from_environment
except ImportError:  # another interpreter: use this copy of the package
    sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(_here))))
    from tffunc_lint.trace.bootstrap import arm_from_environment
arm_from_environment()

_spec = importlib.machinery.PathFinder.find_spec(
    "sitecustomize", [p for p in sys.path if os.path.abspath(p or ".") != _here])
if _spec is not None and _spec.loader is not None:
    _module = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_module)
