"""Trajectories: one line per model call, tool results attached, flush, redaction, never raising."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from agent.core.messages import Message, ToolCall, Usage
from agent.session.trajectory import REDACTED, TrajectoryWriter, redact_secrets
from agent.toolkit.executor import ExecutedCall
from agent.toolkit.registry import ToolResult
from agent.transports.base import ModelResponse


def lines(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "home" / "tui" / "trajectories"


def test_one_line_per_call_with_tool_results_attached(root: Path) -> None:
    w = TrajectoryWriter(root, "sess-1")
    wire1 = [{"role": "system", "content": "sys"}, {"role": "user", "content": "list files"}]
    response1 = ModelResponse(
        text="",
        reasoning="I should run ls",
        tool_calls=[ToolCall(id="c1", name="terminal", arguments='{"command":"ls"}')],
        finish_reason="tool_calls",
        usage=Usage(prompt_tokens=10, completion_tokens=5),
    )
    w.record_call(1, "gpt-test", wire1, ["read_file", "terminal"], response1)
    assert not w.path.exists()  # buffered until the next call or flush
    w.record_tool_results(
        [ExecutedCall(call=response1.tool_calls[0], result=ToolResult(content="a.txt\nb.txt"), duration=0.1)]
    )
    wire2 = [
        *wire1,
        {"role": "assistant", "content": "", "tool_calls": []},
        {"role": "tool", "content": "a.txt"},
    ]
    w.record_call(
        2, "gpt-test", wire2, [{"type": "function", "function": {"name": "terminal"}}], {"text": "Two files."}
    )
    first = lines(w.path)
    assert len(first) == 1
    line = first[0]
    assert line["iteration"] == 1 and line["model"] == "gpt-test" and line["ts"].endswith("+00:00")
    assert line["request"] == {"messages": wire1, "tools": ["read_file", "terminal"]}
    assert line["response"] == {
        "text": "",
        "reasoning": "I should run ls",
        "tool_calls": [{"id": "c1", "name": "terminal", "arguments": '{"command":"ls"}'}],
        "finish_reason": "tool_calls",
        "usage": {
            "prompt_tokens": 10,
            "completion_tokens": 5,
            "cache_read_tokens": 0,
            "cache_write_tokens": 0,
            "reasoning_tokens": 0,
            "reported_cost": None,
        },
    }
    assert line["tool_results"] == [
        {"tool_call_id": "c1", "name": "terminal", "status": "ok", "content": "a.txt\nb.txt"}
    ]

    w.flush()
    both = lines(w.path)
    assert len(both) == 2
    assert both[1]["request"]["tools"] == ["terminal"]
    assert both[1]["response"] == {
        "text": "Two files.",
        "reasoning": "",
        "tool_calls": [],
        "finish_reason": None,
        "usage": None,
    }
    assert both[1]["tool_results"] == []
    w.flush()  # nothing pending: no extra line
    assert len(lines(w.path)) == 2
    assert w.path == root / "sess-1.jsonl"
    assert stat.S_IMODE(w.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(root.stat().st_mode) == 0o700


def test_append_only_across_writers_and_other_result_shapes(root: Path) -> None:
    TrajectoryWriter(root, "s").record_call(
        1, "m", [], [], {"text": "one"}
    )  # never flushed: lost, not corrupt
    w = TrajectoryWriter(root, "s")
    w.record_call(1, "m", [{"role": "user", "content": "x"}], [], {"text": "a"})
    w.record_tool_results(
        [
            Message(
                role="tool",
                content="denied!",
                tool_call_id="t1",
                tool_name="terminal",
                meta={"status": "denied"},
            ),
            {"tool_call_id": "t2", "name": "read_file", "status": "error", "content": "Error: no such file"},
            (ToolCall(id="t3", name="todo"), ToolResult(content="ok", status="ok")),
        ]
    )
    w.flush()
    w2 = TrajectoryWriter(root, "s")
    w2.record_call(2, "m", [], [], {"text": "b"})
    w2.flush()
    got = lines(root / "s.jsonl")
    assert [line["response"]["text"] for line in got] == ["a", "b"]
    assert [(r["tool_call_id"], r["status"]) for r in got[0]["tool_results"]] == [
        ("t1", "denied"),
        ("t2", "error"),
        ("t3", "ok"),
    ]


def test_tool_results_without_a_call_are_dropped(root: Path) -> None:
    w = TrajectoryWriter(root, "s")
    w.record_tool_results([{"tool_call_id": "x", "content": "orphan"}])
    w.flush()
    assert not (root / "s.jsonl").exists()


def test_written_lines_are_redacted(root: Path) -> None:
    openai_key = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123456789"
    anthropic_key = "sk-ant-api03-ZYXWVUTSRQPONMLKJIHGFEDCBA_0123456789-abc"
    configured = "my-local-server-password-42"
    w = TrajectoryWriter(root, "s", secrets=[configured])
    wire = [
        {"role": "user", "content": f"my key is {openai_key}, and {anthropic_key}"},
        {
            "role": "tool",
            "content": "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig' https://x",
        },
        {"role": "user", "content": f"the server password is {configured}"},
    ]
    w.record_call(
        1,
        "m",
        wire,
        [],
        {"text": "export OPENAI_API_KEY=" + openai_key, "reasoning": "api_key=deadbeefcafebabe0123456789"},
    )
    w.record_tool_results(
        [{"tool_call_id": "c", "name": "terminal", "content": "token=0123456789abcdef0123456789abcdef"}]
    )
    w.flush()
    raw = (root / "s.jsonl").read_text()
    for secret in (
        openai_key,
        anthropic_key,
        "eyJhbGciOiJIUzI1NiJ9",
        configured,
        "deadbeefcafebabe",
        "0123456789abcdef0123",
    ):
        assert secret not in raw
    line = lines(root / "s.jsonl")[0]
    assert line["request"]["messages"][0]["content"] == f"my key is sk-{REDACTED}, and sk-ant-{REDACTED}"
    assert "'Authorization: Bearer [REDACTED]' https://x" in line["request"]["messages"][1]["content"]
    assert line["response"]["reasoning"] == f"api_key={REDACTED}"
    assert line["tool_results"][0]["content"] == f"token={REDACTED}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("key sk-abcdefghijklmnopqrstuvwx end", f"key sk-{REDACTED} end"),
        ("sk-ant-api03-abcdefghijklmnop", f"sk-ant-{REDACTED}"),
        ("Authorization: Bearer abc.def-123_456", f"Authorization: Bearer {REDACTED}"),
        ("authorization: bearer 0123456789", f"authorization: bearer {REDACTED}"),
        ('{"api_key": "AbCdEf0123456789AbCd"}', f'{{"api_key": "{REDACTED}"}}'),
        ("ANTHROPIC_API_KEY='abcdefghijklmnop1234'", f"ANTHROPIC_API_KEY='{REDACTED}'"),
        ("https://h/cb?token=ffeeddccbbaa99887766&x=1", f"https://h/cb?token={REDACTED}&x=1"),
        ("GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz012345", f"GITHUB_TOKEN=ghp_{REDACTED}"),
        ("aws AKIAABCDEFGHIJKLMNOP", f"aws AKIA{REDACTED}"),
        # left alone: prose, short values, look-alikes
        ("ask-the-user and desk-lamp-0123456789abcdef", "ask-the-user and desk-lamp-0123456789abcdef"),
        ("the bearer of bad news", "the bearer of bad news"),
        ("max_tokens=4096, tokens: 12", "max_tokens=4096, tokens: 12"),
        ("token=short", "token=short"),
        ("tokenizer=bert-base-uncased-long-name", "tokenizer=bert-base-uncased-long-name"),
        (
            "commit 0123456789abcdef0123456789abcdef01234567",
            "commit 0123456789abcdef0123456789abcdef01234567",
        ),
        ("", ""),
    ],
)
def test_redact_secrets(text: str, expected: str) -> None:
    assert redact_secrets(text) == expected


def test_never_raises_into_the_caller(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    w = TrajectoryWriter(blocker / "trajectories", "s")
    w.record_call(1, "m", [{"role": "user", "content": "x"}], ["t"], {"text": "a"})
    w.record_call(2, "m", [], [], {"text": "b"})  # writing line 1 fails: logged only
    w.record_tool_results([object()])  # an unknown result shape: logged only
    w.flush()

    class Weird:
        def __str__(self) -> str:
            raise RuntimeError("no str")

    ok = TrajectoryWriter(tmp_path / "ok", "s")
    ok.record_call(1, "m", [{"role": "user", "content": Weird()}], [], {"text": "x"})
    ok.flush()
    ok.record_call(
        2,
        "m",
        [{"role": "user", "content": {1, 2}}, {"role": "user", "content": Path("/p")}],
        [],
        {"text": "y"},
    )
    ok.flush()
    got = lines(tmp_path / "ok" / "s.jsonl")
    assert [line["iteration"] for line in got] == [2]
    assert got[0]["request"]["messages"][1]["content"] == "/p"
