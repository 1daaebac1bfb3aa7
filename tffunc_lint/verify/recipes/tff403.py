"""TFF403: a Python list iterated in a tf.function is unrolled, one set of ops per element."""

import tensorflow as tf

from tffunc_lint.verify.recipe import observe

CLAIM = "graph node count grows with the length of a Python list; with a tf.data.Dataset it " \
        "stays constant"
LENGTHS = (3, 10, 30)


def _nodes(function, argument):
    return len(function.get_concrete_function(argument).graph.as_graph_def().node)


def _grows(counts):
    return all(small < large for small, large in zip(counts, counts[1:]))


def bad(fixture):
    totals = [_nodes(fixture.total, list(range(n))) for n in LENGTHS]
    pairs = [_nodes(fixture.train, [(1, 1)] * n) for n in LENGTHS]
    lengths = "/".join(str(n) for n in LENGTHS)
    return observe(_grows(totals) and _grows(pairs),
                   f"total() over lists of {lengths} ints: {totals} nodes; train() over "
                   f"{lengths} pairs: {pairs} nodes")


def good(fixture):
    datasets = [tf.data.Dataset.from_tensor_slices(tf.range(n)) for n in LENGTHS]
    counts = [_nodes(fixture.total, dataset) for dataset in datasets]
    sums = [int(fixture.total(dataset)) for dataset in datasets]
    right = sums == [n * (n - 1) // 2 for n in LENGTHS]
    lengths = "/".join(str(n) for n in LENGTHS)
    return observe(len(set(counts)) == 1 and right,
                   f"total() over Datasets of {lengths} ints: {counts} nodes, sums {sums}")
