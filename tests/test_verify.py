"""``tffunc-lint --verify``: recipes run under the installed TensorFlow (tensorflow-cpu in tests).

Nothing here stands in for TensorFlow: the full run executes every shipped recipe for real,
and the failure tests run deliberately broken recipes in real worker processes.
"""

from __future__ import annotations

import ast
import io
import json
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tffunc_lint.doors.cli import main
from tffunc_lint.rule import all_rules
from tffunc_lint.verify.runner import (FIXTURES_DIR, HOMEWORK, RECIPES_DIR, StreamingTable,
                                       available_claims, load_claim, verify)

#: Every rule but TFF000 and TFF001 (about files and `# noqa`, not TensorFlow) has a claim.
RULE_CODES = [rule.code for rule in all_rules() if rule.code not in ("TFF000", "TFF001")]


@pytest.mark.parametrize("code", RULE_CODES + [HOMEWORK])
def test_every_rule_has_fixtures_and_a_recipe(code):
    recipe = RECIPES_DIR / f"{code.lower()}.py"
    fixtures = FIXTURES_DIR / code
    assert (fixtures / "bad.py").is_file() and (fixtures / "good.py").is_file()
    assert recipe.is_file(), f"{code} has no recipe"
    tree = ast.parse(recipe.read_text(encoding="utf-8"))
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert {"bad", "good"} <= functions
    claim = load_claim(code, code, recipe, fixtures)
    assert claim.claim and claim.claim != "(no CLAIM)"


def test_the_claims_cover_every_rule_and_the_homework():
    assert [claim.key for claim in available_claims()] == RULE_CODES + [HOMEWORK]


# -- a deliberately broken set of recipes -------------------------------------------------

RECIPES = {
    "raises": """
        CLAIM = "bad() raises"

        def bad(fixture):
            raise AssertionError("deliberately broken recipe")

        def good(fixture):
            from tffunc_lint.verify.recipe import observe
            return observe(True, "fine")
    """,
    "crashes": """
        import os

        CLAIM = "the worker dies"

        def bad(fixture):
            os._exit(3)

        def good(fixture):
            raise AssertionError("never reached")
    """,
    "hangs": """
        import time

        CLAIM = "bad() never returns"

        def bad(fixture):
            time.sleep(600)

        def good(fixture):
            raise AssertionError("never reached")
    """,
    "too_slow": """
        from tffunc_lint.verify.recipe import Timing, observe

        CLAIM = "the fix is 1000x faster"
        SPEEDUP_AT_LEAST = 1000.0

        def bad(fixture):
            return observe(True, "shown")

        def good(fixture):
            return observe(True, "fixed")

        def speed(bad_fixture, good_fixture):
            return Timing(2.0, 1.0)
    """,
    "sound": """
        import tensorflow as tf

        from tffunc_lint.verify.recipe import capture, observe

        CLAIM = "print runs once in 3 calls"

        def bad(fixture):
            with capture() as output:
                for value in (1.0, 2.0, 3.0):
                    fixture.double(tf.constant(value))
            return observe(output.count("Executing with") == 1, "printed once")

        def good(fixture):
            return observe(True, "not exercised")
    """,
}


@pytest.fixture(scope="module")
def broken_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("broken")
    claims = []
    for key, source in RECIPES.items():
        recipe = root / f"{key}.py"
        recipe.write_text(textwrap.dedent(source), encoding="utf-8")
        fixtures = root / f"fixtures_{key}"
        shutil.copytree(FIXTURES_DIR / "TFF101", fixtures)
        claims.append(load_claim("TFF101", key, recipe, fixtures))
    # The static check sees a good fixture that still has the pitfall, unannounced.
    pitfall = (FIXTURES_DIR / "TFF101" / "bad.py").read_text(encoding="utf-8")
    (root / "fixtures_too_slow" / "good.py").write_text(
        pitfall.replace("  # expect: TFF101", ""), encoding="utf-8")
    # One worker, so the sound recipe runs after the crash and the hang, on a new worker.
    # The text report streams: each row is written (and timed) as its claim completes.
    stream, finished = io.StringIO(), []
    table = StreamingTable(claims, stream)

    def on_done(claim):
        table(claim)
        finished.append((claim.name, time.perf_counter(), stream.getvalue()))

    report = verify(claims, workers=1, timeout=20, on_done=on_done)
    ended = time.perf_counter()
    table.finish(report)
    return {"claims": {claim.name: claim for claim in report.claims}, "finished": finished,
            "ended": ended, "text": stream.getvalue()}


@pytest.fixture(scope="module")
def broken_report(broken_run):
    return broken_run["claims"]


def test_the_text_report_streams_each_rule_as_it_finishes(broken_run):
    finished = broken_run["finished"]
    assert sorted(name for name, _, _ in finished) == sorted(RECIPES)  # each once
    first, at, written = finished[0]
    assert first == "raises"
    # Written while the hanging recipe (20 s time-out) still had most of its time to run.
    assert broken_run["ended"] - at > 10
    header, row = written.splitlines()
    assert header.split()[:2] == ["rule", "bad"] and row.startswith("TFF101  NO ")
    lines = broken_run["text"].splitlines()
    assert len(lines[0]) == len(header) and lines[1:1 + len(RECIPES)] == [
        text.splitlines()[-1] for _, _, text in finished]
    assert lines[-1].startswith(f"{len(RECIPES)} claim(s): ")
    assert re.search(r"^TensorFlow \d+\.\d+\S*, Python \S+, 1 worker\(s\)$",
                     broken_run["text"], re.MULTILINE)


def test_a_raising_recipe_fails_its_claim_only(broken_report):
    claim = broken_report["raises"]
    assert not claim.holds
    assert claim.failures() == ["bad fixture shows the pitfall: no (AssertionError: "
                                "deliberately broken recipe (raises.py:5))"]


def test_a_crashed_worker_fails_its_claim_only(broken_report):
    assert broken_report["crashes"].failures() == ["worker exited with code 3"]


def test_a_hanging_recipe_times_out(broken_report):
    assert broken_report["hangs"].failures() == ["timed out after 20 s"]


def test_a_missed_speed_bound_and_a_static_disagreement_fail(broken_report):
    failures = broken_report["too_slow"].failures()
    assert failures == [
        "static analysis disagrees: good.py:7 unexpected TFF101; good.py:13 unexpected TFF101; "
        "good.py:19 unexpected TFF101",
        "speedup 2.00x is below the stated 1000x",
    ]


def test_the_others_go_on_after_crashes_and_hangs(broken_report):
    sound = broken_report["sound"]
    assert sound.holds, sound.failures()
    assert sound.as_dict()["bad_detail"] == "printed once"


# -- the command line ---------------------------------------------------------------------

def test_without_tensorflow_verify_exits_2_and_says_what_to_install():
    blocker = textwrap.dedent("""
        import sys

        class NoTensorFlow:
            def find_spec(self, name, path=None, target=None):
                if name == "tensorflow" or name.startswith("tensorflow."):
                    raise ModuleNotFoundError(name)
                return None

        sys.meta_path.insert(0, NoTensorFlow())
        from tffunc_lint.doors.cli import main
        sys.exit(main(["--verify"]))
    """)
    result = subprocess.run([sys.executable, "-c", blocker], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.strip() == (
        "tffunc-lint: error: TensorFlow is not installed; `--verify` runs the fixtures under "
        "it: install tffunc-lint[verify]")


@pytest.mark.parametrize("argv, message", [
    (["--verify", "src"], "--verify runs the shipped fixtures and takes no paths"),
    (["--verify", "--output-format", "github"],
     "--verify supports --output-format text or json"),
    (["--verify", "--select", "TFF101", "--ignore", "TFF101"],
     "--verify: the selection leaves no rule to verify"),
    (["--verify", "--select", "TFF999"], "--select: unknown rule code or name 'TFF999'"),
])
def test_verify_usage_errors(argv, message, capsys):
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == f"tffunc-lint: error: {message}"


@pytest.mark.slow
def test_verify_passes_every_shipped_claim():
    """The acceptance run: every rule and the homework, with measured speed-ups."""
    result = subprocess.run([sys.executable, "-m", "tffunc_lint", "--verify",
                             "--output-format", "json"], capture_output=True, text=True,
                            cwd=Path(__file__).parent)
    report = json.loads(result.stdout)
    failed = {c["rule"]: c["failures"] for c in report["claims"] if not c["holds"]}
    assert failed == {}
    assert result.returncode == 0
    assert report["tensorflow"] and report["python"]
    claims = {claim["rule"]: claim for claim in report["claims"]}
    assert list(claims) == RULE_CODES + [HOMEWORK]
    for code in RULE_CODES:
        assert claims[code]["static_agrees"] is True, code
        assert claims[code]["bad_shows_pitfall"] and claims[code]["good_clean"], code
    assert claims[HOMEWORK]["speedup"] >= 2.0
    assert claims["TFF401"]["speedup"] >= 1.0
