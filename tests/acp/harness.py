"""Driving `hermes-tui acp` as an editor does: the agent a subprocess, the SDK's client side over its pipes.

`write_home` lays out a temp `HERMES_HOME` aimed at a scripted server (Hermes' `model:` section, a key in
the environment, no automatic title). `running_agent` starts `python -m hermes_tui.cli acp` there (forked from
the worker's warm process: `agent_process.py`) and yields
the SDK's `ClientSideConnection` with a `Recorder`: the client half, which keeps every session update and
permission request and answers permissions with its `answer` policy (an option id, or None for the
client's `cancelled`). stderr goes to a file the test can read. Tests that need a session rather than a
process of their own share one agent per module (`shared_agent.py`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp.core import ClientSideConnection
from acp.schema import (
    AcceptElicitationResponse,
    AgentMessageChunk,
    AgentThoughtChunk,
    AllowedOutcome,
    ClientCapabilities,
    DeclineElicitationResponse,
    DeniedOutcome,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from scripted import ScriptedServer
from tests.acp.agent_process import AgentProcess, agent_process
from tests.waiting import wait_for_async

MODEL = "scripted"
ROOT = Path(__file__).resolve().parents[2]


def write_home(root: Path, server: ScriptedServer, tui_config: str = "") -> Path:
    home = root / "home"
    (home / "tui").mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(
        f"model:\n  default: {MODEL}\n  provider: custom\n  base_url: {server.openai_base_url}\n"
    )
    (home / "tui" / "config.yaml").write_text("auto_title: false\n" + tui_config)
    return home


def agent_env(home: Path) -> dict[str, str]:
    return {
        "HERMES_HOME": str(home),
        "OPENAI_API_KEY": "scripted-key",
        "PYTHONPATH": str(ROOT),
        "HOME": str(home.parent),
    }


@dataclass
class Permission:
    session_id: str
    tool_call: ToolCallUpdate
    options: list[PermissionOption]


@dataclass
class Recorder:
    """The client: records what the agent sends, answers its permission requests with `answer`."""

    answer: Callable[[Permission], str | None] = lambda _p: None
    typed: str | None = None  # the answer to a form (elicitation); None declines
    elicited: list[str] = field(default_factory=list)
    updates: list[tuple[str, Any]] = field(default_factory=list)
    permissions: list[Permission] = field(default_factory=list)
    gone: Callable[[], str | None] = lambda: None
    """Why the agent is gone, or None: a shared agent's death fails a wait at once, not at its deadline."""

    def on_connect(self, conn: Any) -> None:
        pass

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse:
        asked = Permission(session_id, tool_call, options)
        self.permissions.append(asked)
        chosen = self.answer(asked)
        if chosen is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=chosen))

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        self.elicited.append(message)
        if self.typed is None:
            return DeclineElicitationResponse(action="decline")
        field_name = next(iter(mode.requested_schema.properties))
        return AcceptElicitationResponse(action="accept", content={field_name: self.typed})

    # -- what the tests read ----------------------------------------------------------------------------
    def of(self, session_id: str, kind: str) -> list[Any]:
        return [u for sid, u in self.updates if sid == session_id and u.session_update == kind]

    def kinds(self, session_id: str) -> list[str]:
        return [u.session_update for sid, u in self.updates if sid == session_id]

    def text(self, session_id: str) -> str:
        return "".join(
            u.content.text
            for sid, u in self.updates
            if sid == session_id and isinstance(u, AgentMessageChunk)
        )

    def thought(self, session_id: str) -> str:
        return "".join(
            u.content.text
            for sid, u in self.updates
            if sid == session_id and isinstance(u, AgentThoughtChunk)
        )

    async def wait_for(self, condition: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
        def met() -> Any:
            gone = self.gone()
            if gone is not None:
                raise AssertionError(f"{what}: {gone}")
            return condition()

        return await wait_for_async(met, what, timeout=timeout, seen=lambda: self.updates[-5:])


@contextlib.asynccontextmanager
async def running_agent(
    home: Path, cwd: Path, client: Recorder | None = None, *args: str, forms: bool = False
) -> AsyncIterator[tuple[ClientSideConnection, AgentProcess, Recorder]]:
    """`hermes-tui acp` in `cwd`, initialized (`forms`: the client declares form elicitation); on exit
    stdin is closed and the agent must end by itself."""
    client = client or Recorder()
    stderr = (home / "stderr.txt").open("ab")
    try:
        async with agent_process(
            [*args, "acp"], env=agent_env(home), cwd=cwd, stderr=stderr, shutdown_timeout=30.0
        ) as (reader, writer, proc):
            conn = ClientSideConnection(client, writer, reader, use_unstable_protocol=True)
            try:
                capabilities = ClientCapabilities(
                    elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities()) if forms else None
                )
                await conn.initialize(protocol_version=acp.PROTOCOL_VERSION, client_capabilities=capabilities)
                yield conn, proc, client
            finally:
                await conn.close()
    finally:
        stderr.close()


def stored_sessions(home: Path, cwd: Path | None = None) -> list[Any]:
    """The sessions of `home`'s store (those started in `cwd`: a shared home's test reads its own)."""
    from agent.store.opening import open_store

    store = open_store(home / "tui" / "state.db")
    try:
        return store.list_sessions(cwd=None if cwd is None else str(cwd))
    finally:
        store.close()


def stored_messages(home: Path, session_id: str) -> list[Any]:
    from agent.store.opening import open_store

    store = open_store(home / "tui" / "state.db")
    try:
        return store.load(session_id).messages
    finally:
        store.close()
