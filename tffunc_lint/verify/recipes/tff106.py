"""TFF106: a Python iterator advances only while tracing; every call replays its elements."""

import tensorflow as tf

from tffunc_lint.verify.recipe import observe

CLAIM = "3 calls on a Python iterator yield 1, 1, 1; a tf.data iterator yields 1, 2, 3"


def bad(fixture):
    iterator = iter([1, 2, 3])
    yielded = [int(fixture.consume_next(iterator)) for _ in range(3)]
    left = next(iterator)  # the iterator moved once, while tracing
    generator = fixture.numbers()
    totals = [int(fixture.total(generator)) for _ in range(3)]  # eagerly 3, 0, 0
    for _ in range(3):
        fixture.total(fixture.numbers())
    traces = fixture.total.experimental_get_tracing_count()
    holds = yielded == [1, 1, 1] and left == 2 and totals == [3, 3, 3] and traces == 4
    return observe(holds, f"3 calls yielded {yielded}, the Python iterator then gave {left}; "
                          f"one generator summed to {totals} (eagerly 3, 0, 0); "
                          f"{traces} traces for 4 generators")


def good(fixture):
    dataset = tf.data.Dataset.from_tensor_slices([1, 2, 3])
    iterator = iter(dataset)
    yielded = [int(fixture.consume_next(iterator)) for _ in range(3)]
    traces = fixture.consume_next.experimental_get_tracing_count()
    first = int(fixture.run(iter(tf.data.Dataset.range(3))))
    totals = [int(fixture.total(dataset)) for _ in range(3)]
    holds = yielded == [1, 2, 3] and traces == 1 and first == 0 and totals == [6, 6, 6]
    return observe(holds, f"3 calls yielded {yielded} with {traces} trace(s); a dataset summed "
                          f"to {totals} over 3 calls")
