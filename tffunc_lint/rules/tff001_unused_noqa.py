"""TFF001 unused-noqa."""

from typing import FrozenSet, List

from .. import noqa
from ..finding import Finding
from ..rule import Rule, Scope, all_rules

#: Codes of this linter; codes of other tools (E501, F401) are never judged.
_OURS = "TFF"


class UnusedNoqa(Rule):
    """A `# noqa` comment that suppresses no tffunc-lint finding, or names an unknown code.

    ## What it does
    Reports `# noqa` comments, bare or listing `TFF` codes, that silenced no finding of this
    linter in this run, and `TFF` codes in them that no rule has (`# noqa: TFF999`). Codes of
    other tools (`E501`, `F401`) are left alone. Like ruff's `RUF100`, it is off by default:
    turn it on with `--extend-select TFF001` (or `select`, by code, name or `TFF0`).

    ## Why is this bad?
    A `# noqa` outlives the finding it was written for: once the code is fixed, or the
    analysis learns that the code is fine, the comment silences nothing, and later hides a
    new problem on the same line. A misspelt code (`# noqa: TFF1O1`) silences nothing at all.

    ## Example
    ```python
    import tensorflow as tf

    @tf.function
    def step(x):
        tf.print(x)  # noqa: TFF101
        return x
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    @tf.function
    def step(x):
        tf.print(x)
        return x
    ```

    ## Known problems
    The verdict is about this run: a `# noqa` for a rule that is not enabled (for this file)
    is reported as such. A bare `# noqa` is reported when it silences no finding of this
    linter, even if it is meant for another tool: write that tool's codes
    (`# noqa: E501`). Only the CLI and pre-commit report TFF001; under flake8, which handles
    `# noqa` itself, the rule never fires. A `# noqa: TFF001` on the line silences it.

    ## References
    - [ruff: unused-noqa (RUF100)](https://docs.astral.sh/ruff/rules/unused-noqa/)
    - [flake8: selecting and ignoring violations](https://flake8.pycqa.org/en/latest/user/violations.html#in-line-ignoring-errors)
    """

    code = "TFF001"
    in_tests = True  # wrong in a test as anywhere
    name = "unused-noqa"
    message = "unused `# noqa` directive; remove it, or use it only where a finding is reported"
    scope = Scope.NOQA
    default_enabled = False

    @classmethod
    def check_noqa(cls, path: str, text: str, used, enabled: FrozenSet[str],
                   unchecked: FrozenSet[str] = frozenset()) -> List[Finding]:
        """Findings for the ``# noqa`` comments of one file, given ``used``: the codes each
        noqa line suppressed (see :func:`tffunc_lint.noqa.apply`). Codes of ``unchecked``
        rules (not run on this file: the pitfall rules in a test module) are left alone."""
        known = {rule.code for rule in all_rules()}
        findings = []
        for directive in noqa.directives(text):
            silenced = used.get(directive.line, set())
            if directive.codes is None:
                if not silenced:
                    findings.append(cls._finding(path, directive, cls.message))
                continue
            ours = [code.upper() for code in directive.codes
                    if code.upper().startswith(_OURS)
                    and not any(k.startswith(code.upper()) for k in unchecked)]
            if any(code == cls.code or cls.code.startswith(code) for code in ours):
                continue  # `# noqa: TFF001` keeps this rule quiet on its line
            unknown = [c for c in ours if not any(k.startswith(c) for k in known)]
            disabled = [c for c in ours if c not in unknown
                        and not any(k.startswith(c) for k in enabled)]
            unused = [c for c in ours if c not in unknown and c not in disabled
                      and not any(s.startswith(c) for s in silenced)]
            parts = [f"{label}: {', '.join(codes)}" for label, codes in (
                ("unused", unused), ("non-enabled", disabled), ("unknown", unknown)) if codes]
            if parts:
                message = (f"unused `# noqa` directive ({'; '.join(parts)}); remove the "
                           f"codes, or use only those of findings reported here")
                findings.append(cls._finding(path, directive, message))
        return findings

    @classmethod
    def _finding(cls, path: str, directive, message: str) -> Finding:
        return Finding(path=path, line=directive.line, column=directive.column,
                       end_line=directive.line, end_column=directive.end_column,
                       code=cls.code, name=cls.name, message=message,
                       statement_line=directive.line)
