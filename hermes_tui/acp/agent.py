"""The ACP methods: initialize, sessions (new, load, resume, fork, list, close), prompt, cancel, modes and
the model picker.

Sessions are the store's: `session/new` stores the session at once (source `acp`) and its id is the store's,
so the session is in `hermes-tui sessions`, `Ctrl+R` and `hermes-tui -r ID`; `session/load` takes any
stored session (a TUI one too) and replays it as updates before answering. One writer per session, as
everywhere: a session open in a TUI is refused in one line. Building an engine session (plugins, the
system prompt, the editor's MCP servers) blocks, so it runs on a worker thread, never on the loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import acp
from acp import RequestError
from acp.schema import (
    AcceptElicitationResponse,
    AcpMcpServer,
    AgentCapabilities,
    AvailableCommandsUpdate,
    ClientCapabilities,
    ConfigOptionUpdate,
    ElicitationFormSessionMode,
    ElicitationSchema,
    ElicitationStringPropertySchema,
    EnvVariable,
    ForkSessionResponse,
    HttpHeader,
    HttpMcpServer,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    McpServerStdio,
    NewSessionResponse,
    PermissionOption,
    PromptCapabilities,
    PromptResponse,
    RequestPermissionResponse,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionForkCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionResumeCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    SseMcpServer,
    ToolCallUpdate,
)

from agent.api import (
    Agent,
    LayeredCatalog,
    StoreError,
    load_catalog,
    sanitize_display,
    session_mcp_servers,
)
from hermes_tui.acp import commands
from hermes_tui.acp.bridge import SessionBridge
from hermes_tui.acp.modes import MODEL_OPTION, apply_mode, mode_state, model_option
from hermes_tui.acp.session import AcpSession, Block
from hermes_tui.acp.updates import history_updates

if TYPE_CHECKING:
    from acp.interfaces import Client

    from agent.api import McpManager, SessionStoreProtocol, Settings

log = logging.getLogger(__name__)

LIST_PAGE = 50
ANSWER_FIELD = "answer"
ANSWER_FORM = ElicitationSchema(
    properties={ANSWER_FIELD: ElicitationStringPropertySchema(type="string", title="Your answer")},
    required=[ANSWER_FIELD],
)
"""A clarify question without choices, as a one-field form (clients that declare form elicitation)."""
McpServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hermes-tui")
    except PackageNotFoundError:  # pragma: no cover - a source tree
        return "unknown"


def mcp_entries(servers: list[McpServer] | None) -> dict[str, dict[str, Any]]:
    """The editor's servers in `mcp_servers`' shape (what `agent.mcp` reads from config.yaml)."""
    out: dict[str, dict[str, Any]] = {}
    for server in servers or []:
        if isinstance(server, McpServerStdio):
            env = {v.name: v.value for v in server.env if isinstance(v, EnvVariable)}
            out[server.name] = {"command": server.command, "args": list(server.args), "env": env}
        elif isinstance(server, HttpMcpServer | SseMcpServer):
            headers = {h.name: h.value for h in server.headers if isinstance(h, HttpHeader)}
            entry: dict[str, Any] = {"url": server.url, "headers": headers}
            if isinstance(server, SseMcpServer):
                entry["transport"] = "sse"
            out[server.name] = entry
        else:
            log.info("MCP server of an unsupported kind ignored: %r", server)
    return out


class HermesAcpAgent:
    """The SDK's `Agent`: one per connection (one editor), holding that editor's sessions."""

    def __init__(
        self,
        settings: Settings,
        store: SessionStoreProtocol,
        servers_ready: Callable[[], object] | None = None,
    ) -> None:
        """`servers_ready`: blocks until the user's configured MCP servers connected or failed (bounded);
        a session is built after it, so its first prompt has their tools (instant once they have)."""
        self.settings = settings
        self.store = store
        self.servers_ready = servers_ready
        self._background: set[asyncio.Task[None]] = set()
        self.sessions: dict[str, AcpSession] = {}
        self.client: Client | None = None
        self.client_capabilities = ClientCapabilities()

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    # ------------------------------------------------------------------ initialize

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self.client_capabilities = client_capabilities or ClientCapabilities()
        log.info("initialize: protocol %s, client %s", protocol_version, client_info)
        return InitializeResponse(
            protocol_version=min(protocol_version, acp.PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=True, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
                session_capabilities=SessionCapabilities(
                    list=SessionListCapabilities(),
                    fork=SessionForkCapabilities(),
                    resume=SessionResumeCapabilities(),
                ),
            ),
            agent_info=Implementation(name="hermes-tui", title="Hermes TUI", version=_version()),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        return None

    # ------------------------------------------------------------------ sessions

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        session = await self._open(cwd, mcp_servers, None)
        self._after_answer(session)
        return NewSessionResponse(
            session_id=session.id,
            modes=mode_state(session.engine),
            config_options=[model_option(session.engine.model, [])],
        )

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[McpServer] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        session = await self._open(cwd, mcp_servers, session_id)
        for update in history_updates(session.engine.messages, session.cwd):
            await self._client().session_update(session.id, update)
        self._after_answer(session)
        return LoadSessionResponse(
            modes=mode_state(session.engine), config_options=[model_option(session.engine.model, [])]
        )

    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: Any,
    ) -> ResumeSessionResponse:
        session = await self._open(cwd, mcp_servers, session_id)
        self._after_answer(session)
        return ResumeSessionResponse(
            modes=mode_state(session.engine), config_options=[model_option(session.engine.model, [])]
        )

    async def fork_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: Any,
    ) -> ForkSessionResponse:
        def branch() -> str:
            original = self.store.adopt(session_id)
            return self.store.branch(original, 2**62)

        try:
            forked = await asyncio.to_thread(branch)
        except KeyError:
            raise RequestError.resource_not_found(session_id) from None
        except StoreError as exc:
            raise RequestError.internal_error({"details": exc.user_line()}) from None
        session = await self._open(cwd, mcp_servers, forked)
        self._after_answer(session)
        return ForkSessionResponse(
            session_id=session.id,
            modes=mode_state(session.engine),
            config_options=[model_option(session.engine.model, [])],
        )

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any) -> Any:
        try:
            offset = max(0, int(cursor)) if cursor else 0
        except ValueError:
            raise RequestError.invalid_params({"cursor": "not a cursor this agent gave"}) from None
        infos = await asyncio.to_thread(self.store.list_sessions, LIST_PAGE + 1, offset, cwd)
        sessions = [
            SessionInfo(
                session_id=info.id,
                cwd=info.cwd,
                title=info.title or info.preview or None,
                updated_at=datetime.fromtimestamp(info.updated_at, UTC).isoformat(),
            )
            for info in infos[:LIST_PAGE]
        ]
        more = str(offset + LIST_PAGE) if len(infos) > LIST_PAGE else None
        return ListSessionsResponse(sessions=sessions, next_cursor=more)

    async def close_session(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.pop(session_id, None)
        if session is None:
            raise RequestError.resource_not_found(session_id)
        await session.close()

    # ------------------------------------------------------------------ a session's requests

    async def prompt(self, session_id: str, prompt: list[Block], **kwargs: Any) -> PromptResponse:
        return await self._session(session_id).prompt(prompt)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:  # a notification: an unknown session has nobody to answer
            session.cancel()

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> SetSessionModeResponse:
        session = self._session(session_id)
        try:
            apply_mode(session.engine, mode_id)
        except KeyError:
            raise RequestError.invalid_params({"modeId": f"no mode {mode_id!r}"}) from None
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        session = self._session(session_id)
        if config_id != MODEL_OPTION or not isinstance(value, str) or not value.strip():
            raise RequestError.invalid_params({"configId": f"no option {config_id!r} taking {value!r}"})
        try:
            await asyncio.to_thread(session.engine.switch_model, value.strip())
        except RuntimeError as exc:  # a turn runs
            raise RequestError.invalid_params({"details": str(exc)}) from None
        listed = await asyncio.to_thread(self._models)
        return SetSessionConfigOptionResponse(config_options=[model_option(session.engine.model, listed)])

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(f"_{method}")

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    # ------------------------------------------------------------------ the connection ends

    async def shutdown(self) -> None:
        """Every session's turn stopped and its session released (stdin closed, or the process ends)."""
        sessions, self.sessions = list(self.sessions.values()), {}
        await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)

    # ------------------------------------------------------------------ internals

    def _client(self) -> Client:
        if self.client is None:
            raise RequestError.internal_error({"details": "no client connection"})
        return self.client

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.resource_not_found(session_id)
        return session

    async def _open(self, cwd: str, servers: list[McpServer] | None, session_id: str | None) -> AcpSession:
        folder = Path(cwd).expanduser()
        if not folder.is_absolute() or not folder.is_dir():
            raise RequestError.invalid_params({"cwd": f"not an absolute path to a folder: {cwd}"})
        if session_id is not None and session_id in self.sessions:
            await self.sessions.pop(session_id).close()  # loaded again: the editor's view starts over
        loop = asyncio.get_running_loop()
        client = self._client()

        async def send(update: Any) -> None:
            await client.session_update(bridge_id[0], update)

        async def ask(
            tool_call: ToolCallUpdate, options: list[PermissionOption]
        ) -> RequestPermissionResponse:
            return await client.request_permission(
                session_id=bridge_id[0], tool_call=tool_call, options=options
            )

        async def elicit(question: str, tool_call_id: str | None) -> str | None:
            mode = ElicitationFormSessionMode(
                session_id=bridge_id[0], tool_call_id=tool_call_id, requested_schema=ANSWER_FORM
            )
            response = await client.create_elicitation(message=question, mode=mode)
            if isinstance(response, AcceptElicitationResponse) and response.content:
                answer = response.content.get(ANSWER_FIELD)
                return answer if isinstance(answer, str) else None
            return None

        capabilities = self.client_capabilities.elicitation
        forms = capabilities is not None and capabilities.form is not None
        bridge_id = [session_id or ""]
        local = self.settings.terminal.backend == "local"
        bridge = SessionBridge(loop, folder, send, ask, elicit if forms else None, local=local)
        try:
            engine, mcp = await asyncio.to_thread(
                self._engine, folder, mcp_entries(servers), session_id, bridge
            )
        except KeyError:
            raise RequestError.resource_not_found(session_id) from None
        except StoreError as exc:
            raise RequestError.internal_error({"details": exc.user_line()}) from None
        bridge_id[0] = engine.session_id
        session = AcpSession(engine, bridge, client, self.store, mcp)
        self.sessions[session.id] = session
        log.info("session %s opened in %s (%s)", session.id, folder, "loaded" if session_id else "new")
        return session

    def _engine(
        self, cwd: Path, servers: dict[str, dict[str, Any]], session_id: str | None, bridge: SessionBridge
    ) -> tuple[Agent, McpManager | None]:
        """An engine session in `cwd` with the editor's MCP servers (its own catalog layer), stored."""
        if session_id is not None and self.store.get_session(session_id) is None:
            raise KeyError(session_id)
        if self.servers_ready is not None:
            self.servers_ready()
        settings = self.settings.model_copy(update={"cwd": cwd})
        catalog = LayeredCatalog()
        mcp = session_mcp_servers(settings.hermes_home, servers, catalog) if servers else None
        try:
            engine = Agent(settings, ui=bridge, store=self.store, source="acp", catalog=catalog)
            try:
                if session_id is not None:
                    engine.resume(session_id)
                else:
                    engine.open()
            except BaseException:
                engine.close()
                raise
        except BaseException:
            if mcp is not None:
                mcp.close()
            raise
        return engine, mcp

    def _models(self) -> list[str]:
        try:
            return load_catalog(self.settings).models
        except Exception:  # the list is a convenience: any failure leaves the current model alone
            return []

    def _after_answer(self, session: AcpSession) -> None:
        """Sent once the answer naming the session is out (`_announce`)."""
        loop = asyncio.get_running_loop()

        def start() -> None:
            task = loop.create_task(self._announce(session))
            self._background.add(task)  # held until done: the loop keeps only a weak reference
            task.add_done_callback(self._background.discard)

        loop.call_soon(start)

    async def _announce(self, session: AcpSession) -> None:
        """What the editor's servers could not do, the commands, then the provider's models."""
        client = self._client()
        try:
            statuses = session.mcp.status() if session.mcp is not None else []
            for status in statuses:  # the editor's servers that did not connect, said once
                if status.state in ("failed", "invalid"):
                    line = (
                        f"⚠ MCP server '{status.name}' is not available: {sanitize_display(status.error)}\n"
                    )
                    await client.session_update(session.id, acp.update_agent_message_text(line))
            available = await asyncio.to_thread(commands.available_commands, session.engine)
            await client.session_update(
                session.id,
                AvailableCommandsUpdate(
                    session_update="available_commands_update", available_commands=available
                ),
            )
            listed = await asyncio.to_thread(self._models)
            if listed and session.id in self.sessions:
                await client.session_update(
                    session.id,
                    ConfigOptionUpdate(
                        session_update="config_option_update",
                        config_options=[model_option(session.engine.model, listed)],
                    ),
                )
        except Exception as exc:  # the client went away meanwhile
            log.info("session %s: announcements not sent: %s", session.id, exc)
