"""Lines of a module that can hold a given name, so module-wide ``ast`` scans can skip the
subtrees that cannot.

Scanning a whole module's ``ast`` in Python costs about as much as parsing it; the rules that
look for ``tf.function`` objects and their call sites only need the few statements whose lines
mention them. A subtree whose lines mention none of the names is skipped.
"""

from __future__ import annotations

import ast
from bisect import bisect_left, bisect_right
from typing import Iterable, List, Optional, Sequence

from .names import TF_FUNCTION
from .patterns import lazy_compile


_FIND_WORDS = 32
_IDENTIFIER = lazy_compile(r"\w+")


def _is_word_char(text: str, index: int) -> bool:
    return 0 <= index < len(text) and (text[index].isalnum() or text[index] == "_")


def _follows_dot(text: str, index: int) -> bool:
    index -= 1
    while index >= 0 and text[index] in " \t\r\n\\":
        index -= 1
    return index >= 0 and text[index] == "."


class SourceLines:
    """Sorted numbers of the lines where one of ``words`` occurs as a whole identifier."""

    def __init__(self, text: str, words: Iterable[str], attributes: Iterable[str] = (),
                 starts: Optional[Sequence[int]] = None):
        """``words`` count anywhere, ``attributes`` only after a dot (``tf.function``);
        ``starts``: where each line starts in ``text``, if not after each newline."""
        found = set()
        wanted = [(word, False) for word in set(words)]
        wanted += [(word, True) for word in set(attributes) - set(words)]
        if len(wanted) > _FIND_WORDS:
            # Each str.find scans the text: for many words (a module of thousands of
            # tf.functions), one scan of its identifiers.
            after_dots = dict(wanted)
            for match in _IDENTIFIER.finditer(text):
                after_dot = after_dots.get(match.group())
                if after_dot is not None and (
                        not after_dot or _follows_dot(text, match.start())):
                    found.add(match.start())
            wanted = []
        for word, after_dot in wanted:
            # str.find is tens of times faster than a regex with word boundaries.
            position = text.find(word)
            while position >= 0:
                end = position + len(word)
                if not (_is_word_char(text, position - 1) or _is_word_char(text, end)) and (
                        not after_dot or _follows_dot(text, position)):
                    found.add(position)
                position = text.find(word, end)
        self.numbers: List[int] = []
        line, previous = 1, 0
        for position in sorted(found):
            if starts is not None:
                line = bisect_right(starts, position)
            else:
                line += text.count("\n", previous, position)
                previous = position
            if not self.numbers or self.numbers[-1] != line:
                self.numbers.append(line)

    def __bool__(self) -> bool:
        return bool(self.numbers)

    def touches(self, node: ast.AST) -> bool:
        """Whether ``node``'s lines (decorators included) contain one of the lines."""
        first = getattr(node, "lineno", None)
        if first is None:
            return True  # arguments, comprehensions …: judged by their children
        for decorator in getattr(node, "decorator_list", ()):
            first = min(first, decorator.lineno)
        last = getattr(node, "end_lineno", None) or first
        index = bisect_left(self.numbers, first)
        return index < len(self.numbers) and self.numbers[index] <= last


def tf_function_lines(context) -> SourceLines:
    """Lines of the module that can hold a reference to ``tf.function`` (a ``context.fact``):
    ``….function`` (``tf.function``, ``tf.compat.v1.function``) when the module imports
    TensorFlow, and the names it imports ``tensorflow.function`` as."""
    return context.fact("tf_function_lines", _tf_function_lines)


def _tf_function_lines(context) -> SourceLines:
    names = context.names
    words = [name for name in names.local_names_for((TF_FUNCTION,))
             if names.resolve(name) == TF_FUNCTION]
    imports_tensorflow = (names.local_alias("tensorflow") is not None
                          or bool(names.local_names_for(("tensorflow.",))))
    return SourceLines(context.text, words, ("function",) if imports_tensorflow else ())
