"""The values the engine produces: findings and the reasons code counts as traced."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


@dataclass(frozen=True)
class TraceReason:
    """Why a function body runs while TensorFlow traces a graph.

    ``how`` names the entry point as a user would write it (``@tf.function``);
    ``line`` is where that entry point sits in the file; ``via`` is the next link of
    the chain when the function is traced because traced code calls it.
    """

    how: str
    line: int
    function: str = ""
    via: Optional["TraceReason"] = None
    path: str = ""

    def render(self) -> str:
        """Human-readable chain, e.g. ``@tf.function at line 3``."""
        where = f"{self.path}:{self.line}" if self.path else f"line {self.line}"
        if self.via is None:
            return f"{self.how} at {where}"
        return f"{self.how} ({self.via.render()})"


@dataclass(frozen=True, order=True)
class Finding:
    """One problem in one file. Lines and columns are 1-based; ``end_column`` is exclusive."""

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
    statement_line: int = field(default=0, compare=False)
    """First line of the statement holding the finding; a ``# noqa`` there applies too."""

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
            "fixable": self.fixable,
        }
