"""The one owner of the app's child processes.

Every child the app starts (a terminal command, a background process, an MCP stdio server, a subagent's
tools, the browser, code execution) runs in a process group and session of its own and is registered
here; when the app ends in any way the whole group is stopped:

- its owner stops it (`stop`, or its own kill) and `release`s it, or says it is done with it (`ended`:
  forgotten once nothing of the group runs, kept while something it left behind still does);
- a clean quit: the app calls `stop_all()` last and says what it stopped;
- an exception or `sys.exit`: the `atexit` hook stops what is still registered and notes it in the
  leftovers file (`agent.children.leftovers`), which the next start tells;
- kill -9, a signal the app could not answer, a hung exit: the reaper process (`agent.children.reaper`)
  holds the other end of a pipe only the app writes to; the pipe reads EOF, and it stops every group still
  registered and notes it, and every process carrying the app's mark in its environment (`popen` puts it
  in each child's, and `marked_env` in the environment given to a spawn someone else's code makes, before
  the child exists: a kill -9 between the child's start and its registration leaves nothing either).

Use it as:

    from agent.children.supervisor import SUPERVISOR
    proc = SUPERVISOR.popen(argv, label="browser (chromium)", stdout=..., ...)   # a subprocess.Popen
    ...
    SUPERVISOR.stop(proc.pid)        # SIGTERM the group, SIGKILL after the grace, forget it
    # or, when it exited by itself:  SUPERVISOR.ended(proc.pid)

A child started by someone else's code (asyncio, anyio, an SDK) with `start_new_session=True` is put under
it with `SUPERVISOR.adopt(pid, label)` as soon as its pid is known, and `release(pid)` once stopped.

A group is registered with its leader's start time (`groups.Group`) and signalled only while its number
still names that group (`groups.still_ours`): a group that ended while registered may have its number
reused by someone else's, which is then forgotten, never stopped. Code that holds a pgid asks `alive(pgid)`
rather than `groups.group_alive(pgid)` so the registered identity is used.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NoReturn

from agent.children.groups import KILL_GRACE, Group, group_alive, identify, leader_start, stop_groups
from agent.children.leftovers import Leftover, leftovers_path, one_line, record
from agent.children.reaper import CLEAN_END, MARK_VARIABLE, register_line, release_line

__all__ = ["SUPERVISOR", "Child", "Supervisor", "bare_python"]

LABEL_CAP = 200
_ROOT = Path(__file__).resolve().parents[2]  # the directory `agent` is imported from


@dataclass(frozen=True)
class Child:
    """One registered process group: its leader's pid (the group id) and what it is, for people."""

    pgid: int
    label: str
    started: float  # time.time()
    leader_start: int | None = None  # clock ticks since boot (`groups.Group.start`)

    @property
    def group(self) -> Group:
        return Group(self.pgid, self.leader_start)


def _default_report() -> Path:
    from agent.config.home import hermes_home

    return leftovers_path(hermes_home())


def _clean_label(label: str) -> str:
    return one_line(label, LABEL_CAP)


class Supervisor:
    """The registry of live child process groups, and the reaper that outlives the app. Thread-safe."""

    def __init__(self, *, reaper: bool = True, report: Callable[[], Path] = _default_report) -> None:
        self._lock = threading.RLock()  # reentrant: a signal handler on a thread that holds it may stop all
        self._children: dict[int, Child] = {}
        self._use_reaper = reaper
        self._report = report
        self._reaper: subprocess.Popen[bytes] | None = None
        self._pipe: IO[bytes] | None = None
        self._atexit = False
        self._token = _app_token()
        """This app's mark in its children's environment (`reaper.MARK_VARIABLE`): unique on this boot."""
        if hasattr(os, "register_at_fork"):
            forked = weakref.WeakMethod(self._forked)
            os.register_at_fork(after_in_child=lambda: (method := forked()) is not None and method())

    def _forked(self) -> None:
        """In a child forked from this process, which is another app: its own mark, none of this app's
        children (the child's exit must not stop them), and no copy of the reaper's pipe (the reaper must
        see this app go when it goes, however long the child lives). The pipe's descriptor is pointed at
        /dev/null rather than closed, so the inherited file object stays valid; the lock is new, as a
        thread of this app may have held it at the fork."""
        self._lock = threading.RLock()
        self._children = {}
        self._token = _app_token()
        pipe, self._pipe, self._reaper = self._pipe, None, None
        if pipe is not None:
            try:
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, pipe.fileno())
                os.close(null)
            except (OSError, ValueError):
                pass

    # ------------------------------------------------------------------ starting and registering

    def popen(self, argv: Sequence[str], *, label: str, **kwargs: Any) -> subprocess.Popen[bytes]:
        """`subprocess.Popen(argv, **kwargs)` in a new session and process group, registered as `label`.
        Raises what Popen raises (OSError) with nothing registered."""
        kwargs["start_new_session"] = True
        kwargs.setdefault("close_fds", True)
        env = kwargs.get("env")
        kwargs["env"] = self.marked_env(os.environ if env is None else env)
        proc: subprocess.Popen[bytes] = subprocess.Popen(list(argv), **kwargs)
        self.adopt(proc.pid, label)
        return proc

    def marked_env(self, env: Mapping[str, str]) -> dict[str, str]:
        """`env` with this app's mark, for a child about to be started (here, or by someone else's code:
        the MCP SDK's spawn), the reaper started first: a kill -9 of the app after the child exists and
        before it is registered then leaves nothing running (the reaper stops what carries the mark); the
        window left is the fork's, before the child's environment is its own."""
        self._ensure_reaper()
        return {**env, MARK_VARIABLE: self._token}

    def adopt(self, pgid: int, label: str, *, identity: Group | None = None) -> None:
        """Put a group someone else started (with `start_new_session=True`) under the supervisor, as soon as
        its pid is known: its leader's start time is read now (or given, as `identity`, by a caller that
        read it when it learnt the pid), to know the group by later. A leader that has already exited (and
        was reaped) is registered without one: its group is then ours only while no process has the number
        (whatever of the group still runs keeps it from being reused; a process with the number later is
        someone else's)."""
        if pgid <= 1:
            return
        start = (identity if identity is not None and identity.pgid == pgid else identify(pgid)).start
        child = Child(pgid, _clean_label(label), time.time(), start)
        with self._lock:
            self._children[pgid] = child
            if not self._atexit:
                atexit.register(self._at_exit)
                self._atexit = True
            self._tell(register_line(child.group, child.label))

    def release(self, pgid: int) -> None:
        """Forget a group (its owner stopped it, or it is gone)."""
        with self._lock:
            if self._children.pop(pgid, None) is not None:
                self._tell(release_line(pgid))

    def ended(self, pgid: int) -> None:
        """Its owner is done with the group: forgotten when nothing of it runs any more, else kept (what
        it left running in the background is stopped with the rest when the app ends)."""
        if not self.alive(pgid):
            self.release(pgid)

    def relabel(self, pgid: int, label: str) -> None:
        """Say what a kept group now is (`what \\`cmd\\` left running`)."""
        with self._lock:
            child = self._children.get(pgid)
            if child is not None:
                child = Child(pgid, _clean_label(label), child.started, child.leader_start)
                self._children[pgid] = child
                self._tell(register_line(child.group, child.label))

    # ------------------------------------------------------------------ queries and stopping

    def children(self) -> list[Child]:
        """The registered groups still alive (the dead ones, and the ones whose number is someone else's
        now, are forgotten on the way)."""
        with self._lock:
            registered = list(self._children.values())
        alive = []
        for child in registered:
            if group_alive(child.group):
                alive.append(child)
            else:
                self.release(child.pgid)
        return alive

    def group(self, pgid: int) -> Group | int:
        """What to know group `pgid` by: as it was registered, or the bare number when it is not (then
        the caller vouches for it: a child it started and has not reaped)."""
        with self._lock:
            child = self._children.get(pgid)
        return child.group if child is not None else pgid

    def alive(self, pgid: int) -> bool:
        """Whether anything of group `pgid` still runs, and it is still the group that was registered."""
        return group_alive(self.group(pgid))

    def stop(self, pgid: int, grace: float = KILL_GRACE) -> bool:
        """SIGTERM the group, SIGKILL it after `grace`, forget it. False when nothing of it ran (or its
        number names someone else's group now: that is never signalled)."""
        stopped = stop_groups([self.group(pgid)], grace)
        self.release(pgid)
        return bool(stopped)

    def stop_all(self, grace: float = KILL_GRACE, *, record_as: str | None = None) -> list[Child]:
        """Stop every registered group still alive, all at once; the ones that were. With `record_as`,
        they are also noted in the leftovers file for the next start (the exit was not an orderly one)."""
        alive = self.children()
        by_group = {c.group: c for c in alive}
        stopped = stop_groups(list(by_group), grace)
        for child in alive:
            self.release(child.pgid)
        done = [by_group[g] for g in stopped]
        if record_as is not None and done:
            now = time.time()
            record(self._report(), [Leftover(c.label, c.pgid, now, record_as) for c in done])
        return done

    def exit_now(self, code: int, *, record_as: str) -> NoReturn:
        """A forced exit (the orderly one did not come): stop every child, note them for the next start,
        and end the process at once, without running anything else (`os._exit`)."""
        try:
            self.stop_all(record_as=record_as)
        finally:
            os._exit(code)

    def close(self) -> None:
        """Let the reaper go: the exit is an orderly one (`reaper.CLEAN_END`), the pipe closes, and with
        nothing registered it ends at once."""
        with self._lock:
            self._write(CLEAN_END)
            pipe, self._pipe = self._pipe, None
            reaper, self._reaper = self._reaper, None
        if pipe is not None:
            try:
                pipe.close()
            except OSError:
                pass
        if reaper is not None:
            try:
                reaper.wait(timeout=KILL_GRACE + 1)
            except subprocess.TimeoutExpired:
                pass

    @property
    def reaper_pid(self) -> int | None:
        with self._lock:
            return self._reaper.pid if self._reaper is not None else None

    # ------------------------------------------------------------------ the reaper

    def _ensure_reaper(self) -> None:
        if not self._use_reaper or sys.platform == "win32":
            return
        with self._lock:
            if self._reaper is not None and self._reaper.poll() is None and self._pipe is not None:
                return
            self._start_reaper()

    def _start_reaper(self) -> None:
        try:
            proc: subprocess.Popen[bytes] = subprocess.Popen(
                _reaper_argv(self._report(), self._token),
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # a closed terminal's SIGHUP goes to its session: not this one
                close_fds=True,
                cwd="/",
                # Without the mark this app was started with, if any (an app run by another app's command):
                # that app's reaper must not stop this one, which still has this app's children to stop.
                env={name: value for name, value in os.environ.items() if name != MARK_VARIABLE},
            )
        except OSError:
            self._reaper, self._pipe = None, None
            return  # no reaper: the exit hook and the app's own cleanup remain
        self._reaper, self._pipe = proc, proc.stdin
        for child in self._children.values():  # a reaper started again learns what the last one knew
            self._write(register_line(child.group, child.label))

    def _tell(self, line: str) -> None:
        """One protocol line to the reaper (under the lock), starting it again if it is gone."""
        if not self._use_reaper:
            return
        if self._pipe is not None and self._write(line):
            return
        if line.startswith("+"):  # (re)started, the reaper is told every registered group
            self._ensure_reaper()

    def _write(self, line: str) -> bool:
        if self._pipe is None:
            return False
        try:
            self._pipe.write(line.encode("utf-8", errors="replace") + b"\n")
            self._pipe.flush()
        except (OSError, ValueError):
            self._pipe = None
            return False
        return True

    def _at_exit(self) -> None:
        self.stop_all(record_as="when the app exited without stopping it")
        self.close()


def _app_token() -> str:
    return f"{os.getpid()}.{leader_start(os.getpid()) or int(time.time())}"


def _reaper_argv(report: Path, token: str) -> list[str]:
    return bare_python("reaper", str(report), token)


def bare_python(module: str, *args: str) -> list[str]:
    """The command line running `agent.children.<module>`'s `main(args)` in a bare interpreter (no
    site-packages, no PYTHON* variables) from this very source tree: the reaper and the gate."""
    code = (
        f"import sys; sys.path.insert(0, {str(_ROOT)!r}); "
        f"from agent.children.{module} import main; sys.exit(main(sys.argv[1:]))"
    )
    return [sys.executable, "-S", "-E", "-c", code, *args]


SUPERVISOR = Supervisor()
"""The app's one supervisor (tests make their own)."""
