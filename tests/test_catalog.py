"""The rule catalogue (what settings know without importing the rules) matches the rules,
and reading settings imports no rule module."""

import subprocess
import sys

from tffunc_lint.rule import all_rules
from tffunc_lint.rules.catalog import CATALOG


def test_the_catalogue_lists_every_rule_as_its_class_declares_it():
    declared = [(rule.code, rule.name, rule.default_enabled) for rule in all_rules()]
    assert [tuple(entry) for entry in CATALOG] == declared


def test_settings_resolve_without_importing_the_rules():
    script = ("import sys\n"
              "from tffunc_lint.config import Settings\n"
              "Settings(select=('TFF1', 'unused-noqa'), ignore=('TFF105',)).resolved()\n"
              "print(sorted(m for m in sys.modules if m.startswith('tffunc_lint.rules.tff')))\n")
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True).stdout
    assert output.strip() == "[]"
