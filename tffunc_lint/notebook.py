"""Jupyter notebooks: the code cells, in order, as one Python program with positions per cell.

A notebook runs its code cells top to bottom in one namespace, so names flow from cell to
cell as they do down a script. :meth:`Notebook.parse` reads the JSON and joins the code cells
into one source, each cell followed by a comment line marking its end, and keeps a
:class:`CellMap` from the lines of that source back to (cell, line in the cell). Cells are
numbered from 1 counting every cell, markdown and raw included, as ruff and the notebook
editors number them.

IPython syntax is masked line by line, keeping the line count and every other line intact:
a line magic (``%timeit f()``, ``!pip install``, ``x?``, ``?x``, and the quoting and
calling escapes ``,f a b``, ``;f a b``, ``/f x``) becomes a comment, or
``pass`` where it is a statement of an indented block; ``var = !ls`` and
``var = %time f()`` keep their target (``var = ...``); a ``%%time``-like cell magic (the body
is Python) masks just its first line (and a cell magic starting its body, ``%%time`` then
``%%bash``), any other cell magic (``%%bash``, ``%%writefile``) the
whole cell. A line that only looks like a magic inside a string or brackets is left alone.

:meth:`Notebook.with_fixed` maps a fixed version of the joined source back to the cells and
splices the changed cells' ``source`` into the original JSON text: every other byte of the
file is kept (indent, key order, escaping, trailing newline).
"""

from __future__ import annotations

import ast
import bisect
import copy
import io
import json
import re
import sys
import tokenize
from dataclasses import dataclass, field, replace
from typing import Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple

from .analysis.patterns import lazy_compile

#: Cell magics whose body is Python (ruff's list); any other cell magic skips its cell.
PYTHON_CELL_MAGICS = frozenset({
    "capture", "debug", "prun", "pypy", "python", "python3", "time", "timeit"})

#: Python cell magics that run their body as a cell of its own (IPython's
#: ``transform_cell``/``run_cell``), which may itself start with a cell magic
#: (``%%time`` then ``%%bash``).
_BODY_AS_CELL = frozenset({"capture", "prun", "time", "timeit"})

#: Ends every cell in the joined source; never reported on, and how a fix is split back.
CELL_END = "# tffunc-lint: end of cell\n"

_HELP = lazy_compile(r"\?{1,2}[\w.*]+\s*$|[\w.*]+\?{1,2}\s*$")
_ASSIGNED_MAGIC = lazy_compile(
    r"(?P<target>[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*,?\s*=\s*)[!%]")
_CELL_MAGIC = lazy_compile(r"%%(?P<name>\w+)")
#: An extension a cell loads (``%load_ext tensorboard``): its magic of the same name may
#: then be written without ``%`` too (``tensorboard --logdir=logs``).
_LOAD_EXT = lazy_compile(r"^[ \t]*%?load_ext[ \t]+(?:[\w.]+\.)?(\w+)", re.MULTILINE)
_FIRST_WORD = lazy_compile(r"\w+")
#: Line magics IPython runs without ``%`` (automagic, on by default) and the shell commands
#: it aliases (on POSIX systems also ``ll``, ``lf``, ``lk``, ``ldir``, ``lx``: variants of
#: ``ls``), when what follows is not Python (``pip install x``, ``ls ./data``) and does not
#: begin an assignment or a call (``history = model.fit(``, a line that continues).
_AUTOMAGIC_REST = r"(?:\s|$)(?!\s*(?:=(?!=)|[-+*/%&|^@<>]=|[(\[,:]))"
_AFTER_AUTOMAGIC = lazy_compile(_AUTOMAGIC_REST)
_AUTOMAGIC = lazy_compile(
    r"(?:pip|conda|ls|ll|lf|lk|ldir|lx|cd|pwd|cat|cp|mv|rm|rmdir|mkdir|env|history|"
    r"load_ext|reload_ext|"
    r"matplotlib|time|timeit|who|whos|run|reset|alias|pushd|popd|bookmark|sx|system|"
    r"xmode|autoreload|aimport|config|pdb|prun|store|lsmagic|magic|precision|mamba|"
    r"uv|less|more|man|clear|rehashx|tb|dhist)" + _AUTOMAGIC_REST)
#: Doctest prompts, as IPython's classic_prompt transformer strips them.
_FIRST_PROMPT = lazy_compile(r">>>(?: |$)")
#: IPython strips the prompts of a cell whose second line starts with either prompt.
_SECOND_PROMPT = lazy_compile(r"(?:>>>|\.\.\.)(?: |$)")
_PROMPT = lazy_compile(r"^[ \t]*(?:>>>|\.\.\.)(?: |(?=\r?\n)|$)")
_LINE = lazy_compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _split(text: str) -> List[str]:
    """Physical lines with their endings, as Python (and the engine) count them."""
    return _LINE.findall(text)


class NotebookError(Exception):
    """A file that is not a notebook this tool can read, or a fix that cannot be written."""


@dataclass(frozen=True)
class CellMap:
    """Lines of the joined source → (cell number, line in the cell), both 1-based."""

    first_lines: Tuple[int, ...]
    """First line of each code cell in the joined source, ascending."""
    cells: Tuple[int, ...]
    """The cell number of each of those code cells."""

    def locate(self, line: int) -> Tuple[int, int]:
        index = max(0, bisect.bisect_right(self.first_lines, line) - 1)
        if not self.first_lines:
            return 1, line
        return self.cells[index], line - self.first_lines[index] + 1

    dedents: Tuple[int, ...] = ()
    """Per code cell, the leading indent removed from its lines (IPython's own
    ``leading_indent``), to add back to columns; empty when no cell was dedented."""

    def column(self, line: int, column: int) -> int:
        """The column in the cell of a column on ``line`` of the joined source."""
        if not self.dedents or not self.first_lines:
            return column
        index = max(0, bisect.bisect_right(self.first_lines, line) - 1)
        return column + self.dedents[index]


@dataclass
class _Cell:
    number: int
    """1-based, counting every cell of the notebook."""
    index: int
    """Position in the JSON ``cells`` list."""
    lines: List[str]
    """The cell's source lines as written (each with its line ending but maybe the last)."""
    masked: List[str] = field(default_factory=list)
    """The lines as linted: same count, IPython syntax masked, each ending in a newline."""
    changed: Dict[int, str] = field(default_factory=dict)
    """Masked lines: index → the original line."""
    dedent: int = 0
    """Leading indent removed from the cell's lines (see :func:`_dedent`)."""


class Notebook:
    """One notebook's code cells, joined into one Python source."""

    def __init__(self, raw: str, data: dict, cells: List[_Cell], python: bool,
                 bom: bool = False):
        self.raw, self.data, self.python, self.bom = raw, data, python, bom
        self._cells = cells
        self.errors: List[Tuple[int, int, str]] = []
        """Cells that do not parse: (line in the joined source, column, message)."""
        parts, first_lines, numbers, line = [], [], [], 1
        newer = _newer_kernel(data)
        datalab = any(_DATALAB.search(text) for cell in cells for text in cell.lines)
        for cell in cells:
            first_lines.append(line)
            numbers.append(cell.number)
            try:
                try:
                    ast.parse("".join(cell.masked))
                except SyntaxError:
                    if not (_strip_prompts(cell) or _dedent(cell)
                            or datalab and _one_percent_cell_magic(cell)):
                        raise
                    ast.parse("".join(cell.masked))
            except (SyntaxError, ValueError) as error:
                lineno = min(max(getattr(error, "lineno", None) or 1, 1), max(len(cell.masked), 1))
                column = getattr(error, "offset", None) or 1
                message = getattr(error, "msg", None) or str(error)
                # Python counts the lines of the cell; ``relocate_text`` reads "at line N"
                # as a line of the joined source (``(detected at line 8)``).
                message = re.sub(r"\bat line (\d+)",
                                 lambda m, first=line: f"at line {first + int(m.group(1)) - 1}",
                                 message)
                if newer and _newer_python_parses("".join(cell.masked)):
                    # valid, maybe, for the kernel the notebook was written for
                    message = (f"not analysed: the notebook's kernel is Python {newer}, and "
                               f"Python {_RUNNING}, which runs tffunc-lint, cannot parse this "
                               f"cell ({message}); run tffunc-lint under Python {newer}")
                else:
                    message = f"syntax error: {message}"
                self.errors.append((line + lineno - 1, column, message))
                cell.masked = ["\n"] * len(cell.masked)  # lint the other cells
            parts.extend(cell.masked)
            parts.append(CELL_END)
            line += len(cell.masked) + 1
        self.text = "".join(parts)
        dedents = tuple(cell.dedent for cell in cells)
        self.cell_map = CellMap(tuple(first_lines), tuple(numbers),
                                dedents if any(dedents) else ())

    @classmethod
    def parse(cls, source: bytes) -> "Notebook":
        if not source.strip():
            raise NotebookError("cannot read notebook: the file is empty")
        try:
            raw = source.decode("utf-8-sig")
            data = json.loads(raw)
        except (UnicodeDecodeError, ValueError, RecursionError) as error:
            raise NotebookError(f"cannot read notebook: invalid JSON ({_short(error)})") from None
        if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
            raise NotebookError("cannot read notebook: no 'cells' list (nbformat 4 expected)")
        cells = []
        loaded: Set[str] = set()
        for index, cell in enumerate(data["cells"]):
            if not isinstance(cell, dict):
                raise NotebookError(f"cannot read notebook: cell {index + 1} is not an object")
            if cell.get("cell_type") != "code":
                continue
            text = _joined(cell.get("source", ""))
            if text is None:
                raise NotebookError(
                    f"cannot read notebook: cell {index + 1} has no readable 'source'")
            code = _Cell(index + 1, index, _split(text))
            if "load_ext" in text:
                loaded.update(_LOAD_EXT.findall(text))
            _mask(code, frozenset(loaded))
            cells.append(code)
        return cls(raw, data, cells, _is_python(data), source.startswith(b"\xef\xbb\xbf"))

    def with_fixed(self, fixed_text: str) -> bytes:
        """The notebook's bytes with the cells a fix changed, everything else as it was."""
        if self.errors:
            raise NotebookError("a cell does not parse")
        pieces = fixed_text.split(CELL_END)
        if len(pieces) != len(self._cells) + 1 or pieces[-1]:
            raise NotebookError("the fix moved a cell boundary")
        new_sources: Dict[int, str] = {}
        for cell, piece in zip(self._cells, pieces):
            masked = "".join(cell.masked)
            if piece == masked:
                continue
            lines = _split(piece)
            if cell.changed:
                if len(lines) != len(cell.masked) or any(
                        lines[i] != cell.masked[i] for i in cell.changed):
                    raise NotebookError(f"the fix touches IPython syntax in cell {cell.number}")
                lines = [cell.changed.get(i, line) for i, line in enumerate(lines)]
            if cell.lines and not cell.lines[-1].endswith(("\n", "\r")) and lines:
                lines[-1] = lines[-1][:-1] if lines[-1].endswith("\n") else lines[-1]
            new_sources[cell.index] = "".join(lines)
        text = _splice(self.raw, self.data, new_sources) if new_sources else self.raw
        return (b"\xef\xbb\xbf" if self.bom else b"") + text.encode("utf-8")


def _short(error: BaseException) -> str:
    return str(error).splitlines()[0][:200] if str(error) else type(error).__name__


#: Kernel names of other languages (Swift for TensorFlow, R, Julia, Scala, JavaScript …).
_OTHER_KERNEL = lazy_compile(r"(?:swift|ir|r|julia|scala|javascript|typescript|kotlin|java|"
                             r"rust|go|xcpp|c\+\+|bash|sas|matlab|octave|ruby|haskell|sparkr|"
                             r"apache_toree|deno|tslab|evcxr|gophernotes)(?:[-_ ]?[0-9.]*)$")


def _is_python(data: dict) -> bool:
    """A notebook whose metadata names another language (R, Julia), or Python 2 (a
    ``python2`` kernel, language version 2.x), is not linted."""
    metadata = data.get("metadata")
    if not isinstance(metadata, dict):
        return True
    kernel = metadata.get("kernelspec")
    if (isinstance(kernel, dict) and kernel.get("name") == "python2") or (
            _declared_version(data).startswith("2.")):
        return False
    for key, inner in (("language_info", "name"), ("kernelspec", "language")):
        value = metadata.get(key)
        if isinstance(value, dict) and isinstance(value.get(inner), str):
            return value[inner].strip().lower() in ("python", "python3", "ipython", "")
    # Only a kernel's name (Colab writes ``{"name": "swift", "display_name": "Swift"}``):
    # the names of other languages' kernels, never a Python environment's.
    names = [str(kernel.get(k, "")) for k in ("name", "display_name")] if isinstance(
        kernel, dict) else []
    return not any(_OTHER_KERNEL.match(name.strip().lower()) for name in names)


# -- masking IPython syntax -----------------------------------------------------------------


def _mask(cell: _Cell, extensions: FrozenSet[str] = frozenset()) -> None:
    """Mask the cell's magics; ``extensions``: those loaded so far (``_LOAD_EXT``)."""
    lines = [line if line.endswith(("\n", "\r")) else line + "\n" for line in cell.lines]
    cell.masked = list(lines)
    # The cell magic on the first line; Colab also runs one after comment lines, and
    # IPython one on an indented first line, which its leading_indent transformer dedents.
    first = next((i for i, line in enumerate(lines)
                  if line.strip() and not line.lstrip().startswith("#")), None)
    if first is not None:
        magic = _CELL_MAGIC.match(lines[first].lstrip())
        if magic and (lines[first][:1] == "%" or first == 0):
            while magic is not None:
                if magic.group("name") not in PYTHON_CELL_MAGICS:
                    cell.masked = ["\n"] * len(lines)
                    cell.changed = dict(enumerate(lines))
                    return
                cell.masked[first] = _comment(lines[first])
                cell.changed[first] = lines[first]
                if magic.group("name") not in _BODY_AS_CELL:
                    break
                # The body's first line (blank lines aside) may be a cell magic of its own.
                first = next((i for i in range(first + 1, len(lines)) if lines[i].strip()),
                             len(lines))
                magic = _CELL_MAGIC.match(lines[first]) if first < len(lines) else None
    candidates = {i for i, line in enumerate(lines)
                  if i not in cell.changed and _magic(line, extensions)}
    for _ in range(4):  # a line restored inside a string may change what follows
        masked = list(cell.masked)
        for i in candidates:  # keep the brackets, in case the line continues an expression
            brackets = "".join(char for char in lines[i] if char in "()[]{}")
            masked[i] = lines[i][:len(lines[i]) - len(lines[i].lstrip())] + "pass" + brackets + "\n"
        starts = _logical_starts(masked)
        if starts is None:
            break
        inside = {i for i in candidates if i not in starts}
        if not inside:
            break
        candidates -= inside
    for i in sorted(candidates):
        cell.masked[i] = _masked_line(lines, i)
        cell.changed[i] = lines[i]
        j = i  # a magic continued with backslashes masks its continuation lines
        while lines[j].rstrip("\r\n").endswith("\\") and j + 1 < len(lines):
            j += 1
            cell.masked[j] = "\n"
            cell.changed[j] = lines[j]


def _one_percent_cell_magic(cell: _Cell) -> bool:
    """Google Cloud Datalab runs a cell whose first line is a line magic and which has more
    lines (``%bq query --name q`` then SQL, ``%bash`` then commands) as a cell magic: it
    adds the second ``%``. In a Datalab notebook, a cell that does not parse as Python
    otherwise is read that way (Jupyter fails on it: there it stays a syntax error)."""
    first = next((i for i, line in enumerate(cell.lines)
                  if line.strip() and not line.lstrip().startswith("#")), None)
    magic = _LINE_MAGIC_FIRST.match(cell.lines[first]) if first is not None else None
    if magic is None or not any(line.strip() for line in cell.lines[first + 1:]):
        return False
    if magic.group("name") not in _OTHER_LANGUAGE_CELL_MAGICS:
        return False  # ``%time`` then Python that does not parse; ``%matplotlib``: errors
    cell.changed.update({i: line for i, line in enumerate(cell.lines) if i not in cell.changed})
    cell.masked = ["\n"] * len(cell.masked)
    return True


#: Cell magics of IPython and Datalab whose body is not Python.
_OTHER_LANGUAGE_CELL_MAGICS = frozenset({
    "bash", "sh", "script", "system", "sx", "file", "writefile", "html", "javascript", "js",
    "latex", "markdown", "svg", "perl", "ruby", "bq", "bigquery", "sql", "gcs", "storage",
    "chart", "ml", "monitoring"})
#: A notebook written for Datalab: it imports Datalab's library or uses its own magics.
_DATALAB = lazy_compile(r"\bgoogle\.datalab\b|^\s*(?:import|from)\s+datalab\b|"
                        r"^\s*%%?(?:bq|gcs|chart|storage)\b")
#: A line magic (one ``%``) at the start of a line.
_LINE_MAGIC_FIRST = lazy_compile(r"%(?!%)(?P<name>\w+)")
#: The Python running tffunc-lint, and a notebook kernel's declared language version.
_RUNNING = "%d.%d" % sys.version_info[:2]
_VERSION = lazy_compile(r"(\d+)\.(\d+)")


def _newer_python_parses(text: str) -> bool:
    """A cell the running Python cannot parse may be valid for a newer one: LibCST's
    parser, which accepts the syntax of later releases (an f-string reusing its quotes, a
    ``type`` statement), parses it. An unfinished exercise (``targets = ``) parses in no
    Python, and stays a syntax error."""
    from .analysis.lazy_libcst import cst  # only for a cell that failed to parse

    try:
        cst.parse_module(text)
    except Exception:  # noqa: BLE001 - any refusal: not valid Python of any release
        return False
    return True


def _newer_kernel(data: dict) -> Optional[str]:
    """The notebook's Python version (``language_info.version``) when it is newer than the
    Python running tffunc-lint, which may not parse what the newer one accepts (an f-string
    that reuses its quotes, Python 3.12); else None."""
    declared = kernel_python(data)
    if declared is None:
        return None
    return "%d.%d" % declared if declared > sys.version_info[:2] else None


def kernel_python(data: dict) -> Optional[Tuple[int, int]]:
    """The Python version the notebook was last run with (``language_info.version``), or
    None when its metadata does not say."""
    version = _VERSION.match(_declared_version(data))
    return (int(version.group(1)), int(version.group(2))) if version else None


#: An expression reading the running TensorFlow's version (``tf.__version__``,
#: ``tensorflow.version.VERSION``), and any expression reading some version.
_TF_VERSION_READ = lazy_compile(
    r"\b(?:tf|tensorflow)\s*\.\s*(?:__version__|version\s*\.\s*VERSION)\b")
_VERSION_READ = lazy_compile(r"\b__version__\b|\bVERSION\b")
#: A release number in a cell's output (``2.1.0``, ``2.16.0-rc1``), not part of a longer one.
_RELEASE = lazy_compile(r"(?<![\w.])(\d+)\.(\d+)\.\d+(?![\d.]*\d)")
#: An output line that names TensorFlow and then a release (``TensorFlow version: 2.1.0``).
_NAMED_RELEASE = lazy_compile(r"(?i)\btensorflow\b[^\n\d]*(\d+)\.(\d+)\.\d+")
#: An output line that is only TensorFlow's name and its release (``TensorFlow Version:
#: 2.1.0``, ``tf 2.3.0``), whatever printed it (a module the cell imports).
_RELEASE_LINE = lazy_compile(r"(?im)^[ \t]*(?:tensorflow|tf)(?:[ \t]+version)?[ \t]*[:=]?[ \t]*"
                             r"v?(\d+)\.(\d+)\.\d+[ \t]*$")


def tensorflow_ran(data: dict) -> Optional[Tuple[int, int]]:
    """The TensorFlow release the notebook was last run with, as its saved outputs show it:
    the output of a code cell that reads ``tf.__version__`` (or ``tf.version.VERSION``),
    when that is the one version the cell reads and its output holds one release number,
    or an output line naming TensorFlow and a release; an output line of any code cell
    that is only TensorFlow's name and a release. The newest such, or None."""
    found: List[Tuple[int, int]] = []
    cells = data.get("cells")
    for cell in cells if isinstance(cells, list) else ():
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        text = "".join(_output_text(output) for output in cell.get("outputs") or ()
                       if isinstance(output, dict))
        if not text:
            continue
        source = _joined(cell.get("source")) or ""
        reads = len(_TF_VERSION_READ.findall(source))
        releases = set(_RELEASE_LINE.findall(text))
        if reads:
            releases |= set(_NAMED_RELEASE.findall(text)) or (
                set(_RELEASE.findall(text)) if reads == 1 and len(
                    _VERSION_READ.findall(source)) == 1 else set())
        if len(releases) == 1:
            major, minor = releases.pop()
            found.append((int(major), int(minor)))
    return max(found) if found else None


def _joined(value: object) -> Optional[str]:
    """A notebook's multi-line string field, a string or a list of strings, as one string;
    None when it is neither."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(part, str) for part in value):
        return "".join(value)
    return None


def _output_text(output: dict) -> str:
    """The text of a stream output, or the plain text of a result."""
    if output.get("output_type") == "stream":
        return _joined(output.get("text")) or ""
    data = output.get("data")
    return (_joined(data.get("text/plain")) or "") + "\n" if isinstance(data, dict) else ""


def _declared_version(data: dict) -> str:
    """The language version the notebook's metadata names (``language_info.version``), or
    ``""``."""
    metadata = data.get("metadata")
    info = metadata.get("language_info") if isinstance(metadata, dict) else None
    return str(info.get("version", "")) if isinstance(info, dict) else ""


def _strip_prompts(cell: _Cell) -> bool:
    """IPython runs a cell that starts with a doctest prompt (``>>> x = 1``), or whose
    second line does (``def conv(fld):`` pasted above ``...     return ...``), after
    removing the ``>>> `` and ``... `` prompts from the lines that have them (its
    ``classic_prompt`` transformer); do the same for a cell that does not parse as written.
    Every line counts as masked, so no fix rewrites the cell."""
    first = next((line for line in cell.masked if line.strip()), "")
    second = cell.masked[1] if len(cell.masked) > 1 else ""
    if not (_FIRST_PROMPT.match(first) or _SECOND_PROMPT.match(second)):
        return False
    cell.changed.update({i: line for i, line in enumerate(cell.lines) if i not in cell.changed})
    cell.masked = [_PROMPT.sub("", line, count=1) for line in cell.masked]
    cell.dedent = 4
    return True


def _dedent(cell: _Cell) -> bool:
    """IPython runs a cell whose first line is indented after removing that indent from
    every line that has it (its ``leading_indent`` transformer); do the same for a cell that
    does not parse as written. Every line counts as masked, so no fix rewrites the cell."""
    first = next((line for line in cell.masked if line.strip()), "")
    prefix = first[:len(first) - len(first.lstrip(" \t"))]
    if not prefix:
        return False
    cell.changed.update({i: line for i, line in enumerate(cell.lines) if i not in cell.changed})
    cell.masked = [line[len(prefix):] if line.startswith(prefix) else line
                   for line in cell.masked]
    cell.dedent = len(prefix)
    return True


def _magic(line: str, extensions: FrozenSet[str] = frozenset()) -> bool:
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return False
    return (stripped[0] in "%!?" or line[:1] in (",", ";", "/")
            or bool(_HELP.fullmatch(stripped))
            or bool(_ASSIGNED_MAGIC.match(stripped))
            or (bool(_AUTOMAGIC.match(stripped)) or _extension_magic(stripped, extensions))
            and not _parses(stripped))


def _extension_magic(stripped: str, extensions: FrozenSet[str]) -> bool:
    """The line runs the magic of a loaded extension without ``%``, as ``_AUTOMAGIC``
    reads the built-in ones."""
    word = _FIRST_WORD.match(stripped) if extensions else None
    return word is not None and word.group() in extensions and bool(
        _AFTER_AUTOMAGIC.match(stripped, word.end()))


def _parses(line: str) -> bool:
    try:
        compile(line, "<cell line>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _masked_line(lines: Sequence[str], i: int) -> str:
    line = lines[i]
    indent = line[:len(line) - len(line.lstrip())]
    assigned = _ASSIGNED_MAGIC.match(line.lstrip())
    if assigned:
        return indent + assigned.group("target") + "...\n"
    if indent:
        return indent + "pass\n"
    return _comment(line)


def _comment(line: str) -> str:
    return "# " + line.strip().replace("\r", "") + "\n"


def _logical_starts(lines: Sequence[str]) -> Optional[set]:
    """Indexes of the lines that begin a logical line, or None if the text does not tokenize."""
    starts, depth = {0}, 0
    try:
        for token in tokenize.generate_tokens(io.StringIO("".join(lines)).readline):
            if token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in ")]}":
                depth = max(0, depth - 1)
            elif token.type in (tokenize.NEWLINE, tokenize.NL) and depth == 0:
                starts.add(token.start[0])  # 1-based row of the break = 0-based next line
    except (tokenize.TokenError, SyntaxError):
        return None
    return starts


# -- writing fixed cells back -----------------------------------------------------------------


_WHITESPACE = lazy_compile(r"[ \t\n\r]*")
_UNICODE_ESCAPE = lazy_compile(r"\\u([0-9a-fA-F]{4})")


def _ensure_ascii(raw: str) -> bool:
    """Whether the file escapes non-ASCII text (``\\u00e9``) rather than writing it as is."""
    if any(ord(char) > 127 for char in raw):
        return False
    return any(int(match.group(1), 16) > 127 for match in _UNICODE_ESCAPE.finditer(raw))


class _Scanner:
    """Positions of JSON values in the original text, so they can be replaced in place."""

    def __init__(self, text: str):
        self.text = text
        self._scan = json.JSONDecoder().scan_once

    def _skip(self, i: int) -> int:
        return _WHITESPACE.match(self.text, i).end()

    def value_end(self, i: int) -> int:
        return self._scan(self.text, i)[1]

    def members(self, i: int) -> Iterator[Tuple[str, int, int]]:
        """(key, value start, value end) of the object starting at ``i``."""
        text = self.text
        if text[i] != "{":
            raise NotebookError("unexpected JSON layout")
        i = self._skip(i + 1)
        if text[i] == "}":
            return
        while True:
            key, i = json.decoder.scanstring(text, i + 1)
            i = self._skip(self._skip(i) + 1)  # past ':'
            end = self.value_end(i)
            yield key, i, end
            i = self._skip(end)
            if text[i] == "}":
                return
            i = self._skip(i + 1)

    def items(self, i: int) -> List[Tuple[int, int]]:
        """(start, end) of each item of the array starting at ``i``."""
        text, spans = self.text, []
        if text[i] != "[":
            raise NotebookError("unexpected JSON layout")
        i = self._skip(i + 1)
        if text[i] == "]":
            return spans
        while True:
            end = self.value_end(i)
            spans.append((i, end))
            i = self._skip(end)
            if text[i] == "]":
                return spans
            i = self._skip(i + 1)


def _splice(raw: str, data: dict, new_sources: Dict[int, str]) -> str:
    """Replace the ``source`` of the given cells in the JSON text, and check the result."""
    scanner = _Scanner(raw)
    ascii_only = _ensure_ascii(raw)
    start = _WHITESPACE.match(raw).end()
    cells = next((s for key, s, _ in scanner.members(start) if key == "cells"), None)
    spans = scanner.items(cells)
    edits: List[Tuple[int, int, str]] = []
    for index, new in new_sources.items():
        source = next(((s, e) for key, s, e in scanner.members(spans[index][0])
                       if key == "source"), None)
        if source is None:
            raise NotebookError(f"cell {index + 1} has no 'source' to fix")
        edits.extend(_source_edits(scanner, source, new, ascii_only))
    text = raw
    for begin, end, replacement in sorted(edits, reverse=True):
        text = text[:begin] + replacement + text[end:]
    expected = copy.deepcopy(data)
    for index, new in new_sources.items():
        old = expected["cells"][index]["source"]
        expected["cells"][index]["source"] = new if isinstance(old, str) else (
            _split(new))
    if json.loads(text) != expected:
        raise NotebookError("the fixed notebook would not match the original outside the fix")
    return text


def _source_edits(scanner: _Scanner, span: Tuple[int, int], new: str,
                  ascii_only: bool) -> List[Tuple[int, int, str]]:
    raw = scanner.text
    begin, end = span

    def dump(value: str) -> str:
        return json.dumps(value, ensure_ascii=ascii_only)

    if raw[begin] == '"':
        return [(begin, end, dump(new))]
    items = scanner.items(begin)
    new_lines = _split(new)
    if len(items) == len(new_lines):
        return [(s, e, dump(line)) for (s, e), line in zip(items, new_lines)
                if json.loads(raw[s:e]) != line]
    if not items:
        raise NotebookError("cannot lay out a fixed cell that was empty")
    opening = raw[begin + 1:items[0][0]]
    closing = raw[items[-1][1]:end - 1]
    separator = raw[items[0][1]:items[1][0]] if len(items) > 1 else "," + opening
    return [(begin, end, "[" + opening + separator.join(dump(line) for line in new_lines)
             + closing + "]")]


# -- findings at cell positions ---------------------------------------------------------------


_AT_LINE = lazy_compile(r"(?:(?<= at )|(?<=\())line (\d+)\b")


def relocate(finding, maps: Dict[str, CellMap]):
    """A finding with its notebook lines as (cell, line in cell), and its trace reason's
    notebook lines rewritten the same way (``@tf.function at cell 2, line 1``)."""
    changes = {}
    own = maps.get(finding.path)
    if own is not None:
        cell, line = own.locate(finding.line)
        end_cell, end_line = own.locate(finding.end_line)
        changes.update(cell=cell, line=line,
                       column=own.column(finding.line, finding.column),
                       end_column=own.column(finding.end_line, finding.end_column),
                       end_line=end_line if end_cell == cell else line,
                       statement_line=(own.locate(finding.statement_line)[1]
                                       if finding.statement_line else 0))
    if finding.reason:
        changes["reason"] = relocate_text(finding.reason, finding.path, maps)
    if own is not None:  # "rebound (line 12)" in the rule's own message
        changes["message"] = relocate_text(finding.message, finding.path, maps)
    if finding.trace and any(path in maps for _, path, _line, *_ in finding.trace):
        links = []
        for how, path, line, *rest in finding.trace:
            if path in maps and not rest:
                cell, line = maps[path].locate(line)
                links.append((how, path, line, cell))
            else:
                links.append((how, path, line, *rest))
        changes["trace"] = tuple(links)
    return replace(finding, **changes) if changes else finding


def relocate_text(text: str, current_path: str, maps: Dict[str, CellMap]) -> str:
    """Rewrite ``at line N``, ``(line N)`` and ``at PATH:N`` in a rendered trace reason or
    message for notebooks: ``at cell C, line L``, ``at PATH:cell C:L``."""
    own = maps.get(current_path)
    if own is not None:
        text = _AT_LINE.sub(lambda m: "cell {}, line {}".format(
            *own.locate(int(m.group(1)))), text)
    for path, cell_map in maps.items():
        if path != current_path and f" at {path}:" in text:
            pattern = re.compile(r" at " + re.escape(path) + r":(\d+)")
            text = pattern.sub(lambda m, c=cell_map: " at {}:cell {}:{}".format(
                path, *c.locate(int(m.group(1)))), text)
    return text
