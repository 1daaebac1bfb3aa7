"""Rule metadata and documentation: complete, consistent, and its examples are tests."""

import re

import pytest

from tffunc_lint.config import Settings
from tffunc_lint.docs import render_all
from tffunc_lint.rule import DOC_SECTIONS, all_rules, rule_by_code_or_name

from .conftest import ROOT, lint_snippet

RULES = all_rules()


def test_codes_and_names_are_unique_and_well_formed():
    codes = [r.code for r in RULES]
    names = [r.name for r in RULES]
    assert len(set(codes)) == len(codes) and len(set(names)) == len(names)
    for rule in RULES:
        assert re.fullmatch(r"TFF\d{3}", rule.code)
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name)
        assert rule_by_code_or_name(rule.code.lower()) is rule
        assert rule_by_code_or_name(rule.name) is rule


def test_the_catalog_rules_of_the_foundation_are_registered():
    assert {"TFF000", "TFF101", "TFF301", "TFF405"} <= {r.code for r in RULES}


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_docs_have_every_section(rule):
    docs = rule.docs()
    assert docs.summary and "\n" not in docs.summary
    assert list(docs.sections) == list(DOC_SECTIONS)
    assert all(docs.sections[s].strip() for s in DOC_SECTIONS)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_example_is_flagged_and_use_instead_is_not(rule):
    docs = rule.docs()
    bad, good = docs.code_block("Example"), docs.code_block("Use instead")
    assert bad and good
    settings = Settings(extend_select=(rule.code,)).resolved()  # also rules off by default
    assert rule.code in {f.code for f in lint_snippet(bad, settings=settings)}
    assert rule.code not in {f.code for f in lint_snippet(good, settings=settings)}


@pytest.mark.parametrize("rule", [r for r in RULES if r.code != "TFF000"], ids=lambda r: r.code)
def test_messages_say_what_to_write_instead(rule):
    settings = Settings(extend_select=(rule.code,)).resolved()
    findings = [f for f in lint_snippet(rule.docs().code_block("Example"), settings=settings)
                if f.code == rule.code]
    assert all(re.search(r"\b(use|create|guard)\b", f.message) for f in findings)


def test_generated_rule_docs_are_up_to_date():
    """Regenerate with ``python -m tffunc_lint.docs docs/rules``."""
    directory = ROOT / "docs" / "rules"
    expected = render_all()
    actual = {p.name: p.read_text(encoding="utf-8") for p in directory.glob("*.md")}
    assert actual == expected


EAGER_SECTION = """
import tensorflow as tf

tf.config.run_functions_eagerly(True)
debug_step()
# Don't forget to set it back when you are done.
tf.config.run_functions_eagerly(False)

tf.config.run_functions_eagerly(True)
train()
"""


def test_tff406_eager_switch_set_back_later_in_the_block_is_a_bounded_section(lint):
    findings = lint(EAGER_SECTION, path="notebook_export.py")
    assert [(f.line, f.code) for f in findings] == [(9, "TFF406")]


DEPRECATED_EAGER_SWITCH = """
import tensorflow as tf

tf.config.experimental_run_functions_eagerly(True)
tf.config.experimental_run_functions_eagerly(DEBUG)
"""


def test_tff406_reports_the_deprecated_spelling_of_the_switch_too(lint):
    findings = lint(DEPRECATED_EAGER_SWITCH, path="train.py")
    assert sorted((f.line, f.code) for f in findings) == [
        (4, "TFF405"), (4, "TFF406"), (5, "TFF405")]
    assert "experimental_run_functions_eagerly(True)" in next(
        f.message for f in findings if f.code == "TFF406")


SPY = """
import tensorflow as tf


class Spy(tf.keras.layers.Layer):
    def call(self, x, mask=None):
        self.mask = mask
        return x


def check():
    shapes = []

    @tf.function
    def f(x):
        shapes.append(x)
        return x

    f(tf.constant(1.0))
    return shapes, Spy().mask
"""


def test_tff102_tff103_leave_test_modules_alone(lint):
    """A test records trace-time state on purpose (spies, captured shapes)."""
    product = {(f.line, f.code) for f in lint(SPY, path="pkg/spy.py")}
    assert product == {(7, "TFF103"), (16, "TFF102")}
    assert lint(SPY, path="pkg/spy_test.py") == []
    assert lint(SPY, path="pkg/tests/spy.py") == []


def test_tff101_leaves_test_modules_alone(lint):
    code = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print('x =', x)\n    return x\n"
    assert [(f.line, f.code) for f in lint(code, path="pkg/evaluator.py")] == [(5, "TFF101")]
    assert lint(code, path="pkg/evaluator_test.py") == []


def test_sample_programs_under_a_tests_folder_are_not_test_modules():
    from tffunc_lint.analysis.test_code import is_test_module

    assert is_test_module("pkg/tests/spy.py") and is_test_module("pkg/spy_test.py")
    assert not is_test_module("tests/fixtures/rules/cases.py")
    assert not is_test_module("tests/fixtures_project/proj/losses.py")
