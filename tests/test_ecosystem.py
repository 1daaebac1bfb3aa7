"""The ecosystem check's own logic (benchmarks/ecosystem/check.py): keys, matching, tables.

No network and no linting of corpora here: findings are built by hand.
"""
import importlib.util
import json
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

CHECK = Path(__file__).resolve().parents[1] / "benchmarks" / "ecosystem" / "check.py"


def _load():
    spec = importlib.util.spec_from_file_location("ecosystem_check", CHECK)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


eco = _load()


def finding(path="pkg/a.py", code="TFF101", text="print(x)", line=3, corpus="c", **kw):
    return eco.Finding(corpus=corpus, path=path, code=code, line_text=text, line=line, **kw)


def verdict(path="pkg/a.py", code="TFF101", text="print(x)", value="true", corpus="c",
            occurrence=1, reason="r"):
    return eco.Verdict(corpus=corpus, path=path, code=code, line_text=text, verdict=value,
                       reason=reason, occurrence=occurrence)


# --- keys -----------------------------------------------------------------------------------

def test_key_is_the_stripped_line_text_and_occurrence(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(
        "import tensorflow as tf\n"
        "def f(x):\n"
        "    print(x)\n"
        "    print(x)\n"
        "    print(x)  # other\n")
    raw = [{"path": str(tmp_path / "pkg" / "a.py"), "line": n, "column": 5, "code": "TFF101",
            "message": "m"} for n in (4, 3, 5)]
    found = eco.parse_findings("c", raw, tmp_path)
    assert [f.key for f in found] == [
        ("c", "pkg/a.py", "TFF101", "print(x)", 1),
        ("c", "pkg/a.py", "TFF101", "print(x)", 2),
        ("c", "pkg/a.py", "TFF101", "print(x)  # other", 1),
    ]
    assert [f.line for f in found] == [3, 4, 5]


def test_paths_relative_to_the_root_either_way(tmp_path):
    assert eco.relative_path(str(tmp_path / "x" / "y.py"), tmp_path) == "x/y.py"
    assert eco.relative_path("./x/y.py", tmp_path) == "x/y.py"
    assert eco.relative_path("x/y.py", tmp_path) == "x/y.py"


def test_line_numbers_count_only_python_line_ends(tmp_path):
    (tmp_path / "m.py").write_bytes(b"a = 1\r\nb = '\x0c'\rc = 2\n")
    lines = eco.source_lines(tmp_path, "m.py")
    assert eco.line_at(lines, 3) == "c = 2"
    assert eco.line_at(lines, 99) == ""


def test_notebook_line_is_the_cells(tmp_path):
    book = {"cells": [
        {"cell_type": "markdown", "source": ["# Title\n"]},
        {"cell_type": "code", "source": ["import tensorflow as tf\n", "@tf.function\n",
                                         "def f(x):\n", "    print(x)\n"]},
    ]}
    (tmp_path / "nb.ipynb").write_text(json.dumps(book))
    raw = [{"path": "nb.ipynb", "line": 4, "column": 5, "code": "TFF101", "cell": 2}]
    (f,) = eco.parse_findings("c", raw, tmp_path)
    assert f.line_text == "print(x)" and f.cell == 2
    assert f.where == "c:nb.ipynb:cell 2:4"


def test_include_globs():
    paths = ["transformers/models/bert/modeling_tf_bert.py",
             "transformers/models/bert/modeling_bert.py",
             "modeling_tf_top.py",
             "transformers/tf_utils.py",
             "transformers/generation/tf_utils.py"]
    picked = eco.select_files(paths, ["**/modeling_tf_*.py", "transformers/tf_utils.py"])
    assert picked == ["modeling_tf_top.py", "transformers/models/bert/modeling_tf_bert.py",
                      "transformers/tf_utils.py"]
    assert eco.select_files(paths, [], ["**/generation/*"]) == sorted(paths[:4])
    assert not eco.glob_to_regex("a/*.py").match("a/b/c.py")


def test_git_repo_key():
    c = eco.Corpus(name="d", kind="git", url="https://github.com/tensorflow/docs.git")
    assert c.repo == "tensorflow/docs"
    assert eco.Corpus(name="d", kind="git", url="git@github.com:google/edward2").repo == \
        "google/edward2"


def test_corpora_file(tmp_path):
    (tmp_path / "corpora.toml").write_text(
        '[[corpus]]\nname = "a"\ngroup = "dev"\npypi = "a"\nversion = "1"\n'
        '[[corpus]]\nname = "b"\ngit = "https://x/o/b"\ncommit = "' + "0" * 40 + '"\n'
        '[[corpus]]\nname = "l"\ngroup = "dev"\npath = "src"\ninclude = ["*.py"]\n')
    corpora = eco.load_corpora(tmp_path / "corpora.toml")
    assert [c.kind for c in corpora] == ["pypi", "git", "local"]
    assert corpora[2].path == str(tmp_path / "src")
    assert [c.name for c in eco.select_corpora(corpora, [], ["dev"])] == ["a", "l"]
    assert [c.name for c in eco.select_corpora(corpora, ["b"], [])] == ["b"]
    with pytest.raises(ValueError):
        eco.select_corpora(corpora, ["zzz"], [])


def test_the_committed_corpora_file_loads():
    corpora = eco.load_corpora(eco.CORPORA_FILE)
    assert len({c.name for c in corpora}) == len(corpora)
    assert all(c.group for c in corpora)


# --- matching -------------------------------------------------------------------------------

def test_verdict_survives_a_line_move():
    moved = finding(line=40)
    result = eco.match([moved], [verdict()])
    assert result.status(moved) == "true"
    assert not result.unreviewed and not result.stale


def test_duplicates_are_told_apart_by_occurrence():
    first, second = finding(line=3, occurrence=1), finding(line=9, occurrence=2)
    verdicts = [verdict(value="true"), verdict(value="false", occurrence=2)]
    result = eco.match([first, second], verdicts)
    assert (result.status(first), result.status(second)) == ("true", "false")


def test_unreviewed_and_stale():
    new = finding(text="print(y)")
    old = verdict(text="print(z)")
    other_corpus = verdict(corpus="elsewhere")
    result = eco.match([new], [old, other_corpus])
    assert result.unreviewed == [new]
    assert result.stale == [old]  # only corpora of this run can be stale
    assert eco.match([], [old], corpora=["c"]).stale == [old]


def test_stub_is_still_unreviewed():
    f = finding()
    assert eco.match([f], [verdict(value="?")]).unreviewed == [f]


def test_shifted_occurrence_matches_when_verdicts_agree():
    # Two identical findings were reviewed; the first one went away.
    remaining = finding(line=9, occurrence=1)
    verdicts = [verdict(occurrence=1, value="false"), verdict(occurrence=2, value="false")]
    result = eco.match([remaining], verdicts)
    assert result.status(remaining) == "false"
    assert [v.occurrence for v in result.stale] == [2]
    # A duplicate appeared: the new second one is matched loosely to nothing ambiguous.
    one, two = finding(occurrence=1), finding(occurrence=2)
    result = eco.match([one, two], [verdict(value="true")])
    assert result.status(one) == "true" and result.unreviewed == [two]


def test_shifted_occurrence_left_alone_when_verdicts_disagree():
    f = finding(occurrence=3)
    verdicts = [verdict(occurrence=1, value="true"), verdict(occurrence=2, value="false")]
    result = eco.match([f], verdicts)
    assert result.unreviewed == [f] and len(result.stale) == 2


def test_prune_drops_stale_and_rekeys():
    f = finding(occurrence=1)
    verdicts = [verdict(occurrence=2), verdict(text="gone()")]
    result = eco.match([f], verdicts)
    kept = eco.pruned(verdicts, result)
    assert [v.key for v in kept] == [f.key]


# --- verdict file ---------------------------------------------------------------------------

def test_toml_round_trip_with_awkward_text():
    vs = [verdict(text='s = "a\\tb"\t# x', reason="quote \" and \\"),
          verdict(text="print('\u00e9')", value="unclear", occurrence=2),
          verdict(path="b.py", value="false")]
    data = tomllib.loads(eco.dump_verdicts(vs, eco.VERDICTS_HEADER))
    back = eco.parse_verdicts(data)
    assert sorted(back, key=eco.sort_key) == sorted(vs, key=eco.sort_key)
    assert [v["verdict"] for v in data["verdict"]] == [False, "unclear", True]


def test_dump_is_sorted_and_stable():
    vs = [verdict(path="z.py"), verdict(path="a.py"), verdict(code="TFF102")]
    text = eco.dump_verdicts(vs)
    assert text == eco.dump_verdicts(reversed(vs))
    paths = [v["path"] for v in tomllib.loads(text)["verdict"]]
    assert paths == ["a.py", "pkg/a.py", "z.py"]


def test_bad_verdict_values_and_duplicate_keys_are_refused():
    with pytest.raises(ValueError):
        eco.parse_verdicts({"verdict": [{**eco.asdict(verdict()), "verdict": "maybe"}]})
    with pytest.raises(ValueError):
        eco.parse_verdicts({"verdict": [eco.asdict(verdict()), eco.asdict(verdict())]})


def test_stubs_then_merge():
    unreviewed = [finding(text="a()", message="msg"), finding(text="b()")]
    entries, comments = eco.stubs(unreviewed)
    text = eco.dump_verdicts(entries, eco.STUBS_HEADER, comments)
    assert "# TFF101 c:pkg/a.py:3: msg" in text
    filled = eco.parse_verdicts(tomllib.loads(text))
    assert {v.verdict for v in filled} == {"?"}
    filled[0].verdict, filled[0].reason = "false", "set-up"
    existing = [verdict(text="a()", value="true"), verdict(text="z()")]
    merged, count, skipped = eco.merge(existing, filled)
    assert (count, skipped) == (1, 1)
    assert [(v.line_text, v.verdict) for v in merged] == [("a()", "false"), ("z()", "true")]


# --- report ---------------------------------------------------------------------------------

def test_precision_table_arithmetic():
    fs = [finding(text=f"t{i}", occurrence=1) for i in range(5)] + [finding(code="TFF102")]
    verdicts = [verdict(text="t0"), verdict(text="t1"), verdict(text="t2"),
                verdict(text="t3", value="false"), verdict(text="t4", value="unclear")]
    result = eco.match(fs, verdicts)
    rules = eco.tally(fs, result, "code")
    assert rules["TFF101"] == {"found": 5, "true": 3, "false": 1, "unclear": 1,
                               "unreviewed": 0}
    assert eco.precision(rules["TFF101"]) == 0.75
    assert eco.precision(rules["TFF102"]) is None
    overall = eco.total(rules)
    assert overall["found"] == 6 and overall["unreviewed"] == 1
    table = eco.markdown_table("rule", rules)
    assert "| TFF101 | 5 | 3 | 1 | 1 | 0 | 75.0% |" in table
    assert "| TFF102 | 1 | 0 | 0 | 0 | 1 | — |" in table
    assert "| **overall** | 6 | 3 | 1 | 1 | 1 | 75.0% |" in table


def test_matrix_counts_per_corpus_and_rule():
    fs = [finding(corpus="a"), finding(corpus="a", code="TFF102"), finding(corpus="b")]
    table = eco.matrix_table(fs, ["a", "b", "empty"])
    assert "| a | 1 | 1 | 2 |" in table
    assert "| b | 1 |  | 1 |" in table
    assert "| empty |  |  | 0 |" in table
    assert "| **total** | 2 | 1 | 3 |" in table


def test_diff_new_and_gone_against_last_run(tmp_path):
    kept, gone, new = finding(text="k()"), finding(text="g()"), finding(text="n()")
    other = finding(corpus="not-run", text="o()")
    path = tmp_path / "last_run.json"
    eco.save_last_run(path, [kept, gone, other], ["c", "not-run"], None)
    previous = eco.load_last_run(path)
    kept.line = 77  # moved: not a change
    added, removed = eco.diff(previous["findings"], [kept, new], ["c"])
    assert [d["line_text"] for d in added] == ["n()"]
    assert [d["line_text"] for d in removed] == ["g()"]
    # A run of one corpus keeps the other corpora's records.
    eco.save_last_run(path, [kept, new], ["c"], previous)
    again = eco.load_last_run(path)
    assert sorted(d["line_text"] for d in again["findings"]) == ["k()", "n()", "o()"]
    assert again["corpora"] == ["c", "not-run"]


def test_listing_shows_context(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("a\nb\nprint(x)\nd\ne\nf\n")
    f = finding(message="msg")
    result = eco.match([f], [])
    text = eco.listing([f], result, "unreviewed", {"c": tmp_path})
    assert "TFF101 c:pkg/a.py:3: msg" in text
    assert text.splitlines()[1:6] == ["  1 | a", "  2 | b", "> 3 | print(x)", "  4 | d",
                                      "  5 | e"]
    assert eco.listing([f], result, "false", {"c": tmp_path}) == ""


# --- fetching (local only) ------------------------------------------------------------------

@pytest.mark.skipif(not eco.shutil.which("git"), reason="needs git")
def test_git_source_override_unpacks_the_commit(tmp_path):
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "m.py").write_text("x = 1\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    eco.subprocess.run(["git", "init", "-q", str(repo)], check=True)
    eco.subprocess.run([*git, "add", "."], check=True)
    eco.subprocess.run([*git, "commit", "-q", "-m", "c"], check=True)
    commit = eco.subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True,
                                text=True).stdout.strip()
    corpus = eco.Corpus(name="r", kind="git", url="https://example.invalid/o/r", commit=commit)
    root, missing = eco.fetch(corpus, tmp_path / "cache", {"o/r": str(repo)})
    assert (root / "pkg" / "m.py").read_text() == "x = 1\n" and missing == []
    # Its root is a checkout's: the linter stops there looking for the project's root.
    assert (root / ".git").is_dir() and not list((root / ".git").iterdir())
    # Cached at its pin: the source is not needed again.
    assert eco.fetch(corpus, tmp_path / "cache", {}, offline=True)[0] == root


def test_pypi_corpus_from_a_downloaded_wheel(tmp_path):
    cache = tmp_path / "cache"
    downloads = cache / "downloads" / "pkg-1.0"
    downloads.mkdir(parents=True)
    with eco.zipfile.ZipFile(downloads / "pkg-1.0-py3-none-any.whl", "w") as whl:
        whl.writestr("pkg/__init__.py", "y = 2\n")
    corpus = eco.Corpus(name="pkg", kind="pypi", package="pkg", version="1.0")
    root, _ = eco.fetch(corpus, cache, {})
    assert (root / "pkg" / "__init__.py").read_text() == "y = 2\n"


def test_linter_fields_pass_through(tmp_path):
    (tmp_path / "a.py").write_text("print(x)\n")
    raw = [{"path": "a.py", "line": 1, "column": 1, "end_line": 1, "end_column": 9,
            "code": "TFF101", "name": "print-in-tf-function", "message": "m",
            "reason": "@tf.function at line 2", "fixable": True}]
    (f,) = eco.parse_findings("c", raw, tmp_path)
    assert (f.end_line, f.end_column, f.reason, f.fixable, f.cell) == (
        1, 9, "@tf.function at line 2", True, None)
    assert eco.Finding(**eco.asdict(f)) == f  # how --cached reads the last run back
