"""``tffunc-lint --verify``: run every rule's fixtures under the installed TensorFlow.

The parent process never imports TensorFlow. It checks the static side itself (the linter
flags exactly the annotated lines of ``bad.py`` and nothing in ``good.py``) and hands each
recipe to a pool of worker processes (:mod:`.worker`), each of which imports TensorFlow once.
A recipe that crashes its worker, or runs past the timeout, is reported as that rule's
failure; the worker is replaced and the other rules go on.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import platform
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from ..config import Settings
from ..engine import lint_source
from ..fixtures import FIXTURES_DIR, expected_findings
from ..rule import Scope, all_rules
from . import DEFAULT_TIMEOUT

RECIPES_DIR = Path(__file__).resolve().parent / "recipes"
#: The whole-program speed-up from the course page: a 1 000-step training loop.
HOMEWORK = "homework"
#: Importing TensorFlow can take a while on a cold disk; a worker gets this long to start.
STARTUP_TIMEOUT = 180.0


class VerifyUnavailable(Exception):
    """``--verify`` cannot run here (TensorFlow missing); the CLI exits 2 with the message."""


@dataclass
class Claim:
    """One rule's recipe and fixtures, and, once run, what was observed."""

    key: str
    name: str
    claim: str
    recipe: Path
    bad: Path
    good: Path
    bound: Optional[float] = None
    static: Optional[Dict[str, object]] = None
    reply: Dict[str, object] = field(default_factory=dict)

    @property
    def speedup(self) -> Optional[float]:
        speed = self.reply.get("speed") or {}
        if "bad_seconds" not in speed:
            return None
        good = float(speed["good_seconds"])
        return float(speed["bad_seconds"]) / good if good > 0 else float("inf")

    def failures(self) -> List[str]:
        """Why this claim does not hold; empty when it does."""
        reasons: List[str] = []
        if "error" in self.reply:
            reasons.append(str(self.reply["error"]))
        for phase, wanted in (("bad", "bad fixture shows the pitfall"),
                              ("good", "good fixture shows the fix working")):
            outcome = self.reply.get(phase)
            if outcome is not None and not outcome["holds"]:
                reasons.append(f"{wanted}: no ({outcome['detail']})")
        if self.static is not None and not self.static["agrees"]:
            reasons.append(f"static analysis disagrees: {self.static['detail']}")
        speed = self.reply.get("speed") or {}
        if "error" in speed:
            reasons.append(f"speed measurement failed: {speed['error']}")
        elif self.bound is not None and self.speedup is not None and self.speedup < self.bound:
            reasons.append(f"speedup {self.speedup:.2f}x is below the stated {self.bound:g}x")
        if not reasons and ("bad" not in self.reply or "good" not in self.reply):
            reasons.append("no result")
        return reasons

    @property
    def holds(self) -> bool:
        return not self.failures()

    def as_dict(self) -> Dict[str, object]:
        speed = self.reply.get("speed") or {}
        return {
            "rule": self.key, "name": self.name, "claim": self.claim,
            "holds": self.holds, "failures": self.failures(),
            "bad_shows_pitfall": (self.reply.get("bad") or {}).get("holds"),
            "bad_detail": (self.reply.get("bad") or {}).get("detail"),
            "good_clean": (self.reply.get("good") or {}).get("holds"),
            "good_detail": (self.reply.get("good") or {}).get("detail"),
            "static_agrees": None if self.static is None else self.static["agrees"],
            "static_detail": None if self.static is None else self.static["detail"],
            "speedup": self.speedup, "speedup_at_least": self.bound,
            "bad_seconds": speed.get("bad_seconds"), "good_seconds": speed.get("good_seconds"),
            "seconds": self.reply.get("seconds"),
        }


def _literal(tree: ast.Module, name: str):
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name):
            try:
                return ast.literal_eval(node.value)
            except ValueError:
                return None
    return None


def load_claim(key: str, name: str, recipe: Path, fixtures: Path) -> Claim:
    """Read a recipe's literal metadata without importing it (it imports TensorFlow)."""
    if not recipe.is_file():
        return Claim(key=key, name=name, claim="(no recipe)", recipe=recipe,
                     bad=fixtures / "bad.py", good=fixtures / "good.py")
    tree = ast.parse(recipe.read_text(encoding="utf-8"), str(recipe))
    bound = _literal(tree, "SPEEDUP_AT_LEAST")
    return Claim(key=key, name=name, claim=str(_literal(tree, "CLAIM") or "(no CLAIM)"),
                 recipe=recipe, bad=fixtures / "bad.py", good=fixtures / "good.py",
                 bound=float(bound) if bound is not None else None)


def available_claims(recipes_dir: Path = RECIPES_DIR,
                     fixtures_dir: Path = FIXTURES_DIR) -> List[Claim]:
    """Every rule's claim (TFF000 excepted: it is about unreadable files), then the homework."""
    claims = []
    for rule in all_rules():
        if rule.code == "TFF000" or rule.scope is Scope.NOQA:  # not claims about TensorFlow
            continue
        claims.append(load_claim(rule.code, rule.name, recipes_dir / f"{rule.code.lower()}.py",
                                 fixtures_dir / rule.code))
    homework = recipes_dir / f"{HOMEWORK}.py"
    if homework.is_file():
        claims.append(load_claim(HOMEWORK, "tf-function-training-loop-speedup", homework,
                                 fixtures_dir / HOMEWORK))
    return claims


def static_agreement(claim: Claim) -> Optional[Dict[str, object]]:
    """Does the linter flag exactly ``bad.py``'s annotated lines and nothing in ``good.py``?"""
    if not claim.key.startswith("TFF"):
        return None  # the homework is a speed claim, not a rule
    settings = Settings(select=(claim.key,)).resolved()
    problems = []
    announced = 0
    for path in (claim.bad, claim.good):
        found = {(f.line, f.code) for f in
                 lint_source(str(path), path.read_bytes(), settings).findings}
        expected = {(line, code) for line, code in expected_findings(path) if code == claim.key}
        if path is claim.bad:
            announced = len(expected)
            if not expected:
                problems.append(f"{path.name} announces no `# expect: {claim.key}`")
        for line, code in sorted(found - expected):
            problems.append(f"{path.name}:{line} unexpected {code}")
        for line, code in sorted(expected - found):
            problems.append(f"{path.name}:{line} missing {code}")
    detail = "; ".join(problems) or f"{announced} finding(s) in bad.py, none in good.py"
    return {"agrees": not problems, "detail": detail}


#: TensorFlow's native log lines, written to stderr before any log level applies.
_NATIVE_LOG = re.compile(r"\s*([IWEF]\d{4} |WARNING: All log messages before absl)")


class _Worker:
    """One worker process and a thread that turns its replies into a queue."""

    def __init__(self):
        env = dict(os.environ)
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tffunc_lint.verify.worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
            env=env, text=True, encoding="utf-8")
        self.replies: "queue.Queue[Optional[str]]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.replies.put(line)
        self.replies.put(None)

    def receive(self, timeout: float) -> Dict[str, object]:
        try:
            line = self.replies.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"timed out after {timeout:g} s") from None
        if line is None:
            raise RuntimeError(self._death())
        return json.loads(line)

    def send(self, request: Dict[str, str]) -> None:
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()

    def _death(self) -> str:
        """How the worker ended, with the last line of its own (not TensorFlow's) stderr."""
        code = self.process.wait()
        self.stderr.seek(0)
        lines = [line.strip() for line in
                 self.stderr.read().decode("utf-8", "replace").splitlines()
                 if line.strip() and not _NATIVE_LOG.match(line)]
        tail = f": {lines[-1][:300]}" if lines else ""
        if code < 0:
            return f"worker killed by signal {-code}{tail}"
        return f"worker exited with code {code}{tail}"

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.stderr.close()


@dataclass
class Report:
    claims: List[Claim]
    tensorflow: str
    python: str
    workers: int
    seconds: float

    @property
    def holds(self) -> bool:
        return all(claim.holds for claim in self.claims)

    def as_dict(self) -> Dict[str, object]:
        return {"tensorflow": self.tensorflow, "python": self.python, "workers": self.workers,
                "seconds": self.seconds, "holds": self.holds,
                "claims": [claim.as_dict() for claim in self.claims]}


class _Finished:
    """Calls ``on_done(claim)`` once a claim has both its static and its dynamic side."""

    def __init__(self, on_done: Optional[Callable[[Claim], None]]):
        self._on_done = on_done
        self._lock = threading.Lock()
        self._halves: Dict[int, int] = {}

    def half(self, claim: Claim) -> None:
        if self._on_done is None:
            return
        with self._lock:  # also keeps the callbacks (table rows) from interleaving
            self._halves[id(claim)] = self._halves.get(id(claim), 0) + 1
            if self._halves[id(claim)] == 2:
                self._on_done(claim)


def _serve(claims: "queue.Queue[Claim]", timeout: float, versions: List[str],
           finished: Optional[_Finished] = None) -> None:
    """One pool slot: run claims on a worker, replacing the worker after a crash or hang."""
    worker: Optional[_Worker] = None
    try:
        while True:
            try:
                claim = claims.get_nowait()
            except queue.Empty:
                return
            started = time.perf_counter()
            try:
                if worker is None:
                    worker = _Worker()
                    versions.append(str(worker.receive(STARTUP_TIMEOUT)["ready"]))
                worker.send({"code": claim.key, "recipe": str(claim.recipe),
                             "bad": str(claim.bad), "good": str(claim.good)})
                claim.reply = worker.receive(timeout)
            except (TimeoutError, RuntimeError, OSError, ValueError) as error:
                claim.reply = {"error": str(error), "seconds": time.perf_counter() - started}
                if worker is not None:
                    worker.close()
                worker = None
            if finished is not None:
                finished.half(claim)
    finally:
        if worker is not None:
            worker.close()


def tensorflow_available() -> bool:
    try:
        return importlib.util.find_spec("tensorflow") is not None
    except (ImportError, ValueError):
        return False


def verify(claims: Sequence[Claim], workers: int = 2, timeout: float = DEFAULT_TIMEOUT,
           on_done: Optional[Callable[[Claim], None]] = None) -> Report:
    """Run ``claims`` (static side here, dynamic side in workers) and report on each;
    ``on_done(claim)`` is called as each claim is complete, in the order they finish."""
    if not tensorflow_available():
        raise VerifyUnavailable("TensorFlow is not installed; `--verify` runs the fixtures "
                                "under it: install tffunc-lint[verify]")
    started = time.perf_counter()
    finished = _Finished(on_done)
    pending: "queue.Queue[Claim]" = queue.Queue()
    for claim in claims:
        missing = [p.name for p in (claim.recipe, claim.bad, claim.good) if not p.is_file()]
        if missing:
            claim.reply = {"error": "missing " + ", ".join(missing)}
            finished.half(claim)
            continue
        pending.put(claim)
    versions: List[str] = []
    slots = [threading.Thread(target=_serve, args=(pending, timeout, versions, finished),
                              daemon=True)
             for _ in range(max(1, min(workers, pending.qsize())))]
    for slot in slots:
        slot.start()
    for claim in claims:  # the static side runs here while the workers import TensorFlow
        if claim.bad.is_file() and claim.good.is_file():
            claim.static = static_agreement(claim)
        finished.half(claim)
    for slot in slots:
        slot.join()
    return Report(list(claims), versions[0] if versions else "unknown",
                  platform.python_version(), len(slots), time.perf_counter() - started)


def _yes_no(value: Optional[bool]) -> str:
    return "-" if value is None else ("yes" if value else "NO")


_HEADER = ("rule", "bad shows pitfall", "good clean", "static agrees", "speedup", "seconds",
           "claim")


def _row(claim: Claim) -> tuple:
    data = claim.as_dict()
    speedup = "-"
    if claim.speedup is not None:
        speedup = f"{claim.speedup:.1f}x"
        if claim.bound is not None:
            speedup += f" (>= {claim.bound:g}x)"
    seconds = f"{data['seconds']:.1f}" if data["seconds"] is not None else "-"
    return (claim.key, _yes_no(data["bad_shows_pitfall"]), _yes_no(data["good_clean"]),
            _yes_no(data["static_agrees"]), speedup, seconds, claim.claim)


def _table_line(row: tuple, widths: Sequence[int]) -> str:
    cells = [cell.ljust(width) for cell, width in zip(row, widths)]
    return "  ".join(cells + [row[-1]]).rstrip() + "\n"


class StreamingTable:
    """The text report written as it happens: the table's header at once, each rule's line
    as soon as its claim is complete (in the order they finish), then the rest with
    :meth:`finish`. Column widths are fixed up front from the claims' keys."""

    def __init__(self, claims: Sequence[Claim], stream):
        self._stream = stream
        self._widths = [max([len(_HEADER[0])] + [len(claim.key) for claim in claims]),
                        *map(len, _HEADER[1:4]), len("1000.0x (>= 1000x)"), len("1000.0")]
        stream.write(_table_line(_HEADER, self._widths))
        stream.flush()

    def __call__(self, claim: Claim) -> None:
        self._stream.write(_table_line(_row(claim), self._widths))
        self._stream.flush()

    def finish(self, report: Report) -> None:
        self._stream.write(f"\nTensorFlow {report.tensorflow}, Python {report.python}, "
                           f"{report.workers} worker(s)\n")
        _write_details(report, self._stream)


def write_report(report: Report, output_format: str, stream) -> None:
    if output_format == "json":
        json.dump(report.as_dict(), stream, indent=2)
        stream.write("\n")
        return
    stream.write(f"TensorFlow {report.tensorflow}, Python {report.python}, "
                 f"{report.workers} worker(s)\n\n")
    rows = [_row(claim) for claim in report.claims]
    widths = [max(len(row[i]) for row in rows + [_HEADER]) for i in range(len(_HEADER) - 1)]
    for row in [_HEADER] + rows:
        stream.write(_table_line(row, widths))
    _write_details(report, stream)


def _write_details(report: Report, stream) -> None:
    stream.write("\n")
    for claim in report.claims:
        data = claim.as_dict()
        if claim.holds:
            stream.write(f"{claim.key}: bad: {data['bad_detail']}; good: {data['good_detail']}\n")
        else:
            stream.write(f"{claim.key} FAILED: " + "; ".join(claim.failures()) + "\n")
    failed = sum(not claim.holds for claim in report.claims)
    stream.write(f"\n{len(report.claims)} claim(s): {len(report.claims) - failed} hold, "
                 f"{failed} failed ({report.seconds:.1f} s)\n")
