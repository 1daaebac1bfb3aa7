"""The per-file context: what rules and file-level analyses may ask while a file is linted.

The engine makes one :class:`FileContext` per file and keeps it current while it walks
(``reason``/``function``: the traced function being visited, ``local_names``, ``ancestors``);
rules ask it about names and graph context and ``report`` through it. File-level analyses
(container provenance, rebinding, call sites …) share results through ``fact``. The base
analyses below it (names, guards, the module index, graph context) never see it.
"""

from __future__ import annotations

import ast
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Tuple

from .lazy_libcst import NodeTypes, cst

from .. import requirements
from ..finding import Finding, TraceReason
from . import guards
from .graph_context import GraphContext, TracedFunction
from .guarded_code import (in_eager_branch, in_lazy_initialization, in_non_tensor_branch,
                           in_other_mode)
from .names import NameTable, dotted_name
from .tensorflow_versions import narrowed

try:
    from typing import Protocol
except ImportError:  # pragma: no cover - Python < 3.8 is not supported anyway
    Protocol = object  # type: ignore

_STATEMENTS = NodeTypes("SimpleStatementLine", "BaseCompoundStatement", "Decorator")


class ReportingRule(Protocol):
    """What ``report`` reads of a rule (the rule convention lives above this module)."""

    code: str
    name: str


class FileContext:
    """What a rule may ask while visiting: names, graph context, position; and ``report``."""

    def __init__(self, path: str, names: NameTable, graph: GraphContext,
                 tree: Optional[ast.Module] = None, text: str = ""):
        self.path = path
        self.names = names
        self.graph = graph
        self.tree = tree
        """The module's ``ast`` tree, for analyses over the whole module (see ``fact``)."""
        self.text = text
        self.reason: Optional[TraceReason] = None
        self.function: Optional[TracedFunction] = None
        """The traced function being visited (None in module-scope code)."""
        self.local_names: FrozenSet[str] = frozenset()
        self.unsafe_fixes = False
        self.tensorflow_setting: Optional[str] = None
        """The ``tensorflow-version`` setting (see ``tensorflow_versions``)."""
        self.asked_versions = False
        """A rule asked ``tensorflow_versions``: the lint depends on the releases the project
        runs the module on."""
        self._facts: Dict[str, object] = {}
        self._tree_facts: Dict[str, object] = {}
        self._never_true: Dict[int, FrozenSet[str]] = {}
        self.ancestors: List[cst.CSTNode] = []
        self.findings: List[Finding] = []
        self.replacements: Dict[cst.CSTNode, cst.CSTNode] = {}
        self.pending: List[Tuple] = []
        self.line_offset = 0

    def release(self) -> None:
        """Drop the trees and the module-wide analyses once the file is done (the findings
        stay)."""
        self.tree = None
        self.function = None
        self._facts = {}
        self._tree_facts = {}
        self._never_true = {}
        self.ancestors = []
        self.replacements = {}
        self.pending = []

    # -- queries for rules ------------------------------------------------------------------
    def qualified_name(self, node: cst.BaseExpression) -> Optional[str]:
        """Canonical name of ``node`` (``tensorflow.Variable``, ``builtins.print``) or None."""
        dotted = dotted_name(node)
        if dotted is None:
            return None
        line = self.function.key[1] if self.function is not None else None
        return self.names.resolve(dotted, self.local_names, line=line)

    def in_eager_branch(self) -> bool:
        """The node being visited runs only when nothing is traced (see ``guarded_code``)."""
        outer = None
        if self.function is not None and self.function.key in self.graph.index.functions:
            outer = self.graph.index.functions[self.function.key].outer_aliases
        return in_eager_branch(self.ancestors, self.qualified_name, self._predicate, outer,
                               (self.graph.index.off_flags - self.local_names)
                               | self.graph.index.eager_settings | self._never_true_locals())

    def _never_true_locals(self) -> FrozenSet[str]:
        """The flags of the function being walked that it only ever sets false
        (``guards.never_true_locals``)."""
        node = self.function.node if self.function is not None else None
        if node is None:
            return frozenset()
        found = self._never_true.get(id(node))
        if found is None:
            found = self._never_true[id(node)] = guards.never_true_locals(node)
        return found

    def tensorflow_versions(self) -> Optional[str]:
        """The TensorFlow versions the file is written for, as a specifier (the setting,
        else the release the file installs for itself, else the project's declared
        requirement; narrowed by the APIs the module uses that TensorFlow removed, by those the
        programs importing it use, and by the Python and the TensorFlow a notebook was last
        run with: see ``tensorflow_versions``), or None when nothing says."""
        self.asked_versions = True
        installed = None if self.tensorflow_setting else requirements.installed_in(self.text)
        graph = self.graph
        return narrowed(installed or requirements.for_file(self.path, self.tensorflow_setting),
                        graph.runs_before if graph is not None else None)

    def in_non_tensor_branch(self) -> bool:
        """The node being visited runs only for a value that is not a tensor (see
        ``guarded_code.in_non_tensor_branch``)."""
        return in_non_tensor_branch(self.ancestors, self.qualified_name)

    def _predicate(self, spelling: str) -> Optional[str]:
        if self.function is None:
            return None
        return self.graph.predicates.get((self.function.key, spelling))

    def in_one_time_setup(self, targets: Iterable[str] = ()) -> bool:
        """The node being visited sets state up once, on the first trace: in a function
        reached only through one-time initialisation, or under a lazy guard in its own
        function (``if self.x is None:``; see ``in_lazy_initialization``)."""
        return ((self.reason is not None and self.reason.once)
                or in_lazy_initialization(self.ancestors, targets))

    def fact(self, name: str, compute: Callable[["FileContext"], object]):
        """A module-wide analysis, computed once per file and shared by the rules."""
        if name not in self._facts:
            self._facts[name] = compute(self)
        return self._facts[name]

    def asked(self, name: str) -> bool:
        """A rule asked for the module-wide analysis ``name`` (see ``fact``)."""
        return name in self._facts

    def tree_fact(self, name: str, compute: Callable[["FileContext"], object]):
        """An analysis of the LibCST tree being walked (one traced region, or the whole
        module), computed once per tree; the engine drops it when it walks the next tree,
        as what it holds refers to that tree's nodes (kept, they would keep every tree)."""
        if name not in self._tree_facts:
            self._tree_facts[name] = compute(self)
        return self._tree_facts[name]

    def next_tree(self) -> None:
        """The engine starts walking another LibCST tree: the last one's analyses go."""
        self._tree_facts = {}

    def module_alias(self, qualified: str) -> Optional[str]:
        """How this module spells an imported module, e.g. ``tf`` for ``tensorflow``."""
        return self.names.local_alias(qualified)

    @property
    def traced(self) -> bool:
        return self.reason is not None

    # -- reporting ----------------------------------------------------------------------------
    def report(self, rule: "ReportingRule", node: cst.CSTNode, message: str,
               replacement: Optional[cst.CSTNode], traced: bool) -> None:
        """Record a finding of ``rule`` at ``node``; ``traced`` attaches the trace reason.
        Nothing is recorded in traced code's eager-only branches, nor in branches for the
        other value of a flag the trace knows (``TraceReason.flags``): they are not traced."""
        if traced and self.function is not None and (
                self.in_eager_branch() or self.reason is not None and self.reason.flags
                and in_other_mode(self.ancestors, self.reason.flags)):
            return
        statement = next((a for a in reversed(self.ancestors) if isinstance(a, _STATEMENTS)), node)
        traced = self.reason if traced else None
        if replacement is not None:
            self.replacements[node] = replacement
        self.pending.append((rule, node, statement, message, traced, replacement is not None))

    def materialize(self, positions) -> None:
        """Turn the walk's reports into findings, now that positions are known."""
        offset = self.line_offset
        for rule, node, statement, message, traced, fixable in self.pending:
            position = positions[node]
            self.findings.append(Finding(
                path=self.path,
                line=position.start.line + offset,
                column=position.start.column + 1,
                end_line=position.end.line + offset,
                end_column=position.end.column + 1,
                code=rule.code, name=rule.name, message=message,
                reason=traced.render(self.path) if traced else None,
                trace=tuple((link.how, link.path, link.line) for link in traced.chain())
                if traced else (),
                fixable=fixable,
                statement_line=positions[statement].start.line + offset,
            ))
        self.pending = []
