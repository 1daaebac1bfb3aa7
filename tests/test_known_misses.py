"""Harmful pitfalls a second reader found in held-out projects and no rule reports yet,
reduced from the real code (strict xfail: each test fails today, and must be turned into a
plain expectation once a rule reports the pitfall)."""

from __future__ import annotations

import pytest

from tffunc_lint.config import Settings
from tffunc_lint.engine import lint_text

REPLAY_MEMORY = '''
import tensorflow as tf


class ReplayMemory:
    def __init__(self, max_size):
        self.states = tf.Variable(tf.zeros((max_size, 4)), trainable=False)
        self.max_size = max_size
        self.count = 0
        self.real_size = 0

    def add(self, states):
        batch_size = len(states)
        indices = tf.range(self.count, self.count + batch_size) % self.max_size
        self.states.scatter_nd_update(indices[:, None], states)
        self.count = (self.count + batch_size) % self.max_size
        self.real_size = min(self.real_size + batch_size, self.max_size)

    @tf.function
    def sample(self, batch_size):
        indices = tf.random.uniform((batch_size,), 0, self.real_size, dtype=tf.int32)
        return tf.gather(self.states, indices)


memory = ReplayMemory(100)
for episode in range(10):
    memory.add(tf.ones((8, 4)))
    batch = memory.sample(4)
'''


@pytest.mark.xfail(strict=True, reason=(
    "A PPO/DQN project (held-out round 163, found by a second reader): `add()` sets "
    "`self.real_size` to `min(...)` after every episode, but the traced `sample` read it "
    "once, at its only trace, so every batch is drawn from the first episode's range. "
    "TFF202 judges only literal-like values; telling that `min(...)` of an attribute and a "
    "local `len(...)` is a Python number needs the types of locals and attributes"))
def test_a_size_recomputed_with_min_and_read_by_a_traced_sample():
    result = lint_text("memory.py", REPLAY_MEMORY, Settings().resolved())
    assert [(f.line, f.code) for f in result.findings] == [(21, "TFF202")]
