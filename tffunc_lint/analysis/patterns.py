"""Regular expressions for scanning source text that Python's ``re`` can search quickly.

A pattern that starts with ``\\b`` or a look-behind is tried at every position of the text;
one that starts with literal words lets ``re`` skip ahead to where a word can start (on
module text, ``np(?<!\\wnp)`` is about 30 times faster than ``\\bnp``, an alternation of
words about 3 times). ``words`` writes the boundary as a look-behind *after* each word,
which matches exactly what the leading form matches.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

#: ``\b`` before a word that starts with a word character: no word character before it.
WORD_START = (r"\w",)


def words(names: Iterable[str], not_after: Sequence[str] = WORD_START) -> str:
    """A group matching any of ``names`` where the text before it matches none of the
    ``not_after`` patterns (fixed width each): ``words(["np"])`` is ``\\bnp``,
    ``words(["print"], [r"[\\w.]"])`` is ``(?<![\\w.])print``."""
    alternatives = []
    for name in names:
        literal = re.escape(name)
        alternatives.append(literal + "".join(f"(?<!{before}{literal})" for before in not_after))
    return "(?:%s)" % "|".join(alternatives)


class LazyPattern:
    """A regular expression compiled when first used. A module's patterns are defined at
    import, but a run uses few of them (a ``.py`` file none of the notebook reader's, a file
    without a ``requirements.txt`` none of the requirement parser's); compiling them all
    took about a fifth of the linter's start-up, which every editor save pays. The first
    use keeps the compiled pattern's methods and attributes here, so later uses are
    ordinary attribute lookups."""

    def __init__(self, pattern: str, flags: int = 0):
        self._source = (pattern, flags)

    def __getattr__(self, name: str):
        if name.startswith("__"):  # pickle, copy: nothing to compile for
            raise AttributeError(name)
        compiled = re.compile(*self._source)
        for attribute in _PATTERN_ATTRIBUTES:
            setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)


_PATTERN_ATTRIBUTES = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn",
                       "split", "pattern", "flags", "groups", "groupindex", "scanner")


def lazy_compile(pattern: str, flags: int = 0) -> "re.Pattern[str]":
    """``re.compile(pattern, flags)``, compiled when first used (see ``LazyPattern``)."""
    return LazyPattern(pattern, flags)  # type: ignore[return-value]
