"""The one engine behind every door: (path, source bytes, settings) → findings.

Pipeline for one file:

1. decode (PEP 263) and ``ast.parse`` (a long module in pieces) — cheap, and enough to
   build the module's :class:`~tffunc_lint.analysis.names.NameTable` and
   :class:`~tffunc_lint.analysis.graph_context.GraphContext`;
2. parse with LibCST only what a rule needs: the line ranges holding traced functions, or
   the whole module when a module-scope rule's trigger text occurs in the file (a long
   module as runs of top-level statements, one tree at a time);
3. walk those trees once, dispatching each node to the enabled rules (traced-scope rules
   only inside graph context);
4. apply ``# noqa`` and, with ``fix=True``, the rules' replacements.

Nothing here imports TensorFlow or runs user code, and no input makes it raise: files that
cannot be decoded, parsed or analysed yield one ``TFF000`` finding.
"""

from __future__ import annotations

import ast
import gc
import io
import re
import sys
import tokenize
from dataclasses import replace
from functools import lru_cache
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

from .analysis.lazy_libcst import cst

from . import noqa
from .analysis.cst_walk import children
from .analysis.file_context import FileContext
from .analysis.graph_context import GraphContext, ModuleView
from .analysis.tensorflow_versions import (KERAS_3_FACT, KERAS_3_PYTHON, KERAS_3_SINCE,
                                           narrowest, releases_after, releases_before_python)
from .analysis.test_code import is_test_module
from .analysis.module_index import (INIT_SCOPE, ModuleIndex, def_key, is_py_function,
                                    lambda_key, may_trace)
from .config import Settings
from .files import is_notebook, module_name_for
from .finding import FileResult, Finding
from .requirements import Version
from .rule import Rule, Scope, SyntaxErrorRule, all_rules
from .analysis.ast_walk import walk_nodes
from .analysis.patterns import lazy_compile
_LINE = lazy_compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str) -> List[str]:
    """Physical lines with their endings, numbered as ``ast`` and flake8 number them."""
    return _LINE.findall(text)


_CHUNK_LINES = 2000
_CONTINUATIONS = ("else", "elif", "except", "finally")


def parse_module(text: str, lines: Sequence[str], path: str) -> ast.Module:
    """``ast.parse(text)``, in pieces of about ``_CHUNK_LINES`` lines for a long module.

    Parsing builds a C tree beside the Python one and frees it afterwards; for a whole
    module of many megabytes that doubles the peak, and the freed memory, interleaved with
    the Python nodes, mostly stays with the process. In pieces, each piece's C tree is
    freed before the next one is made. A piece ends before a line that starts a top-level
    statement (a letter in column 0, not after a decorator). Where that guess is wrong (the
    line is inside a string, brackets or a continued line, or continues an ``if``/``try``)
    the piece before it cannot parse on its own, and the module is parsed whole: the tree
    is always the one ``ast.parse`` gives, or its error.
    """
    total = len(lines)
    if total <= 2 * _CHUNK_LINES:
        return ast.parse(text, filename=path)
    body: List[ast.stmt] = []
    numbers = list(range(total + 2))
    start = 0
    try:
        while start < total:
            end = min(start + _CHUNK_LINES, total)
            while end < total and not _starts_statement(lines, end):
                end += 1
            piece = ast.parse("".join(lines[start:end]), filename=path)
            _number_lines(piece, start, numbers)
            body.extend(piece.body)
            start = end
    except (SyntaxError, ValueError):
        del body[:]
        return ast.parse(text, filename=path)
    return ast.Module(body=body, type_ignores=[])


def _number_lines(piece: ast.Module, offset: int, numbers: List[int]) -> None:
    """Move a piece's line numbers down by ``offset`` (``ast.increment_lineno``), every node
    of one line sharing one number object: a node holds two, and a parse makes each anew
    (56 bytes a node of the 350 or so it takes)."""
    for node in walk_nodes(piece):
        line = getattr(node, "lineno", None)
        if line is not None:
            node.lineno = numbers[line + offset]
            end = node.end_lineno
            if end is not None:
                node.end_lineno = numbers[end + offset]


def _starts_statement(lines: Sequence[str], index: int) -> bool:
    line = lines[index]
    return (line[:1].isalpha() and not line.startswith(_CONTINUATIONS)
            and not lines[index - 1].startswith("@"))


class _KeyMismatch(Exception):
    """The ordinal match of LibCST functions to indexed ones went wrong."""


class _Walker:
    """Walks one LibCST tree, tracking graph context and dispatching nodes to rules."""

    def __init__(self, context: FileContext, rules: Sequence[Rule], keys):
        self.context = context
        self._keys = keys
        self._escaped: set = set()  # callables handed to tf.py_function & co.
        self._always: Dict[str, List] = {}
        self._traced: Dict[str, List] = {}
        self._methods: Dict[Tuple[str, type], Tuple[tuple, tuple]] = {}
        for rule in rules:
            table = self._traced if rule.scope is Scope.TRACED else self._always
            for attribute in dir(rule):
                if attribute.startswith(("visit_", "leave_")):
                    table.setdefault(attribute, []).append(getattr(rule, attribute))

    def _dispatch(self, prefix: str, node: cst.CSTNode) -> None:
        key = (prefix, node.__class__)
        methods = self._methods.get(key)
        if methods is None:
            name = prefix + node.__class__.__name__
            methods = self._methods[key] = (tuple(self._always.get(name, ())),
                                            tuple(self._traced.get(name, ())))
        always, traced = methods
        for method in always:
            method(node)
        if traced and self.context.reason is not None:
            for method in traced:
                method(node)

    def _visit_in(self, node: cst.CSTNode, key, inherit: FrozenSet[str] = None) -> None:
        """Visit ``node`` as the body of the function ``key``.

        A function the graph context does not know is not traced, unless ``inherit`` is
        given: a lambda written in traced code runs there, with its parameters as locals.
        """
        context = self.context
        saved = context.reason, context.local_names, context.function
        traced = context.graph.get(key)
        if traced is not None:
            context.reason, context.local_names = traced.reason, traced.local_names
            context.function = traced
        elif inherit is not None and context.reason is not None:
            context.local_names = context.local_names | inherit
        else:
            context.reason, context.local_names, context.function = None, frozenset(), None
        self.walk(node)
        context.reason, context.local_names, context.function = saved

    def walk(self, node: cst.CSTNode) -> None:
        if self.on_visit(node):
            for child in children(node):
                self.walk(child)
        self.on_leave(node)

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.context.ancestors.append(node)
        self._dispatch("visit_", node)
        if isinstance(node, cst.FunctionDef):
            for decorator in node.decorators:
                self.walk(decorator)
            self.walk(node.params)
            if node.returns is not None:
                self.walk(node.returns)
            self._visit_in(node.body, self._keys.for_def(node))
            return False
        if isinstance(node, cst.Lambda):
            self.walk(node.params)
            key = self._keys.for_lambda(node)
            escaped = node in self._escaped or key in self.context.graph.eager_lambdas
            self._visit_in(node.body, key, None if escaped else _parameter_names(node.params))
            return False
        if isinstance(node, cst.Call) and is_py_function(
                self.context.qualified_name(node.func),
                node.func.attr.value if isinstance(node.func, cst.Attribute) else None):
            self._escaped.update(arg.value for arg in node.args[:1] if arg.keyword is None)
            self._escaped.update(arg.value for arg in node.args
                                 if arg.keyword is not None and arg.keyword.value == "func")
        if isinstance(node, cst.With) and any(
                isinstance(item.item, cst.Call)
                and self.context.qualified_name(item.item.func) == INIT_SCOPE
                for item in node.items):
            for item in node.items:
                self.walk(item)
            saved = self.context.reason
            self.context.reason = None  # the documented escape hatch from graph context
            self.walk(node.body)
            self.context.reason = saved
            return False
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self._dispatch("leave_", original_node)
        self.context.ancestors.pop()


def _parameter_names(params: cst.Parameters) -> FrozenSet[str]:
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            every.append(star)
    return frozenset(param.name.value for param in every)


def _replacer(replacements: Dict[cst.CSTNode, cst.CSTNode]):
    """A transformer that swaps nodes for their replacements."""
    return _replacer_class()(replacements)


@lru_cache(maxsize=None)
def _replacer_class() -> type:
    # Defined on first use: subclassing a LibCST class would import LibCST with the engine.
    class Replacer(cst.CSTTransformer):
        def __init__(self, replacements: Dict[cst.CSTNode, cst.CSTNode]):
            super().__init__()
            self._replacements = replacements

        def on_leave(self, original_node, updated_node):
            return self._replacements.get(original_node, updated_node)

    return Replacer


def _decode(source: bytes) -> Tuple[str, str]:
    encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    return source.decode(encoding), encoding


def _file_finding(path: str, message: str, line: int = 1, column: int = 1) -> Finding:
    rule = SyntaxErrorRule
    return Finding(path=path, line=line, column=column, end_line=line, end_column=column,
                   code=rule.code, name=rule.name, message=message)


def _enabled_rules(enabled: FrozenSet[str]) -> List[type]:
    return [rule for rule in all_rules() if rule.code in enabled and rule is not SyntaxErrorRule]


def lint_source(path: str, source: bytes, settings: Settings, *, fix: bool = False,
                view: Optional[ModuleView] = None,
                index: Optional[ModuleIndex] = None) -> FileResult:
    """Lint one file's bytes. Never raises for any input.

    ``view`` is what the project-wide call graph found about this file (traced functions,
    predicates); without it the file is analysed on its own. ``index`` is the file's
    index from an earlier lint of the same bytes, if the caller has it.
    """
    if is_notebook(path):
        return _lint_notebook(path, source, settings, fix, view, index)
    enabled = settings.enabled_for(path)
    try:
        text, encoding = _decode(source)
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        findings = [_file_finding(path, f"cannot decode file: {error}")]
        return FileResult(path, [f for f in findings if f.code in enabled])
    if len(text) > PIECE_CHARS:
        return _lint_pieces(path, text, settings, enabled, fix)
    result = lint_text(path, text, settings, enabled=enabled, fix=fix, view=view, index=index)
    if result.fixed_source is not None:
        result.fixed_source = result.fixed_source.encode(encoding)
    return result


def _lint_notebook(path: str, source: bytes, settings: Settings, fix: bool,
                   view: Optional[ModuleView], index: Optional[ModuleIndex] = None
                   ) -> FileResult:
    """Lint a notebook's code cells as one program; findings at (cell, line in cell)."""
    # Here: a run over ``.py`` files never loads the notebook reader (nor ``json``).
    from .notebook import Notebook, NotebookError, kernel_python, relocate, tensorflow_ran

    enabled = settings.enabled_for(path)
    try:
        book = Notebook.parse(source)
    except NotebookError as error:
        findings = [_file_finding(path, str(error))]
        return FileResult(path, [f for f in findings if f.code in enabled])
    if not book.python:
        return FileResult(path, [])
    # What the notebook last ran on: its kernel's Python, the release its outputs show.
    python, ran = kernel_python(book.data), tensorflow_ran(book.data)
    ran_before = narrowest(releases_before_python(python), releases_after(ran))
    # A release with Keras 3, or a Python only such releases support, says Keras 3.
    keras_3 = (ran is not None and ran >= KERAS_3_SINCE
               or python is not None and python >= KERAS_3_PYTHON)
    result = lint_text(path, book.text, settings, enabled=enabled, view=view,
                       fix=fix and not book.errors, index=index, ran_before=ran_before,
                       keras_3=keras_3)
    if result.fixed_source is not None:
        try:
            result.fixed_source = book.with_fixed(result.fixed_source)
            result.original = source
        except NotebookError as error:
            result = lint_text(path, book.text, settings, enabled=enabled, view=view,
                               ran_before=ran_before, keras_3=keras_3)
            result.fix_error = f"fix skipped: {error}"
    findings = result.findings + [
        _file_finding(path, message, line, column) for line, column, message in book.errors
        if SyntaxErrorRule.code in enabled]
    maps = {path: book.cell_map}
    result.findings = sorted(relocate(f, maps) for f in findings)
    result.fixed_findings = [relocate(f, maps) for f in result.fixed_findings]
    result.cells = book.cell_map
    return result


#: A module of more characters than this is linted in pieces (:func:`_lint_pieces`).
PIECE_CHARS = 8 * 2**20
_PIECE_TARGET = 2**19
_PREAMBLE_LINES = 5000
#: A module of more characters than this that a module-scope rule walks is walked as
#: trees of consecutive statements (:meth:`_Analysis._walk_statements`), not one tree.
_WHOLE_TREE_CHARS = _PIECE_TARGET
_DEFINITIONS = ("def ", "async def ", "class ", "@")
_DETECTED = lazy_compile(r" \(detected at line \d+\)")
#: Rules whose findings rest on every use of a function in the module (a decorator is
#: redundant when no untraced code calls the function): not run on a module in pieces.
_WHOLE_MODULE_RULES = frozenset({"TFF407"})


def _lint_pieces(path: str, text: str, settings: Settings, enabled: FrozenSet[str],
                 fix: bool) -> FileResult:
    """Lint a module of over :data:`PIECE_CHARS` characters a piece at a time.

    Its syntax trees take some 70 bytes of memory for each character of source, so a
    50 MB module linted whole needs gigabytes. Here each piece of about
    ``_PIECE_TARGET`` characters, ending where a top-level statement starts, is linted
    on its own, after the module's preamble (the lines before its first top-level
    definition: imports, constants), with blank lines standing for the rest, so that
    every line keeps its number. Only one piece's trees are alive at a time. What a piece
    cannot see of the others is lost: a helper called from traced code in another piece
    is not known to be traced, a rebinding or an eager-mode predicate written in another
    piece is not seen. Mostly findings are missed that way; the rules that need every use
    of a function in the module (:data:`_WHOLE_MODULE_RULES`) are not run. Such a module
    is neither fixed nor joined to the project's call graph.
    """
    enabled = enabled - _WHOLE_MODULE_RULES
    lines = split_lines(text)
    total = len(lines)
    preamble = _preamble(lines)
    findings: List[Finding] = []
    internal: Dict[str, Finding] = {}
    fixable = False
    start = 0
    while start < total:
        end, error = _next_end(lines, start), None
        while True:
            head = lines[:min(preamble, start)]
            piece = head + ["\n"] * (start - len(head)) + lines[start:end]
            piece_text = "".join(piece)
            try:
                tree = parse_module(piece_text, piece, path)
                break
            except SyntaxError as problem:
                # A piece that ends inside a string or brackets: join it to the next. An
                # error that stays where it was is the module's own.
                seen = _DETECTED.sub("", problem.msg or ""), problem.lineno
                if end >= total or seen == error:
                    found = ([] if _python_2_source(path, text, problem) else [
                        _file_finding(path, _syntax_message(problem, lines),
                                      problem.lineno or 1, problem.offset or 1)])
                    return FileResult(path, [f for f in found if f.code in enabled])
                error, end = seen, _next_end(lines, end)
            except ValueError as problem:  # e.g. null bytes in the source
                found = [_file_finding(path, f"cannot parse file: {problem}")]
                return FileResult(path, [f for f in found if f.code in enabled])
        result = lint_text(path, piece_text, settings, enabled=enabled, apply_noqa=False,
                           tree=tree, lines=piece, own_lines=(start + 1, end))
        tree = piece = piece_text = None
        own = [f for f in result.findings if start < f.line <= end]
        for finding in result.findings:
            if finding.code == SyntaxErrorRule.code and finding.line <= start:
                internal.setdefault(finding.message, finding)
        findings += _noqa_in(path, lines[start:end], start, own, enabled)
        fixable = fixable or any(f.fixable for f in own)
        start = end
    findings += internal.values()
    if findings and "noqa" in text.lower() and noqa.file_is_ignored(lines):
        findings = []
    result = FileResult(path, sorted(findings))
    if fix and fixable:
        result.fix_error = (f"fix skipped: a file of over {PIECE_CHARS // 2**20} MiB is "
                            "linted in pieces and not fixed")
    return result


def _preamble(lines: Sequence[str]) -> int:
    """How many lines come before the first top-level definition or decorator (0 if too
    many, or if they do not parse on their own)."""
    for number, line in enumerate(lines[:_PREAMBLE_LINES]):
        if line.startswith(_DEFINITIONS):
            try:
                ast.parse("".join(lines[:number]))
            except (SyntaxError, ValueError):
                return 0
            return number
    return 0


def _next_end(lines: Sequence[str], start: int) -> int:
    """Where the piece starting at ``start`` ends: the first line, after about
    ``_PIECE_TARGET`` characters, that starts a top-level statement (or the end)."""
    size, end, total = 0, start, len(lines)
    while end < total and size < _PIECE_TARGET:
        size += len(lines[end])
        end += 1
    while end < total and not _starts_statement(lines, end):
        end += 1
    return end


def _noqa_in(path: str, own: List[str], offset: int, findings: List[Finding],
             enabled: FrozenSet[str]) -> List[Finding]:
    """``# noqa`` applied to one piece's findings, reading only the piece's own lines."""
    if not findings and not any(r.scope is Scope.NOQA and r.code in enabled
                                for r in all_rules()):
        return []
    local = [_moved(f, -offset) for f in findings]
    text = "".join(own)
    kept, used = noqa.apply(local, text, own)
    kept += _noqa_findings(path, text, own, kept, used, enabled)
    return [_moved(f, offset) for f in kept]


def _moved(finding: Finding, lines: int) -> Finding:
    return replace(finding, line=finding.line + lines, end_line=finding.end_line + lines,
                   statement_line=(finding.statement_line + lines
                                   if finding.statement_line else 0))


def lint_text(path: str, text: str, settings: Settings, *,
              enabled: Optional[FrozenSet[str]] = None, fix: bool = False,
              apply_noqa: bool = True, tree: Optional[ast.Module] = None,
              view: Optional[ModuleView] = None,
              lines: Optional[List[str]] = None,
              own_lines: Optional[Tuple[int, int]] = None,
              index: Optional[ModuleIndex] = None, alone: bool = False,
              ran_before: Optional[Version] = None, keras_3: bool = False) -> FileResult:
    """Lint decoded source. ``tree`` may pass an ``ast`` parse the caller already has, and
    ``lines`` the text's :func:`split_lines`; ``own_lines`` (first, last) are the lines
    whose findings the caller keeps (a piece of a long module): no LibCST tree is made of
    the others. ``index``: the text's :class:`ModuleIndex` from an earlier lint (same
    path, text and settings), not built again. ``alone``: the file is linted on its own
    (no project is joined from its index), so a file that no rule can apply to without
    traced code, and that has none (:func:`may_trace`), is not indexed at all.
    ``ran_before``: the first TensorFlow release a notebook was not last run on (its
    kernel's Python no longer supported there, or after the release its outputs show).
    ``keras_3``: the notebook shows it last ran a TensorFlow with Keras 3."""
    enabled = settings.enabled_for(path) if enabled is None else enabled
    lines = split_lines(text) if lines is None else lines
    analysis = _Analysis(path, text, lines, settings, enabled)
    analysis.own_lines = own_lines
    analysis.alone = alone
    analysis.ran_before = ran_before
    analysis.keras_3 = keras_3
    collecting = gc.isenabled()
    try:
        # The trees are acyclic and freed by reference counting; the cyclic collector would
        # rescan every node of a big file again and again while they are built.
        gc.disable()
        if tree is None:
            tree = _parse_any_python(text, lines, path)
        analysis.run(tree, view, fix, index)
        findings = analysis.findings
    except SyntaxError as error:
        line = error.lineno or 1
        column = error.offset or 1
        findings = ([] if _python_2_source(path, text, error) else
                    [_file_finding(path, _syntax_message(error, lines), line, column)])
    except ValueError as error:  # e.g. null bytes in the source
        findings = [_file_finding(path, f"cannot parse file: {error}")]
    except (RecursionError, MemoryError):
        findings = [_file_finding(path, "file is too deeply nested to analyse")]
    except cst.ParserSyntaxError as error:
        findings = [_file_finding(path, f"LibCST cannot parse this file: {error.message}")]
    except Exception as error:  # noqa: BLE001 - one bad file must not stop a run
        findings = [_file_finding(
            path, f"internal error while analysing ({_describe(error)}); please report it")]
    finally:
        # The trees are dropped before the collector runs again, which would otherwise scan
        # every node made while it was paused once more.
        tree = None
        analysis.release()
        if collecting:
            gc.enable()
    if SyntaxErrorRule.code not in enabled:
        findings = [f for f in findings if f.code != SyntaxErrorRule.code]
    if apply_noqa:
        findings, used = noqa.apply(findings, text, lines)
        findings += _noqa_findings(path, text, lines, findings, used, enabled,
                                   analysis.graph is not None and analysis.graph.superseded)
    if analysis.index is not None:
        analysis.index.nodes = {}  # keeping ast nodes alive would hold every tree in memory
    result = FileResult(path, sorted(findings), index=analysis.index,
                        view=analysis.graph.view() if analysis.graph else None)
    if analysis.new_text is not None and analysis.new_text != text:
        result = _checked_fix(result, analysis.new_text)
    return result


def _noqa_findings(path: str, text: str, lines: List[str], findings: List[Finding],
                   used: Dict[int, set], enabled: FrozenSet[str],
                   superseded: bool = False) -> List[Finding]:
    """What the enabled ``Scope.NOQA`` rules (TFF001) report about the ``# noqa`` comments,
    once the other findings are known; nothing for a file that was not analysed. A test
    module leaves alone the codes of rules not run on tests, a kept copy those of all."""
    rules = [r for r in all_rules() if r.scope is Scope.NOQA and r.code in enabled]
    if (not rules or "noqa" not in text.lower() or noqa.file_is_ignored(lines)
            or any(f.code == SyntaxErrorRule.code for f in findings)):
        return []
    unchecked = (frozenset(r.code for r in all_rules() if r.scope is not Scope.NOQA)
                 if superseded else frozenset(r.code for r in all_rules() if not r.in_tests)
                 if is_test_module(path) else frozenset())
    return [f for rule in rules for f in rule.check_noqa(path, text, used, enabled, unchecked)]


#: What only Python 2 source has: a print or exec statement, ``except E, e:``, ``xrange``,
#: ``raw_input``, ``ur""`` strings, backquotes.
_PYTHON_2 = lazy_compile(r"^[ \t]*(?:print|exec)[ \t]+[\"'\w]|^[ \t]*except[ \t]+[\w.]+[ \t]*,"
                         r"[ \t]*\w+[ \t]*:|\bxrange[ \t]*\(|\braw_input[ \t]*\(|\bur[\"']|`\w",
                         re.MULTILINE)


def _python_2_source(path: str, text: str, error: SyntaxError) -> bool:
    """A ``.py`` file that Python 3 rejects and that is written for Python 2 (its syntax,
    or indentation that mixes tabs and spaces next to Python 2 names): not code this linter
    is for, so not reported (notebooks say their kernel's version in their metadata)."""
    statement = "Missing parentheses in call to" in (error.msg or "")  # print x, exec s
    return path.endswith(".py") and (
        statement or isinstance(error, TabError) and bool(_PYTHON_2.search(text)))


#: How many lines a replacement field that runs over line breaks is looked for in.
_FIELD_LINES = 50
#: An f-string's opening: its prefix and quote.
_F_STRING_START = lazy_compile(r"""(?i)(?:rf|fr|f)("{3}|'{3}|"|')""")


def _syntax_message(error: SyntaxError, lines: Sequence[str]) -> str:
    """TFF000's words for a syntax error. Before Python 3.12, an f-string whose replacement
    field runs over a line break, or holds the f-string's own quote (``f"{d["k"]}"``), does
    not parse; Python 3.12 accepts both (PEP 701). Such a file may be valid for the Python
    its project runs, so it is said to be not analysed, not to be in error."""
    message = error.msg or "invalid syntax"
    conflict = _conflict_marker(lines)
    if conflict:
        return (f"syntax error: the file holds an unresolved merge conflict (its `<<<<<<<` "
                f"marker at line {conflict}); resolve it ({message})")
    if sys.version_info < (3, 12) and _newer_f_string(error, lines):
        running = "%d.%d" % sys.version_info[:2]
        return (f"not analysed: Python {running}, which runs tffunc-lint, cannot parse this "
                f"f-string, which Python 3.12 and later accept (PEP 701: line breaks and "
                f"quotes inside its braces); run tffunc-lint under Python 3.12 or later "
                f"({message})")
    return f"syntax error: {message}"


def _conflict_marker(lines: Sequence[str]) -> Optional[int]:
    """The line of the first ``<<<<<<<`` marker of a merge conflict left in the text, when
    a ``>>>>>>>`` one follows it: git's markers, which no Python parses."""
    start = next((number for number, line in enumerate(lines, 1)
                  if line.startswith("<<<<<<< ")), None)
    if start is not None and any(line.startswith(">>>>>>> ") for line in lines[start:]):
        return start
    return None


def _parse_any_python(text: str, lines: Sequence[str], path: str) -> ast.Module:
    """:func:`parse_module`; where the running Python is older than 3.12 and the module
    has f-strings, which PEP 701 may make valid, the tree of the text with its f-strings
    blanked (:func:`newer_fstrings.older_text`) when that parses. Raises the first error
    otherwise."""
    try:
        return parse_module(text, lines, path)
    except SyntaxError as error:
        if sys.version_info >= (3, 12) or not _F_STRING_START.search(text):
            raise
        from .analysis.newer_fstrings import older_text  # only for such rare modules

        older = older_text(text)
        if older is None:
            raise
        try:
            return ast.parse(older, filename=path)
        except SyntaxError:
            raise error from None


def _newer_f_string(error: SyntaxError, lines: Sequence[str]) -> bool:
    """The error is at an f-string that only PEP 701 makes valid: unterminated where one of
    its braces is still open at the end of the line and a later line closes the field and
    the string (``}"``), or an ``f-string:`` error in a line whose f-string holds its own
    quote inside a replacement field."""
    line = lines[error.lineno - 1] if error.lineno and 0 < error.lineno <= len(lines) else ""
    message = error.msg or ""
    if message.startswith("unterminated string literal") and error.offset:
        start = _F_STRING_START.match(line, error.offset - 1)
        if start is None:
            return False
        rest = line[start.end():].replace("{{", "").replace("}}", "")
        closing = "}" + start.group(1)  # the field closed, then the string, lines later
        return rest.count("{") > rest.count("}") and any(
            closing in later for later in lines[error.lineno:error.lineno + _FIELD_LINES])
    if message.startswith("f-string"):
        for start in _F_STRING_START.finditer(line):
            rest = line[start.end():]
            field = rest.find("{")
            end = rest.find("}", field)
            if field >= 0 and start.group(1) in rest[field:end if end >= 0 else len(rest)]:
                return True
    return False


def _describe(error: BaseException) -> str:
    """``Type: message``, even when the message itself cannot be formatted."""
    try:
        message = str(error)
    except Exception:  # noqa: BLE001 - e.g. RecursionError from a huge node's repr
        message = "no description"
    return f"{type(error).__name__}: {message[:200]}"


def _checked_fix(result: FileResult, new_text: str) -> FileResult:
    """Keep a fix only if the fixed file still parses; otherwise leave the file as it is."""
    try:
        _parse_any_python(new_text, split_lines(new_text), "<fixed>")
        cst.parse_module(new_text)
    except Exception as error:  # noqa: BLE001
        result.fix_error = f"fix skipped: the fixed file would not parse ({error})"
        return result
    fixed = [f for f in result.findings if f.fixable]
    result.findings = [f for f in result.findings if not f.fixable]
    result.fixed_findings = fixed
    result.fixed_source = new_text
    result.fixes_applied = len(fixed)
    return result


class _Analysis:
    """The steps of linting one parsed file; keeps what it learnt for the caller."""

    def __init__(self, path: str, text: str, lines: List[str], settings: Settings,
                 enabled: FrozenSet[str]):
        self.path, self.text, self.lines = path, text, lines
        self.own_lines: Optional[Tuple[int, int]] = None
        self.alone = False
        self.ran_before: Optional[Version] = None
        self.keras_3 = False
        self.settings, self.enabled = settings, enabled
        self.index: Optional[ModuleIndex] = None
        self.graph: Optional[GraphContext] = None
        self.findings: List[Finding] = []
        self.new_text: Optional[str] = None
        self.context: Optional[FileContext] = None

    def release(self) -> None:
        """Let go of the trees (and what the analyses built on them) once the findings are
        known: rules and the context refer to each other, so without this the trees would
        live until the cyclic garbage collector runs."""
        if self.index is not None:
            self.index.nodes = {}  # keeping ast nodes alive would hold every tree in memory
        if self.graph is not None:
            self.graph.release()
        if self.context is not None:
            self.context.release()
            self.context = None

    def run(self, tree: ast.Module, view: Optional[ModuleView], fix: bool,
            index: Optional[ModuleIndex] = None) -> None:
        if self.alone and view is None and index is None and not self._may_apply(tree):
            return
        text_hash = hash(self.text)
        if index is not None and index.text_hash == text_hash:
            index.attach(tree, self.lines)
            self.index = index
        else:  # none, or the file changed since (then its hash differs, or another process's)
            module, is_package = module_name_for(self.path)
            self.index = ModuleIndex.build(self.path, module, tree, self.lines,
                                           self.settings.extra_traced_decorators, is_package)
            self.index.text_hash = text_hash
            # What a notebook last ran on bounds the project's programs too.
            self.index.removed_before = narrowest(self.index.removed_before, self.ran_before)
            self.index.keras_3 = self.index.keras_3 or self.keras_3
        self.graph = (GraphContext(self.index, *view) if view is not None
                      else GraphContext.for_module(self.index))
        if self.graph.superseded:  # nothing of a kept copy runs
            return
        names = self.index.names.refined(self.graph.names)
        context = self.context = FileContext(self.path, names, self.graph, tree, self.text)
        context.unsafe_fixes = self.settings.unsafe_fixes
        context.tensorflow_setting = self.settings.tensorflow_version
        rule_classes = _enabled_rules(self.enabled)
        if is_test_module(self.path):
            rule_classes = [r for r in rule_classes if r.in_tests]
        traced_rules = [r for r in rule_classes if r.scope is Scope.TRACED] if self.graph else []
        # Triggers only of rules that can run: without traced code, the traced rules' module
        # analyses (call sites, rebinding, …) are not computed.
        triggers = {rule: rule.triggers_for(context) for rule in rule_classes
                    if rule.scope is Scope.MODULE or rule in traced_rules}
        module_rules = [r for r in rule_classes if r.scope is Scope.MODULE
                        and Rule.triggered(triggers[r], self.text)]
        if not module_rules and not traced_rules:
            self.index.names_layers_with_seed = self.index.asks_versions = False  # no rule ran
            return
        if module_rules:
            rules = [rule(context) for rule in module_rules + traced_rules]
            if self.own_lines is None and len(self.text) <= _WHOLE_TREE_CHARS:
                tree_ = cst.parse_module(self.text)
                _walk(context, rules, tree_, line_offset=0, lines=(1, len(self.lines) + 1))
                if fix and context.replacements:
                    self.new_text = tree_.visit(_replacer(context.replacements)).code
            else:
                self._walk_statements(context, rules, fix)
        else:
            self._walk_regions(context, traced_rules, triggers, fix)
        self.findings = context.findings
        # Whether the module runs on Keras 3, and on which releases, changed this lint only if
        # a rule asked (TFF301 of a seed layer made in traced code, TFF405): only then does
        # the project's answer re-lint it.
        self.index.names_layers_with_seed = (self.index.names_layers_with_seed
                                             and context.asked(KERAS_3_FACT))
        self.index.asks_versions = context.asked_versions

    def _may_apply(self, tree: ast.Module) -> bool:
        """Some rule may report in the module linted on its own: it may have traced code,
        or the text has a trigger of a module rule (whose ``triggers_for`` only narrows)
        that may report without it."""
        if may_trace(self.text, tree, frozenset(self.settings.extra_traced_decorators)):
            return True
        return any(rule.scope is Scope.MODULE and not rule.about_tf_functions
                   and Rule.triggered(rule.triggers, self.text)
                   for rule in _enabled_rules(self.enabled))

    def _walk_statements(self, context: FileContext, rules: Sequence[Rule], fix: bool) -> None:
        """Walk a long module (or a piece's own lines) as trees of consecutive top-level
        statements of about ``_PIECE_TARGET`` characters each, in order, with the same
        rules: LibCST takes some 500 bytes of memory per character, so one tree of the
        whole would not be bounded. A run of statements that ends inside a string or
        brackets cannot parse alone and is joined to the next."""
        first, last = self.own_lines or (1, len(self.lines))
        done: List[Tuple[int, int, str]] = []
        start = first - 1
        while start < last:
            end = min(_next_end(self.lines, start), last)
            while True:
                try:
                    tree_ = cst.parse_module("".join(self.lines[start:end]))
                    break
                except cst.ParserSyntaxError:
                    if end >= last:
                        raise
                    end = min(_next_end(self.lines, end), last)
            context.replacements = {}
            _walk(context, rules, tree_, line_offset=start, lines=(start + 1, end))
            if fix and context.replacements:
                done.append((start, end, tree_.visit(_replacer(context.replacements)).code))
            tree_ = None
            start = end
        if fix:
            new_lines = list(self.lines)
            for start, end, code in reversed(done):
                new_lines[start:end] = [code]
            self.new_text = "".join(new_lines)

    def _walk_regions(self, context: FileContext, rule_classes: Sequence[type],
                      triggers: Dict[type, tuple], fix: bool) -> None:
        """Parse and walk only the traced line ranges where some rule's trigger occurs."""
        new_lines = list(self.lines) if fix else None
        for first, last in reversed(self.graph.regions()):
            region = "".join(self.lines[first - 1:last])
            rules = [rule(context) for rule in rule_classes
                     if Rule.triggered(triggers[rule], region)]
            if not rules:
                continue
            prefix = "if 1:\n" if region[:1] in (" ", "\t", "\f") else ""
            module = cst.parse_module(prefix + region)
            context.replacements = {}
            _walk(context, rules, module, line_offset=first - 1 - prefix.count("\n"),
                  lines=(first, last))
            if fix and context.replacements:
                fixed = module.visit(_replacer(context.replacements)).code[len(prefix):]
                new_lines[first - 1:last] = [fixed]
        if fix:
            self.new_text = "".join(new_lines)


class _OrdinalKeys:
    """Keys of LibCST functions by order: the n-th def (lambda) of a tree is the n-th the
    index saw in those lines. Saves resolving positions on trees that report nothing."""

    def __init__(self, defs, lambdas):
        self._defs, self._lambdas = iter(defs), iter(lambdas)

    def for_def(self, node: cst.FunctionDef):
        key = next(self._defs, None)
        if key is None or key[2] != node.name.value:
            raise _KeyMismatch
        return key

    def for_lambda(self, node: cst.Lambda):
        key = next(self._lambdas, None)
        if key is None:
            raise _KeyMismatch
        return key


class _PositionKeys:
    """Keys of LibCST functions from their positions."""

    def __init__(self, positions, line_offset: int):
        self._positions, self._offset = positions, line_offset

    def for_def(self, node: cst.FunctionDef):
        return def_key(self._positions[node.name].start.line + self._offset, node.name.value)

    def for_lambda(self, node: cst.Lambda):
        start = self._positions[node].start
        return lambda_key(start.line + self._offset, start.column)


def _walk(context: FileContext, rules: Sequence[Rule], module: cst.Module, line_offset: int,
          lines: Tuple[int, int]) -> None:
    """Walk one tree; positions are resolved only if something is reported."""
    wrapper = cst.metadata.MetadataWrapper(module, unsafe_skip_copy=True)
    context.next_tree()
    context.line_offset = line_offset
    saved = dict(context.replacements)
    outside = context.reason, context.local_names, context.function
    try:
        _Walker(context, rules, _OrdinalKeys(*context.graph.keys_in(*lines))).walk(module)
        positions = wrapper.resolve(cst.metadata.PositionProvider) if context.pending else None
    except _KeyMismatch:
        # The walk stopped inside some function: start again from the module's own context.
        context.pending, context.ancestors = [], []
        context.replacements = saved
        context.reason, context.local_names, context.function = outside
        positions = wrapper.resolve(cst.metadata.PositionProvider)
        _Walker(context, rules, _PositionKeys(positions, line_offset)).walk(module)
    if context.pending:
        context.materialize(positions)


def lint_file(path: str, settings: Settings, fix: bool = False,
              view: Optional[ModuleView] = None,
              index: Optional[ModuleIndex] = None) -> FileResult:
    """Read and lint one file; unreadable files yield a TFF000 finding."""
    try:
        with open(path, "rb") as handle:
            source = handle.read()
    except OSError as error:
        finding = _file_finding(path, f"cannot read file: {error.strerror or error}")
        enabled = settings.enabled_for(path)
        return FileResult(path, [finding] if finding.code in enabled else [])
    result = lint_source(path, source, settings, fix=fix, view=view, index=index)
    if result.fixed_source is not None and result.original is None:
        result.original = source
    return result
