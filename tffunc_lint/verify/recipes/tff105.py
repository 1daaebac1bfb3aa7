"""TFF105: Python I/O in traced code happens once per trace, not once per call."""

import contextlib
import logging
import os
import tempfile
import types

import tensorflow as tf

from tffunc_lint.verify.recipe import capture, observe

CLAIM = "a logging call in a tf.function logs once over 3 calls and a line appended to a " \
        "file is written once; tf.print prints 3 times and tf.io reads every new value"
VALUES = (1.0, 2.0, 3.0)


class _Records(logging.Handler):
    """Collects the messages of every record that reaches the root logger."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())

    def count(self, prefix):
        return sum(message.startswith(prefix) for message in self.messages)


@contextlib.contextmanager
def _logged():
    root = logging.getLogger()
    records, level = _Records(), root.level
    root.addHandler(records)
    root.setLevel(logging.INFO)
    try:
        yield records
    finally:
        root.removeHandler(records)
        root.setLevel(level)


def bad(fixture):
    with _logged() as records, capture() as output:
        for value in VALUES:
            fixture.train_step(tf.constant(value))
    logged, warned, written = records.count("loss:"), records.count("step with"), \
        output.count("step\n")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "steps.txt")
        for value in VALUES:
            fixture.record_step(tf.constant(value), path)
        with open(path) as handle:
            appended = handle.read().count("step\n")
    commands, prompts = [], []  # stand-ins that count, instead of running a shell or asking
    fixture.module.os = types.SimpleNamespace(system=commands.append)
    fixture.module.subprocess = types.SimpleNamespace(run=lambda *args, **_: commands.append(args))
    fixture.module.input = lambda prompt: prompts.append(prompt) or "2"
    for value in VALUES:
        fixture.shell_out(tf.constant(value))
        fixture.ask(tf.constant(value))
    holds = ((logged, warned, written, appended) == (1, 1, 1, 1)
             and len(commands) == 2 and len(prompts) == 1)
    return observe(holds, f"3 calls: logging.info {logged}, logger.warning {warned}, "
                          f"sys.stdout.write {written}, a line appended to a file "
                          f"{appended} time(s); os.system + subprocess.run ran "
                          f"{len(commands)} time(s) together, input() {len(prompts)}")


def good(fixture):
    with _logged() as records, capture() as output:
        fixture.train(3)
        for value in VALUES:
            fixture.log_on_purpose(tf.constant(value))
    printed, logged = output.count("loss:"), records.count("value:")
    with tempfile.TemporaryDirectory() as folder:
        path = tf.constant(os.path.join(folder, "value.txt"))
        read = [fixture.save(tf.constant(value), path).numpy().decode() for value in VALUES]
    holds = printed == 3 and logged == 3 and [float(v) for v in read] == list(VALUES)
    return observe(holds, f"3 calls: tf.print ran {printed} time(s), logging inside "
                          f"tf.py_function {logged}; tf.io wrote and read back {read}")
