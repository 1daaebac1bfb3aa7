"""Overhead of ``tffunc-lint trace``'s recorder on the course homework's training loop.

1 000 steps of a tiny linear regression, one ``@tf.function`` step per Python iteration
(the per-call path is what the recorder must leave alone), timed with the recorder
installed and recording and without it, interleaved, after one warm-up round each.
Prints the medians and their ratio, and the recorder's own time per trace (its only
work: a call that finds its graph never reaches the recorder); ``--json`` prints the data.

    python benchmarks/trace_overhead.py [--rounds 9] [--steps 1000] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def make_run(tf, steps):
    x = tf.random.stateless_normal([256, 1], seed=[0, 1])
    y = 3.0 * x + 2.0 + tf.random.stateless_normal([256, 1], seed=[0, 2]) * 0.1

    def run():
        w, b = tf.Variable(0.0), tf.Variable(0.0)

        @tf.function
        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(w * x + b - y))
            dw, db = tape.gradient(loss, [w, b])
            w.assign_sub(0.1 * dw)
            b.assign_sub(0.1 * db)
            return loss

        started = time.perf_counter()
        for _ in range(steps):
            train_step(x, y)
        elapsed = time.perf_counter() - started
        assert abs(float(w.numpy()) - 3.0) < 0.1 and abs(float(b.numpy()) - 2.0) < 0.1
        return elapsed

    return run


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    import tensorflow as tf

    from tffunc_lint.trace.recorder import RECORDER
    from tffunc_lint.trace.recording import Recording

    run = make_run(tf, args.steps)
    bookkeeping = []  # seconds the recorder spends per trace (its only work)
    on_trace = RECORDER.on_trace

    def timed_on_trace(*a):
        started = time.perf_counter()
        try:
            return on_trace(*a)
        finally:
            bookkeeping.append(time.perf_counter() - started)

    RECORDER.on_trace = timed_on_trace
    times = {"without": [], "with": []}
    traces = 0
    for round_number in range(args.rounds + 1):
        for mode in ("without", "with") if round_number % 2 == 0 else ("with", "without"):
            if mode == "with":
                recording = Recording().start()
                elapsed = run()
                recording.stop()
                traces += len(recording.events)
            else:
                RECORDER.uninstall()
                elapsed = run()
            if round_number:  # round 0 warms up
                times[mode].append(elapsed)
    without, with_ = statistics.median(times["without"]), statistics.median(times["with"])
    result = {"steps": args.steps, "rounds": args.rounds,
              "median_without_s": round(without, 4), "median_with_s": round(with_, 4),
              "overhead_percent": round((with_ / without - 1) * 100, 2),
              "min_without_s": round(min(times["without"]), 4),
              "min_with_s": round(min(times["with"]), 4),
              "traces_recorded_per_round": traces // (args.rounds + 1),
              "bookkeeping_per_trace_us": round(statistics.median(bookkeeping) * 1e6, 1),
              "tensorflow": tf.__version__, "python": sys.version.split()[0]}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{args.steps} steps, median of {args.rounds} interleaved rounds "
              f"(TensorFlow {result['tensorflow']}):")
        print(f"  without recorder  {without * 1000:8.1f} ms  "
              f"(min {result['min_without_s'] * 1000:.1f} ms)")
        print(f"  with recorder     {with_ * 1000:8.1f} ms  "
              f"(min {result['min_with_s'] * 1000:.1f} ms)  "
              f"({result['overhead_percent']:+.1f}%, "
              f"{result['traces_recorded_per_round']} trace(s) recorded per round)")
        print(f"  recorder bookkeeping: {result['bookkeeping_per_trace_us']:.0f} us per trace, "
              "none per call of a traced function")
    return 0


if __name__ == "__main__":
    sys.exit(main())
