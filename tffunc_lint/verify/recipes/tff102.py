"""TFF102: a Python container that outlives the call is mutated only while tracing."""

import tensorflow as tf

from tffunc_lint.verify.recipe import observe, raised

CLAIM = "an external list has 1 item after 3 calls; returned values and a tf.Variable keep all 3"
VALUES = (1.0, 2.0, 3.0)


def bad(fixture):
    for value in VALUES:
        fixture.side_effect(tf.constant(value))
    appended = len(fixture.external_list)
    symbolic = sum(tf.is_symbolic_tensor(item) for item in fixture.external_list)
    count, calls = fixture.make_counter()
    counted = [float(count(tf.constant(value))) for value in VALUES]
    recorder = fixture.Recorder()
    for value in VALUES:
        recorder(tf.constant(value))
    history = len(recorder.history)
    error = raised(lambda: fixture.fill(tf.constant(1.0), []))
    refused = isinstance(error, ValueError) and "modify" in str(error)
    holds = (appended == 1 and symbolic == 1 and len(calls) == 1
             and counted == [2.0, 3.0, 4.0] and history == 1 and refused)
    return observe(holds, f"external list has {appended} item(s) ({symbolic} graph tensor) "
                          f"after 3 calls; closure list {len(calls)}, self.history {history}; "
                          f"mutating an argument list raises "
                          f"{type(error).__name__ if error else 'nothing'}")


def good(fixture):
    results = [float(fixture.accumulate(tf.constant(value))) for value in VALUES]
    stacked, table = fixture.squares(tf.constant(2.0))
    powers = [float(v) for v in stacked.numpy()]
    squares = [int(v) for v in fixture.collect(tf.constant(4)).numpy()]
    recorder = fixture.Recorder()
    for value in VALUES:
        recorder(tf.constant(value))
    mean = float(recorder.metric.result())
    config = {"seen": False}
    _, options = fixture.step(tf.constant(1), config)
    holds = (results == [1.0, 3.0, 6.0] and powers == [2.0, 4.0, 8.0]
             and float(table["triple"]) == 6.0 and squares == [0, 1, 4, 9]
             and mean == 2.0 and len(recorder.calls) == 1
             and bool(options["seen"]) and config == {"seen": False})
    return observe(holds, f"tf.Variable totals {results} over 3 calls; local list gives "
                          f"{powers}, TensorArray {squares}; metric mean {mean} over 3 calls; "
                          f"copied argument returned, caller's dict unchanged")
