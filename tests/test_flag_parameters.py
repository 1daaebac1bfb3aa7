"""Parameters that are flags: code under ``if debug:`` in a function that every traced call
leaves with ``debug=False`` is never traced (``FunctionInfo.flag_params``)."""

from __future__ import annotations

import ast

import pytest

from tffunc_lint.analysis import guards
from tffunc_lint.config import Settings
from tffunc_lint.engine import lint_text

HELPER = '''
import tensorflow as tf


def helper(x, scale=1.0, actual=False):
    if actual:
        return x.numpy()
    return x * scale
'''


def _lines(source: str):
    result = lint_text("example.py", source, Settings().resolved())
    return [(finding.line, finding.code) for finding in result.findings]


@pytest.mark.parametrize("call", [
    "helper(x)",
    "helper(x, 2.0)",
    "helper(x, actual=False)",
    "helper(x, 2.0, False)",
    "helper(x, scale=2.0)",
])
def test_a_flag_every_traced_call_leaves_off_hides_its_branch(call):
    assert _lines(HELPER + f"\n\n@tf.function\ndef step(x):\n    return {call}\n") == []


@pytest.mark.parametrize("call", [
    "helper(x, actual=True)",
    "helper(x, 2.0, True)",
    "helper(x, *rest)",          # ``*args`` may fill ``actual``
    "helper(x, **options)",      # so may ``**kwargs``
    "helper(x, actual=ready)",   # a value the trace does not know
])
def test_a_flag_a_traced_call_may_set_keeps_its_branch_traced(call):
    source = HELPER + (f"\n\n@tf.function\ndef step(x, ready, *rest, **options):\n"
                       f"    return {call}\n")
    assert _lines(source) == [(7, "TFF204")]


def test_a_flag_passed_on_keeps_the_value_the_caller_was_given():
    source = HELPER + '''

def outer(x, actual=False):
    return helper(x, actual=actual)


@tf.function
def step(x):
    return outer(x)


@tf.function
def export(x):
    return outer(x, True)
'''
    # ``export`` passes True on: one way in sets the flag, so the branch is traced.
    assert _lines(source) == [(7, "TFF204")]
    assert _lines(source.replace("outer(x, True)", "outer(x)")) == []


def test_a_rebound_flag_or_a_wrapping_decorator_is_not_known():
    rebound = HELPER.replace("    if actual:", "    actual = not actual\n    if actual:")
    assert _lines(rebound + "\n\n@tf.function\ndef step(x):\n    return helper(x)\n") == [
        (8, "TFF204")]
    wrapped = HELPER.replace("def helper", "@log_calls\ndef helper")
    assert _lines(wrapped + "\n\n@tf.function\ndef step(x):\n    return helper(x)\n") == [
        (8, "TFF204")]


def test_a_method_counts_its_arguments_without_self():
    source = '''
import tensorflow as tf


class Pruner(tf.Module):
    def copy(self, x, actual=False):
        if actual:
            return x.numpy()
        return x

    @tf.function
    def step(self, x):
        return self.copy(x)

    @tf.function
    def through_the_class(self, x):
        return Pruner.copy(self, x)
'''
    # ``Pruner.copy(self, x)``: positions through the class count ``self``; not judged.
    assert _lines(source) == [(8, "TFF204")]
    assert _lines(source.replace("Pruner.copy(self, x)", "self.copy(x, False)")) == []


@pytest.mark.parametrize("test, names, flags", [
    ("debug", {"debug"}, {"debug": True}),
    ("not debug", {"debug"}, {"debug": False}),
    ("debug and not self.ready", {"debug"}, {"debug": True, "self.ready": False}),
    ("debug", set(), {}),
    ("labels is None", {"labels is None"}, {"labels is None": True}),
    ("labels is not None", {"labels is None"}, {"labels is None": False}),
    ("labels != None", {"labels is None"}, {"labels is None": False}),
    ("labels is not None", {"labels"}, {}),
    ("self.labels is not None", {"labels is None"}, {}),
])
def test_flag_tests_read_plain_names_only_among_the_flags(test, names, flags):
    assert guards.flag_tests(ast.parse(test, mode="eval").body, frozenset(names)) == flags


NONE_HELPER = '''
import tensorflow as tf


def helper(x, labels=None):
    if labels is not None:
        return x.numpy()
    return x
'''


@pytest.mark.parametrize("call, found", [
    ("helper(x)", []),
    ("helper(x, None)", [(7, "TFF204")]),   # not told apart from other values: kept
    ("helper(x, labels=y)", [(7, "TFF204")]),
    ("helper(x, True)", [(7, "TFF204")]),
])
def test_a_parameter_left_at_its_none_default_is_a_flag(call, found):
    source = NONE_HELPER + f"\n\n@tf.function\ndef step(x, y):\n    return {call}\n"
    assert _lines(source) == found


KERAS_MODEL = '''
import tensorflow as tf


class Tagger(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(4)

    def call(self, text, labels=None, training=None):
        logits = self.dense(text)
        if labels is not None:
            self.transitions = tf.Variable(tf.zeros([4, 4]))
            return logits, labels
        return logits


model = Tagger()
model.compile(loss="mse")
model.fit(features, targets)
model.predict(features)
for text, labels in batches:
    model(text, labels)  # eagerly
'''


def test_keras_runs_a_model_with_its_inputs_alone():
    """AprilSpring's BiLSTM-CRF (held-out round 126): ``fit`` and ``predict`` trace
    ``call`` with the inputs alone, so its ``labels`` branch, taken only by the eager loop
    that passes labels, is not traced; a ``tf.function`` that passes them traces it."""
    assert _lines(KERAS_MODEL) == []
    traced = KERAS_MODEL.replace("    model(text, labels)  # eagerly",
                                 "    step(text, labels)") + (
        "\n\n@tf.function\ndef step(text, labels):\n    return model(text, labels)\n")
    assert _lines(traced) == [(13, "TFF301")]
