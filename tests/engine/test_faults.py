"""Provider faults through the scripted server: retries, backoff notices, compression and fallback."""

from __future__ import annotations

from pathlib import Path

import pytest

import agent.session.session as session_mod
from agent.config.settings import FallbackProvider
from agent.core.events import StatusNotice, StreamDiscarded, TextDelta
from scripted import ScriptedServer
from tests.engine.helpers import API_PARAMS, api_overrides, error_lines, make_agent, tool_results


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Record the delays the loop chose (Retry-After honoured) but sleep only a moment."""
    asked: list[float] = []

    def short_wait(self: session_mod.Session, delay: float) -> bool:
        asked.append(delay)
        return self.interrupt_event.wait(min(delay, 0.05))

    monkeypatch.setattr(session_mod.Session, "backoff_wait", short_wait)
    return asked


def _notices(ui) -> list[str]:  # type: ignore[no-untyped-def]
    return [e.text for e in ui.of_type(StatusNotice)]


@pytest.mark.parametrize("api", API_PARAMS)
def test_429_with_retry_after_then_success(
    hermes_home: Path, tmp_path: Path, api: str, fast_backoff: list[float]
) -> None:
    calls = [
        {"fault": {"status": 429, "message": "Rate limit reached", "retry_after": 7}},
        {"text": "here it is"},
    ]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, ui = make_agent(
            server, hermes_home, tmp_path, max_retries=3, **api_overrides(server, api)
        )
        result = agent.run_conversation("hi")
    assert result.exit_reason == "completed" and result.final_text == "here it is"
    assert fast_backoff == [7.0]
    assert any("Rate limited" in n and "Retrying in 7 s" in n for n in _notices(ui))


def test_500_twice_then_success(hermes_home: Path, tmp_path: Path) -> None:
    fault = {"fault": {"status": 500, "message": "internal error"}}
    with ScriptedServer({"name": "t", "calls": [fault, fault, {"text": "recovered"}]}) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path, max_retries=3)
        result = agent.run_conversation("hi")
        assert len(server.requests) == 3
    assert result.final_text == "recovered"
    assert sum("Retrying" in n for n in _notices(ui)) == 2


def test_401_is_not_retried(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer(
        {"name": "t", "calls": [{"fault": {"status": 401, "message": "bad key"}}, {"text": "x"}]}
    ) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path, max_retries=3)
        result = agent.run_conversation("hi")
        assert len(server.requests) == 1
    assert result.exit_reason == "error:auth"
    assert error_lines(ui) == [result.error.user_line()]  # said once, by the turn's end
    assert "API key was rejected" in error_lines(ui)[0]


@pytest.mark.parametrize("api", API_PARAMS)
def test_cut_mid_stream_is_retried_without_duplicating_text(
    hermes_home: Path, tmp_path: Path, api: str
) -> None:
    cut = {"text": "The answer is forty-two.", "chunk_size": 4, "fault": {"kind": "cut", "after_chunks": 3}}
    with ScriptedServer({"name": "t", "calls": [cut, {"text": "The answer is forty-two."}]}) as server:
        agent, store, ui = make_agent(
            server, hermes_home, tmp_path, max_retries=2, **api_overrides(server, api)
        )
        result = agent.run_conversation("question")
    assert result.final_text == "The answer is forty-two."
    assert ui.of_type(StreamDiscarded), "the UI is told to drop the failed attempt's text"
    # What the UI shows = deltas after the last discard: exactly one copy of the answer.
    events = ui.events
    last_discard = max(i for i, e in enumerate(events) if isinstance(e, StreamDiscarded))
    shown = "".join(e.text for e in events[last_discard:] if isinstance(e, TextDelta))
    assert shown == "The answer is forty-two."
    assistant = [m for m in store.load(result.session_id).messages if m.role == "assistant"]
    assert [m.content for m in assistant] == ["The answer is forty-two."]


def test_context_length_400_compresses_then_succeeds(hermes_home: Path, tmp_path: Path) -> None:
    history_calls = [{"text": f"answer {i} " + "detail " * 50} for i in range(12)]
    overflow = {
        "fault": {
            "status": 400,
            "message": "This model's maximum context length is 8192 tokens",
            "type": "invalid_request_error",
        }
    }
    calls = [*history_calls, overflow, {"text": "Summary of the middle."}, {"text": "final answer"}]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path, compression_enabled=True)
        for i in range(12):
            agent.run_conversation(f"question {i}")
        before = len(store.load(agent.session_id).messages)
        result = agent.run_conversation("one more")
        requests = server.requests
    assert result.exit_reason == "completed" and result.final_text == "final answer"
    summary_request, retried = requests[-2].body, requests[-1].body
    assert "tools" not in summary_request  # the summary call is tool-less
    assert len(str(retried["messages"])) < len(str(requests[-3].body["messages"]))
    assert any("Compressed" in n for n in _notices(ui))
    stored = store.load(agent.session_id).messages
    assert len(stored) == before + 1 + 1 + 1  # user, the summary marker, the reply: nothing dropped
    assert any(m.meta.get("synthetic") == "compression" for m in stored)


def test_threshold_compression_keeps_tool_pairs_and_full_history(hermes_home: Path, tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("line of text that fills the context\n" * 120)
    per_turn = [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "big.txt"}}]},
        {"text": "I read it."},
    ]
    calls = per_turn * 10 + [{"text": "Summary: the user read big.txt ten times."}] + per_turn
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path, compression_enabled=False)
        for i in range(10):
            agent.run_conversation(f"read it again ({i})")
        # The session has grown; now the threshold is crossed on the next call.
        agent.settings.compression_enabled = True
        agent.settings.context_window = 20_000
        agent.run_conversation("and once more")
        requests = server.requests
    assert len(requests) == 23
    summary, before, after = requests[20].body, requests[19].body, requests[21].body
    assert "tools" not in summary
    assert len(str(after["messages"])) < 0.7 * len(str(before["messages"]))
    # Well-formed: every tool call in the compressed request has exactly one result, in order.
    calls_seen = [c["id"] for m in after["messages"] if m.get("tool_calls") for c in m["tool_calls"]]
    assert calls_seen == [r[0] for r in tool_results(after, "openai")]
    assert after["messages"][0]["content"] == before["messages"][0]["content"]  # system prompt untouched
    assert "[Summary of the earlier conversation" in str(after["messages"])
    assert any("Compressed" in n for n in _notices(ui))
    stored = store.load(agent.session_id).messages
    assert sum(1 for m in stored if m.role == "tool") == 11  # every message is still in the store
    assert sum(1 for m in stored if m.role == "user" and not m.meta.get("synthetic")) == 11


def test_fallback_after_primary_keeps_failing_and_primary_next_turn(
    hermes_home: Path, tmp_path: Path
) -> None:
    primary_calls = [{"fault": {"status": 503, "message": "overloaded"}}] * 2 + [{"text": "primary is back"}]
    with (
        ScriptedServer({"name": "primary", "calls": primary_calls}) as primary,
        ScriptedServer({"name": "fallback", "calls": [{"text": "answer from the fallback"}]}) as fallback,
    ):
        agent, _store, ui = make_agent(
            primary,
            hermes_home,
            tmp_path,
            max_retries=1,
            fallback_providers=[
                FallbackProvider(provider="custom", model="backup-model", base_url=fallback.openai_base_url)
            ],
        )
        first = agent.run_conversation("hi")
        assert first.final_text == "answer from the fallback"
        assert fallback.requests[0].body["model"] == "backup-model"
        assert any("Falling back to custom/backup-model" in n for n in _notices(ui))
        second = agent.run_conversation("again")
        assert second.final_text == "primary is back"
        assert len(primary.requests) == 3 and len(fallback.requests) == 1
