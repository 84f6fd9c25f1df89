"""MCP elicitation: the fixture server's `ask` tool calls `ctx.elicit(...)` with a flat schema (a string, a
bounded integer, an enum, an optional boolean); the client asks the user one clarify question a field, checks
each answer against the schema, and the server gets `accept` with the content, `decline` or `cancel`.

The first test runs on stdio (a server of its own, the stdio path end to end); the rest reach the worker's
shared server on streamable HTTP (`mcp_http`): what they check is the client's side of elicitation."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from agent.core.events import StatusNotice
from agent.core.ui import ClarifyRequest
from agent.mcp.elicitation import DECLINE, OPEN_URL, SKIP, FieldError, coerce, fields_of
from agent.toolkit.registry import ToolContext
from tests.app.test_mcp import manager_for, write_config
from tests.mcp_servers import http_entry, stdio_entry
from tests.recording_ui import RecordingUI

pytestmark = pytest.mark.slow


class Answers(RecordingUI):
    """Answers the clarify questions in order (None: the user pressed Escape)."""

    def __init__(self, *answers: str | None, interactive: bool = True, think: float = 0.0) -> None:
        super().__init__()
        self.answers = list(answers)
        self.interactive = interactive  # type: ignore[misc]
        self.think = think

    def ask_clarify(self, request: ClarifyRequest) -> str | None:
        self.clarify_requests.append(request)
        time.sleep(self.think)
        return self.answers.pop(0) if self.answers else None


def notices(ui: RecordingUI) -> list[str]:
    return [event.text for event in ui.of_type(StatusNotice)]


def _ask(home: Path, entry: dict, tool: str, ui: Answers, args: dict[str, object] | None = None) -> str:
    """`tool`'s answer when server `fx` is `entry` and `ui` answers its questions."""
    write_config(home, {"fx": entry})
    manager = manager_for(home)
    ctx = ToolContext(
        cwd=home, session_id="s", call_id="c1", interrupt=threading.Event(), hermes_home=home, ui=ui
    )
    try:
        return manager.call("fx", tool, args or {}, context=ctx).text
    finally:
        manager.close()


def test_the_answers_are_checked_and_returned_as_accept(hermes_home: Path) -> None:
    ui = Answers("Ada", "200", "36", "green", "yes")
    text = _ask(hermes_home, stdio_entry(), "ask", ui)
    assert text.startswith("accept: ")
    assert json.loads(text.removeprefix("accept: ")) == {
        "name": "Ada",
        "age": 36,
        "colour": "green",
        "subscribe": True,
    }
    questions = [r.question for r in ui.clarify_requests]
    assert len(questions) == 5 and all(q.startswith("MCP server 'fx' asks: Who are you?") for q in questions)
    assert "your name" in questions[0]
    assert "not accepted: 200 is above the maximum 150" in questions[2]  # the age, asked again
    assert ui.clarify_requests[3].choices == ("red", "green", "blue", DECLINE)
    assert ui.clarify_requests[4].choices == ("yes", "no", SKIP, DECLINE)  # optional: it may be skipped


def test_decline_escape_and_unattended(hermes_home: Path, mcp_http: str) -> None:
    fx = http_entry(mcp_http)
    assert _ask(hermes_home, fx, "ask", Answers("Ada", DECLINE)) == "decline"
    assert _ask(hermes_home, fx, "ask", Answers("Ada", None)) == "cancel"
    unattended = Answers("Ada", interactive=False)
    assert _ask(hermes_home, fx, "ask", unattended) == "decline" and not unattended.clarify_requests
    assert _ask(hermes_home, fx, "confirm", Answers("Accept")) == "accept"
    assert _ask(hermes_home, fx, "confirm", Answers(DECLINE)) == "decline"


def test_a_url_request_shows_the_whole_address_and_the_user_decides(hermes_home: Path, mcp_http: str) -> None:
    fx = http_entry(mcp_http)
    ui = Answers(OPEN_URL)
    assert _ask(hermes_home, fx, "sign_in", ui) == "accept"
    (request,) = ui.clarify_requests
    assert "https://login.example.test/device?code=HX-42" in request.question
    assert "(login.example.test)" in request.question  # the site named apart from the path
    assert "Sign in to let the server read your calendar." in request.question
    assert request.choices == (OPEN_URL, DECLINE)
    assert _ask(hermes_home, fx, "sign_in", Answers(DECLINE)) == "decline"
    assert _ask(hermes_home, fx, "sign_in", Answers(None)) == "cancel"  # Escape
    unattended = Answers(interactive=False)
    assert _ask(hermes_home, fx, "sign_in", unattended) == "decline" and not unattended.clarify_requests
    assert "asked to open https://login.example.test" in notices(unattended)[-1]


@pytest.mark.parametrize("url", ["file:///etc/passwd", "javascript:alert(1)", "https://", "ftp://x.test/a"])
def test_a_url_request_for_a_non_web_address_is_declined_unasked(
    hermes_home: Path, url: str, mcp_http: str
) -> None:
    ui = Answers(OPEN_URL)
    assert _ask(hermes_home, http_entry(mcp_http), "sign_in", ui, {"url": url}) == "decline"
    assert not ui.clarify_requests
    assert "non-web address (declined)" in notices(ui)[-1]


def test_the_time_the_user_takes_is_not_the_calls_timeout(hermes_home: Path, mcp_http: str) -> None:
    assert (
        _ask(hermes_home, http_entry(mcp_http, timeout=1), "confirm", Answers("Accept", think=1.5))
        == "accept"
    )


def test_outside_a_call_the_server_is_declined(hermes_home: Path, mcp_http: str) -> None:
    write_config(hermes_home, {"fx": http_entry(mcp_http)})
    manager = manager_for(hermes_home)
    try:
        assert manager.call("fx", "ask", {}).text == "decline"  # no context: nobody to ask
    finally:
        manager.close()


def test_coercion_follows_the_flat_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "number", "minimum": 0},
            "mail": {"type": "string", "format": "email", "maxLength": 20},
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}},
            "pick": {"type": "string", "oneOf": [{"const": "x", "title": "X"}, {"const": "y"}]},
        },
        "required": ["n"],
    }
    n, mail, tags, pick = fields_of(schema)
    assert n.required and not mail.required
    assert coerce(n, "2.5") == 2.5
    assert coerce(tags, "a, b") == ["a", "b"]
    assert coerce(pick, "y") == "y"
    assert coerce(mail, "a@b.io") == "a@b.io"
    for field, answer in ((n, "-1"), (n, "many"), (mail, "nope"), (tags, "a, c"), (pick, "z")):
        with pytest.raises(FieldError):
            coerce(field, answer)
