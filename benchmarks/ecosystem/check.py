#!/usr/bin/env python3
"""Ecosystem check: lint pinned real-world corpora and compare every finding with a verdict.

``python benchmarks/ecosystem/check.py`` fetches the corpora of ``corpora.toml`` that are not
in the cache yet (``benchmarks/ecosystem/.cache/``), runs ``tffunc-lint --output-format json``
on each (through its command line only), and matches every finding against the reviewed
verdicts in ``verdicts.toml``. It prints a Markdown table per rule (found / true / false /
unclear / unreviewed / precision) and per corpus. See ``--help`` and README.md.

Keys. A finding is keyed by (corpus, path relative to the corpus root, code, line_text,
occurrence): ``line_text`` is the stripped source of the finding's line (in a notebook, the
line of its cell), ``occurrence`` numbers findings of one code on identical text in one file
(1, 2, ... in source order). No line numbers: a verdict survives code moving around it.
Matching is on the exact key; then leftover findings and leftover verdicts that differ only
in ``occurrence`` are paired in order when those verdicts all agree (a duplicate came or
went). Findings without a verdict are "unreviewed"; verdicts without a finding are "stale".

Why TOML for the verdicts: verdicts are written by people. TOML reads without quoting noise,
takes comments (the stubs carry the message and location as comments), and with one
``[[verdict]]`` table per finding, kept sorted by key, a review shows up as a small local
diff. The standard library reads it (``tomllib``; ``tomli`` before 3.11) and the writer here
needs only strings, integers and booleans. ``verdict`` is ``true``, ``false`` or
``"unclear"`` (``"?"`` in a stub not yet filled in).

Precision is true / (true + false): unclear and unreviewed findings are left out.

Each run saves its findings in ``.cache/last_run.json``; ``--diff`` shows what is new or gone
since then, ``--cached`` reuses them instead of linting again (for ``--list``).
Standard library only.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the project depends on tomli there
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
CORPORA_FILE = HERE / "corpora.toml"
VERDICTS_FILE = HERE / "verdicts.toml"
CACHE_DIR = HERE / ".cache"
LAST_RUN = "last_run.json"

VERDICT_VALUES = ("true", "false", "unclear")
STUB = "?"
LIST_CHOICES = ("unreviewed", "false", "true", "unclear", "all")

Key = Tuple[str, str, str, str, int]


# --- data -----------------------------------------------------------------------------------

@dataclass
class Corpus:
    name: str
    kind: str  # "pypi" | "git" | "local"
    group: str = ""
    package: str = ""
    version: str = ""
    url: str = ""
    commit: str = ""
    path: str = ""
    include: List[str] = field(default_factory=list)
    exclude: List[str] = field(default_factory=list)

    @property
    def repo(self) -> str:
        """``owner/name`` of a git URL (the key of ``--git-source``)."""
        parts = [p for p in re.split(r"[/:]", self.url.rstrip("/")) if p]
        name = parts[-1][:-4] if parts[-1].endswith(".git") else parts[-1]
        return f"{parts[-2]}/{name}" if len(parts) > 1 else name

    def pin(self) -> dict:
        if self.kind == "pypi":
            return {"pypi": self.package, "version": self.version}
        if self.kind == "git":
            return {"git": self.repo, "commit": self.commit}
        return {"path": self.path}


@dataclass
class Finding:
    corpus: str
    path: str
    code: str
    line_text: str
    line: int
    column: int = 0
    name: str = ""
    message: str = ""
    cell: Optional[int] = None
    occurrence: int = 1
    end_line: int = 0
    end_column: int = 0
    reason: str = ""  # the linter's: why the code is traced
    fixable: bool = False

    @property
    def key(self) -> Key:
        return (self.corpus, self.path, self.code, self.line_text, self.occurrence)

    @property
    def where(self) -> str:
        cell = f":cell {self.cell}" if self.cell is not None else ""
        return f"{self.corpus}:{self.path}{cell}:{self.line}"


@dataclass
class Verdict:
    corpus: str
    path: str
    code: str
    line_text: str
    verdict: str  # "true" | "false" | "unclear" | "?"
    reason: str = ""
    occurrence: int = 1

    @property
    def key(self) -> Key:
        return (self.corpus, self.path, self.code, self.line_text, self.occurrence)


@dataclass
class Match:
    """The outcome of matching one run's findings against the verdicts."""
    verdicts: Dict[Key, Verdict]  # finding key -> its verdict
    unreviewed: List[Finding]
    stale: List[Verdict]
    rekeyed: List[Tuple[Verdict, Finding]]  # loose matches (occurrence changed)

    def status(self, finding: Finding) -> str:
        verdict = self.verdicts.get(finding.key)
        return verdict.verdict if verdict and verdict.verdict in VERDICT_VALUES else "unreviewed"


# --- corpora --------------------------------------------------------------------------------

def load_corpora(path: Path) -> List[Corpus]:
    with open(path, "rb") as f:
        data = tomllib.load(f)
    corpora, seen = [], set()
    for entry in data.get("corpus", []):
        name = entry["name"]
        if name in seen:
            raise ValueError(f"{path}: corpus {name!r} is defined twice")
        seen.add(name)
        common = dict(name=name, group=entry.get("group", ""),
                      include=list(entry.get("include", [])),
                      exclude=list(entry.get("exclude", [])))
        if "pypi" in entry:
            corpora.append(Corpus(kind="pypi", package=entry["pypi"],
                                  version=entry["version"], **common))
        elif "git" in entry:
            commit = entry["commit"]
            if not re.fullmatch(r"[0-9a-f]{40}", commit):
                raise ValueError(f"{path}: corpus {name!r}: commit must be a full hash")
            corpora.append(Corpus(kind="git", url=entry["git"], commit=commit, **common))
        elif "path" in entry:
            local = Path(entry["path"])
            if not local.is_absolute():
                local = path.parent / local
            corpora.append(Corpus(kind="local", path=str(local), **common))
        else:
            raise ValueError(f"{path}: corpus {name!r} needs pypi, git or path")
    return corpora


def select_corpora(corpora: Sequence[Corpus], names: Sequence[str],
                   groups: Sequence[str]) -> List[Corpus]:
    """The corpora named or in the groups named; all of them when nothing is named."""
    known = {c.name for c in corpora}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown corpus: {', '.join(unknown)}")
    if not names and not groups:
        return list(corpora)
    return [c for c in corpora if c.name in names or c.group in groups]


def glob_to_regex(pattern: str) -> "re.Pattern[str]":
    """A path glob: ``*`` and ``?`` stay within a directory, ``**/`` spans any directories."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 1:]:
            end = pattern.index("]", i + 1)
            body = pattern[i + 1:end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body}]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def select_files(paths: Iterable[str], include: Sequence[str],
                 exclude: Sequence[str] = ()) -> List[str]:
    """The relative posix paths matching some include glob and no exclude glob, sorted."""
    inc = [glob_to_regex(p) for p in include]
    exc = [glob_to_regex(p) for p in exclude]
    return sorted(p for p in paths
                  if (not inc or any(r.match(p) for r in inc))
                  and not any(r.match(p) for r in exc))


def walk_files(root: Path) -> List[str]:
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        rel = Path(dirpath).relative_to(root)
        for name in filenames:
            if name.endswith((".py", ".pyi", ".ipynb")):
                found.append((rel / name).as_posix())
    return found


def _run(argv: Sequence[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(list(argv), check=True, **kwargs)


def _extract_tar(stream, dest: Path, mode: str) -> None:
    def safe(member: tarfile.TarInfo, path: str) -> Optional[tarfile.TarInfo]:
        if hasattr(tarfile, "data_filter"):
            try:
                return tarfile.data_filter(member, path)
            except tarfile.FilterError:
                return None
        name = member.name
        if name.startswith("/") or ".." in Path(name).parts or member.issym() or member.islnk():
            return None
        return member

    with tarfile.open(fileobj=stream, mode=mode) as tar:
        for member in tar:
            kept = safe(member, str(dest))
            if kept is not None:
                tar.extract(kept, dest, set_attrs=False, **(
                    {"filter": "fully_trusted"} if hasattr(tarfile, "data_filter") else {}))


def _git_dir(path: Path) -> Path:
    return path / ".git" if (path / ".git").exists() else path


def _has_commit(git_dir: Path, commit: str) -> bool:
    return subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "-e",
                           f"{commit}^{{commit}}"], capture_output=True).returncode == 0


def _missing_blobs(git_dir: Path, commit: str) -> List[str]:
    """Paths of the commit's files whose contents the git dir lacks (a partial mirror)."""
    tree = _run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", commit],
                capture_output=True).stdout
    paths: Dict[str, List[str]] = defaultdict(list)
    for entry in tree.split(b"\0"):
        if entry:
            meta, path = entry.split(b"\t", 1)
            _, kind, sha = meta.split()
            if kind == b"blob":
                paths[sha.decode()].append(path.decode("utf-8", "surrogateescape"))
    check = _run(["git", "--git-dir", str(git_dir), "cat-file", "--batch-check"],
                 input="\n".join(paths) + "\n", capture_output=True, text=True).stdout
    gone = [line.split()[0] for line in check.splitlines() if line.endswith(" missing")]
    return sorted(p for sha in gone for p in paths[sha])


def _archive(git_dir: Path, commit: str, dest: Path, leave_out: Sequence[str] = ()) -> bool:
    """``git archive COMMIT | tar -x`` into dest; False if git failed."""
    specs = ["--", ".", *(f":(exclude,literal){p}" for p in leave_out)] if leave_out else []
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(["git", "--git-dir", str(git_dir), "archive", "--format=tar",
                                 commit, *specs], stdout=subprocess.PIPE, stderr=errors)
        try:
            _extract_tar(proc.stdout, dest, "r|")
        except tarfile.TarError:
            pass
        finally:
            proc.stdout.close()
        return proc.wait() == 0


def _fetch_git(corpus: Corpus, cache: Path, sources: Dict[str, str], dest: Path) -> List[str]:
    """Unpack the commit's tree into dest; returns the files the git source lacks."""
    if corpus.repo in sources:
        git_dir = _git_dir(Path(sources[corpus.repo]))
        if not _has_commit(git_dir, corpus.commit):
            raise RuntimeError(f"{corpus.repo}: {corpus.commit} is not in {git_dir}")
    else:
        git_dir = cache / "git" / (corpus.repo.replace("/", "+") + ".git")
        if not _has_commit(git_dir, corpus.commit):
            if not git_dir.exists():
                _run(["git", "init", "--quiet", "--bare", str(git_dir)])
            shallow = subprocess.run(["git", "--git-dir", str(git_dir), "fetch", "--quiet",
                                      "--depth", "1", corpus.url, corpus.commit])
            if shallow.returncode != 0 or not _has_commit(git_dir, corpus.commit):
                _run(["git", "--git-dir", str(git_dir), "fetch", "--quiet", corpus.url,
                      "+refs/heads/*:refs/heads/*"])
    if _archive(git_dir, corpus.commit, dest):
        return []
    # A mirror without some (large) files: unpack the rest and say which are missing.
    missing = _missing_blobs(git_dir, corpus.commit)
    shutil.rmtree(dest)
    dest.mkdir()
    if not missing or not _archive(git_dir, corpus.commit, dest, missing):
        raise RuntimeError(f"git archive {corpus.commit} failed in {git_dir}")
    return missing


def _fetch_pypi(corpus: Corpus, cache: Path, dest: Path) -> None:
    downloads = cache / "downloads" / f"{corpus.package}-{corpus.version}"

    def archives() -> List[Path]:
        if not downloads.is_dir():
            return []
        wheels = sorted(downloads.glob("*.whl"))
        sdists = sorted(p for p in downloads.iterdir()
                        if p.name.endswith((".tar.gz", ".zip", ".tgz")))
        return wheels + sdists

    if not archives():
        downloads.mkdir(parents=True, exist_ok=True)
        _run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
              "--no-binary", ":none:", "--dest", str(downloads),
              f"{corpus.package}=={corpus.version}"])
    found = archives()
    if not found:
        raise RuntimeError(f"pip download left nothing in {downloads}")
    archive = found[0]
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as z:
            z.extractall(dest)
    else:
        with open(archive, "rb") as f:
            _extract_tar(f, dest, "r:gz")
    # An sdist unpacks to one NAME-VERSION/ directory: make that the root.
    if archive.suffix != ".whl":
        entries = list(dest.iterdir())
        if len(entries) == 1 and entries[0].is_dir():
            inner = entries[0]
            for child in list(inner.iterdir()):
                child.rename(dest / child.name)
            inner.rmdir()


def _mark_checkout(corpus: Corpus, root: Path) -> None:
    """A git corpus is linted as its checkout would be: an empty ``.git`` at its root makes
    that directory the project's root for the linter (where it stops looking for the
    project's declarations, and which ``.gitignore`` files count), not whatever directory
    above the cache holds one."""
    if corpus.kind == "git":
        (root / ".git").mkdir(exist_ok=True)


def corpus_root(corpus: Corpus, cache: Path) -> Path:
    if corpus.kind == "local":
        return Path(corpus.path)
    return cache / "corpora" / corpus.name


def fetch(corpus: Corpus, cache: Path, sources: Dict[str, str],
          offline: bool = False) -> Tuple[Path, List[str]]:
    """The corpus's source tree, fetched into the cache unless it is there at its pin, and
    the files its git source lacked."""
    root = corpus_root(corpus, cache)
    if corpus.kind == "local":
        if not root.is_dir():
            raise RuntimeError(f"{root} is not a directory")
        return root, []
    marker = root.parent / f"{corpus.name}.pin.json"
    if root.is_dir() and marker.is_file():
        recorded = json.loads(marker.read_text())
        if recorded.get("pin") == corpus.pin():
            _mark_checkout(corpus, root)
            return root, recorded.get("missing", [])
    if offline:
        raise RuntimeError("not in the cache (and --offline)")
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{corpus.name}-", dir=root.parent))
    missing: List[str] = []
    try:
        if corpus.kind == "git":
            missing = _fetch_git(corpus, cache, sources, tmp)
        else:
            _fetch_pypi(corpus, cache, tmp)
        if root.exists():
            shutil.rmtree(root)
        tmp.rename(root)
        _mark_checkout(corpus, root)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    marker.write_text(json.dumps({"pin": corpus.pin(), "missing": missing}, indent=1) + "\n")
    return root, missing


# --- linting --------------------------------------------------------------------------------

def linter_command() -> List[str]:
    """tffunc-lint next to this Python, else on PATH, else ``python -m tffunc_lint``."""
    exe = "tffunc-lint.exe" if os.name == "nt" else "tffunc-lint"
    beside = Path(sys.executable).parent / exe
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("tffunc-lint")
    return [found] if found else [sys.executable, "-m", "tffunc_lint"]


def linter_options(linter: Sequence[str]) -> List[str]:
    """Fixed options: JSON, no exit code for findings, no configuration, and no result cache
    where the linter has one (every run lints afresh)."""
    options = ["--output-format", "json", "--exit-zero", "--isolated", "--quiet"]
    try:
        shown = subprocess.run([*linter, "--help"], capture_output=True, text=True)
    except OSError as error:
        raise SystemExit(f"cannot run the linter {' '.join(linter)}: {error}")
    if shown.returncode != 0:
        raise SystemExit(f"{' '.join(linter)} --help failed: {shown.stderr.strip()}")
    if "--no-cache" in shown.stdout:
        options.append("--no-cache")
    return options


def split_lines(text: str) -> List[str]:
    """Physical lines as Python numbers them (\\n, \\r\\n and \\r end a line)."""
    return re.split(r"\r\n|\r|\n", text)


@lru_cache(maxsize=256)
def _file_lines(path: str) -> Tuple[str, ...]:
    try:
        with open(path, encoding="utf-8", errors="replace", newline="") as f:
            return tuple(split_lines(f.read()))
    except OSError:
        return ()


@lru_cache(maxsize=64)
def _notebook_cells(path: str) -> Tuple[Tuple[str, ...], ...]:
    """Every cell's lines; cells numbered from 1 counting every cell, as the linter does."""
    try:
        with open(path, encoding="utf-8") as f:
            book = json.load(f)
    except (OSError, ValueError):
        return ()
    cells = []
    for cell in book.get("cells", []) if isinstance(book, dict) else []:
        source = cell.get("source", "") if isinstance(cell, dict) else ""
        if isinstance(source, list):
            source = "".join(source)
        cells.append(tuple(split_lines(source if isinstance(source, str) else "")))
    return tuple(cells)


def source_lines(root: Path, path: str, cell: Optional[int] = None) -> Sequence[str]:
    """The lines a finding's line number counts in: the file's, or its notebook cell's."""
    full = str(root / path)
    if cell is not None:
        cells = _notebook_cells(full)
        return cells[cell - 1] if 0 < cell <= len(cells) else ()
    return _file_lines(full)


def line_at(lines: Sequence[str], line: int) -> str:
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def number_occurrences(findings: List[Finding]) -> List[Finding]:
    """Sort the findings and number duplicates of (corpus, path, code, line_text)."""
    findings.sort(key=lambda f: (f.corpus, f.path, f.cell or 0, f.line, f.column, f.code))
    seen: Counter = Counter()
    for f in findings:
        base = f.key[:4]
        seen[base] += 1
        f.occurrence = seen[base]
    return findings


def relative_path(path: str, root: Path) -> str:
    full = Path(path) if os.path.isabs(path) else root / path
    return Path(os.path.relpath(full, root)).as_posix()


def parse_findings(corpus: str, raw: Sequence[dict], root: Path) -> List[Finding]:
    findings = []
    for item in raw:
        path = relative_path(item["path"], root)
        cell = item.get("cell")
        line = int(item.get("line") or 0)
        findings.append(Finding(
            corpus=corpus, path=path, code=item["code"],
            line_text=line_at(source_lines(root, path, cell), line), line=line,
            column=int(item.get("column") or 0), name=item.get("name", ""),
            message=item.get("message", ""), cell=cell,
            end_line=int(item.get("end_line") or 0), end_column=int(item.get("end_column") or 0),
            reason=item.get("reason") or "", fixable=bool(item.get("fixable"))))
    return number_occurrences(findings)


def lint(corpus: Corpus, root: Path, linter: Sequence[str], options: Sequence[str],
         jobs: Optional[int]) -> List[Finding]:
    if corpus.include or corpus.exclude:
        targets = select_files(walk_files(root), corpus.include, corpus.exclude)
        if not targets:
            raise RuntimeError("the include globs match no file")
    else:
        targets = ["."]
    argv = [*linter, *options]
    if jobs:
        argv += ["--jobs", str(jobs)]
    proc = subprocess.run([*argv, *targets], cwd=root, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-5:])
        raise RuntimeError(f"the linter exited with {proc.returncode}: {tail}")
    try:
        raw = json.loads(proc.stdout or "[]")
    except ValueError as error:
        raise RuntimeError(f"the linter printed no JSON: {error}") from None
    return parse_findings(corpus.name, raw, root)


# --- verdicts -------------------------------------------------------------------------------

def _verdict_value(value: object, where: str) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str) and value.strip().lower() in (*VERDICT_VALUES, STUB):
        return value.strip().lower()
    raise ValueError(f"{where}: verdict must be true, false or \"unclear\", not {value!r}")


def parse_verdicts(data: dict, where: str = "verdicts") -> List[Verdict]:
    verdicts = []
    for i, entry in enumerate(data.get("verdict", []), 1):
        here = f"{where}: verdict {i}"
        missing = [k for k in ("corpus", "path", "code", "line_text", "verdict")
                   if k not in entry]
        if missing:
            raise ValueError(f"{here}: missing {', '.join(missing)}")
        verdicts.append(Verdict(
            corpus=entry["corpus"], path=entry["path"], code=entry["code"],
            line_text=entry["line_text"], verdict=_verdict_value(entry["verdict"], here),
            reason=entry.get("reason", ""), occurrence=int(entry.get("occurrence", 1))))
    keys = Counter(v.key for v in verdicts)
    dups = [k for k, n in keys.items() if n > 1]
    if dups:
        raise ValueError(f"{where}: {len(dups)} keys appear twice, e.g. {dups[0]}")
    return verdicts


def load_verdicts(path: Path) -> List[Verdict]:
    if not path.is_file():
        return []
    with open(path, "rb") as f:
        return parse_verdicts(tomllib.load(f), str(path))


def toml_string(text: str) -> str:
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch in "\b\t\n\f\r":
            out.append({"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _toml_verdict(value: str) -> str:
    return {"true": "true", "false": "false"}.get(value, toml_string(value))


def sort_key(v: Verdict) -> Key:
    return v.key


def dump_verdicts(verdicts: Iterable[Verdict], header: str = "",
                  comments: Optional[Dict[Key, str]] = None) -> str:
    """The verdicts as TOML, sorted by key; ``comments`` go above their entries."""
    parts = [header] if header else []
    for v in sorted(verdicts, key=sort_key):
        lines = []
        if comments and v.key in comments:
            lines += [f"# {c}" for c in comments[v.key].splitlines()]
        lines += ["[[verdict]]",
                  f"corpus = {toml_string(v.corpus)}",
                  f"path = {toml_string(v.path)}",
                  f"code = {toml_string(v.code)}",
                  f"line_text = {toml_string(v.line_text)}"]
        if v.occurrence != 1:
            lines.append(f"occurrence = {v.occurrence}")
        lines += [f"verdict = {_toml_verdict(v.verdict)}",
                  f"reason = {toml_string(v.reason)}"]
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)


VERDICTS_HEADER = """\
# Reviewed findings of the ecosystem check (check.py; see README.md).
# Key: corpus, path, code, line_text (the stripped source line), occurrence (when the same
# code fires on identical text more than once in a file; 1 if absent).
# verdict: true (the harm happens), false (false positive) or "unclear". Kept sorted by key.
"""

STUBS_HEADER = """\
# Unreviewed findings of the ecosystem check. Fill in `verdict` (true, false or "unclear")
# and a one-line `reason`, then: python benchmarks/ecosystem/check.py --merge THIS_FILE
# Entries left at "?" are skipped by --merge.
"""


def match(findings: Sequence[Finding], verdicts: Sequence[Verdict],
          corpora: Optional[Iterable[str]] = None) -> Match:
    """Pair findings with verdicts: exact key, then a shifted occurrence when unambiguous.

    Stale verdicts are only looked for in ``corpora`` (default: those of the findings'
    run, i.e. every corpus named there).
    """
    by_key = {v.key: v for v in verdicts}
    matched: Dict[Key, Verdict] = {}
    used = set()
    left: List[Finding] = []
    for f in findings:
        v = by_key.get(f.key)
        if v is not None:
            matched[f.key] = v
            used.add(v.key)
        else:
            left.append(f)
    # Loose pass: a duplicate appeared or went, so the occurrences shifted.
    spare: Dict[tuple, List[Verdict]] = defaultdict(list)
    for v in verdicts:
        if v.key not in used:
            spare[v.key[:4]].append(v)
    waiting: Dict[tuple, List[Finding]] = defaultdict(list)
    for f in left:
        waiting[f.key[:4]].append(f)
    rekeyed = []
    for base, group in waiting.items():
        candidates = sorted(spare.get(base, []), key=lambda v: v.occurrence)
        if not candidates or len({v.verdict for v in candidates}) != 1:
            continue
        for f, v in zip(group, candidates):
            matched[f.key] = v
            used.add(v.key)
            rekeyed.append((v, f))
    unreviewed = [f for f in findings
                  if f.key not in matched or matched[f.key].verdict not in VERDICT_VALUES]
    scope = set(corpora) if corpora is not None else {f.corpus for f in findings}
    stale = [v for v in verdicts if v.key not in used and v.corpus in scope]
    return Match(verdicts=matched, unreviewed=unreviewed, stale=stale, rekeyed=rekeyed)


def pruned(verdicts: Sequence[Verdict], result: Match) -> List[Verdict]:
    """The verdicts without the stale ones, loose matches moved to their findings' keys."""
    stale = {v.key for v in result.stale}
    moved = {v.key: f.occurrence for v, f in result.rekeyed}
    out = []
    for v in verdicts:
        if v.key in stale:
            continue
        if v.key in moved:
            v = Verdict(**{**asdict(v), "occurrence": moved[v.key]})
        out.append(v)
    return sorted(out, key=sort_key)


def stubs(findings: Sequence[Finding]) -> Tuple[List[Verdict], Dict[Key, str]]:
    entries, comments = [], {}
    for f in findings:
        entries.append(Verdict(corpus=f.corpus, path=f.path, code=f.code,
                               line_text=f.line_text, verdict=STUB, occurrence=f.occurrence))
        comments[f.key] = f"{f.code} {f.where}: {f.message}"
    return entries, comments


def merge(verdicts: Sequence[Verdict], filled: Sequence[Verdict]) -> Tuple[List[Verdict], int,
                                                                           int]:
    """Filled stubs replace or add verdicts of their key; "?" stubs are skipped.

    Returns the sorted verdicts, the number merged and the number skipped.
    """
    by_key = {v.key: v for v in verdicts}
    merged = skipped = 0
    for v in filled:
        if v.verdict not in VERDICT_VALUES:
            skipped += 1
            continue
        by_key[v.key] = v
        merged += 1
    return sorted(by_key.values(), key=sort_key), merged, skipped


# --- report ---------------------------------------------------------------------------------

COLUMNS = ("found", "true", "false", "unclear", "unreviewed")


def precision(row: Dict[str, int]) -> Optional[float]:
    judged = row["true"] + row["false"]
    return row["true"] / judged if judged else None


def tally(findings: Sequence[Finding], result: Match, by: str) -> Dict[str, Dict[str, int]]:
    """Counts per rule code (``by="code"``) or per corpus (``by="corpus"``)."""
    rows: Dict[str, Dict[str, int]] = defaultdict(lambda: dict.fromkeys(COLUMNS, 0))
    for f in findings:
        row = rows[getattr(f, by)]
        row["found"] += 1
        row[result.status(f)] += 1
    return dict(sorted(rows.items()))


def total(rows: Dict[str, Dict[str, int]]) -> Dict[str, int]:
    out = dict.fromkeys(COLUMNS, 0)
    for row in rows.values():
        for c in COLUMNS:
            out[c] += row[c]
    return out


def _pct(value: Optional[float]) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def markdown_table(title: str, rows: Dict[str, Dict[str, int]],
                   names: Optional[Dict[str, str]] = None) -> str:
    head = f"| {title} | " + " | ".join(COLUMNS) + " | precision |"
    lines = [head, "|" + "---|" * (len(COLUMNS) + 2)]
    for label, row in [*rows.items(), ("**overall**", total(rows))]:
        shown = f"{label} {names[label]}" if names and label in names else label
        lines.append(f"| {shown} | " + " | ".join(str(row[c]) for c in COLUMNS)
                     + f" | {_pct(precision(row))} |")
    return "\n".join(lines)


def matrix_table(findings: Sequence[Finding], corpora: Sequence[str]) -> str:
    """Findings per corpus (rows) and rule (columns)."""
    codes = sorted({f.code for f in findings})
    counts = Counter((f.corpus, f.code) for f in findings)
    lines = ["| corpus | " + " | ".join(codes) + " | total |",
             "|" + "---|" * (len(codes) + 2)]
    for name in corpora:
        cells = [counts[(name, c)] for c in codes]
        lines.append(f"| {name} | " + " | ".join(str(n or "") for n in cells)
                     + f" | {sum(cells)} |")
    cells = [sum(counts[(n, c)] for n in corpora) for c in codes]
    lines.append("| **total** | " + " | ".join(map(str, cells)) + f" | {sum(cells)} |")
    return "\n".join(lines)


def context(root: Path, f: Finding, around: int = 2) -> str:
    lines = source_lines(root, f.path, f.cell)
    lo, hi = max(1, f.line - around), min(len(lines), f.line + around)
    width = len(str(hi))
    return "\n".join(f"{'>' if n == f.line else ' '} {n:>{width}} | {lines[n - 1]}"
                     for n in range(lo, hi + 1))


def listing(findings: Sequence[Finding], result: Match, which: str,
            roots: Dict[str, Path]) -> str:
    out = []
    for f in findings:
        status = result.status(f)
        if which != "all" and status != which:
            continue
        verdict = result.verdicts.get(f.key)
        note = f" [{status}: {verdict.reason}]" if verdict and status != "unreviewed" else (
            f" [{status}]" if which == "all" else "")
        out.append(f"{f.code} {f.where}: {f.message}{note}")
        if f.corpus in roots:
            out.append(context(roots[f.corpus], f))
        out.append("")
    return "\n".join(out)


def diff(previous: Sequence[dict], current: Sequence[Finding],
         corpora: Iterable[str]) -> Tuple[List[dict], List[dict]]:
    """Findings new and gone since ``previous`` (last run's records), within ``corpora``."""
    scope = set(corpora)

    def key(d: dict) -> Key:
        return (d["corpus"], d["path"], d["code"], d["line_text"], d.get("occurrence", 1))

    before = {key(d): d for d in previous if d["corpus"] in scope}
    now = {f.key: asdict(f) for f in current if f.corpus in scope}
    new = [now[k] for k in sorted(set(now) - set(before))]
    gone = [before[k] for k in sorted(set(before) - set(now))]
    return new, gone


def save_last_run(path: Path, findings: Sequence[Finding], corpora: Sequence[str],
                  previous: Optional[dict]) -> None:
    """Record this run; corpora not run this time keep their previous records."""
    kept = [d for d in (previous or {}).get("findings", []) if d["corpus"] not in corpora]
    names = sorted(set((previous or {}).get("corpora", [])) | set(corpora))
    data = {"corpora": names, "findings": kept + [asdict(f) for f in findings]}
    data["findings"].sort(key=lambda d: (d["corpus"], d["path"], d.get("cell") or 0,
                                         d["line"], d["column"], d["code"]))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")


def load_last_run(path: Path) -> Optional[dict]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


# --- command line ---------------------------------------------------------------------------

def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Lint pinned corpora with tffunc-lint and compare with the verdicts.")
    p.add_argument("--corpus", action="append", default=[], metavar="NAME",
                   help="lint this corpus (repeatable; default: all)")
    p.add_argument("--group", action="append", default=[], metavar="GROUP",
                   help="lint every corpus of this group (repeatable)")
    p.add_argument("--corpora", type=Path, default=CORPORA_FILE, help="corpus list (TOML)")
    p.add_argument("--verdicts", type=Path, default=VERDICTS_FILE, help="verdict file (TOML)")
    p.add_argument("--cache", type=Path, default=CACHE_DIR, help="download and run cache")
    p.add_argument("--git-source", action="append", default=[], metavar="OWNER/NAME=DIR",
                   help="use a local clone or bare git dir instead of the repository's URL")
    p.add_argument("--offline", action="store_true", help="fail corpora not in the cache")
    p.add_argument("--fetch-only", action="store_true", help="fetch the corpora, lint nothing")
    p.add_argument("--cached", action="store_true",
                   help="reuse the findings of the last run instead of linting again")
    p.add_argument("--linter", metavar="COMMAND",
                   help="the linter's command (default: tffunc-lint next to this Python, "
                        "else on PATH, else python -m tffunc_lint)")
    p.add_argument("--jobs", type=int, help="the linter's --jobs")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--list", choices=LIST_CHOICES,
                   help="print these findings with 2 lines of context each")
    p.add_argument("--diff", action="store_true", help="findings new/gone since the last run")
    p.add_argument("--prune", action="store_true",
                   help="remove stale verdicts (of the corpora linted) from the verdict file")
    p.add_argument("--write-unreviewed", type=Path, metavar="FILE",
                   help="write the unreviewed findings as verdict stubs to FILE")
    p.add_argument("--merge", type=Path, metavar="FILE",
                   help="merge filled-in stubs into the verdict file and exit")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 on unreviewed findings, stale verdicts or failed corpora")
    return p.parse_args(argv)


def _sources(specs: Sequence[str]) -> Dict[str, str]:
    out = {}
    for spec in specs:
        repo, sep, path = spec.partition("=")
        if not sep or "/" not in repo or not path:
            raise SystemExit(f"--git-source wants OWNER/NAME=DIR, not {spec!r}")
        out[repo.strip()] = path
    return out


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_merge(args: argparse.Namespace) -> int:
    with open(args.merge, "rb") as f:
        filled = parse_verdicts(tomllib.load(f), str(args.merge))
    verdicts, merged, skipped = merge(load_verdicts(args.verdicts), filled)
    args.verdicts.write_text(dump_verdicts(verdicts, VERDICTS_HEADER))
    empty = sum(1 for v in filled if v.verdict in VERDICT_VALUES and not v.reason.strip())
    _say(f"merged {merged} verdicts into {args.verdicts.name} ({len(verdicts)} in all); "
         f"{skipped} stubs still '?' skipped" + (f"; {empty} without a reason" if empty else ""))
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    if args.merge:
        return run_merge(args)
    try:
        corpora = select_corpora(load_corpora(args.corpora), args.corpus, args.group)
    except ValueError as error:
        raise SystemExit(str(error))
    sources = _sources(args.git_source)
    last_path = args.cache / LAST_RUN
    previous = load_last_run(last_path)
    linter = shlex.split(args.linter) if args.linter else linter_command()
    if os.sep in linter[0] or (os.altsep and os.altsep in linter[0]):
        linter[0] = os.path.abspath(linter[0])  # the linter runs in each corpus's root
    options = [] if args.cached or args.fetch_only else linter_options(linter)
    roots: Dict[str, Path] = {}
    errors: Dict[str, str] = {}
    notes: Dict[str, str] = {}
    findings: List[Finding] = []
    for corpus in corpora:
        try:
            root, missing = fetch(corpus, args.cache, sources, args.offline or args.cached)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as error:
            errors[corpus.name] = f"fetch failed: {error}"
            _say(f"{corpus.name}: {errors[corpus.name]}")
            continue
        roots[corpus.name] = root
        if missing:
            notes[corpus.name] = (f"{len(missing)} files missing from the git source, not "
                                  f"linted: {', '.join(missing)}")
            _say(f"{corpus.name}: {notes[corpus.name]}")
        if args.fetch_only:
            _say(f"{corpus.name}: {root}")
            continue
        if args.cached:
            if not previous or corpus.name not in previous.get("corpora", []):
                errors[corpus.name] = "not in the last run"
                continue
            findings += [Finding(**d) for d in previous["findings"] if d["corpus"] == corpus.name]
            continue
        _say(f"{corpus.name}: linting ...")
        try:
            found = lint(corpus, root, linter, options, args.jobs)
        except (RuntimeError, OSError) as error:
            errors[corpus.name] = str(error)
            _say(f"{corpus.name}: {error}")
            continue
        _say(f"{corpus.name}: {len(found)} findings")
        findings += found
    if args.fetch_only:
        return 1 if errors else 0

    linted = [c.name for c in corpora if c.name not in errors]
    verdicts = load_verdicts(args.verdicts)
    result = match(findings, verdicts, linted)
    rules = tally(findings, result, "code")
    counted = tally(findings, result, "corpus")
    per_corpus = {name: counted.get(name, dict.fromkeys(COLUMNS, 0)) for name in linted}
    names = {f.code: f.name for f in findings}
    changes = diff(previous.get("findings", []), findings,
                   [c for c in linted if c in previous.get("corpora", [])]) \
        if args.diff and previous else None
    if not args.cached:
        save_last_run(last_path, findings, linted, previous)

    if args.json:
        out = {
            "rules": {code: {**row, "precision": precision(row)} for code, row in rules.items()},
            "overall": {**total(rules), "precision": precision(total(rules))},
            "corpora": {name: {**row, "precision": precision(row)}
                        for name, row in per_corpus.items()},
            "errors": errors,
            "incomplete": notes,
            "findings": [{**asdict(f), "status": result.status(f),
                          "verdict_reason": getattr(result.verdicts.get(f.key), "reason", None)}
                         for f in findings],
            "stale": [asdict(v) for v in result.stale],
        }
        if changes is not None:
            out["diff"] = {"new": changes[0], "gone": changes[1]}
        print(json.dumps(out, indent=1))
    else:
        print(f"## Ecosystem check: {len(findings)} findings in {len(linted)} corpora\n")
        print(markdown_table("rule", rules, names) + "\n")
        print(markdown_table("corpus", per_corpus) + "\n")
        if findings:
            print(matrix_table(findings, linted) + "\n")
        for name, error in errors.items():
            print(f"- **{name}** failed: {error}")
        for name, note in notes.items():
            print(f"- **{name}** incomplete: {note}")
        if result.stale:
            print(f"\n{len(result.stale)} stale verdicts (no finding matches; --prune drops):")
            for v in result.stale:
                print(f"- {v.code} {v.corpus}:{v.path}: `{v.line_text}` ({v.verdict})")
        if result.rekeyed:
            print(f"\n{len(result.rekeyed)} verdicts matched with a shifted occurrence.")
        if changes is not None:
            new, gone = changes
            print(f"\n### Since the last run: {len(new)} new (+), {len(gone)} gone (-)\n")
            print("```diff")
            for sign, items in (("+", new), ("-", gone)):
                for d in items:
                    cell = f":cell {d['cell']}" if d.get("cell") is not None else ""
                    print(f"{sign} {d['code']} {d['corpus']}:{d['path']}{cell}:{d['line']}: "
                          f"{d['message']}")
            print("```")
        elif args.diff:
            print("\n(no last run to compare with)")
        if args.list:
            print(f"\n### Findings: {args.list}\n")
            print(listing(findings, result, args.list, roots))

    if args.write_unreviewed:
        entries, comments = stubs(result.unreviewed)
        args.write_unreviewed.write_text(dump_verdicts(entries, STUBS_HEADER, comments))
        _say(f"wrote {len(entries)} stubs to {args.write_unreviewed}")
    if args.prune and (result.stale or result.rekeyed):
        args.verdicts.write_text(dump_verdicts(pruned(verdicts, result), VERDICTS_HEADER))
        _say(f"pruned {len(result.stale)} stale verdicts, re-keyed {len(result.rekeyed)}")
    if errors:
        return 1
    if args.strict and (result.unreviewed or result.stale):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
