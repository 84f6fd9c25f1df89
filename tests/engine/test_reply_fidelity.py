"""Replies that are not whole answers, through the scripted server and the real SDKs: streams that break
off, `<think>` blocks written into the answer, budgets spent thinking, empty replies, continuations that
run out. None of them may end as a blank or half "completed" answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import agent.session.session as session_mod
import agent.session.turn as turn_mod
from agent.config.settings import FallbackProvider
from agent.core.events import ReasoningDelta, StatusNotice, StreamDiscarded, TextDelta, TurnFinished
from agent.session.reply_outcomes import EMPTY_NUDGE, EMPTY_NUDGE_AFTER_TOOLS
from scripted import ScriptedServer
from tests.engine.helpers import API_PARAMS, api_overrides, error_lines, make_agent


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    def short_wait(self: session_mod.Session, delay: float) -> bool:
        return self.interrupt_event.wait(min(delay, 0.02))

    monkeypatch.setattr(session_mod.Session, "backoff_wait", short_wait)


def _shown_after_last_discard(events: list[Any]) -> str:
    discards = [i for i, e in enumerate(events) if isinstance(e, StreamDiscarded)]
    start = discards[-1] if discards else 0
    return "".join(e.text for e in events[start:] if isinstance(e, TextDelta))


def _assistant_rows(store: Any, session_id: str) -> list[Any]:
    return [m for m in store.load(session_id).messages if m.role == "assistant"]


# ----------------------------------------------------------------------------------- incomplete streams


@pytest.mark.parametrize("api", API_PARAMS)
@pytest.mark.parametrize("kind", ["close", "cut"])
def test_a_stream_that_breaks_off_is_retried_and_only_the_retry_is_kept(
    hermes_home: Path, tmp_path: Path, api: str, kind: str
) -> None:
    broken = {"text": "The half-told ans", "chunk_size": 4, "fault": {"kind": kind, "after_chunks": 2}}
    calls = [broken, {"text": "The whole answer."}]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, store, ui = make_agent(
            server, hermes_home, tmp_path, max_retries=2, **api_overrides(server, api)
        )
        result = agent.run_conversation("question")
        assert len(server.requests) == 2
    assert result.exit_reason == "completed" and result.final_text == "The whole answer."
    assert _shown_after_last_discard(ui.events) == "The whole answer."
    assert any("connection closed before the reply finished" in e.text for e in ui.of_type(StatusNotice))
    rows = _assistant_rows(store, result.session_id)
    assert [m.content for m in rows] == ["The whole answer."] and not rows[0].meta.get("incomplete")


@pytest.mark.parametrize("api", API_PARAMS)
def test_a_stream_broken_on_every_attempt_keeps_its_text_marked_incomplete(
    hermes_home: Path, tmp_path: Path, api: str
) -> None:
    broken = {"text": "Partial words here", "chunk_size": 4, "fault": {"kind": "close", "after_chunks": 2}}
    with ScriptedServer({"name": "t", "calls": [broken, broken]}) as server:
        agent, store, ui = make_agent(
            server, hermes_home, tmp_path, max_retries=1, **api_overrides(server, api)
        )
        result = agent.run_conversation("question")
        assert len(server.requests) == 2
    assert result.exit_reason == "stream_incomplete" and not result.completed
    assert result.final_text == "Partial "  # what the last attempt streamed, once
    assert _shown_after_last_discard(ui.events) == "Partial "
    assert len(error_lines(ui)) == 1 and "connection closed" in error_lines(ui)[0]
    finished = ui.of_type(TurnFinished)[-1]
    assert finished.marker and finished.marker.startswith("incomplete")
    rows = _assistant_rows(store, result.session_id)
    assert [m.content for m in rows] == ["Partial "]
    assert rows[0].meta["incomplete"] == "stream_incomplete" and not rows[0].partial
    assert store.turns(result.session_id)[-1]["exit_reason"] == "stream_incomplete"
    info = store.resolve(result.session_id)
    assert info is not None and info.status == "error" and info.exit_reason == "stream_incomplete"


@pytest.mark.parametrize("api", API_PARAMS)
def test_a_server_that_omits_the_finish_reason_but_ends_the_stream_is_accepted(
    hermes_home: Path, tmp_path: Path, api: str
) -> None:
    calls = [{"text": "Complete, just no finish reason.", "omit_finish_reason": True}]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, ui = make_agent(
            server, hermes_home, tmp_path, max_retries=2, **api_overrides(server, api)
        )
        result = agent.run_conversation("question")
        assert len(server.requests) == 1
    assert result.completed and result.final_text == "Complete, just no finish reason."
    assert not ui.of_type(StreamDiscarded)


def test_a_stream_that_keeps_breaking_off_falls_back(hermes_home: Path, tmp_path: Path) -> None:
    broken = {"text": "Never finished", "chunk_size": 4, "fault": {"kind": "close", "after_chunks": 1}}
    with (
        ScriptedServer({"name": "primary", "calls": [broken, broken]}) as primary,
        ScriptedServer({"name": "fallback", "calls": [{"text": "From the fallback."}]}) as fallback,
    ):
        agent, store, ui = make_agent(
            primary,
            hermes_home,
            tmp_path,
            max_retries=1,
            fallback_providers=[
                FallbackProvider(provider="custom", model="backup", base_url=fallback.openai_base_url)
            ],
        )
        result = agent.run_conversation("question")
        assert len(primary.requests) == 2 and len(fallback.requests) == 1
    assert result.completed and result.final_text == "From the fallback."
    assert _shown_after_last_discard(ui.events) == "From the fallback."
    assert [m.content for m in _assistant_rows(store, result.session_id)] == ["From the fallback."]


# --------------------------------------------------------------------------------------- think blocks


@pytest.mark.parametrize("api", API_PARAMS)
def test_think_tags_split_across_chunks_never_reach_the_answer_or_the_next_request(
    hermes_home: Path, tmp_path: Path, api: str
) -> None:
    chunks = ["<thi", "nk>Let me ponder", " this caref", "ully.</thi", "nk>\n\nThe ans", "wer is 4."]
    with ScriptedServer({"name": "t", "calls": [{"chunks": chunks}, {"text": "second"}]}) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path, **api_overrides(server, api))
        result = agent.run_conversation("2+2?")
        agent.run_conversation("thanks")
        second_request = server.requests[1].body
    assert result.final_text == "The answer is 4."
    shown = "".join(e.text for e in ui.of_type(TextDelta))
    assert "think" not in shown and "ponder" not in shown
    assert "Let me ponder this carefully." in "".join(e.text for e in ui.of_type(ReasoningDelta))
    first = _assistant_rows(store, result.session_id)[0]
    assert first.content == "The answer is 4."
    assert first.reasoning == "Let me ponder this carefully."
    assert "<think" not in str(second_request["messages"])
    assert "The answer is 4." in str(second_request["messages"])


def test_a_think_block_mentioned_mid_sentence_stays_text(hermes_home: Path, tmp_path: Path) -> None:
    text = "Models such as these write <think> tags first."
    with ScriptedServer({"name": "t", "calls": [{"text": text, "chunk_size": 3}]}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("explain")
    assert result.final_text == text


@pytest.mark.parametrize("api", API_PARAMS)
def test_a_closed_pair_mid_line_is_reasoning_on_the_wire_too(
    hermes_home: Path, tmp_path: Path, api: str
) -> None:
    chunks = ["Hello <th", "ink>note</th", "ink> world"]
    with ScriptedServer({"name": "t", "calls": [{"chunks": chunks}, {"text": "second"}]}) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path, **api_overrides(server, api))
        result = agent.run_conversation("hi")
        agent.run_conversation("again")
        second_request = str([m for m in server.requests[1].body["messages"] if m["role"] != "system"])
    assert result.final_text == "Hello world"
    assert "".join(e.text for e in ui.of_type(TextDelta)) == "Hello worldsecond"
    first = _assistant_rows(store, result.session_id)[0]
    assert (first.content, first.reasoning) == ("Hello world", "note")
    assert "<think" not in second_request and "note" not in second_request and "Hello world" in second_request


# ------------------------------------------------------------------------------- budgets spent thinking


@pytest.mark.parametrize("api", API_PARAMS)
@pytest.mark.parametrize(
    "call",
    [
        {"reasoning": "Thinking about it at great length...", "finish_reason": "length"},
        {"text": "<think>Thinking about it at great length...", "finish_reason": "length"},
    ],
    ids=["reasoning", "think-block"],
)
def test_a_reply_that_only_thought_until_the_limit_is_a_notice_not_a_blank_answer(
    hermes_home: Path, tmp_path: Path, api: str, call: dict[str, Any]
) -> None:
    with ScriptedServer({"name": "t", "calls": [call, {"text": "unused"}]}) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path, **api_overrides(server, api))
        result = agent.run_conversation("hard question")
        assert len(server.requests) == 1, "no continuation: it would only think more"
    assert result.exit_reason == "thinking_exhausted" and not result.completed
    assert result.final_text == ""
    lines = error_lines(ui)
    assert len(lines) == 1 and "whole output budget thinking" in lines[0] and "max_output_tokens" in lines[0]
    row = _assistant_rows(store, result.session_id)[0]
    assert row.reasoning and "great length" in row.reasoning
    assert row.meta["incomplete"] == "thinking_exhausted"


# -------------------------------------------------------------------------------------- empty replies


@pytest.mark.parametrize("api", API_PARAMS)
def test_an_empty_reply_is_asked_again_with_the_nudge(hermes_home: Path, tmp_path: Path, api: str) -> None:
    with ScriptedServer({"name": "t", "calls": [{"text": ""}, {"text": "The real answer."}]}) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path, **api_overrides(server, api))
        result = agent.run_conversation("question")
        retry = server.requests[1].body
    assert result.completed and result.final_text == "The real answer."
    assert EMPTY_NUDGE in str(retry["messages"])
    assert any("empty reply" in e.text for e in ui.of_type(StatusNotice))
    stored = store.load(result.session_id).messages
    assert [m.role for m in stored] == ["user", "assistant"]  # the nudge is never stored
    assert stored[1].content == "The real answer."


def test_an_empty_reply_after_tools_gets_the_post_tool_nudge(hermes_home: Path, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    calls = [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"text": ""},
        {"text": "It says alpha."},
    ]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("read a.txt")
        retry = server.requests[2].body
    assert result.final_text == "It says alpha."
    assert retry["messages"][-1] == {"role": "user", "content": EMPTY_NUDGE_AFTER_TOOLS}


def test_empty_again_falls_back_to_the_next_provider(hermes_home: Path, tmp_path: Path) -> None:
    with (
        ScriptedServer({"name": "primary", "calls": [{"text": ""}, {"text": ""}]}) as primary,
        ScriptedServer({"name": "fallback", "calls": [{"text": "From the fallback."}]}) as fallback,
    ):
        agent, _store, _ui = make_agent(
            primary,
            hermes_home,
            tmp_path,
            fallback_providers=[
                FallbackProvider(provider="custom", model="backup", base_url=fallback.openai_base_url)
            ],
        )
        result = agent.run_conversation("question")
        assert len(primary.requests) == 2 and len(fallback.requests) == 1
    assert result.completed and result.final_text == "From the fallback."


@pytest.mark.parametrize("api", API_PARAMS)
def test_empty_replies_to_the_end_are_a_clear_error_never_a_blank_completion(
    hermes_home: Path, tmp_path: Path, api: str
) -> None:
    with ScriptedServer({"name": "t", "calls": [{"text": ""}, {"text": ""}, {"text": "x"}]}) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path, **api_overrides(server, api))
        result = agent.run_conversation("question")
        assert len(server.requests) == 2
    assert result.exit_reason == "empty_response_exhausted" and not result.completed
    lines = error_lines(ui)
    assert len(lines) == 1 and "empty reply" in lines[0]
    assert store.turns(result.session_id)[-1]["exit_reason"] == "empty_response_exhausted"


# ------------------------------------------------------------------------------------- continuations


@pytest.mark.parametrize("api", API_PARAMS)
def test_a_reply_still_cut_after_the_continuations_is_kept_and_marked_truncated(
    hermes_home: Path, tmp_path: Path, api: str
) -> None:
    parts = [
        {"text": f"part {i}. ", "finish_reason": "length"} for i in range(turn_mod.MAX_CONTINUATIONS + 1)
    ]
    with ScriptedServer({"name": "t", "calls": [*parts, {"text": "unused"}]}) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path, **api_overrides(server, api))
        result = agent.run_conversation("write a lot")
        assert len(server.requests) == turn_mod.MAX_CONTINUATIONS + 1
    assert result.exit_reason == "truncated" and not result.completed
    assert result.final_text == "".join(p["text"] for p in parts)
    lines = error_lines(ui)
    assert len(lines) == 1 and "still cut at the output limit" in lines[0]
    assert ui.of_type(TurnFinished)[-1].marker.startswith("truncated")
    last = _assistant_rows(store, result.session_id)[-1]
    assert last.meta["incomplete"] == "truncated"


# ----------------------------------------------------------------------------- context-length errors


def test_a_context_length_error_with_nothing_to_compress_fails_at_once(
    hermes_home: Path, tmp_path: Path
) -> None:
    overflow = {
        "fault": {
            "status": 400,
            "message": "This model's maximum context length is 8192 tokens",
            "type": "invalid_request_error",
        }
    }
    with ScriptedServer({"name": "t", "calls": [overflow] * 4}) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path, max_retries=3, compression_enabled=True)
        result = agent.run_conversation("a short question")
        assert len(server.requests) == 1, "sending the same request again cannot help"
    assert result.exit_reason == "error:context_overflow"
    assert len(error_lines(ui)) == 1
    assert not any("Retrying" in e.text for e in ui.of_type(StatusNotice))
    assert store.turns(result.session_id)[-1]["exit_reason"] == "context_overflow"


# ---------------------------------------------------------------------------------- reasoning echo


def _assistant_wire(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body["messages"] if m["role"] == "assistant"]


@pytest.mark.parametrize(
    ("model", "echoed"), [("deepseek-reasoner", True), ("scripted", False), ("mistral-large", False)]
)
def test_reasoning_goes_back_only_to_providers_that_require_it(
    hermes_home: Path, tmp_path: Path, model: str, echoed: bool
) -> None:
    calls = [{"reasoning": "I considered it.", "text": "First answer."}, {"text": "Second answer."}]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, model=model)
        agent.run_conversation("one")
        agent.run_conversation("two")
        replayed = _assistant_wire(server.requests[1].body)
    assert [m["content"] for m in replayed] == ["First answer."]
    if echoed:
        assert replayed[0]["reasoning_content"] == "I considered it."
    else:
        assert "reasoning_content" not in replayed[0]


# ------------------------------------------------------------------------------------- exit reasons


def test_each_turn_records_why_it_ended_in_hermes_words(hermes_home: Path, tmp_path: Path) -> None:
    calls = [{"text": "fine"}, {"fault": {"status": 401, "message": "bad key"}}]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, store, _ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("one")
        agent.run_conversation("two")
    turns = store.turns(agent.session_id)
    assert [t["exit_reason"] for t in turns] == ["text_response", "error:auth"]
    assert turns[0]["detail"] is None and "API key was rejected" in turns[1]["detail"]
    users = [m.id for m in store.load(agent.session_id).messages if m.role == "user"]
    assert [t["user_message_id"] for t in turns] == users
