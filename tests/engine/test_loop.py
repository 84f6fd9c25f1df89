"""The agent loop against the scripted server, through the real `openai` SDK."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from agent.core.events import (
    ApiCallStarted,
    FirstDelta,
    TextDelta,
    ToolCallStarted,
    ToolFinished,
    TurnFinished,
)
from agent.session.session import Session
from agent.session.turn import BUDGET_PROMPT, CONTINUE_PROMPT
from scripted import ScriptedServer
from tests.engine.helpers import (
    API_PARAMS,
    api_overrides,
    has_tools,
    last_user_text,
    make_agent,
    system_text,
    tool_results,
)
from tests.waiting import wait_until

api_param = pytest.mark.parametrize("api", API_PARAMS)


def scenario(*calls: dict, fallback: dict | None = None) -> str:
    data: dict = {"name": "test", "calls": list(calls)}
    if fallback:
        data["fallback"] = fallback
    return json.dumps(data)


@api_param
def test_plain_reply_streams_and_persists(hermes_home: Path, tmp_path: Path, api: str) -> None:
    with ScriptedServer(scenario({"text": "Hello there, **friend**.", "chunk_size": 3})) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path, **api_overrides(server, api))
        result = agent.run_conversation("hi")
    assert result.exit_reason == "completed"
    assert result.final_text == "Hello there, **friend**."
    assert "".join(e.text for e in ui.of_type(TextDelta)) == "Hello there, **friend**."
    kinds = [type(e) for e in ui.events]
    assert kinds.index(ApiCallStarted) < kinds.index(FirstDelta) < kinds.index(TextDelta)
    loaded = store.load(result.session_id)
    assert [(m.role, m.content) for m in loaded.messages] == [
        ("user", "hi"),
        ("assistant", "Hello there, **friend**."),
    ]
    assert loaded.messages[1].partial is False
    assert loaded.info.status == "completed"
    finished = ui.of_type(TurnFinished)
    assert len(finished) == 1 and finished[0].exit_reason == "completed"


@api_param
def test_multi_step_tool_loop_results_in_call_order(hermes_home: Path, tmp_path: Path, api: str) -> None:
    for name, body in (("a.txt", "alpha\n"), ("b.txt", "bravo\n"), ("c.txt", "charlie\n")):
        (tmp_path / name).write_text(body)
    calls = [
        {
            "text": "Reading three files.",
            "tool_calls": [
                {"name": "read_file", "arguments": {"path": "a.txt"}, "id": "call_a"},
                {"name": "read_file", "arguments": {"path": "b.txt"}, "id": "call_b"},
                {"name": "read_file", "arguments": {"path": "c.txt"}, "id": "call_c"},
            ],
        },
        {"tool_calls": [{"name": "terminal", "arguments": {"command": "echo step-two"}, "id": "call_t"}]},
        {"text": "Done: alpha, bravo, charlie."},
    ]
    with ScriptedServer(scenario(*calls)) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path, **api_overrides(server, api))
        result = agent.run_conversation("read them")
        requests = server.requests
    assert result.exit_reason == "completed"
    assert result.final_text == "Done: alpha, bravo, charlie."
    assert len(requests) == 3
    results = tool_results(requests[1].body, api)
    assert [r[0] for r in results] == ["call_a", "call_b", "call_c"]
    assert "alpha" in results[0][1] and "charlie" in results[2][1]
    assert "step-two" in tool_results(requests[2].body, api)[-1][1]
    assert [e.name for e in ui.of_type(ToolCallStarted)][:3] == ["read_file"] * 3
    assert all(e.status == "ok" for e in ui.of_type(ToolFinished))
    roles = [m.role for m in store.load(result.session_id).messages]
    assert roles == ["user", "assistant", "tool", "tool", "tool", "assistant", "tool", "assistant"]
    assert has_tools(requests[0].body) and requests[0].body["stream"] is True


@api_param
def test_budget_exhaustion_makes_a_tool_less_summary_call(
    hermes_home: Path, tmp_path: Path, api: str
) -> None:
    loop_call = {"tool_calls": [{"name": "terminal", "arguments": {"command": "echo again"}}]}
    with ScriptedServer(scenario(loop_call, loop_call, {"text": "Summary: I ran echo twice."})) as server:
        agent, _store, _ui = make_agent(
            server, hermes_home, tmp_path, max_iterations=2, **api_overrides(server, api)
        )
        result = agent.run_conversation("loop forever")
        requests = server.requests
    assert result.exit_reason == "budget_exhausted"
    assert result.final_text == "Summary: I ran echo twice."
    assert len(requests) == 3
    last = requests[-1].body
    assert not has_tools(last)
    assert last_user_text(last, api).endswith(BUDGET_PROMPT)
    assert has_tools(requests[0].body)


@api_param
def test_length_continuation_joins_parts(hermes_home: Path, tmp_path: Path, api: str) -> None:
    calls = [
        {"text": "The first part, ", "finish_reason": "length"},
        {"text": "the second part, ", "finish_reason": "length"},
        {"text": "and the end."},
    ]
    with ScriptedServer(scenario(*calls)) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, **api_overrides(server, api))
        result = agent.run_conversation("write a lot")
        requests = server.requests
    assert result.exit_reason == "completed"
    assert result.final_text == "The first part, the second part, and the end."
    assert last_user_text(requests[1].body, api) == CONTINUE_PROMPT
    previous = requests[1].body["messages"][-2]
    assert previous["role"] == "assistant"
    text = previous["content"] if isinstance(previous["content"], str) else previous["content"][0]["text"]
    assert text == "The first part, "


def test_length_continuation_is_bounded(hermes_home: Path, tmp_path: Path) -> None:
    cut = {"text": "more ", "finish_reason": "length"}
    with ScriptedServer(scenario(cut, cut, cut, cut, cut)) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("never ends")
        assert len(server.requests) == 4  # the first call plus three continuations
    assert result.final_text == "more " * 4


def test_content_filter_ends_with_a_clear_message(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer(scenario({"text": "", "finish_reason": "content_filter"})) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("something bad")
    assert result.exit_reason == "error:content_filter"
    assert result.error is not None and "declined" in result.error.user_line()
    assert "fallback_providers" in result.error.user_line()


@api_param
def test_interrupt_during_slow_stream(hermes_home: Path, tmp_path: Path, api: str) -> None:
    slow = {"text": "word " * 400, "chunk_size": 5, "delay": 0.05, "reasoning": "thinking first"}
    with ScriptedServer(scenario(slow, fallback={"text": "next turn works"})) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path, **api_overrides(server, api))
        result_box: dict = {}
        thread = threading.Thread(
            target=lambda: result_box.setdefault("r", agent.run_conversation("go slow"))
        )
        thread.start()
        deadline = time.monotonic() + 10
        while len(ui.of_type(TextDelta)) < 25 and time.monotonic() < deadline:
            time.sleep(0.01)
        # Once the checkpoint interval has passed, a partial row exists: interrupt then.
        wait_until(
            lambda: any(m.partial for m in store.load(agent.session_id).messages if m.role == "assistant"),
            "no partial reply was checkpointed",
            timeout=15,
        )
        asked = time.monotonic()
        agent.interrupt()
        thread.join(timeout=5)
        elapsed = time.monotonic() - asked
        assert not thread.is_alive()
        # The full stream takes 20 s: ending this early is the interrupt (its speed is the benchmark's).
        assert elapsed < 5, f"interrupt took {elapsed:.3f}s"
        result = result_box["r"]
        assert result.exit_reason == "interrupted"
        streamed = "".join(e.text for e in ui.of_type(TextDelta))
        assert result.final_text == streamed and streamed.startswith("word word")
        messages = store.load(result.session_id).messages
        assert messages[-1].role == "assistant" and messages[-1].content == streamed
        assert messages[-1].partial is False and messages[-1].finish_reason == "interrupted"
        assert store.get_session(result.session_id).status == "interrupted"
        # The next turn works and its request carries the partial reply.
        again = agent.run_conversation("and now?")
        assert again.exit_reason == "completed" and again.final_text == "next turn works"
        wire = server.requests[-1].body["messages"]
        previous = wire[-2]
        text = previous["content"] if isinstance(previous["content"], str) else previous["content"][0]["text"]
        assert previous["role"] == "assistant" and text == streamed


@api_param
def test_after_an_interrupt_the_next_request_says_so_and_a_resume_too(
    hermes_home: Path, tmp_path: Path, api: str
) -> None:
    """Esc: the model's next request says the user interrupted (Claude Code's words) before what the user
    says next, in that message's stored `api_content`, so later requests and a resumed session send it
    byte for byte; the message itself keeps what was typed, and only the turn after an interrupt has it."""
    slow = {"text": "never sent", "first_delay": 30}
    calls = [slow, {"text": "ok"}, {"text": "fine"}, slow, {"text": "back"}]
    note = "[Request interrupted by user]"

    def interrupted(agent: Session, text: str, requests: int) -> None:
        box: dict = {}
        thread = threading.Thread(target=lambda: box.setdefault("r", agent.run_conversation(text)))
        thread.start()
        assert server.wait_for_requests(requests, timeout=10)
        agent.interrupt()
        thread.join(timeout=10)
        assert box["r"].exit_reason == "interrupted"

    def users(body: dict) -> list[str]:
        texts = []
        for message in body["messages"]:
            if message["role"] == "user":
                content = message["content"]
                if isinstance(content, list):
                    content = "\n\n".join(b["text"] for b in content if b.get("type") == "text")
                texts.append(content)
        return texts

    with ScriptedServer(scenario(*calls)) as server:
        agent, store, _ui = make_agent(server, hermes_home, tmp_path, **api_overrides(server, api))
        interrupted(agent, "go", 1)
        assert agent.run_conversation("are you there?").exit_reason == "completed"
        assert agent.run_conversation("and now?").exit_reason == "completed"
        second, third = (r.body for r in server.requests[1:3])
        assert "\n\n".join(users(second)) == f"go\n\n{note}\n\nare you there?"
        assert "\n\n".join(users(third)).endswith(f"{note}\n\nare you there?\n\nand now?")  # once
        stored = [m.content for m in store.load(agent.session_id).messages if m.role == "user"]
        assert stored == ["go", "are you there?", "and now?"]  # what was typed

        interrupted(agent, "one more thing", 4)
        session_id = agent.session_id
        agent.close()
        resumed, _store, _ui = make_agent(server, hermes_home, tmp_path, **api_overrides(server, api))
        resumed.resume(session_id)
        assert resumed.run_conversation("still there?").exit_reason == "completed"
        last = "\n\n".join(users(server.requests[4].body))
        assert last.endswith(
            f"{note}\n\nare you there?\n\nand now?\n\none more thing\n\n{note}\n\nstill there?"
        )
        resumed.close()


def test_interrupt_during_tool_cancels_pending_calls(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        {
            "tool_calls": [
                {"name": "terminal", "arguments": {"command": "sleep 30"}, "id": "call_sleep"},
                {"name": "terminal", "arguments": {"command": "touch never.txt"}, "id": "call_touch"},
            ]
        }
    ]
    with ScriptedServer(scenario(*calls)) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path)
        box: dict = {}
        thread = threading.Thread(target=lambda: box.setdefault("r", agent.run_conversation("sleep")))
        thread.start()
        deadline = time.monotonic() + 10
        while not any(
            getattr(e, "name", "") == "terminal" for e in ui.events if type(e).__name__ == "ToolStarted"
        ):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        time.sleep(0.3)
        agent.interrupt()
        thread.join(timeout=5)
        assert not thread.is_alive()
    assert box["r"].exit_reason == "interrupted"
    assert not (tmp_path / "never.txt").exists()
    tools = [m for m in store.load(box["r"].session_id).messages if m.role == "tool"]
    assert [t.tool_call_id for t in tools] == ["call_sleep", "call_touch"]
    assert "cancelled" in tools[1].content.lower()
    assert tools[1].meta["status"] == "cancelled"


@api_param
def test_stale_stream_is_detected(hermes_home: Path, tmp_path: Path, api: str) -> None:
    stall = {"text": "partial answer", "chunk_size": 4, "fault": {"kind": "stall", "after_chunks": 2}}
    with ScriptedServer(scenario(stall)) as server:
        agent, _store, _ui = make_agent(
            server, hermes_home, tmp_path, stale_timeout=0.5, **api_overrides(server, api)
        )
        started = time.monotonic()
        result = agent.run_conversation("stall please")
        assert time.monotonic() - started < 5
    assert result.exit_reason == "error:timeout"
    assert result.error is not None and result.error.retryable


def test_stale_stream_retried_then_succeeds(hermes_home: Path, tmp_path: Path) -> None:
    stall = {"text": "partial answer", "chunk_size": 4, "fault": {"kind": "stall", "after_chunks": 2}}
    with ScriptedServer(scenario(stall, {"text": "fresh answer"})) as server:
        agent, store, _ui = make_agent(server, hermes_home, tmp_path, stale_timeout=0.4, max_retries=1)
        # Make the backoff short: a Retry-After-less timeout uses the exponential delay (base 2 s).
        agent.backoff_wait = lambda delay: agent.interrupt_event.wait(0.05)  # type: ignore[method-assign]
        result = agent.run_conversation("stall once")
    assert result.exit_reason == "completed"
    assert result.final_text == "fresh answer"
    assistant = [m for m in store.load(result.session_id).messages if m.role == "assistant"]
    assert [m.content for m in assistant] == ["fresh answer"]


def test_provider_error_ends_turn_with_hint(hermes_home: Path, tmp_path: Path) -> None:
    fault = {
        "fault": {"status": 401, "message": "Incorrect API key provided", "type": "invalid_request_error"}
    }
    with ScriptedServer(scenario(fault)) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("hi")
    assert result.exit_reason == "error:auth"
    assert "API key" in result.error.user_line()


def test_rate_limit_is_retried_honouring_retry_after(hermes_home: Path, tmp_path: Path) -> None:
    fault = {"fault": {"status": 429, "message": "slow down", "type": "rate_limit_error", "retry_after": 0.2}}
    with ScriptedServer(scenario(fault, {"text": "ok now"})) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path, max_retries=2)
        result = agent.run_conversation("hi")
    assert result.exit_reason == "completed" and result.final_text == "ok now"
    notices = [e.text for e in ui.events if type(e).__name__ == "StatusNotice"]
    assert any("Retrying in" in n for n in notices)


@api_param
def test_resume_sends_byte_identical_system_prompt(hermes_home: Path, tmp_path: Path, api: str) -> None:
    (tmp_path / "AGENTS.md").write_text("Always answer in haiku.\n")
    with ScriptedServer(scenario({"text": "first"}, {"text": "second"})) as server:
        agent, store, _ui = make_agent(server, hermes_home, tmp_path, **api_overrides(server, api))
        first = agent.run_conversation("one")
        original_system = system_text(server.requests[0].body, api)
        assert "Always answer in haiku." in original_system
        # The context file changes and a day passes: a resumed session must not notice.
        (tmp_path / "AGENTS.md").write_text("Something else entirely.\n")
        from agent.session.session import Session

        resumed = Session(agent.settings, ui=_ui, store=store, session_id=first.session_id)
        resumed.run_conversation("two")
        second_system = system_text(server.requests[1].body, api)
        roles = [m["role"] for m in server.requests[1].body["messages"]]
    assert second_system.encode() == original_system.encode()
    assert roles == (
        ["user", "assistant", "user"] if api == "anthropic" else ["system", "user", "assistant", "user"]
    )


def test_steer_reaches_the_model_in_the_next_tool_result(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": "sleep 0.5; echo one"}, "id": "t1"}]},
        {"tool_calls": [{"name": "terminal", "arguments": {"command": "echo two"}, "id": "t2"}]},
        {"text": "ok, using tabs"},
    ]
    with ScriptedServer(scenario(*calls)) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path)
        box: dict = {}
        thread = threading.Thread(
            target=lambda: box.setdefault("r", agent.run_conversation("format the code"))
        )
        thread.start()
        deadline = time.monotonic() + 10
        while not any(type(e).__name__ == "ToolStarted" for e in ui.events):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        agent.steer("use tabs, not spaces")
        thread.join(timeout=10)
        requests = server.requests
    assert box["r"].exit_reason == "completed" and box["r"].pending_steer is None
    second = requests[1].body["messages"]
    assert [m["role"] for m in second].count("user") == 1  # never a new user message
    tool = [m for m in second if m["role"] == "tool"][-1]
    assert tool["content"].startswith("one") and "use tabs, not spaces" in tool["content"]
    assert any(type(e).__name__ == "SteerDelivered" for e in ui.events)
    stored_tool = next(m for m in store.load(box["r"].session_id).messages if m.role == "tool")
    assert "use tabs, not spaces" in stored_tool.content


def test_steer_left_over_comes_back_as_pending(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer(scenario({"text": "slow " * 100, "chunk_size": 5, "delay": 0.01})) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path)
        box: dict = {}
        thread = threading.Thread(target=lambda: box.setdefault("r", agent.run_conversation("go")))
        thread.start()
        while not ui.of_type(TextDelta):
            time.sleep(0.01)
        agent.steer("actually, stop after this")
        thread.join(timeout=10)
    assert box["r"].pending_steer == "actually, stop after this"
    assert ui.of_type(TurnFinished)[0].pending_steer == "actually, stop after this"
