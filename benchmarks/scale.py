#!/usr/bin/env python3
"""Does the cost of linting one file grow linearly with its size?

Generates (once, into the cache directory) files of 0.5, 5 and 50 MiB with
``generate.py`` and times ``tffunc-lint`` on each (no cache), with peak RSS.
Targets: the 5 MiB file takes at most 12x the 0.5 MiB file's time; every file
completes within ``--timeout`` seconds and ``--max-rss-mb`` of memory.

Usage: ``python benchmarks/scale.py [--sizes 0.5 5 50] [--no-traced]``.
Standard library only.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402
from run import WRAPPER, RSS_UNIT, find_tool  # noqa: E402


def run_limited(argv, timeout: float):
    try:
        out = subprocess.run([sys.executable, "-c", WRAPPER, *argv], check=True,
                             capture_output=True, text=True, timeout=timeout).stdout
    except subprocess.TimeoutExpired:
        return None, None
    _, secs, rss = out.split()
    return float(secs), int(rss) * RSS_UNIT / 2**20


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=float, nargs="+", default=[0.5, 5, 50])
    ap.add_argument("--no-traced", action="store_true", help="files without tf.function")
    ap.add_argument("--cache-dir", type=Path, default=HERE / ".cache")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--max-rss-mb", type=float, default=1024.0)
    args = ap.parse_args()
    exe = find_tool("tffunc-lint")
    if exe is None:
        sys.exit("error: tffunc-lint is not installed")
    folder = args.cache_dir / "scale"
    folder.mkdir(parents=True, exist_ok=True)
    kind = "plain" if args.no_traced else "traced"
    rows = []
    for size in args.sizes:
        path = folder / f"{kind}_{size:g}mb.py"
        if not path.exists():
            path.write_text(generate(size, traced=not args.no_traced), encoding="utf-8")
        secs, rss = run_limited([exe, "--no-cache", "--exit-zero", "--statistics",
                                 str(path)], args.timeout)
        rows.append((size, secs, rss))
    print("| file MiB | seconds | x smallest | peak RSS MB |")
    print("|---:|---:|---:|---:|")
    base = rows[0][1]
    for size, secs, rss in rows:
        if secs is None:
            print(f"| {size:g} | timeout (> {args.timeout:g}) | | |")
        else:
            print(f"| {size:g} | {secs:.2f} | {secs / base:.1f} | {rss:.0f} |")
    done = [r for r in rows if r[1] is not None]
    ok = len(done) == len(rows) and all(r[2] <= args.max_rss_mb for r in done)
    print(f"all files done within {args.timeout:g} s and {args.max_rss_mb:g} MB: "
          f"{'MET' if ok else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
