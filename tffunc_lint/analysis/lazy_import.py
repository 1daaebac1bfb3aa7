"""Modules imported when first used, with the standard library's ``importlib.util.LazyLoader``.

The engine imports every enabled rule to ask its triggers, but on most files no rule's
trigger matches and no rule runs; the analyses a rule runs on (rebinding, container
provenance, state use, …) then cost their import for nothing, a sixth of what the flake8
plugin adds to an editor's save. A rule module binds such an analysis with
``rebinding = lazy_module("..analysis.rebinding", __package__)`` and reads its names as
``rebinding.Rebinding`` where it uses them: the first read imports the module.
``tests/test_lazy_libcst.py`` checks that importing every rule imports none of them.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_module(name: str, package: str) -> ModuleType:
    """The module ``name`` (relative to ``package``), executed on its first attribute read;
    the module itself if it is imported already."""
    absolute = importlib.util.resolve_name(name, package)
    module = sys.modules.get(absolute)
    if module is not None:
        return module
    spec = importlib.util.find_spec(absolute)
    if spec is None or spec.loader is None:
        raise ImportError(f"no module named {absolute!r}", name=absolute)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[absolute] = module
    spec.loader.exec_module(module)
    parent, _, child = absolute.rpartition(".")
    setattr(sys.modules[parent], child, module)  # as an import of the submodule does
    return module
