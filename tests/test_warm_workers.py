"""The warm process xdist's workers are forked from (`tests/warm_workers.py`): a client's run is its child,
on the client's pipes, directory, environment and arguments, and the client ends as that child did; without
the warm process the client is the interpreter itself; and in a parallel run this worker is such a child."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.warm_workers import CLIENT, COLD, WarmProcess

RUN = (
    "import os, sys\n"
    "print(os.getcwd(), os.environ['MARK'], os.getppid(), sys.argv, flush=True)\n"
    "sys.exit(int(sys.stdin.readline()))\n"
)


def _client(path: str, code: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(CLIENT), "client", path, "-u", "-c", code, "an-argument"],
        input=stdin,
        cwd=cwd,
        env={**os.environ, "MARK": cwd.name},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_clients_run_is_a_child_of_the_warm_process_and_ends_as_it_did(tmp_path: Path) -> None:
    warm = WarmProcess(preload=())
    try:
        first, second = tmp_path / "first", tmp_path / "second"
        first.mkdir()
        second.mkdir()
        out = _client(warm.path, RUN, first, stdin="3\n")
        assert out.returncode == 3, out.stderr
        cwd, mark, parent, argv = out.stdout.strip().split(" ", 3)
        assert (cwd, mark, int(parent), argv) == (
            str(first),
            "first",
            warm.process.pid,
            "['-c', 'an-argument']",
        )
        out = _client(warm.path, RUN, second, stdin="0\n")
        assert out.returncode == 0 and out.stdout.startswith(f"{second} second "), out.stderr
        killed = _client(warm.path, "import os, signal; os.kill(os.getpid(), signal.SIGKILL)", first)
        assert killed.returncode == -9, killed.stderr
    finally:
        warm.stop()
    assert warm.process.returncode == 0
    assert not Path(warm.path).parent.exists()


def test_without_the_warm_process_the_client_becomes_the_interpreter(tmp_path: Path) -> None:
    out = _client(str(tmp_path / "no-such-socket"), RUN, tmp_path, stdin="4\n")
    assert out.returncode == 4, out.stderr
    assert int(out.stdout.split(" ")[2]) == os.getpid()  # the client itself (exec'd), our child


def test_this_worker_was_forked_from_the_warm_process() -> None:
    if "PYTEST_XDIST_WORKER" not in os.environ or os.environ.get(COLD) == "1":
        pytest.skip("not an xdist worker, or the workers were started cold")
    parent = Path(f"/proc/{os.getppid()}/cmdline").read_bytes().split(b"\0")
    assert [part.decode() for part in parent[1:3]] == [str(CLIENT), "serve"]
    assert "anthropic" in sys.modules and "textual.app" in sys.modules
