"""LibCST, imported on first use.

Importing LibCST costs more than linting a file that needs no LibCST parse (one without
traced code some rule's trigger points at), so modules write ``from .lazy_libcst import cst``
where they would write ``import libcst as cst``. The first attribute read imports LibCST;
the handle then shares the module's namespace, so later reads cost what a module's do. For this
to help, nothing may read ``cst`` while a module is imported: annotations stay unevaluated
(``from __future__ import annotations``) and module-level constants are built in functions.
``tests/test_lazy_libcst.py`` checks that linting such files never imports LibCST.
"""

from __future__ import annotations

import gc
import importlib

#: Set by a door that owns its process (the command line, flake8): once LibCST is imported,
#: the objects alive then (its modules, classes and tables, and the linter's) move to the
#: garbage collector's permanent generation (``gc.freeze``), so that every later full
#: collection does not scan them again.
freeze_on_import = False
_frozen: list = []


class _LazyLibCST:
    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        import libcst

        if freeze_on_import and not _frozen:
            _frozen.append(True)
            import libcst.metadata  # noqa: F401 - the engine resolves positions with it

            gc.collect()
            gc.freeze()

        # From now on every read finds the module's own namespace: as fast as reading a
        # module's attribute, and what a test patches into ``libcst`` is seen here too.
        self.__dict__ = vars(libcst)
        try:
            return getattr(libcst, name)
        except AttributeError:
            return importlib.import_module(f"libcst.{name}")  # a submodule: metadata …


cst = _LazyLibCST()


class NodeTypes:
    """LibCST classes named at import and looked up on first use: ``isinstance(node, KINDS)``
    and ``(cst.Lambda, *KINDS)`` work as with a tuple of the classes."""

    __slots__ = ("names", "_types")

    def __init__(self, *names: str):
        self.names = names
        self._types = None

    @property
    def types(self) -> tuple:
        if self._types is None:
            self._types = tuple(getattr(cst, name) for name in self.names)
        return self._types

    def __instancecheck__(self, instance) -> bool:
        return isinstance(instance, self._types or self.types)

    def __iter__(self):
        return iter(self.types)
