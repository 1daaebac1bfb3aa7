#!/usr/bin/env python3
"""Peak memory of a cold run on the site-packages of a TensorFlow install.

The benchmark corpus of ``run.py`` is too small to show what the process joining a project
holds (every module's index): this lints the ``site-packages`` folder that holds the
``tensorflow`` package of the interpreter running it (found without importing
TensorFlow), or ``--src DIR``, with ``tffunc-lint --no-cache``, and reports the peak RSS of
the largest process of the run against the target (300 MB), with the wall time.

Usage: ``python benchmarks/memory.py [--src DIR] [--repeat 1] [--max-rss-mb 300]
[--strict]``. Exit code 0 unless ``--strict`` is given and the target is missed.
Standard library only.
"""
from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import WRAPPER, RSS_UNIT, OK_CODES, find_tool  # noqa: E402


def tensorflow_site_packages() -> Path | None:
    """The folder the ``tensorflow`` package is installed in, or None."""
    spec = importlib.util.find_spec("tensorflow")  # a top-level package: not imported
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).parent


def count_files(src: Path) -> int:
    return sum(1 for path in src.rglob("*") if path.suffix in (".py", ".pyi"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", type=Path,
                    help="lint this folder (default: TensorFlow's site-packages)")
    ap.add_argument("--repeat", type=int, default=1, help="runs (the largest peak counts)")
    ap.add_argument("--max-rss-mb", type=float, default=300.0, help="the target")
    ap.add_argument("--strict", action="store_true", help="exit 1 if the target is missed")
    args = ap.parse_args()
    src = args.src or tensorflow_site_packages()
    if src is None or not src.is_dir():
        sys.exit("error: no TensorFlow install found for this interpreter; use --src DIR")
    exe = find_tool("tffunc-lint")
    if exe is None:
        sys.exit("error: tffunc-lint is not installed next to this interpreter")
    print(f"{src}: {count_files(src)} .py/.pyi files", file=sys.stderr)
    peaks, times = [], []
    for _ in range(args.repeat):
        out = subprocess.run([sys.executable, "-c", WRAPPER, exe, "--no-cache", str(src)],
                             check=True, capture_output=True, text=True).stdout
        code, secs, rss = out.split()
        if int(code) not in OK_CODES:
            sys.exit(f"error: tffunc-lint exited with {code}")
        times.append(float(secs))
        peaks.append(int(rss) * RSS_UNIT / 2**20)
    peak = max(peaks)
    met = peak < args.max_rss_mb
    print("| run | seconds | peak RSS MB |")
    print("|---|---:|---:|")
    for number, (secs, rss) in enumerate(zip(times, peaks), 1):
        print(f"| {number} | {secs:.2f} | {rss:.0f} |")
    print(f"peak {peak:.0f} MB against < {args.max_rss_mb:g} MB: {'MET' if met else 'MISSED'}")
    return 1 if args.strict and not met else 0


if __name__ == "__main__":
    sys.exit(main())
