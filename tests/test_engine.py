"""Engine internals that fixtures cannot reach."""

from tffunc_lint.analysis.graph_context import GraphContext

from .conftest import PACKAGE_FIXTURES, expected_findings, lint_snippet


def test_wrong_ordinal_function_keys_fall_back_to_positions(monkeypatch):
    """If the n-th LibCST def were not the n-th indexed one, positions decide instead."""
    source = (PACKAGE_FIXTURES / "TFF301" / "bad.py").read_text(encoding="utf-8")
    expected = sorted(expected_findings(PACKAGE_FIXTURES / "TFF301" / "bad.py"))
    real_keys_in = GraphContext.keys_in

    def reversed_keys(self, first, last):
        defs, lambdas = real_keys_in(self, first, last)
        return list(reversed(defs)), lambdas

    monkeypatch.setattr(GraphContext, "keys_in", reversed_keys)
    assert sorted((f.line, f.code) for f in lint_snippet(source)) == expected


def test_region_without_a_trigger_is_not_parsed(monkeypatch):
    import libcst

    parsed = []
    real_parse = libcst.parse_module
    monkeypatch.setattr(libcst, "parse_module",
                        lambda text: parsed.append(text) or real_parse(text))
    findings = lint_snippet("""
        import tensorflow as tf

        @tf.function
        def quiet(x):
            return x + 1

        @tf.function
        def loud(x):
            print(x)
            return x
    """)
    assert [(f.line, f.code) for f in findings] == [(10, "TFF101")]
    assert len(parsed) == 1 and "def loud" in parsed[0] and "def quiet" not in parsed[0]


def test_fix_rewrites_fixable_findings_and_keeps_every_other_byte():
    from tffunc_lint.config import Settings
    from tffunc_lint.engine import lint_source

    from .conftest import ROOT

    FIX_FIXTURES = ROOT / "tests" / "fix_fixtures"

    before = (FIX_FIXTURES / "tff101_before.py").read_bytes()
    after = (FIX_FIXTURES / "tff101_after.py").read_bytes()
    result = lint_source("before.py", before, Settings(unsafe_fixes=True).resolved(), fix=True)
    assert result.fixed_source == after
    assert result.fixes_applied == 3
    assert [(f.line, f.code) for f in result.findings] == [(9, "TFF101"), (10, "TFF101")]


def test_unsafe_fixes_are_not_applied_by_default():
    from tffunc_lint.config import Settings
    from tffunc_lint.engine import lint_source

    from .conftest import ROOT

    FIX_FIXTURES = ROOT / "tests" / "fix_fixtures"

    before = (FIX_FIXTURES / "tff101_before.py").read_bytes()
    result = lint_source("before.py", before, Settings().resolved(), fix=True)
    assert result.fixed_source == before.replace(b"experimental_relax_shapes", b"reduce_retracing")
    assert not any(f.fixable for f in result.findings if f.code == "TFF101")
