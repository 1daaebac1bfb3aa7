"""Worker process for ``--verify``: imports TensorFlow once, then runs one recipe per request.

Protocol: one JSON request per line on stdin (``{"code", "recipe", "bad", "good"}``), one JSON
reply per line on the stdout it was started with. Everything the fixtures print goes to
stderr instead, so stray output can never corrupt a reply.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from typing import Dict, Optional, TextIO


def _describe(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    where = f" ({os.path.basename(frames[-1].filename)}:{frames[-1].lineno})" if frames else ""
    first_line = (str(error).strip().splitlines() or [""])[0]
    return f"{type(error).__name__}: {first_line[:300]}{where}"


def _reset(tf) -> None:
    """Undo process-wide switches a fixture may have flipped (e.g. eager mode left on)."""
    tf.config.run_functions_eagerly(False)


def run_request(request: Dict[str, str], tf) -> Dict[str, object]:
    from .recipe import Fixture, Observation, Timing, load_module

    reply: Dict[str, object] = {"code": request["code"]}
    started = time.perf_counter()
    try:
        recipe = load_module(request["recipe"])
        for phase in ("bad", "good"):
            try:
                observation = getattr(recipe, phase)(Fixture(request[phase]))
                if not isinstance(observation, Observation):
                    raise TypeError(f"recipe {phase}() returned {type(observation).__name__}, "
                                    "not an Observation")
                reply[phase] = {"holds": observation.holds, "detail": observation.detail}
            except Exception as error:  # noqa: BLE001 - a failing phase is a result
                reply[phase] = {"holds": False, "detail": _describe(error)}
            finally:
                _reset(tf)
        if hasattr(recipe, "speed"):
            try:
                timing = recipe.speed(Fixture(request["bad"]), Fixture(request["good"]))
                if not isinstance(timing, Timing):
                    raise TypeError(f"recipe speed() returned {type(timing).__name__}, "
                                    "not a Timing")
                reply["speed"] = {"bad_seconds": timing.bad_seconds,
                                  "good_seconds": timing.good_seconds}
            except Exception as error:  # noqa: BLE001
                reply["speed"] = {"error": _describe(error)}
            finally:
                _reset(tf)
    except Exception as error:  # noqa: BLE001 - the recipe itself did not load
        reply["error"] = _describe(error)
    reply["seconds"] = time.perf_counter() - started
    return reply


def serve(requests: TextIO, replies: TextIO) -> None:
    started = time.perf_counter()
    import tensorflow as tf

    replies.write(json.dumps({"ready": tf.__version__,
                              "import_seconds": time.perf_counter() - started}) + "\n")
    replies.flush()
    for line in requests:
        if not line.strip():
            continue
        replies.write(json.dumps(run_request(json.loads(line), tf)) + "\n")
        replies.flush()


def main(argv: Optional[list] = None) -> int:
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # fixtures' prints land on stderr, never in the replies
    sys.stdout = sys.stderr
    serve(sys.stdin, replies)
    return 0


if __name__ == "__main__":
    sys.exit(main())
