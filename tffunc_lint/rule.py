"""The rule convention: one class per rule, carrying its code, name, message and docs.

A rule is a LibCST visitor over the code it cares about. ``Scope.TRACED`` rules see only
nodes that run in graph context (the engine decides which, see ``graph_context``);
``Scope.MODULE`` rules see the whole module. Every rule declares ``triggers``: text that must
occur in a file (module rules) or in a traced region (traced rules) for the rule to find
anything there. LibCST parsing is the costly step, so the engine parses only what some
enabled rule's triggers point at; ``triggers_for`` may add names the module imports to a
traced rule's triggers, but only narrow a module rule's: a file linted on its own that has
no way into a trace and matches no module rule's ``triggers`` (but those of rules
``about_tf_functions``) is not even indexed.

What a rule may ask while visiting is on ``self.context`` (``FileContext``):
``qualified_name(node)``, ``reason``/``function`` (the traced function being visited),
``local_names``, ``ancestors``, ``graph``, ``names``, ``tree`` and ``fact(name, compute)``
for module-wide analyses shared between rules.

The class docstring is the rule's documentation: a one-line summary, then the sections
``What it does``, ``Why is this bad?``, ``Example``, ``Use instead``, ``Known problems``
and ``References`` as Markdown ``##`` headings. The code blocks under ``Example`` and
``Use instead`` are tests: the first must be flagged, the second must stay silent.
"""

from __future__ import annotations

import enum
import importlib
import inspect
import pkgutil
import re
from functools import lru_cache
from types import ModuleType
from typing import TYPE_CHECKING, ClassVar, Dict, List, Optional, Pattern, Tuple, Union

from .analysis.lazy_libcst import cst

if TYPE_CHECKING:  # pragma: no cover
    from .analysis.file_context import FileContext

DOC_SECTIONS = (
    "What it does",
    "Why is this bad?",
    "Example",
    "Use instead",
    "Known problems",
    "References",
)


class Scope(enum.Enum):
    TRACED = "traced"
    MODULE = "module"
    NOQA = "noqa"
    """Decided once ``# noqa`` is applied, from the file's other findings: the engine calls
    the rule's ``check_noqa`` instead of walking a tree with it."""


class Rule:
    """Base class of every rule. Subclasses set the class attributes and ``visit_*`` methods."""

    code: ClassVar[str]
    name: ClassVar[str]
    message: ClassVar[str]
    scope: ClassVar[Scope] = Scope.TRACED
    triggers: ClassVar[Tuple[Union[str, Pattern[str]], ...]] = ()
    about_tf_functions: ClassVar[bool] = False
    """A module rule that reports only about the ``tf.function`` objects the module makes or
    the functions it traces (their call sites, where they are made): a module linted on its
    own that has no way into a trace (``module_index.may_trace``) gives it nothing to
    report, whatever its triggers match."""
    fixable: ClassVar[bool] = False
    """Offers a safe fix, applied by ``--fix``."""
    unsafe_fixable: ClassVar[bool] = False
    """Offers a fix that changes behaviour on purpose, applied by ``--fix --unsafe-fixes``."""
    in_tests: ClassVar[bool] = False
    """Run in test modules (``test_code``) too. Off for the pitfall rules: tests exercise
    tracing on purpose (spies, captured shapes, prints of one run, a tf.function made afresh
    to clear its cache, Python values that retrace, eager-only checks), and a pitfall there
    does not reach the project's users. On for what is wrong anywhere: files that are not
    Python, unused suppressions, deprecated APIs."""
    default_enabled: ClassVar[bool] = True
    """Off by default: enabled only by a selector that names it (its code, its name or a
    prefix longer than ``TFF``), as ruff's RUF100."""

    def __init__(self, context: "FileContext"):
        self.context = context

    @classmethod
    def triggers_for(cls, context: "FileContext") -> Tuple[Union[str, Pattern[str]], ...]:
        """Trigger text (substrings, compiled patterns, or predicates on the text) for one
        module; by default the class's ``triggers`` (which a module rule's override may
        narrow, never widen). ``context`` offers the module's names, graph and tree."""
        return cls.triggers

    @staticmethod
    def triggered(triggers: Tuple[Union[str, Pattern[str]], ...], text: str) -> bool:
        return any((trigger in text) if isinstance(trigger, str)
                   else trigger(text) if callable(trigger) and not hasattr(trigger, "search")
                   else trigger.search(text)
                   for trigger in triggers)

    def report(self, node: cst.CSTNode, message: Optional[str] = None, *,
               replacement: Optional[cst.CSTNode] = None, unsafe: bool = False) -> None:
        """Report ``node``; ``replacement`` is a fix that swaps ``node`` for it, ``unsafe``
        if it changes what the program does (applied only with ``--unsafe-fixes``)."""
        if unsafe and not self.context.unsafe_fixes:
            replacement = None
        self.context.report(self, node, message or self.message, replacement,
                            traced=self.scope is Scope.TRACED)

    # -- documentation --------------------------------------------------------------------
    @classmethod
    def docs(cls) -> "RuleDocs":
        return RuleDocs.parse(cls)


class RuleDocs:
    """The parsed docstring of a rule."""

    def __init__(self, summary: str, sections: Dict[str, str]):
        self.summary = summary
        self.sections = sections

    @classmethod
    def parse(cls, rule: type) -> "RuleDocs":
        text = inspect.cleandoc(rule.__doc__ or "")
        head, *parts = re.split(r"^## ", text, flags=re.MULTILINE)
        sections = {}
        for part in parts:
            title, _, body = part.partition("\n")
            sections[title.strip()] = body.strip()
        summary = " ".join(head.split())
        return cls(summary, sections)

    def code_block(self, section: str) -> Optional[str]:
        match = re.search(r"```python\n(.*?)```", self.sections.get(section, ""), re.DOTALL)
        return match.group(1) if match else None


class SyntaxErrorRule(Rule):
    """A file that cannot be read or parsed is reported instead of crashing the run.

    ## What it does
    Reports files that are not valid Python, cannot be decoded, or could not be analysed.

    ## Why is this bad?
    A file that does not parse cannot be checked for any other rule, and would fail at
    import time anyway.

    ## Example
    ```python
    def broken(:
        pass
    ```

    ## Use instead
    ```python
    def fixed():
        pass
    ```

    ## Known problems
    Files are decoded as PEP 263 describes (UTF-8 unless a coding cookie says otherwise).
    A `.py` file that Python 3 rejects because it is written for Python 2 (a print or exec
    statement, or tabs mixed with spaces beside Python 2 names such as `xrange`) is skipped,
    not reported; so is a notebook whose kernel is Python 2. The file is parsed by the
    Python that runs tffunc-lint: where that is older than 3.12, an f-string that only PEP
    701 makes valid (a replacement field over several lines, or the f-string's own quote
    inside its braces) is reported as not analysed, with the advice to run tffunc-lint
    under Python 3.12 or later, not as a syntax error. A file that holds the markers of an
    unresolved merge conflict (`<<<<<<<` … `>>>>>>>`) is reported as one, naming the first
    marker's line, at the place where the parser stopped.

    ## References
    - [Python reference: encoding declarations](https://docs.python.org/3/reference/lexical_analysis.html#encoding-declarations)
    """

    code = "TFF000"
    in_tests = True  # wrong in a test as anywhere
    name = "file-not-analysed"
    message = "file could not be analysed"
    scope = Scope.MODULE


@lru_cache(maxsize=None)
def all_rules() -> Tuple[type, ...]:
    """Every rule class: TFF000 plus those found by walking ``tffunc_lint.rules``."""
    from . import rules as package

    found: List[type] = [SyntaxErrorRule]
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for obj in vars(module).values():
            # ``type(obj)`` first: ``isinstance`` reads a lazy module's ``__class__``, and
            # that read imports it (``lazy_import``).
            if (not issubclass(type(obj), ModuleType) and isinstance(obj, type)
                    and issubclass(obj, Rule) and obj.__module__ == module.__name__
                    and hasattr(obj, "code")):
                found.append(obj)
    return tuple(sorted(found, key=lambda r: r.code))


def rule_by_code_or_name(key: str) -> Optional[type]:
    for rule in all_rules():
        if key.upper() == rule.code or key.lower() == rule.name:
            return rule
    return None
