"""The lines where names occur: one scan of the identifiers for many names gives the lines
that a search for each name gives."""

import pytest

from tffunc_lint.analysis import source_lines
from tffunc_lint.analysis.source_lines import SourceLines

TEXT = """\
step = tf.function(step_1)
x = step_10(1) + other.step(2)
# step in a comment
s = "astep" + stepped + _step + step_
y = obj . function (3)
z = function(4)
café = step
"""


@pytest.mark.parametrize("scan_from", [0, 1000])
def test_many_names_are_found_on_the_lines_one_name_is_found(monkeypatch, scan_from):
    monkeypatch.setattr(source_lines, "_FIND_WORDS", scan_from)
    assert SourceLines(TEXT, ["step"]).numbers == [1, 2, 3, 7]
    assert SourceLines(TEXT, ["step_1", "café"]).numbers == [1, 7]
    assert SourceLines(TEXT, [], ["function"]).numbers == [1, 5]
    assert SourceLines(TEXT, ["function"]).numbers == [1, 5, 6]
    assert not SourceLines(TEXT, ["tep", "step_1x"])
