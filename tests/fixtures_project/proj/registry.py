"""Library code that only a test traces: users call it eagerly, so what it does while the
test's tf.function traces (here, recording each call) is the test's business."""
_CALLS = []


def record(x):
    _CALLS.append(x)
    return x
