"""The supervisor of child processes: each child in a group of its own, stopped group and all; the reaper
stops what the app left when it dies without cleaning up (kill -9); the leftovers are told once."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from agent.children.groups import Group, group_alive, group_leaders_below, group_members, stat_fields
from agent.children.leftovers import Leftover, leftovers_path, record, summary, take
from agent.children.reaper import MARK_VARIABLE, parse, register_line
from agent.children.supervisor import Supervisor

ROOT = Path(__file__).resolve().parents[2]


def _wait(condition, timeout: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return bool(condition())


def _supervisor(tmp_path: Path, *, reaper: bool = False) -> Supervisor:
    return Supervisor(reaper=reaper, report=lambda: leftovers_path(tmp_path))


def test_a_child_leads_its_own_group_and_is_stopped_with_its_children(tmp_path: Path) -> None:
    sup = _supervisor(tmp_path)
    proc = sup.popen(["sh", "-c", "sleep 300 & sleep 301"], label="two sleeps")
    assert os.getpgid(proc.pid) == proc.pid != os.getpgrp()
    assert _wait(lambda: len(group_members(proc.pid) or []) >= 3)
    assert [c.label for c in sup.children()] == ["two sleeps"]
    assert sup.stop(proc.pid)
    proc.wait(timeout=5)
    assert not group_alive(proc.pid)
    assert sup.children() == []


def test_the_groups_a_child_started_detached_are_found_below_it(tmp_path: Path) -> None:
    """What Playwright's driver does with Chromium: a grandchild in a session of its own, found to adopt."""
    sup = _supervisor(tmp_path)
    code = (
        "import subprocess, time; subprocess.Popen(['sleep', '303'], start_new_session=True); time.sleep(300)"
    )
    proc = sup.popen([sys.executable, "-c", code], label="driver")
    try:
        assert _wait(lambda: len(group_leaders_below(proc.pid)) == 1)
        (detached,) = group_leaders_below(proc.pid)
        assert os.getpgid(detached) == detached != proc.pid
        assert group_leaders_below(os.getpid()).count(proc.pid) == 1  # the child itself leads one too
        os.killpg(detached, signal.SIGKILL)
    finally:
        sup.stop(proc.pid)
        proc.wait()


def test_ended_keeps_what_a_command_left_running_until_stop_all(tmp_path: Path) -> None:
    sup = _supervisor(tmp_path)
    proc = sup.popen(
        ["sh", "-c", "sleep 300 > /dev/null 2>&1 &"], label="a command", stdout=subprocess.DEVNULL
    )
    proc.wait(timeout=5)
    sup.ended(proc.pid)  # the shell is gone, its sleep is not: still registered
    assert [c.pgid for c in sup.children()] == [proc.pid]
    stopped = sup.stop_all(record_as="at exit")
    assert [c.label for c in stopped] == ["a command"]
    assert not group_alive(proc.pid)
    assert [x.label for x in take(leftovers_path(tmp_path))] == ["a command"]


def test_ended_forgets_a_group_that_is_gone(tmp_path: Path) -> None:
    sup = _supervisor(tmp_path)
    proc = sup.popen(["true"], label="quick")
    proc.wait(timeout=5)
    sup.ended(proc.pid)
    assert sup.children() == []
    assert sup.stop_all(record_as="at exit") == []
    assert not leftovers_path(tmp_path).exists()


def test_a_clean_stop_all_records_nothing(tmp_path: Path) -> None:
    sup = _supervisor(tmp_path)
    proc = sup.popen(["sleep", "300"], label="sleep")
    assert [c.label for c in sup.stop_all()] == ["sleep"]
    proc.wait(timeout=5)
    assert take(leftovers_path(tmp_path)) == []


def test_labels_are_one_printable_line() -> None:
    sup = Supervisor(reaper=False)
    proc = sup.popen(["sleep", "300"], label="evil\nlabel\x1b[31m" + "x" * 500)
    try:
        (child,) = sup.children()
        assert "\n" not in child.label and "\x1b" not in child.label and len(child.label) <= 200
    finally:
        sup.stop(proc.pid)
        proc.wait(timeout=5)


def test_the_reaper_protocol_ignores_what_it_cannot_read() -> None:
    groups: dict[int, tuple[Group, str]] = {}
    lines = (
        b"+ 1234 5678 a server\n",
        b"+ 77 - gone at adoption\n",
        b"+ 99 1 x\n",
        b"- 99\n",
        b"+ nope\n",
        b"+ 1 1 init\n",
        b"\xff\xfe\n",
        b"+ 55 a label without a start time\n",  # cannot be told from a stranger: never stopped
        b"+ 56 \xd9\xa3 not an ASCII start time\n",
        b"+ 57\n",
    )
    for line in lines:
        parse(line, groups)
    assert groups == {
        1234: (Group(1234, 5678), "a server"),
        77: (Group(77, None), "gone at adoption"),
    }
    for group, label in groups.values():  # what the supervisor writes reads back the same
        again: dict[int, tuple[Group, str]] = {}
        parse(register_line(group, label).encode(), again)
        assert again == {group.pgid: (group, label)}


_KILLED_APP = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from agent.children.supervisor import Supervisor
    sup = Supervisor(report=lambda: Path(sys.argv[1]))
    proc = sup.popen(["sh", "-c", "sleep 300 & sleep 301"], label="background process proc_1: sleep")
    print(proc.pid, sup.reaper_pid, flush=True)
    time.sleep(300)
    """
)


def _environ(pid: int) -> list[bytes]:
    """The `NAME=value` entries of a live process's environment ([] while its exec is still setting it up)."""
    return [f for f in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0") if f]


def _app(
    script: str, report: Path, argv: Sequence[str] = (), **env: str
) -> tuple[subprocess.Popen[str], list[int]]:
    """An app process running `script` (its supervisor reporting to `report`, then `argv`; `env` added to
    its environment), and the pids it prints."""
    app = subprocess.Popen(
        [sys.executable, "-c", script, str(report), *argv],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
    )
    assert app.stdout is not None
    return app, [int(x) for x in app.stdout.readline().split()]


def test_kill_9_of_the_app_leaves_nothing_and_the_leftovers_are_told_once(tmp_path: Path) -> None:
    report = tmp_path / "tui" / "leftovers.jsonl"
    app, (child, reaper) = _app(_KILLED_APP, report)
    assert _wait(lambda: len(group_members(child) or []) >= 3)
    os.kill(app.pid, signal.SIGKILL)
    app.wait(timeout=5)
    assert _wait(lambda: not group_alive(child), 5), "the reaper did not stop the group"
    assert _wait(lambda: not group_alive(reaper), 5), "the reaper did not end"
    found = take(report)
    assert [x.label for x in found] == ["background process proc_1: sleep"]
    assert take(report) == []  # told once
    line = summary(found)
    assert line is not None and "background process proc_1: sleep" in line


_KILLED_BEFORE_REGISTERING = textwrap.dedent(
    """
    import os, subprocess, sys, time
    from pathlib import Path
    from agent.children.supervisor import Supervisor
    sup = Supervisor(report=lambda: Path(sys.argv[1]))
    argv = ["sh", "-c", "sleep 300 & setsid sleep 302 & sleep 301"]
    if sys.argv[2] == "popen":
        sup.adopt = lambda pgid, label, **kw: None  # the kill -9 comes between the child's start and this
        proc = sup.popen(argv, label="never registered")
    else:  # started by someone else's code (the MCP SDK's spawn) in the environment the supervisor gave
        proc = subprocess.Popen(argv, start_new_session=True, env=sup.marked_env(os.environ))
    stranger = subprocess.Popen(["sleep", "303"], start_new_session=True,
                                env={**os.environ, "HERMES_TUI_APP": "another app's mark"})
    print(proc.pid, sup.reaper_pid, stranger.pid, flush=True)
    time.sleep(300)
    """
)


@pytest.mark.parametrize("started_by", ["popen", "marked_env"])
def test_a_child_the_app_was_killed_before_registering_is_stopped_by_its_mark(
    tmp_path: Path, started_by: str
) -> None:
    """The child exists before `Popen` returns its pid: a kill -9 in between leaves it unregistered (a
    child someone else's code starts is registered later still). Its environment carries the app's mark,
    and so does everything it starts (a `setsid` escapee too): the reaper, running before the child,
    stops them all, and leaves a process with another app's mark alone."""
    report = tmp_path / "tui" / "leftovers.jsonl"
    app, (child, reaper, stranger) = _app(_KILLED_BEFORE_REGISTERING, report, argv=[started_by])
    escapee: list[int] = []

    def started() -> bool:
        escapee[:] = [pid for pid in group_leaders_below(child) if pid != child]
        return len(group_members(child) or []) >= 2 and bool(escapee)

    try:
        assert _wait(started)
        os.kill(app.pid, signal.SIGKILL)
        app.wait(timeout=5)
        assert _wait(lambda: not group_alive(child), 5), "the reaper did not stop the unregistered group"
        assert _wait(lambda: not group_alive(escapee[0]), 5), "the reaper did not stop the setsid escapee"
        assert _wait(lambda: not group_alive(reaper), 5), "the reaper did not end"
        assert group_alive(stranger), "a process with another app's mark was stopped"
        labels = [x.label for x in take(report)]
        assert len(labels) == 2 and all("sleep 30" in label for label in labels), labels
    finally:
        os.killpg(stranger, signal.SIGKILL)
        for pid in (child, *escapee):
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_a_nested_apps_reaper_carries_no_mark(tmp_path: Path) -> None:
    """hermes-tui run by a command of another hermes-tui carries the other's mark: its children get its own
    mark instead, and its reaper none, so the other app's reaper, stopping what carries its mark, never
    stops the reaper that still has this app's children to stop."""
    script = textwrap.dedent(
        """
        import sys, time
        from pathlib import Path
        from agent.children.supervisor import Supervisor
        sup = Supervisor(report=lambda: Path(sys.argv[1]))
        proc = sup.popen(["sleep", "300"], label="a child")
        print(proc.pid, sup.reaper_pid, flush=True)
        time.sleep(300)
        """
    )
    outer = "an outer app's mark"
    app, (child, reaper) = _app(script, tmp_path / "leftovers.jsonl", **{MARK_VARIABLE: outer})
    try:

        def mark(pid: int) -> str | None:
            # `Popen` returns once the child's exec has closed its close-on-exec pipe, which Linux does before
            # it sets up the new program's environment: until then /proc/PID/environ reads empty.
            assert _wait(lambda: _environ(pid), 5), f"{pid} never finished its exec"
            found = [f for f in _environ(pid) if f.startswith(f"{MARK_VARIABLE}=".encode())]
            return found[0].split(b"=", 1)[1].decode() if found else None

        assert mark(app.pid) == outer
        assert mark(child) not in (None, outer)  # this app's own mark
        assert mark(reaper) is None
    finally:
        app.kill()
        app.wait()
        assert _wait(lambda: not group_alive(child), 5)


def test_the_reaper_survives_the_terminal_hanging_up(tmp_path: Path) -> None:
    """It runs in a session of its own: a SIGHUP to the app's group does not reach it."""
    sup = _supervisor(tmp_path, reaper=True)
    proc = sup.popen(["sleep", "300"], label="sleep")
    try:
        reaper = sup.reaper_pid
        assert reaper is not None
        assert os.getsid(reaper) == reaper != os.getsid(0)
    finally:
        sup.stop(proc.pid)
        proc.wait(timeout=5)
        sup.close()
    assert _wait(lambda: not group_alive(reaper), 5)
    assert take(leftovers_path(tmp_path)) == []  # nothing was left: nothing to tell


def test_a_leftovers_file_with_a_torn_line_keeps_the_good_ones(tmp_path: Path) -> None:
    path = leftovers_path(tmp_path)
    record(path, [Leftover("MCP server 'docs'", 12, 0.0, "at exit")])
    with path.open("a") as fh:
        fh.write('{"label": "cut sh')
    assert [x.label for x in take(path)] == ["MCP server 'docs'"]
    assert summary([]) is None


def test_the_next_start_tells_what_a_crash_left_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    record(leftovers_path(home), [Leftover("background process proc_1: npm run dev", 42, time.time(), "x")])
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HERMES_HOME": str(home)}
    scenario = tmp_path / "reply.json"  # any start will do: a one-line reply, not the paced demo
    scenario.write_text(json.dumps({"name": "reply", "calls": [{"text": "Hello."}]}))
    run = [sys.executable, "-m", "hermes_tui.cli", "-z", "hi", "--scenario", str(scenario)]
    first = subprocess.run(run, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert "stopped at" in first.stderr and "proc_1: npm run dev" in first.stderr
    second = subprocess.run(run, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert "npm run dev" not in second.stderr


async def test_the_gate_becomes_its_command_only_once_admitted(tmp_path: Path) -> None:
    """Same pid and group as the gate, registered before it runs, with the signals and environment a
    plain spawn gives (Python's own start ignores SIGPIPE and coerces a C locale's LC_CTYPE)."""
    from agent.children.gate import Gate

    out = tmp_path / "out"
    script = f"grep SigIgn /proc/$$/status > {out}; echo pid=$$ >> {out}; env >> {out}"
    env = {"PATH": os.environ["PATH"]}
    with Gate() as gate:
        argv = gate.argv("sh", ["-c", script], env)
        proc = subprocess.Popen(argv, env=env, start_new_session=True)
        registered: list[int] = []

        def register(pgid: int) -> None:
            assert not out.exists()  # still the gate
            registered.append(pgid)

        assert await gate.admit(register) == proc.pid
        assert proc.wait(10) == 0
        assert gate.exec_error() is None
    text = out.read_text()
    assert registered == [proc.pid] and f"pid={proc.pid}" in text
    assert "SigIgn:\t0000000000000000" in text
    assert "LC_CTYPE" not in text


async def test_a_gate_whose_app_closed_its_end_never_runs_its_command(tmp_path: Path) -> None:
    from agent.children.gate import Gate

    ran = tmp_path / "ran"
    with Gate() as gate:
        proc = subprocess.Popen(gate.argv("touch", [str(ran)], dict(os.environ)), start_new_session=True)
    assert proc.wait(10) == 1  # its connection refused, or closed unanswered: it never ran `touch`
    assert not ran.exists()


async def test_a_gate_whose_command_cannot_run_says_why(tmp_path: Path) -> None:
    from agent.children.gate import EXEC_FAILED, Gate

    with Gate() as gate:
        argv = gate.argv("no-such-command-here", [], dict(os.environ))
        proc = subprocess.Popen(argv, start_new_session=True)
        await gate.admit(lambda pgid: None)
        assert proc.wait(10) == EXEC_FAILED
        error = gate.exec_error()
    assert isinstance(error, FileNotFoundError) and error.filename == "no-such-command-here"


_FORKING_APP = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from agent.children.supervisor import Supervisor
    sup = Supervisor(report=lambda: Path(sys.argv[1]))
    proc = sup.popen(["sleep", "300"], label="the app's child")
    if os.fork() == 0:
        stopped = sup.stop_all()
        own = sup.popen(["sleep", "301"], label="the forked process's child")
        print(proc.pid, own.pid, len(stopped), os.getpid(), flush=True)
    time.sleep(300)
    """
)


def test_a_forked_process_is_another_app(tmp_path: Path) -> None:
    """A process forked from the app (a plugin's multiprocessing) has its own mark and none of the app's
    children, so its exit stops none of them, and holds no copy of the reaper's pipe, so a kill -9 of the
    app is still seen while the forked process lives on."""
    app, (child, own, stopped, forked) = _app(_FORKING_APP, tmp_path / "leftovers.jsonl")
    try:
        assert stopped == 0 and group_alive(child), "the forked process stopped the app's child"

        def mark(pid: int) -> bytes:
            assert _wait(lambda: _environ(pid), 5), f"{pid} never finished its exec"
            return next(f for f in _environ(pid) if f.startswith(f"{MARK_VARIABLE}=".encode()))

        assert mark(child) != mark(own)
        os.kill(app.pid, signal.SIGKILL)
        app.wait(timeout=5)
        assert _wait(lambda: not group_alive(child), 5), "the app's reaper did not see it go"
        assert group_alive(own) and (stat_fields(forked) or [b"Z"])[0] != b"Z", "the forked process is gone"
    finally:
        app.kill()
        app.wait()
        for pid in (forked, child):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert _wait(lambda: not group_alive(own), 5), "the forked process's reaper did not stop its child"
