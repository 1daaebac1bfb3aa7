#!/usr/bin/env python3
"""Speed / memory benchmark: tffunc-lint vs. flake8 and ruff (pyflakes rules).

The corpus is the source of the ``tf-models-official==2.20.0`` wheel, a large,
real-world TensorFlow code base.  It is downloaded once with ``pip download``
into the cache directory (default ``benchmarks/.cache/``) and unpacked there;
later runs reuse it.  ``--src DIR`` benchmarks an existing directory instead.

Each tool runs ``--repeat`` times, interleaved round-robin (after one untimed
warm-up round) so that machine noise hits all tools alike.  Every run goes
through a tiny wrapper process that times the command and reads
``getrusage(RUSAGE_CHILDREN).ru_maxrss``: the peak RSS of the largest single
process of the run (worker processes are not summed).

Usage: ``python benchmarks/run.py [--repeat 5] [--json] [--strict]`` (see
``--help``).  Exit code is 0 unless ``--strict`` is given and tffunc-lint
misses a target (or could not be measured cleanly).  Standard library only.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import zipfile
from pathlib import Path

PACKAGE, VERSION = "tf-models-official", "2.20.0"
WHEEL_GLOB = f"tf_models_official-{VERSION}-*.whl"
HERE = Path(__file__).resolve().parent

# name -> argv (without the source directory, which is appended).
TOOLS = {
    "tffunc-lint": ["tffunc-lint", "--exit-zero"],
    "flake8": ["flake8", "--select=F", "-j2"],
    "ruff": ["ruff", "check", "--select=F", "--no-cache", "--exit-zero"],
}
OK_CODES = (0, 1)  # 1 = "findings were reported"

# Runs argv[1:] with output discarded; prints "<returncode> <seconds> <maxrss>".
WRAPPER = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "rc = subprocess.call(sys.argv[1:], stdin=subprocess.DEVNULL,"
    " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "dt = time.perf_counter() - t\n"
    "print(rc, dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)
# ru_maxrss is in KiB on Linux, in bytes on macOS.
RSS_UNIT = 1 if sys.platform == "darwin" else 1024


def fetch_corpus(cache: Path) -> Path:
    """Download (once) and unpack (once) the wheel; return the source dir."""
    cache.mkdir(parents=True, exist_ok=True)
    wheels = sorted(cache.glob(WHEEL_GLOB))
    if not wheels:
        print(f"downloading {PACKAGE}=={VERSION} ...", file=sys.stderr)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps",
               "--no-binary", ":none:", f"{PACKAGE}=={VERSION}", "-d", str(cache)]
        if subprocess.call(cmd, stdout=subprocess.DEVNULL):
            sys.exit(f"error: pip download failed (or use --src DIR): {cmd}")
        wheels = sorted(cache.glob(WHEEL_GLOB))
        if not wheels:
            sys.exit(f"error: pip download produced no {WHEEL_GLOB} in {cache}")
    src = cache / "src" / "tf_models_official"
    if not src.is_dir():
        tmp = src.with_name(src.name + ".partial")
        shutil.rmtree(tmp, ignore_errors=True)
        with zipfile.ZipFile(wheels[0]) as zf:
            zf.extractall(tmp)
        tmp.rename(src)  # atomic: an interrupted unpack is redone next time
    return src


def count_python(src: Path) -> tuple[int, int]:
    """Return (number of .py files, total lines) under src."""
    files = lines = 0
    for path in src.rglob("*.py"):
        files += 1
        with open(path, "rb") as fh:
            lines += sum(1 for _ in fh)
    return files, lines


def find_tool(name: str) -> str | None:
    """Executable next to the running interpreter (a venv), else on PATH."""
    local = Path(sys.executable).parent / name
    if local.is_file() and os.access(local, os.X_OK):
        return str(local)
    return shutil.which(name)


def run_once(argv: list[str]) -> tuple[int, float, float]:
    """Run argv through the wrapper; return (returncode, seconds, peak RSS MB)."""
    out = subprocess.run([sys.executable, "-c", WRAPPER, *argv],
                         check=True, capture_output=True, text=True).stdout
    rc, secs, rss = out.split()
    return int(rc), float(secs), int(rss) * RSS_UNIT / 2**20


def benchmark(src: Path, repeat: int, warmup: int) -> dict:
    results = {}
    for name, argv in TOOLS.items():
        exe = find_tool(argv[0])
        results[name] = {"installed": exe is not None,
                         "argv": [exe, *argv[1:], str(src)] if exe else None,
                         "times": [], "rss_mb": [], "errors": []}
    active = [r for r in results.values() if r["installed"]]
    for i in range(warmup + repeat):
        for res in active:  # round-robin: one run of each tool per round
            rc, secs, rss = run_once(res["argv"])
            if rc not in OK_CODES:
                res["errors"].append(f"exit code {rc}")
            if i >= warmup:
                res["times"].append(secs)
                res["rss_mb"].append(rss)
    for res in active:
        res["median_s"] = statistics.median(res["times"])
        res["min_s"] = min(res["times"])
        res["peak_rss_mb"] = max(res["rss_mb"])
    return results


def ratio(results: dict, other: str) -> float | None:
    a, b = results["tffunc-lint"], results[other]
    if a["installed"] and b["installed"]:
        return a["median_s"] / b["median_s"]
    return None


def check_targets(results: dict, target_ratio: float, max_rss: float) -> dict:
    """ok is None ("not checked") if tffunc-lint is missing or exited badly."""
    tl, r = results["tffunc-lint"], ratio(results, "flake8")
    valid = tl["installed"] and not tl["errors"]
    return {
        "ratio_vs_flake8": {"target": target_ratio,
                            "ok": r <= target_ratio if valid and r else None},
        "peak_rss_mb": {"target": max_rss,
                        "ok": tl["peak_rss_mb"] <= max_rss if valid else None},
    }


def fmt(x: float | None, spec: str = ".2f") -> str:
    return "n/a" if x is None else format(x, spec)


def print_markdown(data: dict) -> None:
    res, meta = data["results"], data["meta"]
    print("| tool | median s | min s | peak RSS MB | ratio vs flake8 |")
    print("|---|---:|---:|---:|---:|")
    base = res["flake8"].get("median_s")
    for name, r in res.items():
        if not r["installed"]:
            print(f"| {name} | not installed | | | |")
            continue
        rel = r["median_s"] / base if base else None
        print(f"| {name} | {r['median_s']:.3f} | {r['min_s']:.3f} "
              f"| {r['peak_rss_mb']:.0f} | {fmt(rel)} |")
    print()
    print(f"{meta['py_files']} .py files, {meta['lines']} lines; "
          f"Python {meta['python']}; {meta['cpus']} CPUs; "
          f"{meta['repeat']} timed runs per tool (round-robin).")
    print("Peak RSS = largest single process of a run (workers not summed).")
    print(f"tffunc-lint / flake8 = {fmt(data['ratios']['flake8'])}, "
          f"tffunc-lint / ruff = {fmt(data['ratios']['ruff'])}")
    for name, r in res.items():
        for err in sorted(set(r["errors"])):
            print(f"WARNING: {name}: {err} (expected 0 or 1)")
    for key, t in data["targets"].items():
        verdict = {True: "MET", False: "MISSED", None: "not checked"}[t["ok"]]
        print(f"target {key} <= {t['target']}: {verdict}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per tool")
    ap.add_argument("--warmup", type=int, default=1, help="untimed rounds first")
    ap.add_argument("--cache-dir", type=Path, default=HERE / ".cache",
                    help="download/unpack dir (default: benchmarks/.cache)")
    ap.add_argument("--src", type=Path, help="benchmark this directory instead")
    ap.add_argument("--json", action="store_true", help="print JSON data")
    ap.add_argument("--target-ratio", type=float, default=0.25,
                    help="max tffunc-lint/flake8 median ratio (default 0.25)")
    ap.add_argument("--max-rss-mb", type=float, default=300.0,
                    help="max tffunc-lint peak RSS in MB (default 300)")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 if tffunc-lint misses a target")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be >= 1")
    if args.src is not None and not args.src.is_dir():
        ap.error(f"--src {args.src}: not a directory")

    src = args.src if args.src is not None else fetch_corpus(args.cache_dir)
    files, lines = count_python(src)
    results = benchmark(src, args.repeat, args.warmup)
    data = {
        "meta": {"src": str(src), "py_files": files, "lines": lines,
                 "python": platform.python_version(), "cpus": os.cpu_count(),
                 "platform": platform.platform(), "repeat": args.repeat},
        "results": results,
        "ratios": {"flake8": ratio(results, "flake8"),
                   "ruff": ratio(results, "ruff")},
        "targets": check_targets(results, args.target_ratio, args.max_rss_mb),
    }
    if args.json:
        json.dump(data, sys.stdout, indent=2)
        print()
    else:
        print_markdown(data)
    failed = any(t["ok"] is not True for t in data["targets"].values())
    return 1 if args.strict and failed else 0


if __name__ == "__main__":
    sys.exit(main())
