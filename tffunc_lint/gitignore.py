"""Which walked paths git ignores: ``.gitignore`` files (nested ones too) and
``.git/info/exclude``, as ruff and git read them.

Patterns are matched with ``pathspec``'s implementation of git's wildmatch rules rather than
by asking ``git check-ignore``: no git binary or subprocess is needed, and the walk can ask
about each directory before descending into it. Ignore files count only inside a git work
tree (a directory holding ``.git``, or below one), like git itself; the global excludes file
(``core.excludesFile``) is not read.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

if TYPE_CHECKING:  # pragma: no cover - imported where a walk needs it
    import pathspec

_Spec = Tuple[str, "pathspec.GitIgnoreSpec"]  # (directory the patterns are relative to, spec)


def _read_spec(path: str) -> Optional["pathspec.GitIgnoreSpec"]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:  # no such file, or unreadable: git skips it too
        return None
    import pathspec  # here: only a walk inside a git work tree with ignore files needs it

    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    return spec if len(spec) else None


class GitIgnore:
    """Answers "is this path ignored?" for paths met while walking; caches per directory."""

    def __init__(self) -> None:
        self._chains: Dict[str, List[_Spec]] = {}
        self._repositories: Dict[str, Optional[str]] = {}
        self._prefixes: Dict[str, List[_Spec]] = {}

    def _repository(self, directory: str) -> Optional[str]:
        """The work tree ``directory`` is in, or None outside any git repository."""
        if directory not in self._repositories:
            if os.path.exists(os.path.join(directory, ".git")):
                root: Optional[str] = directory
            else:
                parent = os.path.dirname(directory)
                root = None if parent == directory else self._repository(parent)
            self._repositories[directory] = root
        return self._repositories[directory]

    def _chain(self, directory: str) -> List[_Spec]:
        """The ignore files that apply to entries of ``directory``, deepest first."""
        chain = self._chains.get(directory)
        if chain is None:
            root = self._repository(directory)
            if root is None:
                chain = []
            else:
                own = _read_spec(os.path.join(directory, ".gitignore"))
                if directory == root:
                    rest = []
                    info = _read_spec(os.path.join(root, ".git", "info", "exclude"))
                    if info is not None:
                        rest.append((root, info))
                else:
                    rest = self._chain(os.path.dirname(directory))
                chain = ([(directory, own)] if own is not None else []) + rest
            self._chains[directory] = chain
        return chain

    def ignored(self, path: str, is_directory: bool) -> bool:
        """Whether git ignores ``path``: the deepest ignore file with a matching pattern
        decides, and within a file the last matching pattern (``!keep.py`` re-includes)."""
        directory, name = os.path.split(os.path.abspath(path))
        for prefix, spec in self._prefixed(directory):
            result = spec.check_file(prefix + name + "/" if is_directory else prefix + name)
            if result.include is not None:
                return result.include
        return False

    def _prefixed(self, directory: str) -> List[_Spec]:
        """``_chain(directory)``, each ignore file's directory replaced by the path from it
        to ``directory`` (``sub/dir/``, or empty): what an entry's relative path starts
        with, worked out once per directory rather than once per entry."""
        chain = self._prefixes.get(directory)
        if chain is None:
            chain = self._prefixes[directory] = []
            for base, spec in self._chain(directory):
                relative = os.path.relpath(directory, base).replace(os.sep, "/")
                chain.append(("" if relative == "." else relative + "/", spec))
        return chain
