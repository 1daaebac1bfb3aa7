"""Every rule's code, name and default, known without importing the rules.

Settings validate selectors (``TFF1``, ``print-in-tf-function``) and compute the enabled codes
before any file is linted; importing every rule module for that would cost every run,
cached or not, the rules' start-up. ``tests/test_catalog.py`` fails when this table and the
rule classes disagree: a new rule is added here too.
"""

from typing import NamedTuple, Tuple


class Entry(NamedTuple):
    code: str
    name: str
    default_enabled: bool = True


CATALOG: Tuple[Entry, ...] = (
    Entry("TFF000", "file-not-analysed"),
    Entry("TFF001", "unused-noqa", default_enabled=False),
    Entry("TFF101", "print-in-tf-function"),
    Entry("TFF102", "external-container-mutation"),
    Entry("TFF103", "python-state-mutation"),
    Entry("TFF104", "python-randomness-or-clock"),
    Entry("TFF105", "python-io-side-effect"),
    Entry("TFF106", "python-iterator-in-tf-function"),
    Entry("TFF201", "captured-mutable-global"),
    Entry("TFF202", "captured-mutable-attribute"),
    Entry("TFF203", "numpy-on-tensor"),
    Entry("TFF204", "eager-only-call"),
    Entry("TFF301", "variable-created-in-tf-function"),
    Entry("TFF302", "recursive-tf-function"),
    Entry("TFF401", "python-scalar-argument"),
    Entry("TFF402", "tf-function-recreated"),
    Entry("TFF403", "python-data-iterated-in-graph"),
    Entry("TFF405", "deprecated-tf-function-api"),
    Entry("TFF406", "eager-mode-left-on"),
    Entry("TFF407", "redundant-tf-function"),
    Entry("TFF501", "python-list-in-tensor-loop"),
)
