"""The tables of `hermes-tui acp`, in process (quick): stop reasons, permission choices and their answers,
tool kinds, the plan, streamed text made safe, a stored conversation replayed."""

from __future__ import annotations

from pathlib import Path

from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

from agent.api import (
    ApprovalDecision,
    ApprovalRequest,
    ChildFinished,
    ChildStarted,
    ClarifyRequest,
    Message,
    TextDelta,
    ToolCall,
    ToolFinished,
    ToolOutput,
    ToolStarted,
)
from hermes_tui.acp import questions
from hermes_tui.acp.session import stop_reason
from hermes_tui.acp.updates import TurnUpdates, history_updates, plan_update, tool_kind


def _chosen(option: str) -> RequestPermissionResponse:
    return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=option))


def test_stop_reasons() -> None:
    assert stop_reason("completed") == "end_turn"
    assert stop_reason("interrupted") == "cancelled"
    assert stop_reason("budget_exhausted") == "max_turn_requests"
    assert stop_reason("truncated") == "max_tokens"
    assert stop_reason("thinking_exhausted") == "max_tokens"
    assert stop_reason("error:content_filter") == "refusal"
    assert stop_reason("error:rate_limit") == "end_turn"  # its line was sent as text


def test_approval_choices_and_answers() -> None:
    request = ApprovalRequest("git push --force", ("force push",), (), 60.0, rule="git push --force")
    assert [o.option_id for o in questions.approval_options(request)] == ["once", "session", "always", "deny"]
    assert questions.approval_answer(_chosen("always"), request).decision is ApprovalDecision.ALWAYS
    assert questions.approval_answer(_chosen("always"), request).rule == "git push --force"
    assert questions.approval_answer(_chosen("session"), request).decision is ApprovalDecision.SESSION
    cancelled = RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
    assert questions.approval_answer(cancelled, request).decision is ApprovalDecision.DENY
    assert questions.approval_answer(None, request).decision is ApprovalDecision.DENY  # a client gone
    assert questions.approval_answer(_chosen("made-up"), request).decision is ApprovalDecision.DENY
    temporary = ApprovalRequest("rm -rf x", ("deletes",), (), 60.0, allow_permanent=False)
    assert "always" not in [o.option_id for o in questions.approval_options(temporary)]
    assert questions.approval_answer(_chosen("always"), temporary).decision is ApprovalDecision.DENY


def test_clarify_choices() -> None:
    request = ClarifyRequest("Which?", ("A", "B"), 60.0)
    options = questions.clarify_options(request)
    assert [o.name for o in options] == ["A", "B", "Skip"]
    assert questions.clarify_answer_of(_chosen(options[1].option_id), request) == "B"
    assert questions.clarify_answer_of(_chosen("skip"), request) is None
    assert questions.clarify_answer_of(_chosen("choice-9"), request) is None


def test_tool_kinds_and_the_plan() -> None:
    assert [tool_kind(n) for n in ("terminal", "read_file", "patch", "search_files", "web_extract")] == [
        "execute",
        "read",
        "edit",
        "search",
        "fetch",
    ]
    assert tool_kind("browser_click") == "fetch" and tool_kind("mcp_x_y") == "other"
    plan = plan_update([{"content": "a", "status": "weird"}, {"content": "b", "status": "cancelled"}])
    assert [(e.content, e.status) for e in plan.entries] == [("a", "pending"), ("(cancelled) b", "completed")]


def test_escapes_are_removed_even_split_across_deltas(tmp_path: Path) -> None:
    updates = TurnUpdates(tmp_path)
    sent = updates.updates(TextDelta("red \x1b[3")) + updates.updates(TextDelta("1mtext\x1b]0;title\x07 end"))
    sent += updates.finish()
    assert "".join(u.content.text for u in sent) == "red text end"
    started = updates.updates(ToolStarted("c1", "terminal", {"command": "ls"}, "ls"))
    finished = updates.updates(ToolFinished("c1", "terminal", "ok", 0.1, "\x1b[1mbold\x1b[0m\r\nline"))
    assert started[0].status == "in_progress"
    assert finished[0].content[-1].content.text == "bold\nline"


def test_a_stored_conversation_replays_as_updates(tmp_path: Path) -> None:
    messages = [
        Message(role="user", content="do it"),
        Message(
            role="assistant",
            content="Trying.",
            reasoning="hmm",
            tool_calls=[ToolCall("t1", "terminal", '{"command": "false"}')],
        ),
        Message(
            role="tool", content="exit 1", tool_call_id="t1", tool_name="terminal", meta={"status": "error"}
        ),
        Message(role="assistant", content="It failed."),
    ]
    replay = history_updates(messages, tmp_path)
    assert [u.session_update for u in replay] == [
        "user_message_chunk",
        "agent_thought_chunk",
        "agent_message_chunk",
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
    ]
    assert replay[4].status == "failed" and replay[3].title == "terminal: false"


def test_a_running_tools_output_is_sent_as_its_tail_and_says_so(tmp_path: Path) -> None:
    from hermes_tui.acp.updates import LIVE_CHARS

    updates = TurnUpdates(tmp_path)
    updates.updates(ToolStarted("c1", "terminal", {"command": "yes"}, "yes"))
    [live] = updates.updates(ToolOutput("c1", "y\n" * LIVE_CHARS))
    text = live.content[0].content.text
    assert text.startswith(f"… (the last {LIVE_CHARS:,} characters")
    assert text.endswith("y\n") and len(text) < LIVE_CHARS + 100


def test_subagents_are_lines_of_their_delegate_call(tmp_path: Path) -> None:
    updates = TurnUpdates(tmp_path)
    updates.updates(ToolStarted("d1", "delegate_task", {"goal": "x"}, "x"))
    [one] = updates.updates(ChildStarted("d1", 0, "check the tests"))
    updates.updates(ChildStarted("d1", 1, "read the docs"))
    [done] = updates.updates(ChildFinished("d1", 0, "completed", "all green"))
    assert one.content[0].content.text == "subagent 1: check the tests (running)"
    assert done.content[0].content.text.splitlines() == [
        "subagent 1: check the tests (completed) — all green",
        "subagent 2: read the docs (running)",
    ]
