"""A warm-up thread is finished before the interpreter finalizes, so a process that ends while one runs
exits with its own status: a daemon thread in pydantic-core's frames at that moment aborted the process
(SIGABRT, "FATAL: exception not rethrown"), which failed a CI run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A validator (Python, called from pydantic-core's Rust) still running when the main thread ends, and a
# finalizer that releases the interpreter lock during finalization: the moment a daemon thread would be
# unwound inside the Rust frames.
_ENDS_DURING_A_WARM_UP = """
import time
from typing import Annotated
from pydantic import AfterValidator, TypeAdapter
from agent.core.warm_thread import start_warm_thread

def slow(value):
    until = time.perf_counter() + 0.3
    while time.perf_counter() < until:
        pass
    print("validated", flush=True)
    return value

adapter = TypeAdapter(Annotated[int, AfterValidator(slow)])
start_warm_thread(adapter.validate_python, 1, name="warm")

class FinalizesSlowly:
    def __del__(self):
        time.sleep(0.5)

kept = FinalizesSlowly()
"""


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_a_process_ending_during_a_warm_up_waits_for_it_and_exits_cleanly() -> None:
    done = _run(_ENDS_DURING_A_WARM_UP)
    assert (done.returncode, done.stdout, done.stderr) == (0, "validated\n", "")
