"""What an MCP server asks in the TUI. Elicitation: the fixture server's `ask` tool calls `ctx.elicit(...)`,
each field becomes a clarify card above the prompt, the user answers with keys, and the server gets the
content (`accept`); Escape on a card is `cancel`. Sampling: its `sample` tool asks the model, the approval
dialog asks the user first. The MCP loop's worker thread only posts the questions (the bridge); the cards and
the dialog are the app's own. The server is the worker's shared one on streamable HTTP (`mcp_http`): the
stdio path of both is end to end in test_mcp_elicitation.py and test_mcp_sampling.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.pilot import Pilot

from agent.toolkit.toolsets import CATALOG
from hermes_tui.app import HermesApp
from hermes_tui.screens.approval import ApprovalDialog
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, submit, wait_for
from tests.mcp_servers import http_entry
from widgets.clarify_prompt import ClarifyPrompt

pytestmark = pytest.mark.slow


async def _card(pilot: Pilot, app: HermesApp, seen: list[ClarifyPrompt]) -> ClarifyPrompt:
    """The next clarify card (a new one, armed past its typing guard)."""

    def fresh() -> ClarifyPrompt | None:
        cards = [c for c in chat(app).query(ClarifyPrompt) if c not in seen and not c.is_answered]
        return cards[0] if cards else None

    card = await wait_for(pilot, fresh, 30, "the next clarify card")
    await wait_for(pilot, lambda: card.is_armed, what="the card armed")
    seen.append(card)
    return card


async def test_elicitation_is_answered_on_clarify_cards(
    hermes_home: Path, tmp_path: Path, mcp_http: str
) -> None:
    config = {"mcp_servers": {"fx": http_entry(mcp_http)}}
    (hermes_home / "config.yaml").write_text(json.dumps(config))
    calls = [
        {"tool_calls": [{"name": "mcp_fx_ask", "arguments": {}, "id": "c1"}]},
        {"tool_calls": [{"name": "mcp_fx_ask", "arguments": {}, "id": "c2"}]},
        {"text": "ok"},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await wait_for(pilot, lambda: "mcp-fx" in CATALOG.dynamic(), 60, "the MCP server's tools")
        await submit(pilot, "who am I?")
        seen: list[ClarifyPrompt] = []
        name = await _card(pilot, app, seen)
        assert "MCP server 'fx' asks: Who are you?" in name.request.question
        assert name.is_free_text  # nothing to pick: the card opens on its input
        await pilot.press(*"Ada", "enter")
        age = await _card(pilot, app, seen)
        assert "Age (integer, 0 to 150, required)" in age.request.question
        await pilot.press(*"36", "enter")
        colour = await _card(pilot, app, seen)
        assert colour.choices[:3] == ("red", "green", "blue")
        await pilot.press("2")  # green
        subscribe = await _card(pilot, app, seen)
        await pilot.press("1")  # yes
        escaped = await _card(pilot, app, seen)  # the second call asks again: Escape this time
        assert escaped is not subscribe
        await pilot.press("escape")  # from the input to the choices (Decline)
        await pilot.pause()
        assert not escaped.is_answered and not escaped.is_free_text
        await pilot.press("escape")  # and the question is dismissed
        await wait_for(pilot, lambda: not chat(app).busy, 30, "turn end")
        first = next(m for m in server.requests[1].body["messages"] if m.get("tool_call_id") == "c1")
        assert json.loads(first["content"].removeprefix("accept: ")) == {
            "name": "Ada",
            "age": 36,
            "colour": "green",
            "subscribe": True,
        }
        second = next(m for m in server.requests[2].body["messages"] if m.get("tool_call_id") == "c2")
        assert second["content"] == "cancel"

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path, size=(110, 40))


async def test_sampling_asks_on_the_approval_dialog(hermes_home: Path, tmp_path: Path, mcp_http: str) -> None:
    config = {"mcp_servers": {"fx": http_entry(mcp_http)}}
    (hermes_home / "config.yaml").write_text(json.dumps(config))
    calls = [
        {"tool_calls": [{"name": "mcp_fx_sample", "arguments": {"prompt": "a haiku"}, "id": "c1"}]},
        {"text": "an old pond"},
        {"tool_calls": [{"name": "mcp_fx_sample", "arguments": {"prompt": "again"}, "id": "c2"}]},
        {"text": "ok"},
    ]

    async def dialog(pilot: Pilot, app: HermesApp) -> ApprovalDialog:
        shown = await wait_for(
            pilot, lambda: isinstance(app.screen, ApprovalDialog) and app.screen, 30, "the approval dialog"
        )
        await wait_for(pilot, lambda: shown.is_armed, what="dialog armed")
        return shown

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await wait_for(pilot, lambda: "mcp-fx" in CATALOG.dynamic(), 60, "the MCP server's tools")
        await submit(pilot, "sample")
        first = await dialog(pilot, app)
        assert first.request.tool_name == "mcp_fx_sampling" and "a haiku" in first.request.command
        for key in ("left", "left", "left", "enter"):  # allow once
            await pilot.press(key)
            await pilot.pause()
        second = await dialog(pilot, app)
        assert second is not first and "again" in second.request.command
        await pilot.press("enter")  # Deny (focused first)
        await wait_for(pilot, lambda: not chat(app).busy, 30, "turn end")
        bodies = [r.body for r in server.requests]
        assert len(bodies) == 4  # the second sampling never reached the model
        results = {m["tool_call_id"]: m["content"] for m in bodies[3]["messages"] if m["role"] == "tool"}
        assert results["c1"] == "sampled (scripted, endTurn): an old pond"
        assert results["c2"].startswith("sampling refused: the user did not allow sampling")

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path, size=(110, 40))


async def test_a_url_request_shows_the_address_on_a_card(
    hermes_home: Path, tmp_path: Path, mcp_http: str
) -> None:
    config = {"mcp_servers": {"fx": http_entry(mcp_http)}}
    (hermes_home / "config.yaml").write_text(json.dumps(config))
    calls = [{"tool_calls": [{"name": "mcp_fx_sign_in", "arguments": {}, "id": "c1"}]}, {"text": "ok"}]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await wait_for(pilot, lambda: "mcp-fx" in CATALOG.dynamic(), 60, "the MCP server's tools")
        await submit(pilot, "read my calendar")
        card = await _card(pilot, app, [])
        shown = card.request.question
        assert "https://login.example.test/device?code=HX-42" in shown and "(login.example.test)" in shown
        assert not card.is_free_text  # two choices to pick from, not a typed answer
        await pilot.press("1")  # I'll open it
        await wait_for(pilot, lambda: not chat(app).busy, 30, "turn end")
        result = next(m for m in server.requests[1].body["messages"] if m.get("tool_call_id") == "c1")
        assert result["content"] == "accept"

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path, size=(110, 40))
