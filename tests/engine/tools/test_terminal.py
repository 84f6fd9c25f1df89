"""The terminal tool: streaming, exit codes, timeouts, interrupts that kill the whole process group."""

from __future__ import annotations

import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent.toolkit.registry import ToolContext, ToolResult
from agent.toolkit.truncate import truncate_middle
from agent.tools.terminal import TERMINAL_TOOL, TerminalArgs, clean_output, run_terminal


class Recorder:
    """Collects streamed chunks; lets a test wait until some text has been streamed."""

    def __init__(self) -> None:
        self.chunks: list[str] = []
        self._cond = threading.Condition()

    def __call__(self, chunk: str) -> None:
        with self._cond:
            self.chunks.append(chunk)
            self._cond.notify_all()

    @property
    def text(self) -> str:
        with self._cond:
            return "".join(self.chunks)

    def wait_for(self, needle: str, timeout: float = 10.0) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: needle in "".join(self.chunks), timeout=timeout)


@dataclass
class Verdict:
    allowed: bool
    decision: str
    message: str
    outside_sandbox: bool = False


class FakeGate:
    def __init__(self, allowed: bool) -> None:
        self.allowed = allowed
        self.commands: list[tuple[str, str]] = []

    def review_command(self, command: str, *, tool_name: str, cwd: Path | None = None) -> Verdict:
        self.commands.append((command, tool_name))
        if self.allowed:
            return Verdict(True, "once", "")
        return Verdict(False, "deny", "The user denied this command.")

    def review_write(self, path: Path, cwd: Path, *, tool_name: str) -> Verdict:
        raise AssertionError("terminal must not review writes")


def make_ctx(tmp_path: Path, **kw) -> tuple[ToolContext, Recorder]:
    rec = Recorder()
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    ctx = ToolContext(
        cwd=work,
        session_id="s1",
        call_id="c1",
        interrupt=threading.Event(),
        hermes_home=tmp_path / "home",
        emit_output=rec,
        **kw,
    )
    return ctx, rec


def run(ctx: ToolContext, command: str, **kw) -> ToolResult:
    return run_terminal(TerminalArgs(command=command, **kw), ctx)


def _pid_alive(pid: int) -> bool:
    """True if the process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(b")") + 2 :].split()[0] not in (b"Z", b"X")


def _group_alive(pgid: int) -> list[int]:
    alive = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            alive.append(int(name))
    return alive


def test_streams_output_in_chunks_as_it_is_produced(tmp_path: Path) -> None:
    ctx, rec = make_ctx(tmp_path)
    arrival: list[float] = []
    start = time.monotonic()

    def emit(chunk: str) -> None:
        arrival.append(time.monotonic() - start)
        rec(chunk)

    ctx.emit_output = emit
    result = run(ctx, "for i in 1 2 3; do echo $i; sleep 0.2; done")
    assert result.status == "ok"
    assert len(rec.chunks) >= 2
    assert rec.text == "1\n2\n3\n"
    # The first line arrived long before the command finished.
    assert arrival[0] < 0.3
    assert result.content == "1\n2\n3\n[exit code: 0]"
    assert result.data["exit_code"] == 0


def test_nonzero_exit_code_is_a_failed_call_with_the_same_text_for_the_model(tmp_path: Path) -> None:
    ctx, _ = make_ctx(tmp_path)
    result = run(ctx, "echo oops >&2; exit 3")
    assert result.status == "error"
    assert result.data["exit_code"] == 3
    assert result.content.splitlines() == ["oops", "[exit code: 3]"]


def test_runs_in_cwd_and_workdir_with_dumb_env(tmp_path: Path) -> None:
    ctx, _ = make_ctx(tmp_path)
    (ctx.cwd / "sub").mkdir()
    result = run(ctx, "pwd; echo $TERM $PAGER $GIT_PAGER $NO_COLOR")
    assert result.content.splitlines()[:2] == [str(ctx.cwd), "dumb cat cat 1"]
    result = run(ctx, "pwd", workdir="sub")
    assert result.content.splitlines()[0] == str(ctx.cwd / "sub")
    missing = run(ctx, "pwd", workdir="nope")
    assert missing.status == "error"
    assert "workdir does not exist" in missing.content


def test_stdin_is_empty(tmp_path: Path) -> None:
    ctx, _ = make_ctx(tmp_path)
    started = time.monotonic()
    result = run(ctx, "cat; read x; echo done:$x")
    assert time.monotonic() - started < 5
    assert "done:" in result.content


def test_ansi_and_control_characters_are_stripped(tmp_path: Path) -> None:
    ctx, rec = make_ctx(tmp_path)
    result = run(
        ctx,
        r"printf '\033[1;31mred\033[0m plain\r\n\033]0;title\007osc\a bell\tTab\n\033[2Kcleared\n'",
    )
    assert result.content.splitlines()[:3] == ["red plain", "osc bell\tTab", "cleared"]
    assert "\x1b" not in rec.text and "\r" not in rec.text and "\x07" not in rec.text


def test_clean_output_handles_sequences_split_across_chunks() -> None:
    from agent.tools.terminal import _StreamCleaner

    cleaner = _StreamCleaner()
    parts = ["a\x1b[3", "1mb\x1b]0;ti", "tle\x1b", "\\c\r", "\nd\x1b"]
    out = "".join(cleaner.feed(p) for p in parts) + cleaner.flush()
    assert out == "abc\nd"
    assert clean_output("x\x00y\x08z\x7f") == "xyz"


def test_timeout_kills_the_command(tmp_path: Path) -> None:
    ctx, _ = make_ctx(tmp_path)
    started = time.monotonic()
    result = run(ctx, "echo before; sleep 30", timeout=1)
    assert time.monotonic() - started < 4
    assert result.data["exit_code"] == 124
    assert result.data["timed_out"] is True
    lines = result.content.splitlines()
    assert lines[0] == "before"
    assert "[Command timed out after 1 s]" in lines
    assert lines[-1] == "[exit code: 124]"


def test_timeout_is_clamped_to_the_maximum(tmp_path: Path) -> None:
    ctx, _ = make_ctx(tmp_path)
    result = run(ctx, "echo hi", timeout=5000)
    assert "clamped to 600 s" in result.content
    assert result.content.endswith("[exit code: 0]")


def test_interrupt_kills_the_process_group_quickly(tmp_path: Path) -> None:
    ctx, rec = make_ctx(tmp_path)
    command = "echo pg=$$; bash -c 'echo inner=$$; sleep 30 & echo bg=$!; sleep 30; wait'"
    holder: dict[str, ToolResult] = {}
    worker = threading.Thread(target=lambda: holder.setdefault("r", run(ctx, command)))
    worker.start()
    assert rec.wait_for("bg=")
    text = rec.text
    pgid = int(re.search(r"pg=(\d+)", text).group(1))
    inner = int(re.search(r"inner=(\d+)", text).group(1))
    bg = int(re.search(r"bg=(\d+)", text).group(1))
    assert _pid_alive(inner) and _pid_alive(bg)

    set_at = time.monotonic()
    ctx.interrupt.set()
    worker.join(5)
    elapsed = time.monotonic() - set_at
    assert not worker.is_alive()
    assert elapsed < 1.0, f"interrupt took {elapsed:.2f}s"

    result = holder["r"]
    assert result.status == "cancelled"
    assert result.data["exit_code"] == 130
    assert "[Command interrupted by user]" in result.content
    assert result.content.endswith("[exit code: 130]")
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline and (_pid_alive(inner) or _pid_alive(bg) or _group_alive(pgid)):
        time.sleep(0.02)
    assert not _pid_alive(pgid)
    assert not _pid_alive(inner)
    assert not _pid_alive(bg)
    assert _group_alive(pgid) == []


def test_interrupt_escalates_to_sigkill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import agent.tools.terminal as terminal

    monkeypatch.setattr(terminal, "KILL_GRACE", 0.3)
    ctx, rec = make_ctx(tmp_path)
    holder: dict[str, ToolResult] = {}
    worker = threading.Thread(
        target=lambda: holder.setdefault(
            "r", run(ctx, "trap '' TERM; echo ready; while :; do sleep 0.05; done")
        )
    )
    worker.start()
    assert rec.wait_for("ready")
    ctx.interrupt.set()
    worker.join(5)
    assert not worker.is_alive()
    assert holder["r"].data["exit_code"] == 130


def test_interrupt_already_set_runs_nothing(tmp_path: Path) -> None:
    ctx, _ = make_ctx(tmp_path)
    ctx.interrupt.set()
    result = run(ctx, "touch marker")
    assert result.status == "cancelled"
    assert not (ctx.cwd / "marker").exists()


def test_huge_output_is_truncated_keeping_head_and_tail(tmp_path: Path) -> None:
    ctx, rec = make_ctx(tmp_path)
    started = time.monotonic()
    result = run(ctx, "echo START; yes 0123456789 | head -c 10000000; echo; echo END")
    assert time.monotonic() - started < 20
    assert result.data["truncated"] is True
    assert result.data["output_chars"] > 10_000_000
    body, _, exit_line = result.content.rpartition("\n")
    assert exit_line == "[exit code: 0]"
    assert body.startswith("START\n0123456789\n")
    assert body.endswith("0123456789\nEND") or body.rstrip().endswith("END")
    marker = re.search(r"\[\.\.\. (\d+) characters omitted \.\.\.\]", body)
    assert marker is not None
    assert len(body) < 50_000 + 200
    head = body[: marker.start()]
    tail = body[marker.end() :]
    assert 19_000 <= len(head) <= 20_100
    assert 29_000 <= len(tail) <= 30_100
    # Streaming to the UI is bounded too.
    assert len(rec.text) < 1_100_000


def test_large_output_with_python_print(tmp_path: Path) -> None:
    ctx, _ = make_ctx(tmp_path)
    result = run(ctx, "python3 -c \"print('a' + 'x'*10_000_000 + 'z')\"")
    assert result.data["exit_code"] == 0
    assert "characters omitted" in result.content
    assert result.content.startswith("axxx")
    assert result.content.rpartition("\n")[0].rstrip().endswith("xxz")


def test_background_process_holding_the_pipe_does_not_hang(tmp_path: Path) -> None:
    ctx, _ = make_ctx(tmp_path)
    started = time.monotonic()
    result = run(ctx, "sleep 5 & echo started")
    assert time.monotonic() - started < 3
    assert result.content.startswith("started")
    assert result.data["exit_code"] == 0


def test_denied_command_is_not_run(tmp_path: Path) -> None:
    gate = FakeGate(allowed=False)
    ctx, _ = make_ctx(tmp_path, approvals=gate)
    result = run(ctx, "touch marker")
    assert result.status == "denied"
    assert result.content == "The user denied this command."
    assert gate.commands == [("touch marker", "terminal")]
    assert not (ctx.cwd / "marker").exists()


def test_allowed_command_runs(tmp_path: Path) -> None:
    gate = FakeGate(allowed=True)
    ctx, _ = make_ctx(tmp_path, approvals=gate)
    result = run(ctx, "touch marker")
    assert result.status == "ok"
    assert (ctx.cwd / "marker").exists()


def test_registry_summary_and_schema() -> None:
    assert TERMINAL_TOOL.summarize({"command": "ls   -la\n/tmp"}) == "ls -la /tmp"
    params = TERMINAL_TOOL.schema()["function"]["parameters"]
    assert params["required"] == ["command"]
    for prop in params["properties"].values():
        assert prop.get("description")


def test_truncate_middle() -> None:
    assert truncate_middle("short", 10) == "short"
    text = "H" * 40 + "M" * 100 + "T" * 60
    out = truncate_middle(text, 100)
    assert out.startswith("H" * 40 + "\n")
    assert out.endswith("\n" + "T" * 60)
    assert "[... 100 characters omitted ...]" in out
