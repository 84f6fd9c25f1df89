"""Toolsets: Hermes' config semantics, `/tools` switches per session, dynamic toolsets, and why one is off."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace as dataclasses_replace
from pathlib import Path

import pytest
from pydantic import BaseModel

from agent.config.settings import Settings, load_settings
from agent.core.events import StatusNotice, ToolFinished
from agent.session.catalogue import default_registry
from agent.session.session import Session
from agent.toolkit.registry import Tool, ToolContext, ToolRegistry
from agent.toolkit.toolsets import CATALOG, SessionToolsets, Toolset, register_toolset, unregister_toolset
from scripted import ScriptedServer
from tests.engine.helpers import make_agent
from tests.recording_ui import RecordingUI


def scenario(*calls: dict) -> str:
    return json.dumps({"name": "test", "calls": list(calls)})


def offered(body: dict) -> set[str]:
    return {t["function"]["name"] for t in body.get("tools", [])}


class EchoArgs(BaseModel):
    text: str = "hi"


def echo(args: EchoArgs, ctx: ToolContext) -> str:
    return f"echo: {args.text}"


ECHO = Tool(name="mcp_echo", description="Echo text back", args_model=EchoArgs, handler=echo)


@pytest.fixture
def dynamic() -> Iterator[None]:
    yield
    unregister_toolset("mcp-demo")


def settings_with(tmp_path: Path, **values: object) -> Settings:
    return Settings(model="scripted", hermes_home=tmp_path, cwd=tmp_path, auto_title=False, **values)


def test_disabled_toolsets_remove_terminal_from_the_request(hermes_home: Path, tmp_path: Path) -> None:
    (hermes_home / "config.yaml").write_text("agent:\n  disabled_toolsets: [terminal]\n")
    loaded = load_settings(env={"HERMES_HOME": str(hermes_home)})
    assert loaded.problems == [] and loaded.settings.disabled_toolsets == ["terminal"]
    with ScriptedServer(scenario({"text": "ok"})) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, disabled_toolsets=["terminal"])
        agent.run_conversation("hi")
        body = server.requests[0].body
    names = offered(body)
    assert "terminal" not in names and {"read_file", "memory", "skill_view"} <= names
    assert "- terminal:" not in body["messages"][0]["content"]
    status = agent.toolsets.status("terminal")
    assert status is not None and not status.enabled and "agent.disabled_toolsets" in status.reason


def test_toolsets_key_with_hermes_semantics(tmp_path: Path) -> None:
    registry = default_registry()
    only_files = SessionToolsets(registry, settings_with(tmp_path, toolsets=["file", "todo"]))
    assert {t.name for t in only_files.active_tools()} == {
        "read_file",
        "write_file",
        "patch",
        "search_files",
        "todo",
    }
    everything = SessionToolsets(
        default_registry(), settings_with(tmp_path, toolsets=["all"], disabled_toolsets=["file"])
    )
    names = everything.active_names()
    assert "terminal" in names and "read_file" not in names
    bundle_disabled = SessionToolsets(
        default_registry(), settings_with(tmp_path, disabled_toolsets=["hermes-cli"])
    )
    assert "terminal" in bundle_disabled.active_names()  # disabling a bundle keeps the core (Hermes' rule)
    typo = SessionToolsets(default_registry(), settings_with(tmp_path, toolsets=["hermes-cli", "flie"]))
    assert typo.problems() == ["toolsets: unknown toolset 'flie'"]


def test_platform_toolsets_cli_is_what_hermes_tools_saved(hermes_home: Path) -> None:
    (hermes_home / "config.yaml").write_text(
        "toolsets: [hermes-cli]\nplatform_toolsets:\n  cli: [file, web]\n"
    )
    loaded = load_settings(env={"HERMES_HOME": str(hermes_home)})
    assert loaded.settings.toolsets == ["file", "web"]
    assert loaded.sources["toolsets"] == str(hermes_home / "config.yaml")


def test_tools_toggle_changes_the_next_request(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": "echo one"}, "id": "t1"}]},
        {"text": "first done"},
        {"tool_calls": [{"name": "terminal", "arguments": {"command": "echo two"}, "id": "t2"}]},
        {"text": "second done"},
    ]
    with ScriptedServer(scenario(*calls)) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path, yolo=True)
        agent.run_conversation("run it")
        status = agent.toolsets.toggle("terminal")
        assert not status.enabled and "for this session" in status.reason
        agent.run_conversation("run it again")
        bodies = [r.body for r in server.requests]
    assert "terminal" in offered(bodies[0]) and "terminal" not in offered(bodies[2])
    assert bodies[0]["messages"][0]["content"] == bodies[2]["messages"][0]["content"]  # prompt unchanged
    finished = ui.of_type(ToolFinished)
    assert [e.status for e in finished] == ["ok", "error"]
    assert "not available in this session" in finished[1].result


def test_dynamic_toolset_reaches_the_next_request_and_reports_why_it_is_off(
    hermes_home: Path, tmp_path: Path, dynamic: None
) -> None:
    backend = {"up": False}
    toolset = Toolset(
        "mcp-demo",
        "Demo MCP server",
        requires=lambda s: None if backend["up"] else "the server is not connected",
    )
    calls = [
        {"text": "a"},
        {"tool_calls": [{"name": "mcp_echo", "arguments": {"text": "yo"}, "id": "e1"}]},
        {"text": "b"},
    ]
    with ScriptedServer(scenario(*calls)) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("one")
        register_toolset(toolset, [ECHO])
        status = agent.toolsets.status("mcp-demo")
        assert status is not None and status.dynamic and not status.available
        assert status.reason == "unavailable: the server is not connected"
        backend["up"] = True
        agent.run_conversation("two")
        bodies = [r.body for r in server.requests]
    assert "mcp_echo" not in offered(bodies[0]) and "mcp_echo" in offered(bodies[1])
    assert bodies[0]["messages"][0]["content"] == bodies[1]["messages"][0]["content"]
    assert ui.of_type(ToolFinished)[0].result == "echo: yo"
    notices = [e.text for e in ui.of_type(StatusNotice)]
    assert any("+mcp_echo" in n and "new session" in n for n in notices)


def test_unregistered_toolset_leaves_the_registry(tmp_path: Path, dynamic: None) -> None:
    registry = ToolRegistry(default_registry().tools())
    session = SessionToolsets(registry, settings_with(tmp_path))
    register_toolset(Toolset("mcp-demo", "Demo"), [ECHO])
    assert "mcp_echo" in session.active_names() and "mcp_echo" in registry
    assert registry.get("mcp_echo").toolset == "mcp-demo"  # type: ignore[union-attr]
    unregister_toolset("mcp-demo")
    assert "mcp_echo" not in session.active_names() and "mcp_echo" not in registry
    assert CATALOG.get("mcp-demo") is None


def test_a_requirement_shared_by_a_toolsets_tools_is_asked_once_per_look(
    tmp_path: Path, dynamic: None
) -> None:
    """The browser's tools share the toolset's check (Playwright importable, a Chromium on PATH); every
    model request looks at the active tools, so each look asks it once, not once per tool."""
    asked: list[Settings] = []

    def requirement(settings: Settings) -> str | None:
        asked.append(settings)
        return None

    tools = [dataclasses_replace(ECHO, name=f"mcp_echo_{n}", requires=requirement) for n in range(3)]
    register_toolset(Toolset("mcp-demo", "Demo", requires=requirement), tools)
    session = SessionToolsets(ToolRegistry(), settings_with(tmp_path))
    assert {"mcp_echo_0", "mcp_echo_1", "mcp_echo_2"} <= session.active_names()
    assert len(asked) == 1
    asked.clear()
    requirement_fails = "no backend"
    register_toolset(
        Toolset("mcp-demo", "Demo", requires=requirement),
        [dataclasses_replace(tools[0], requires=lambda s: requirement_fails), *tools[1:]],
    )
    status = session.status("mcp-demo")
    assert status is not None and status.enabled and "mcp_echo_0 unavailable: no backend" in status.reason
    assert len(asked) == 1


def test_disabled_toolsets_can_name_a_dynamic_toolset(tmp_path: Path, dynamic: None) -> None:
    register_toolset(Toolset("mcp-demo", "Demo"), [ECHO])
    session = SessionToolsets(ToolRegistry(), settings_with(tmp_path, disabled_toolsets=["mcp-demo"]))
    assert "mcp_echo" not in session.active_names()
    assert session.set_enabled("mcp-demo", True).enabled  # /tools can still switch it on for the session


def test_untagged_tools_stay_offered(tmp_path: Path) -> None:
    registry = ToolRegistry([ECHO])
    session = SessionToolsets(registry, settings_with(tmp_path))
    assert session.active_names() == {"mcp_echo"}
    assert [s.name for s in session.statuses()] == ["other"]


def test_an_agent_offers_every_builtin_by_default(hermes_home: Path, tmp_path: Path) -> None:
    agent = Session(settings_with(tmp_path), ui=RecordingUI())
    # web_search needs a search backend (none is configured here); everything else is offered.
    assert agent.toolsets.active_names() == set(agent.registry.names) - {"web_search"}
    statuses = {s.name: s for s in agent.toolsets.statuses()}
    assert statuses["web"].enabled and statuses["web"].reason.startswith("web_search unavailable")
    assert all(s.enabled and s.reason == "" for n, s in statuses.items() if n != "web")


def test_a_layered_catalog_is_one_sessions_own(tmp_path: Path, dynamic: None) -> None:
    """An editor's MCP server (`hermes-tui acp`) joins its session's layer: that session is offered its
    tools, another session is not; the process's toolsets reach both, and a change in either moves the
    layer's generation (the session re-reads its tools)."""
    from agent.toolkit.toolsets import LayeredCatalog

    layer = LayeredCatalog()
    settings = settings_with(tmp_path)
    own = SessionToolsets(default_registry(), settings, catalog=layer)
    other = SessionToolsets(default_registry(), settings)
    before = layer.generation
    layer.register(
        Toolset("mcp-editor", "The editor's server"), [dataclasses_replace(ECHO, name="mcp_editor_echo")]
    )
    assert layer.generation > before
    assert "mcp_editor_echo" in own.active_names()
    assert "mcp_editor_echo" not in other.active_names()
    assert CATALOG.get("mcp-editor") is None
    moved = layer.generation
    register_toolset(Toolset("mcp-demo", "Demo"), [ECHO])  # the process's: every session's
    assert layer.generation > moved
    assert "mcp_echo" in own.active_names() and "mcp_echo" in other.active_names()
    layer.unregister("mcp-editor")
    assert "mcp_editor_echo" not in own.active_names()


def test_open_stores_the_session_before_its_first_message(tmp_path: Path) -> None:
    """`Session.open()`: the store's id at once (an ACP client's `session/new`), the first message still
    names it."""
    with ScriptedServer(scenario({"text": "hello"})) as server:
        agent, store, _ui = make_agent(server, tmp_path, tmp_path)
        session_id = agent.open()
        info = store.get_session(session_id)
        assert info is not None and not info.title
        agent.run_conversation("name me by this")
        assert agent.session_id == session_id
        named = store.get_session(session_id)
        assert named is not None and named.title == "name me by this"
        agent.close()
    store.close()
