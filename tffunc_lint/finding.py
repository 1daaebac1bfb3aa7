"""The values the engine produces: findings, the reasons code counts as traced, and each
file's result."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import List, Optional, Tuple


def made_by_tf_data(how: str) -> bool:
    """A cause of tracing, as ``TraceReason.how`` or ``Entry.how`` spell it, is a dataset
    transformation (``Dataset.map(...)``, or a helper that hands its function to one)."""
    return how.startswith("Dataset.") or ", which hands it to Dataset." in how


@dataclass(frozen=True)
class TraceReason:
    """Why a function body runs while TensorFlow traces a graph.

    ``how`` names the cause as a user would write it (``@tf.function``, ``Dataset.map(...)``,
    ``called from train_step``) and ``path``/``line`` say where it is. ``function`` is the
    function the cause applies to; ``via`` is the caller's own reason for a call.
    """

    how: str
    line: int
    function: str = ""
    via: Optional["TraceReason"] = None
    path: str = ""
    once: bool = False
    """Reached only through one-time initialisation (``if self.table is None:
    self._build_table()``): the body runs on the first trace only, by design."""
    fresh: bool = False
    """A method reached only through calls on objects the traced code makes itself
    (``registry = Registry(); registry.insert(...)``): its ``self`` lives within the trace."""
    held: bool = False
    """A method reached only through calls on objects a class holds (``self.pool =
    ImagePool(50)``, then ``self.pool.query(x)``) and the methods these call on ``self``:
    other code may reach its object too, within the trace or outside it, in ways the
    analysis does not see."""
    flags: Tuple[Tuple[str, bool], ...] = ()
    """Flags of ``self`` (``("self.eager_mode", False)``) that hold on every way in: the
    tf.function was made only under ``if not self.eager_mode:``, and the calls since were on
    the same object. Code under ``if self.eager_mode:`` is never traced. Also the function's
    parameters that are flags (``("debug", False)``, ``("labels is None", True)``) when every
    traced call leaves them so (``FunctionInfo.flag_params``; a Keras model's ``call`` that
    only Keras runs gets its inputs alone): code under ``if debug:`` is never traced."""

    def by_tf_data(self) -> bool:
        """The cause is a dataset transformation (``Dataset.map(fn)``, directly or through a
        helper that hands ``fn`` to it): tf.data traces the function once per pipeline."""
        return made_by_tf_data(self.how)

    def by_keras(self) -> bool:
        """The cause is Keras running a method of a layer or model (``call``, ``train_step``
        …; directly, or through the helpers it calls)."""
        return self.chain()[-1].how.startswith("Keras ")

    def by_layer_call(self) -> bool:
        """The cause is Keras running a layer's or model's ``call`` (directly, or through
        the helpers it calls): code that also runs eagerly, whenever a program calls the
        layer itself (``layer(x)``, ``model(x)``)."""
        return self.by_keras() and self.chain()[-1].how.endswith(".call()")

    def where(self, current_path: str = "") -> str:
        if self.path and self.path != current_path:
            return f"{self.path}:{self.line}"
        return f"line {self.line}"

    def chain(self) -> List["TraceReason"]:
        links, link = [], self
        while link is not None:
            links.append(link)
            link = link.via
        return links

    def render(self, current_path: str = "") -> str:
        """``called from train_step at line 40 (@tf.function at line 35)``."""
        text = f"{self.how} at {self.where(current_path)}"
        if self.via is None:
            return text
        root = self.chain()[-1]
        root_text = f"{root.how} at {root.where(current_path)}"
        if self.via is root:
            return f"{text} ({root_text})"
        return f"{text} (via {root.function}, {root_text})"


@functools.total_ordering
@dataclass(frozen=True)
class Finding:
    """One problem in one file. Lines and columns are 1-based; ``end_column`` is exclusive.

    In a notebook, ``cell`` is the cell's number (1-based, every cell counted) and the lines
    are lines of that cell. Findings sort by path, cell, line, column and code.
    """

    path: str
    line: int
    column: int
    code: str
    end_line: int = field(compare=False)
    end_column: int = field(compare=False)
    name: str = field(compare=False)
    message: str = field(compare=False)
    reason: Optional[str] = field(default=None, compare=False)
    fixable: bool = field(default=False, compare=False)
    trace: Tuple[tuple, ...] = field(default=(), compare=False)
    """The reason chain as (how, path, line) links, innermost first; a link into a notebook
    is (how, path, line in cell, cell)."""
    statement_line: int = field(default=0, compare=False)
    """First line of the statement holding the finding; a ``# noqa`` there applies too."""
    cell: Optional[int] = None
    """The notebook cell holding the finding (None outside notebooks)."""

    def _order(self) -> tuple:
        return self.path, self.cell or 0, self.line, self.column, self.code

    def __lt__(self, other: "Finding") -> bool:
        if not isinstance(other, Finding):
            return NotImplemented
        return self._order() < other._order()

    @property
    def text(self) -> str:
        """The message as printed: rule text plus the trace reason, without the code."""
        if self.reason:
            return f"{self.message} [traced: {self.reason}]"
        return self.message

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "code": self.code,
            "name": self.name,
            "message": self.text,
            "reason": self.reason,
            "trace": [dict({"how": how, "path": path, "line": line}, **(
                {"cell": rest[0]} if rest else {})) for how, path, line, *rest in self.trace],
            "fixable": self.fixable,
            "cell": self.cell,
        }


@dataclass
class FileResult:
    """What linting one file produced.

    Here, not in the engine, so that reading a cached result loads no more than the values it
    holds. The analysis types are not imported (they import this module); hence ``object``.
    """

    path: str
    findings: List[Finding]
    fixed_source: Optional[bytes] = None
    fixes_applied: int = 0
    fix_error: Optional[str] = None
    index: Optional[object] = None
    """The module's ``ModuleIndex``, for joining modules into one call graph (None if
    unparsable)."""
    view: Optional[object] = None
    """A ``ModuleView``: the functions this run treated as traced, and the predicates it
    knew."""
    cells: Optional[object] = None
    """For a notebook, a ``CellMap``: where the lines of its joined code cells are (None for
    other files)."""
    original: Optional[bytes] = None
    """With a fix: the bytes the fix was computed from."""
    fixed_findings: List[Finding] = field(default_factory=list)
    """With a fix: the findings it removes (reported after all if it cannot be written)."""
