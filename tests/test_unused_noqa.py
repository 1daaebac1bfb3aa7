"""TFF001 unused-noqa: off by default, decided after ``# noqa`` is applied."""

from __future__ import annotations

import textwrap

import pytest

from tffunc_lint.config import Settings
from tffunc_lint.engine import lint_text

SOURCE = textwrap.dedent("""\
    import tensorflow as tf


    @tf.function
    def step(x):
        print(x)  # noqa: TFF101
        tf.print(x)  # noqa: TFF101
        tf.print(x)  # noqa
        y = x + 1  # noqa: E501, F401
        z = x * 2  # noqa: TFF999, E501
        w = x - 1  # noqa: TFF101, TFF001
        return x, y, z, w, "# noqa"
    """)


def tff001(source=SOURCE, apply_noqa=True, **selection):
    settings = Settings(**selection).resolved()
    result = lint_text("m.py", source, settings, apply_noqa=apply_noqa)
    return [(f.line, f.column, f.message) for f in result.findings if f.code == "TFF001"]


def test_reports_unused_bare_and_coded_noqa_and_unknown_codes_only():
    assert tff001(extend_select=("TFF001",)) == [
        (7, 18, "unused `# noqa` directive (unused: TFF101); remove the codes, or use only "
                "those of findings reported here"),
        (8, 18, "unused `# noqa` directive; remove it, or use it only where a finding is "
                "reported"),
        (10, 16, "unused `# noqa` directive (unknown: TFF999); remove the codes, or use only "
                 "those of findings reported here"),
    ]  # line 6 silences a TFF101; line 9 is other tools'; line 11 names TFF001 itself


@pytest.mark.parametrize("selection, on", [
    ({}, False),
    ({"select": ("TFF",)}, False),
    ({"select": ("ALL",)}, False),
    ({"extend_select": ("TFF001",)}, True),
    ({"select": ("TFF001",)}, True),
    ({"select": ("unused-noqa",)}, True),
    ({"select": ("TFF0",)}, True),
    ({"extend_select": ("TFF001",), "ignore": ("TFF0",)}, False),
], ids=str)
def test_off_by_default_and_enabled_only_when_named(selection, on):
    assert ("TFF001" in Settings(**selection).resolved().enabled) is on


def test_codes_of_rules_not_enabled_are_reported_as_such():
    assert [message.split(";")[0] for _, _, message in tff001(select=("TFF001",))][:2] == [
        "unused `# noqa` directive (non-enabled: TFF101)",
        "unused `# noqa` directive (non-enabled: TFF101)"]


def test_nothing_for_files_switched_off_or_not_analysed():
    assert tff001("# flake8: noqa\n" + SOURCE, extend_select=("TFF001",)) == []
    assert tff001("x = 1  # noqa\ndef broken(:\n", extend_select=("TFF001",)) == []


def test_not_under_flake8_which_applies_noqa_itself():
    assert tff001(apply_noqa=False, extend_select=("TFF001",)) == []


def test_pitfall_codes_are_left_alone_in_test_modules():
    # The pitfall rules do not run in test modules, so their noqa codes there are neither
    # used nor unused; the deprecation rule does run, and its unused code is reported.
    source = ("import tensorflow as tf\n\n\ndef run_steps():\n"
              "    for n in range(3):\n"
              "        tf.function(lambda x: x)(n)  # noqa: TFF402, TFF401\n"
              "    tf.print(1)  # noqa: TFF405\n")
    settings = Settings(extend_select=("TFF001",)).resolved()
    result = lint_text("tests/test_steps.py", source, settings)
    assert [(f.line, f.code, f.message.split(";")[0]) for f in result.findings] == [
        (7, "TFF001", "unused `# noqa` directive (unused: TFF405)")]
    result = lint_text("steps.py", source.replace("  # noqa: TFF402, TFF401", ""), settings)
    assert "TFF402" in {f.code for f in result.findings}  # outside tests it is reported
