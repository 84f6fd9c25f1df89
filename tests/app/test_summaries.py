"""One tool-call summary everywhere: the live panel, a resumed transcript, the session preview, exports."""

from __future__ import annotations

import json

from agent.core.messages import Message, ToolCall
from agent.session.catalogue import default_registry
from agent.toolkit.registry import summarize_call
from hermes_tui.history import records_from_messages


def test_a_known_tool_summarizes_its_own_argument() -> None:
    registry = default_registry()
    arguments = {"command": "pytest   -q\ntests", "timeout": 30}
    assert summarize_call("terminal", arguments, registry) == "pytest -q tests"
    assert summarize_call("terminal", json.dumps(arguments), registry) == "pytest -q tests"
    assert summarize_call("read_file", '{"path": "src/app.py", "offset": 10}', registry) == "src/app.py"


def test_unknown_tools_and_malformed_arguments_still_say_what_they_were() -> None:
    registry = default_registry()
    assert (
        summarize_call("a_removed_plugin_tool", '{"n": 3, "query": "flaky tests"}', registry) == "flaky tests"
    )
    assert summarize_call("a_removed_plugin_tool", '{"items": [1, 2, 3]}') == "3 items"
    assert summarize_call("terminal", '{"command": "ls', registry) == '{"command": "ls'
    assert summarize_call("terminal", "[1, 2]", registry) == "[1, 2]"
    assert len(summarize_call("x", json.dumps({"text": "word " * 100}))) == 200


def test_a_summary_never_repeats_the_tool_name() -> None:
    """A call wrapped in itself gave the panel title "terminal  terminal"; it now says what it wraps."""
    registry = default_registry()
    wrapped = '{"name": "terminal", "arguments": {"command": "ls -la"}}'
    assert summarize_call("terminal", wrapped, registry) == "ls -la"
    assert summarize_call("terminal", '{"tool": "terminal"}', registry) == ""
    assert summarize_call("terminal", '{"command": ""}', registry) == ""
    assert summarize_call("a_plugin", {"name": "a_plugin", "input": {"query": "q"}}) == "q"


def test_a_resumed_transcript_shows_the_summary_the_live_panel_showed() -> None:
    registry = default_registry()
    arguments = '{"command": "make   test"}'
    messages = [
        Message("user", "go"),
        Message("assistant", "", tool_calls=[ToolCall("c1", "terminal", arguments)]),
        Message("tool", "ok", tool_call_id="c1", tool_name="terminal"),
    ]
    (tool,) = [r.tool for r in records_from_messages(messages, registry) if r.tool is not None]
    assert tool.summary == summarize_call("terminal", json.loads(arguments), registry) == "make test"
