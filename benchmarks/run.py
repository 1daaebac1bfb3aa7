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
ROOT = HERE.parent

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
OK_CODES = (0, 1)  # 1 = "findings were reported"


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


def find_tool(name: str, folder: Path | None = None) -> str | None:
    """Executable in ``folder`` (default: next to the running interpreter), else on PATH."""
    local = (folder or Path(sys.executable).parent) / name
    if local.is_file() and os.access(local, os.X_OK):
        return str(local)
    return shutil.which(name) if folder is None else None


def tools_venv(cache: Path) -> Path:
    """A venv with flake8 and ruff but WITHOUT tffunc-lint: flake8 runs every installed
    plugin whatever --select says, so the project's venv would time our plugin too."""
    venv = cache / "tools-venv"
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    if not (bindir / "flake8").exists() or not (bindir / "ruff").exists():
        print("creating a flake8 + ruff venv ...", file=sys.stderr)
        subprocess.check_call([sys.executable, "-m", "venv", str(venv)])
        subprocess.check_call([str(bindir / "python"), "-m", "pip", "install", "-q",
                               "flake8", "ruff"], stdout=subprocess.DEVNULL)
    return bindir


def lint_venv(cache: Path) -> Path:
    """A venv with flake8 and tffunc-lint installed as a user installs it: a wheel built
    from this checkout, its bytecode compiled by pip. The project's own venv has an
    editable install, whose import hook runs in every process and whose modules are
    compiled on each start where bytecode is not written (PYTHONDONTWRITEBYTECODE)."""
    venv = cache / "lint-venv"
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    pip = [str(bindir / "python"), "-m", "pip", "install", "-q"]
    if not (bindir / "flake8").exists():
        print("creating a flake8 + tffunc-lint venv ...", file=sys.stderr)
        subprocess.check_call([sys.executable, "-m", "venv", str(venv)])
        subprocess.check_call(pip + ["flake8", str(ROOT)], stdout=subprocess.DEVNULL)
    # This checkout as it is now (the version number does not change between commits).
    subprocess.check_call(pip + ["--no-deps", "--force-reinstall", str(ROOT)],
                          stdout=subprocess.DEVNULL)
    return bindir


def run_once(argv: list[str], cwd: Path) -> tuple[int, float, float]:
    """Run argv through the wrapper; return (returncode, seconds, peak RSS MB)."""
    out = subprocess.run([sys.executable, "-c", WRAPPER, *argv], cwd=cwd,
                         check=True, capture_output=True, text=True).stdout
    rc, secs, rss = out.split()
    return int(rc), float(secs), int(rss) * RSS_UNIT / 2**20


def typical_file(src: Path) -> Path:
    """The median-sized module that defines a tf.function: what an editor lints."""
    files = sorted((p.stat().st_size, str(p)) for p in src.rglob("*.py")
                   if "@tf.function" in p.read_text(encoding="utf-8", errors="replace"))
    return Path(files[len(files) // 2][1])


def measurements(work: Path, corpus: Path, tools: Path, ours: Path, repeat: int) -> dict:
    """name -> (argv, set-up before each run). All run with ``work`` as the directory."""
    clean = tools
    lint = find_tool("tffunc-lint", ours)
    flake8_plugin, flake8 = find_tool("flake8", ours), find_tool("flake8", clean)
    ruff = find_tool("ruff", clean)
    changed = sorted(corpus.rglob("*.py"))[len(list(corpus.rglob("*.py"))) // 2]
    original = changed.read_bytes()
    edits = iter(range(10**6))
    single = typical_file(corpus)

    def clear(name: str):
        return lambda: shutil.rmtree(work / name, ignore_errors=True)

    def edit():
        changed.write_bytes(original + f"\n# benchmark edit {next(edits)}\n".encode())

    f8 = ["--select=F", "-j2", str(corpus)]
    runs = {
        "tffunc-lint cold": ([lint, "--exit-zero", "-q", str(corpus)],
                             clear(".tffunc_lint_cache")),
        "tffunc-lint warm": ([lint, "--exit-zero", "-q", str(corpus)], None),
        "tffunc-lint one file changed": ([lint, "--exit-zero", "-q", str(corpus)], edit),
        "flake8 (no plugin)": ([flake8, *f8], None),
        "flake8 + TFF plugin": ([flake8_plugin, *f8], None),
        "ruff cold": ([ruff, "check", "--select=F", "--no-cache", "--exit-zero", str(corpus)],
                      None),
        "ruff warm": ([ruff, "check", "--select=F", "--exit-zero", str(corpus)], None),
        "editor: flake8 (no plugin), 1 file": ([flake8, str(single)], None),
        "editor: flake8 + TFF plugin, 1 file": ([flake8_plugin, str(single)], None),
        "editor: tffunc-lint --no-cache, 1 file": ([lint, "--no-cache", "--exit-zero",
                                                    str(single)], None),
    }
    results = {}
    try:
        for name, (argv, setup) in runs.items():
            results[name] = {"installed": None not in argv, "argv": argv, "times": [],
                             "rss_mb": [], "errors": []}
        # Warm-up: fills the caches for the warm runs.
        for name, (argv, setup) in runs.items():
            if results[name]["installed"]:
                run_once(argv, work)
        for _ in range(repeat):
            for name, (argv, setup) in runs.items():
                res = results[name]
                if not res["installed"]:
                    continue
                if setup:
                    setup()
                rc, secs, rss = run_once(argv, work)
                if rc not in OK_CODES:
                    res["errors"].append(f"exit code {rc}")
                res["times"].append(secs)
                res["rss_mb"].append(rss)
    finally:
        changed.write_bytes(original)
    for res in results.values():
        if res["times"]:
            res["median_s"] = statistics.median(res["times"])
            res["min_s"] = min(res["times"])
            res["peak_rss_mb"] = max(res["rss_mb"])
    return results


def derived(results: dict) -> dict:
    def median(name):
        return results.get(name, {}).get("median_s")

    def div(a, b):
        return a / b if a is not None and b else None

    plugin = median("flake8 + TFF plugin")
    bare = median("flake8 (no plugin)")
    one_plugin = median("editor: flake8 + TFF plugin, 1 file")
    one_bare = median("editor: flake8 (no plugin), 1 file")
    return {
        "cold / flake8 (no plugin)": div(median("tffunc-lint cold"), bare),
        "warm / ruff warm": div(median("tffunc-lint warm"), median("ruff warm")),
        "one file changed, s": median("tffunc-lint one file changed"),
        "plugin share of a flake8 run": div(plugin - bare, bare) if plugin and bare else None,
        "plugin cost on one file, s": one_plugin - one_bare if one_plugin and one_bare else None,
        "tffunc-lint on one file, s": median("editor: tffunc-lint --no-cache, 1 file"),
    }


TARGETS = {  # key of derived() -> maximum
    "cold / flake8 (no plugin)": 0.2,
    "warm / ruff warm": 3.0,
    "one file changed, s": 0.5,
    "plugin share of a flake8 run": 0.15,
    "plugin cost on one file, s": 0.05,
    "tffunc-lint on one file, s": 0.1,
}


def print_markdown(data: dict) -> None:
    res, meta = data["results"], data["meta"]
    print("| run | median s | min s | peak RSS MB |")
    print("|---|---:|---:|---:|")
    for name, r in res.items():
        if not r["installed"]:
            print(f"| {name} | not installed | | |")
            continue
        print(f"| {name} | {r['median_s']:.3f} | {r['min_s']:.3f} | {r['peak_rss_mb']:.0f} |")
    print()
    print(f"{meta['py_files']} .py files, {meta['lines']} lines; one file: {meta['one_file']} "
          f"({meta['one_file_lines']} lines); Python {meta['python']}; {meta['cpus']} CPUs; "
          f"{meta['repeat']} timed runs each (round-robin), after one untimed warm-up.")
    print("Peak RSS = largest single process of a run (workers not summed).")
    print()
    for key, value in data["derived"].items():
        target = TARGETS.get(key)
        verdict = ("n/a" if value is None or target is None
                   else "MET" if value <= target else "MISSED")
        print(f"- {key}: {fmt(value, '.3f')} (target <= {target}: {verdict})")
    for name, r in res.items():
        for err in sorted(set(r["errors"])):
            print(f"WARNING: {name}: {err} (expected 0 or 1)")


def fmt(x: float | None, spec: str = ".2f") -> str:
    return "n/a" if x is None else format(x, spec)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per measurement")
    ap.add_argument("--cache-dir", type=Path, default=HERE / ".cache",
                    help="download/unpack/venv dir (default: benchmarks/.cache)")
    ap.add_argument("--src", type=Path, help="benchmark this directory instead")
    ap.add_argument("--json", action="store_true", help="print JSON data")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 if tffunc-lint misses a target")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be >= 1")
    if args.src is not None and not args.src.is_dir():
        ap.error(f"--src {args.src}: not a directory")

    src = args.src if args.src is not None else fetch_corpus(args.cache_dir)
    tools = tools_venv(args.cache_dir)
    ours = lint_venv(args.cache_dir)
    work = args.cache_dir / "work"
    corpus = work / "corpus"
    if not corpus.is_dir():  # a copy: the one-file-changed runs edit a file
        shutil.copytree(src, corpus)
    files, lines = count_python(corpus)
    results = measurements(work, corpus, tools, ours, args.repeat)
    single = typical_file(corpus)
    data = {
        "meta": {"py_files": files, "lines": lines, "python": platform.python_version(),
                 "cpus": os.cpu_count(), "platform": platform.platform(),
                 "repeat": args.repeat, "one_file": str(single.relative_to(corpus)),
                 "one_file_lines": len(single.read_bytes().splitlines())},
        "results": results,
        "derived": derived(results),
    }
    if args.json:
        json.dump(data, sys.stdout, indent=2)
        print()
    else:
        print_markdown(data)
    missed = any(v is None or v > TARGETS[k] for k, v in data["derived"].items())
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
