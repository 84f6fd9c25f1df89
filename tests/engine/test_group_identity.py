"""A registered process group is the app's only while its number still names the group the app started.

Linux reuses a pid once nothing uses it as a pid, group or session id; a registration that outlived its
group then names whoever got the number next (a tmux pane, anything `setsid` started). The kernel cannot be
made to reuse a given pid, so a reuse is simulated as it looks: a live group of someone else's (a "stranger"
started here outside the supervisor) registered with a start time that is not its leader's. Real
processes throughout, nothing of /proc mocked.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agent.children.groups import Group, group_alive, group_members, identify, leader_start, stop_groups
from agent.children.leftovers import leftovers_path, take
from agent.children.reaper import register_line
from agent.children.supervisor import Supervisor, bare_python

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the identity is read from /proc")


def _wait(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


@pytest.fixture
def stranger() -> Iterator[subprocess.Popen[bytes]]:
    """Someone else's process leading a group of its own, as every tmux pane and `setsid` child does."""
    proc = subprocess.Popen(["sleep", "300"], start_new_session=True)
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def _reused(proc: subprocess.Popen[bytes]) -> Group:
    """The group as a registration that outlived ours would name it: its number, another start time."""
    start = leader_start(proc.pid)
    assert start is not None
    return Group(proc.pid, start - 1)


def _leaderless_group() -> tuple[subprocess.Popen[bytes], Group]:
    """A real group of ours whose leader exited (and was reaped), a member of it still running."""
    proc = subprocess.Popen(
        ["sh", "-c", "sleep 300 > /dev/null 2>&1 &"], start_new_session=True, stdout=subprocess.DEVNULL
    )
    group = identify(proc.pid)
    assert group.start is not None
    proc.wait(timeout=5)
    assert _wait(lambda: len(group_members(proc.pid) or []) == 1)  # the sleep, the shell gone
    return proc, group


def test_the_identity_is_the_leaders_start_time(stranger: subprocess.Popen[bytes]) -> None:
    group = identify(stranger.pid)
    assert group.pgid == stranger.pid and group.start is not None
    assert group.start >= (leader_start(os.getpid()) or 0)  # started after this test process
    assert group_alive(group)


def test_a_reused_number_is_not_alive_and_stop_groups_leaves_it(stranger: subprocess.Popen[bytes]) -> None:
    group = _reused(stranger)
    assert not group_alive(group)
    assert stop_groups([group], grace=0.2) == []
    assert stranger.poll() is None and group_alive(stranger.pid)
    # a leader that was already gone when registered: whatever has its number later is someone else's
    assert not group_alive(Group(stranger.pid, None))
    assert stop_groups([Group(stranger.pid, None)], grace=0) == []
    time.sleep(0.1)  # a signal, had one been sent, has been delivered by now
    assert stranger.poll() is None


def test_a_group_whose_leader_exited_is_still_ours_and_stopped() -> None:
    proc, group = _leaderless_group()
    assert group_alive(group)
    assert stop_groups([group], grace=2.0) == [group]
    assert _wait(lambda: not group_alive(proc.pid), 5)


def test_the_supervisor_forgets_a_reused_number_and_never_signals_it(
    tmp_path: Path, stranger: subprocess.Popen[bytes]
) -> None:
    sup = Supervisor(reaper=False, report=lambda: leftovers_path(tmp_path))
    sup.adopt(stranger.pid, "a tool's leftovers that exited", identity=_reused(stranger))
    assert not sup.alive(stranger.pid)
    assert sup.stop_all(record_as="at exit") == []
    sup.adopt(stranger.pid, "an MCP server that died", identity=_reused(stranger))
    assert sup.children() == []  # forgotten on the way
    sup.adopt(stranger.pid, "the browser", identity=_reused(stranger))
    assert not sup.stop(stranger.pid, grace=0.2)
    sup.adopt(stranger.pid, "a command", identity=_reused(stranger))
    sup.ended(stranger.pid)  # forgotten: nothing of *its* group runs
    assert sup.children() == [] and sup.stop_all(record_as="at exit") == []
    time.sleep(0.1)
    assert stranger.poll() is None
    assert not leftovers_path(tmp_path).exists()


def test_the_supervisor_still_stops_a_group_whose_leader_exited(tmp_path: Path) -> None:
    """Adopted after its leader was reaped (registered without a start time) and before (with one)."""
    sup = Supervisor(reaper=False, report=lambda: leftovers_path(tmp_path))
    late, _ = _leaderless_group()
    sup.adopt(late.pid, "adopted late")
    early = sup.popen(["sh", "-c", "sleep 300 > /dev/null 2>&1 &"], label="adopted early")
    early.wait(timeout=5)
    assert _wait(lambda: len(group_members(early.pid) or []) == 1)
    assert {c.label: c.leader_start is None for c in sup.children()} == {
        "adopted late": True,
        "adopted early": False,
    }
    stopped = sup.stop_all(record_as="at exit")
    assert sorted(c.label for c in stopped) == ["adopted early", "adopted late"]
    assert _wait(lambda: not group_alive(late.pid) and not group_alive(early.pid), 5)
    assert sorted(x.label for x in take(leftovers_path(tmp_path))) == ["adopted early", "adopted late"]


def test_the_reaper_stops_ours_and_leaves_a_reused_number_alone(
    tmp_path: Path, stranger: subprocess.Popen[bytes]
) -> None:
    """The real reaper, told of a stranger under a registration that outlived its group and of a group
    of ours whose leader exited; its pipe closes as it does when the app is killed."""
    report = leftovers_path(tmp_path)
    ours, group = _leaderless_group()
    reaper = subprocess.Popen(
        bare_python("reaper", str(report)),
        stdin=subprocess.PIPE,
        start_new_session=True,
        cwd="/",
    )
    assert reaper.stdin is not None
    reaper.stdin.write(f"{register_line(_reused(stranger), 'a server that died')}\n".encode())
    reaper.stdin.write(f"{register_line(group, 'what a command left running')}\n".encode())
    reaper.stdin.close()
    assert reaper.wait(timeout=10) == 0
    assert not group_alive(ours.pid)
    assert stranger.poll() is None
    assert [(x.label, x.pgid) for x in take(report)] == [("what a command left running", ours.pid)]


def test_a_group_registered_by_its_number_alone_is_never_signalled_by_the_reaper(
    tmp_path: Path, stranger: subprocess.Popen[bytes]
) -> None:
    """A `+` line without a start time (an older app's) cannot be told from a stranger's group."""
    report = leftovers_path(tmp_path)
    reaper = subprocess.Popen(
        bare_python("reaper", str(report)), stdin=subprocess.PIPE, start_new_session=True, cwd="/"
    )
    reaper.communicate(f"+ {stranger.pid} sleep\n".encode(), timeout=10)
    assert reaper.returncode == 0
    assert stranger.poll() is None
    assert take(report) == []
