"""Whatever the approval gate recognises as deleting or overwriting files, the checkpoint covers.

Every row of the approval table (tests/engine/tools/test_approval_table.py) whose detection has a destructive
key is run, bare and through wrappers and shells, through both the gate and the checkpoint planner: the gate
must still see it, and the planner's targets must include every path the gate flagged (or, for paths the
command does not name, `xargs rm` and `git clean`, the plan must still be destructive / take a git
snapshot). Kernel and device state (`/proc`, `/sys`, `/dev`) is not a file a copy could restore: the gate
asks about it, the planner leaves it out. Then a real run: the planner, with a working directory holding
the files, saves them and a restore puts them back byte for byte.
"""

from __future__ import annotations

import posixpath
import shlex
from pathlib import Path

import pytest

from agent.approval import DESTRUCTIVE_KEYS, detect
from agent.checkpoints import CheckpointManager, is_destructive_command, plan_command, targets_for_terminal
from agent.shell import parse
from tests.engine.tools.test_approval_table import TABLE, TABLE_HERMES_HOME

DESTRUCTIVE_ROWS = [
    command
    for _family, command, _outcome, _key in TABLE
    if any(k in DESTRUCTIVE_KEYS for k in detect(command, hermes_home=TABLE_HERMES_HOME).keys)
]


def _simple(command: str) -> bool:
    """One simple command: a prefix wrapper (`sudo X`) wraps all of it."""
    pipes = parse(command)
    return len(pipes) == 1 and len(pipes[0].commands) == 1 and "\n" not in command and "=" not in command


PREFIX = ["sudo {}", "ionice -c3 {}", "setsid {}", "nice -n 5 {}", "timeout 30 {}", "env FOO=1 {}",
          "stdbuf -oL {}", "nohup {}", "chrt -f 1 {}", "taskset -c 0 {}", "doas {}", "time {}"]  # fmt: skip
STRING = ["sh -c {q}", "tcsh -c {q}", "bash -lO extglob -lc {q}", "zsh -o nullglob -c {q}", "eval {q}",
          "echo {q} | sh", "bash <<'EOF'\n{raw}\nEOF", "busybox sh -c {q}", "fish -c {q}",
          "python3 -c {py}"]  # fmt: skip


def _wrapped(command: str) -> list[str]:
    out = [command]
    if _simple(command):
        out += [w.format(command) for w in PREFIX]
    py = shlex.quote(f"import os; os.system({command!r})")
    out += [w.format(q=shlex.quote(command), raw=command, py=py) for w in STRING]
    return out


PSEUDO_FILESYSTEMS = ("/proc/", "/sys/", "/dev/")


def _covered(path: str, targets: list[str]) -> bool:
    norm = posixpath.normpath(path)
    normalized = [posixpath.normpath(t) for t in targets]
    return norm in normalized or any(t.startswith(norm.rstrip("/") + "/") for t in normalized)


def _problems(command: str, wrapped: str) -> list[str]:
    det = detect(wrapped, hermes_home=TABLE_HERMES_HOME)
    base = detect(command, hermes_home=TABLE_HERMES_HOME)
    lost = {k for k in base.keys if k in DESTRUCTIVE_KEYS} - set(det.keys)
    if lost:
        return [f"{wrapped!r}: the gate no longer sees {sorted(lost)} (got {det.keys})"]
    plan = plan_command(wrapped, hermes_home=Path(TABLE_HERMES_HOME))
    problems = []
    for key in (k for k in det.keys if k in DESTRUCTIVE_KEYS):
        for path in det.paths.get(key, ()):
            if path == "":
                if key in ("git_reset_hard", "git_clean") and not plan.git:
                    problems.append(f"{wrapped!r}: {key} but no git snapshot planned")
                elif not plan.destructive:
                    problems.append(f"{wrapped!r}: {key} but the plan is not destructive")
            elif path.startswith(PSEUDO_FILESYSTEMS):
                continue
            elif not _covered(path, plan.targets):
                problems.append(f"{wrapped!r}: {key} on {path!r} not in the planned targets {plan.targets}")
            elif not (plan.destructive or path in plan.appends):
                problems.append(f"{wrapped!r}: {path!r} is planned but would not be saved")
    return problems


def test_the_table_has_destructive_rows_of_every_kind() -> None:
    keys = {k for c in DESTRUCTIVE_ROWS for k in detect(c, hermes_home=TABLE_HERMES_HOME).keys}
    assert len(DESTRUCTIVE_ROWS) >= 200
    assert keys >= DESTRUCTIVE_KEYS, f"no table row for {sorted(DESTRUCTIVE_KEYS - keys)}"
    assert sum(len(_wrapped(c)) for c in DESTRUCTIVE_ROWS) >= 4000


@pytest.mark.parametrize("command", DESTRUCTIVE_ROWS, ids=[f"{i:03d}" for i in range(len(DESTRUCTIVE_ROWS))])
def test_every_destructive_command_is_covered_through_any_wrapper(command: str) -> None:
    problems = [p for wrapped in _wrapped(command) for p in _problems(command, wrapped)]
    assert not problems, "\n".join(problems)


# ---- the same through the file system: the files really get saved --------------------------------------

REAL = [
    ("ionice -c3 rm -rf build", ["build/a.o"]),
    ("setsid rm -rf build", ["build/a.o"]),
    ('tcsh -c "rm -rf build"', ["build/a.o"]),
    ("bash -lO extglob -lc 'rm -f notes.txt'", ["notes.txt"]),
    ("python3 -c \"import shutil; shutil.rmtree('build')\"", ["build/a.o"]),
    ("python3 -c \"import os; os.remove('notes.txt')\"", ["notes.txt"]),
    ("find . -name '*.o' -exec rm {} \\;", ["build/a.o"]),
    ("echo 'rm -rf build' | sh", ["build/a.o"]),
    ("cd build && rm -f a.o", ["build/a.o"]),
    ("perl -p -i -e 's/a/b/' .env", [".env"]),
    ("echo X=1 >> .env", [".env"]),
    ("rg --pre sh TODO . ; mv notes.txt old.txt", ["notes.txt"]),
    ("${unset:-rm} -rf build", ["build/a.o"]),
    ("sudo -u me sh -c 'truncate -s 0 notes.txt'", ["notes.txt"]),
]


@pytest.mark.parametrize(("command", "files"), REAL)
def test_the_planned_files_are_saved_and_restored(tmp_path: Path, command: str, files: list[str]) -> None:
    work = tmp_path / "work"
    for rel in ["build/a.o", "notes.txt", ".env"]:
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_bytes(f"original {rel}\n".encode())
    assert is_destructive_command(command, work)
    targets = targets_for_terminal(command, work)
    mgr = CheckpointManager(tmp_path / "cps", "s")
    cp = mgr.snapshot(targets, cwd=work, label=command, tool_name="terminal", command=command)
    assert cp is not None
    for rel in files:
        (work / rel).unlink()
    report = mgr.restore(cp.id, backup=False)
    assert report.errors == []
    for rel in files:
        assert (work / rel).read_bytes() == f"original {rel}\n".encode(), rel
