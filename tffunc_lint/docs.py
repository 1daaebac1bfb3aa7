"""Render rule documentation (``tffunc-lint explain``, ``docs/rules/``) from rule classes.

``python -m tffunc_lint.docs DIR`` writes one Markdown page per rule plus an index; a test
fails when the committed pages drift from the rules.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Dict

from .rule import DOC_SECTIONS, all_rules


def render_rule(rule: type) -> str:
    docs = rule.docs()
    parts = [f"# {rule.code} `{rule.name}`", "", docs.summary, "",
             f"Message: ``{rule.code} {rule.message}``", ""]
    if not rule.default_enabled:
        parts += [f"Off by default: enable it with `--extend-select {rule.code}` (or name it "
                  "in `select`).", ""]
    if rule.fixable:
        parts += ["Fix: available with `tffunc-lint --fix`.", ""]
    elif rule.unsafe_fixable:
        parts += ["Fix: available with `tffunc-lint --fix --unsafe-fixes` (changes behaviour).",
                  ""]
    for section in DOC_SECTIONS:
        if section in docs.sections:
            parts += [f"## {section}", docs.sections[section], ""]
    return "\n".join(parts)


def render_index() -> str:
    rows = ["# Rules", "", "| Code | Name | Summary | Fix |", "| --- | --- | --- | --- |"]
    for rule in all_rules():
        fix = "yes" if rule.fixable else "unsafe" if rule.unsafe_fixable else ""
        rows.append(f"| [{rule.code}]({rule.code}.md) | `{rule.name}` | "
                    f"{rule.docs().summary} | {fix} |")
    return "\n".join(rows) + "\n"


def render_all() -> Dict[str, str]:
    """File name → content for the whole ``docs/rules/`` directory."""
    pages = {f"{rule.code}.md": render_rule(rule) for rule in all_rules()}
    pages["README.md"] = render_index()
    return pages


def main(argv=None) -> int:
    target = Path((argv or sys.argv[1:] or ["docs/rules"])[0])
    target.mkdir(parents=True, exist_ok=True)
    for stale in target.glob("TFF*.md"):
        stale.unlink()
    for name, content in render_all().items():
        (target / name).write_text(content, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
