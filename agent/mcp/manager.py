"""`McpManager`: every configured MCP server's connection, in one background asyncio loop thread.

The agent thread never touches asyncio: a tool's handler calls `McpManager.call(...)`, which hands the call
to the loop and waits in short slices, giving up when the interrupt flag is set (Escape) or the server's
`timeout` passes. Either way the call is cancelled on the loop and the turn goes on with a clear result.

One task per server owns its connection from connect to close (the SDK's `Client` and its task groups must
be entered and left by the same task). Connecting is bounded by `connect_timeout`; a server that fails is
shown with its error, one that connects registers its tools as the dynamic toolset `mcp-<server>`, so the
next request of every session offers them. A server that goes away (its process exits, the HTTP
connection breaks) is reported once, through `on_change`, keeps its tools registered, and is started again
by the next call of one of them. `reload(config)` applies a changed configuration (only the servers whose
settings changed reconnect, unless `force`), `close()` stops everything, and stdio servers' process groups
are killed at exit if the loop could not stop them.

A call carries its `ToolContext`: while it runs, the server's sampling and elicitation requests are answered
with it (`agent.mcp.sampling`, `agent.mcp.elicitation`), and the time its questions wait for the user is not
counted against the call's `timeout`.

The SDK is imported on the loop thread when the first server connects, never by importing this module
(it costs seconds), so the app's first frame does not wait for it.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import logging
import math
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from agent.children.gate import Gate
from agent.children.groups import signal_group
from agent.children.supervisor import SUPERVISOR
from agent.core.tls import shared_ssl_context
from agent.mcp.config import McpConfig, ServerProblem, ServerSpec
from agent.mcp.elicitation import ElicitationHandler
from agent.mcp.noise import STDIO_DECODING, NoiseCount, filtered, quiet_sdk_parse_errors
from agent.mcp.processes import server_groups
from agent.mcp.results import CallReport, CallStatus, render_result
from agent.mcp.sampling import SamplingHandler
from agent.mcp.stderr_log import RedactedStderrLog
from agent.mcp.tools import McpToolInfo, build_tools
from agent.toolkit.registry import ToolContext
from agent.toolkit.toolsets import CATALOG, Toolset, ToolsetCatalog

__all__ = ["CallReport", "LastCall", "McpManager", "ServerState", "ServerStatus"]

log = logging.getLogger(__name__)

WAIT_SLICE = 0.05
LIST_PAGES = 50
CLOSE_TIMEOUT = 8.0
GROUP_WATCH_INTERVAL = 0.05  # without a gate: how often a connecting stdio server's group is looked for
RELIST_PATIENCE = 10.0
"""Seconds a call waits, after its result, for the listing its server's `tools/list_changed` asked for."""

RESTART_BACKOFF_MAX = 30.0
"""A server that keeps exiting is started again at once the first time, then after 1, 2, 4 ... s (at most
this), as the MCP clients of Claude Code and Codex back off; a call meanwhile is told when."""
CLIENT_NAME = "hermes-tui"


def restart_delay(exits: int) -> float:
    """Seconds before a server that exited `exits` times in a row (without a good call since) is started."""
    return 0.0 if exits <= 1 else min(RESTART_BACKOFF_MAX, 2.0 ** (exits - 2))


def _import_sdk() -> None:
    import mcp
    import mcp.client.stdio
    import mcp.client.streamable_http  # noqa: F401


def client_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(CLIENT_NAME)
    except PackageNotFoundError:
        return "0"


ServerState = Literal["disabled", "invalid", "connecting", "connected", "failed", "exited", "stopped"]


@dataclass(frozen=True)
class LastCall:
    tool: str
    status: CallStatus
    duration: float
    at: float  # time.time()
    detail: str = ""  # the first line of an error


@dataclass(frozen=True)
class ServerStatus:
    """One server as `/mcp` shows it."""

    name: str
    state: ServerState
    transport: str = ""
    target: str = ""
    error: str = ""
    tools: tuple[str, ...] = ()  # the names offered to the model
    skipped: tuple[str, ...] = ()  # the server's tools left out (tools.include/exclude, a name clash)
    prompts: tuple[str, ...] = ()  # the server's prompts by name, as it last listed them
    resources: tuple[str, ...] = ()  # its resources (name, else URI), as it last listed them
    approval: str = ""
    calls: int = 0
    last_call: LastCall | None = None
    last_error: str = ""  # the latest error, kept after the server connects again
    last_error_at: float = 0.0  # time.time()
    noise_lines: int = 0  # lines of the current connection that were not JSON-RPC (skipped)
    noise_sample: str = ""


class _Unavailable(Exception):
    """The server cannot take a call now (it failed to connect); the message says why."""


@dataclass(eq=False)
class _Server:
    """One configured server's mutable state. Touched on the loop thread only (status() copies under lock)."""

    spec: ServerSpec
    state: ServerState = "connecting"
    error: str = ""
    client: Any = None
    tools: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    prompts: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    calls: int = 0
    last_call: LastCall | None = None
    task: asyncio.Task[None] | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    gone: asyncio.Event = field(default_factory=asyncio.Event)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    pgids: set[int] = field(default_factory=set)
    ended: asyncio.Event = field(default_factory=asyncio.Event)  # the transport's read stream ended
    noise: NoiseCount = field(default_factory=NoiseCount)
    last_error: str = ""
    last_error_at: float = 0.0
    exits: int = 0  # exits and failed starts in a row, without a good call since
    retry_at: float = 0.0  # time.monotonic() before which it is not started again
    instructions: str = ""  # the server's `InitializeResult.instructions`
    calls_open: list[ToolContext] = field(default_factory=list)  # the tool calls in flight, oldest first
    sampling: SamplingHandler | None = None  # None: `sampling.enabled: false` (not advertised)
    elicitation: ElicitationHandler | None = None
    relists: set[asyncio.Task[None]] = field(default_factory=set)  # listings a `list_changed` asked for

    def current_call(self) -> ToolContext | None:
        """The tool call a server-initiated request (sampling, elicitation) belongs to: the latest one in
        flight (a server asks during the call it is serving; with several at once, as Hermes does, the
        latest)."""
        calls = self.calls_open
        return calls[-1] if calls else None

    def asking(self) -> bool:
        """True while the server's question (elicitation, a sampling approval) waits for the user."""
        return any(h is not None and h.asking.is_open for h in (self.sampling, self.elicitation))

    def __post_init__(self) -> None:
        spec = self.spec
        if spec.sampling.enabled:
            self.sampling = SamplingHandler(
                spec.name, spec.sampling, self.current_call, approval=spec.approval
            )
        if spec.elicitation.enabled:
            self.elicitation = ElicitationHandler(spec.name, spec.elicitation, self.current_call)


Progress = Callable[[float, float | None, str], None]
"""Where a call's progress goes: (progress, total or None, message)."""


def _progress_callback(on_progress: Progress) -> Callable[[float, float | None, str | None], Any]:
    """The SDK's progress callback (async; its presence makes the request carry a `progressToken`)."""

    async def progressed(progress: float, total: float | None, message: str | None) -> None:
        try:
            on_progress(progress, total, message or "")
        except Exception:  # a watcher's bug never breaks the call
            log.exception("mcp: progress callback failed")

    return progressed


ListKind = Literal["tools", "prompts", "resources"]
_LIST_CHANGED: dict[str, ListKind] = {
    "notifications/tools/list_changed": "tools",
    "notifications/prompts/list_changed": "prompts",
    "notifications/resources/list_changed": "resources",
}


async def _list_names(
    client: Any, kind: Literal["prompts", "resources"], *, quiet: bool = False
) -> tuple[str, ...]:
    """The names of a server's prompts (or resources: the name, else the URI), every page, asked of the
    server (never the SDK's response cache: after a `list_changed` it may still hold the old list); () when
    it does not advertise them. `quiet`: a failure is () too (at connect time: a server whose prompts cannot
    be listed still serves its tools)."""
    capabilities = getattr(client, "server_capabilities", None)
    if getattr(capabilities, kind, None) is None:
        return ()
    names: list[str] = []
    cursor: str | None = None
    try:
        for _page in range(LIST_PAGES):
            if kind == "prompts":
                page = await client.list_prompts(cursor=cursor, cache_mode="refresh")
                names += [p.name for p in page.prompts]
            else:
                page = await client.list_resources(cursor=cursor, cache_mode="refresh")
                names += [r.name or str(r.uri) for r in page.resources]
            cursor = page.next_cursor
            if not cursor:
                break
    except Exception as exc:
        if not quiet:
            raise
        log.warning("mcp: could not list %s: %s", kind, _describe(exc))
        return ()
    return tuple(names)


def _describe(exc: BaseException) -> str:
    """One line for an exception, looking inside exception groups (the SDK's task groups wrap them)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = " ".join(str(exc).split())
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return f"command not found: {exc.filename}"
    if isinstance(exc, PermissionError) and exc.filename:
        return f"permission denied: {exc.filename}"
    name = type(exc).__name__
    return f"{name}: {text}" if text else name


def _connection_closed(exc: BaseException) -> bool:
    error = getattr(exc, "error", None)
    code = getattr(error, "code", None)
    return code == -32000 or "connection closed" in str(exc).lower()


class McpManager:
    """The MCP servers of one process. Thread-safe: call from any thread except its own loop."""

    def __init__(
        self,
        hermes_home: Path,
        *,
        catalog: ToolsetCatalog = CATALOG,
        on_change: Callable[[ServerStatus], None] | None = None,
    ) -> None:
        self.hermes_home = Path(hermes_home)
        self.catalog = catalog
        self.on_change = on_change
        self.log_dir = self.hermes_home / "tui" / "logs"
        self.media_dir = self.hermes_home / "tui" / "cache" / "mcp"
        self._servers: dict[str, _Server] = {}
        self._problems: dict[str, ServerProblem] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closed = False
        self._known_groups: set[int] = set()
        self._pending: list[concurrent.futures.Future[None]] = []
        atexit.register(self._kill_leftovers)

    # ------------------------------------------------------------------------------------------ public

    def start(self, config: McpConfig) -> concurrent.futures.Future[None]:
        """Begin connecting every enabled server; returns at once (tools join as servers connect)."""
        return self.reload(config, force=False)

    def reload(self, config: McpConfig, *, force: bool = True) -> concurrent.futures.Future[None]:
        """Apply `config` on the loop: removed servers stop, new and changed ones (every one with `force`)
        reconnect. Returns at once; the future is done once the old connections are closed."""
        with self._lock:
            self._problems = {p.name: p for p in config.servers if isinstance(p, ServerProblem)}
        if self._closed or (not config.specs and not self._servers):
            self._notify_problems()
            done: concurrent.futures.Future[None] = concurrent.futures.Future()
            done.set_result(None)
            return done
        future = asyncio.run_coroutine_threadsafe(self._apply(list(config.specs), force), self._ensure_loop())
        with self._lock:
            self._pending.append(future)
        return future

    def status(self) -> list[ServerStatus]:
        """Every configured server (and broken entry), in configuration order."""
        with self._lock:
            servers = list(self._servers.values())
            problems = list(self._problems.values())
        out = [self._status_of(s) for s in servers]
        out += [ServerStatus(name=p.name, state="invalid", error=p.message) for p in problems]
        return out

    def wait_ready(self, timeout: float = 60.0) -> bool:
        """Block until every server has connected or failed (headless runs, `hermes-tui mcp`, tests)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            pending, self._pending = self._pending, []
        for future in pending:
            with contextlib.suppress(Exception):
                future.result(max(0.0, deadline - time.monotonic()))
        while time.monotonic() < deadline:
            if all(s.state not in ("connecting",) for s in self.status()):
                return True
            time.sleep(WAIT_SLICE)
        return False

    def call(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        *,
        interrupt: threading.Event | None = None,
        timeout: float | None = None,
        on_progress: Progress | None = None,
        context: ToolContext | None = None,
    ) -> CallReport:
        """Run one tool call and wait for it: never longer than the server's `timeout`, never past an
        interrupt. Every outcome is a report (the caller makes it a tool result); nothing raises.
        `on_progress` gets the server's progress notifications for the call (it is sent a progress token
        when given), on the loop thread. `context`: the call's own (its session's model, approvals and UI),
        which the server's sampling and elicitation requests during the call use."""
        with self._lock:
            srv = self._servers.get(server)
        if srv is None or self._loop is None:
            return CallReport("unavailable", f"the MCP server '{server}' is not configured (any more)")
        if context is not None:
            with self._lock:
                srv.calls_open.append(context)
        try:
            return self._wait(srv, server, tool, arguments, interrupt, timeout, on_progress)
        finally:
            if context is not None:
                with self._lock:
                    srv.calls_open[:] = [c for c in srv.calls_open if c is not context]

    def _wait(
        self,
        srv: _Server,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        interrupt: threading.Event | None,
        timeout: float | None,
        on_progress: Progress | None,
    ) -> CallReport:
        assert self._loop is not None
        limit = srv.spec.timeout if timeout is None else timeout
        started = time.monotonic()
        future = asyncio.run_coroutine_threadsafe(self._call(srv, tool, arguments, on_progress), self._loop)
        report: CallReport | None = None
        waited = 0.0  # time the call itself has taken: (re)connecting is bounded by connect_timeout
        while report is None:
            try:
                report = future.result(timeout=WAIT_SLICE)
            except TimeoutError:
                if srv.state != "connecting" and not srv.asking():
                    waited += WAIT_SLICE  # the user's time to answer the server is not the call's
                if interrupt is not None and interrupt.is_set():
                    future.cancel()
                    report = CallReport(
                        "cancelled", f"[MCP call {server}/{tool} cancelled by user interrupt]"
                    )
                elif waited > limit:
                    future.cancel()
                    report = CallReport(
                        "timeout",
                        f"the MCP server '{server}' did not answer {tool} within {limit:g} s (its "
                        "`timeout`); the call was cancelled. Do not retry it at once.",
                    )
            except Exception as exc:  # a bug on our side: still a result, never a broken turn
                log.exception("mcp: call %s/%s failed", server, tool)
                report = CallReport("error", f"the MCP call failed: {_describe(exc)}")
        report = replace(report, duration=time.monotonic() - started)
        self._note_call(srv, tool, report)
        return report

    def caller(self) -> Callable[[str, str, dict[str, Any], ToolContext], CallReport]:
        """What the registered tools call: the server, tool and arguments, with the call's context."""

        def call(server: str, tool: str, arguments: dict[str, Any], ctx: ToolContext) -> CallReport:
            return self.call(
                server, tool, arguments, interrupt=ctx.interrupt, on_progress=ctx.emit_progress, context=ctx
            )

        return call

    def close(self, timeout: float = CLOSE_TIMEOUT) -> None:
        """Stop every server (their tools are withdrawn) and the loop thread. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None:
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(self._stop_all(), loop).result(timeout)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout)
        for srv in list(self._servers.values()):
            self.catalog.unregister(f"mcp-{srv.spec.name}")
        self._kill_leftovers()

    # ------------------------------------------------------------------------------------------ the loop

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            ready = threading.Event()

            def run() -> None:
                asyncio.set_event_loop(loop)
                loop.call_soon(ready.set)
                loop.run_forever()
                with contextlib.suppress(Exception):
                    loop.run_until_complete(loop.shutdown_asyncgens())
                loop.close()

            self._thread = threading.Thread(target=run, name="mcp-loop", daemon=True)
            self._thread.start()
            ready.wait(5.0)
            self._loop = loop
        return self._loop

    async def _apply(self, specs: list[ServerSpec], force: bool) -> None:
        wanted = {s.name: s for s in specs}
        for name, srv in list(self._servers.items()):
            if name not in wanted or force or srv.spec != wanted[name]:
                await self._stop(srv)
                with self._lock:
                    self._servers.pop(name, None)
        order: dict[str, _Server] = {}
        for spec in specs:
            server = self._servers.get(spec.name)
            if server is None:
                server = _Server(spec, state="connecting" if spec.enabled else "disabled")
                if spec.enabled:
                    self._launch(server)
            order[spec.name] = server
        with self._lock:
            self._servers = order
        for srv in order.values():
            self._changed(srv)
        self._notify_problems()

    def _launch(self, srv: _Server) -> None:
        srv.ready = asyncio.Event()
        srv.stop = asyncio.Event()
        srv.gone = asyncio.Event()
        srv.ended = asyncio.Event()
        srv.noise = NoiseCount()
        srv.state, srv.error = "connecting", ""
        srv.task = asyncio.get_running_loop().create_task(self._lifetime(srv), name=f"mcp-{srv.spec.name}")

    async def _stop(self, srv: _Server) -> None:
        srv.stop.set()
        if srv.task is not None and not srv.task.done():
            try:
                await asyncio.wait_for(asyncio.shield(srv.task), CLOSE_TIMEOUT)
            except (TimeoutError, asyncio.CancelledError):
                srv.task.cancel()
        self.catalog.unregister(f"mcp-{srv.spec.name}")
        srv.state = "stopped"

    async def _stop_all(self) -> None:
        await asyncio.gather(*(self._stop(s) for s in list(self._servers.values())), return_exceptions=True)

    # ------------------------------------------------------------------------------------------ a connection

    def _client(self, srv: _Server, stack: contextlib.AsyncExitStack, gate: Gate | None) -> Any:
        """The SDK client for `srv` (imported here, on the loop thread: the SDK takes seconds to load).

        It introduces itself as hermes-tui and starts with `initialize` (the spec's order: servers on older
        SDKs answer a `server/discover` probe with an error); what its transport reads that is not
        JSON-RPC is skipped (`agent.mcp.noise`)."""
        from mcp import Client
        from mcp.types import Implementation

        info = Implementation(name=CLIENT_NAME, version=client_version())
        transport = filtered(
            self._transport(srv.spec, stack, gate),
            srv.spec.name,
            srv.noise,
            srv.ended.set,
            on_message=self._on_message(srv),
        )
        return Client(transport, mode="legacy", client_info=info, **self._server_requests(srv))

    def _server_requests(self, srv: _Server) -> dict[str, Any]:
        """The callbacks for what the server may ask of us, each advertised only when enabled (the SDK
        declares a capability exactly when its callback is given): sampling, with tool use as Hermes
        declares it, and elicitation (form mode; URL mode is declined)."""
        from mcp.types import SamplingCapability, SamplingToolsCapability

        out: dict[str, Any] = {}
        if srv.sampling is not None:
            out["sampling_callback"] = srv.sampling
            out["sampling_capabilities"] = SamplingCapability(tools=SamplingToolsCapability())
        if srv.elicitation is not None:
            out["elicitation_callback"] = srv.elicitation
        return out

    def _on_message(self, srv: _Server) -> Callable[[Any], None]:
        """The server's notifications, seen in the order they arrive (`agent.mcp.noise.filtered`):
        `tools/list_changed` lists its tools again (the next request and `/mcp` see the new list),
        `prompts/list_changed` and `resources/list_changed` its prompts or resources (`/mcp` shows them).
        Listed in a task of its own (the listing is a request on the same connection), started before the
        session reads the next message: a call whose server changed its tools while serving it waits for
        that listing before it returns (`_relisted`)."""

        def seen(item: Any) -> None:
            message = getattr(item, "message", item)  # the SDK's SessionMessage
            root = getattr(message, "root", None)
            method = getattr(message, "method", None) or getattr(root, "method", None)
            kind = _LIST_CHANGED.get(method if isinstance(method, str) else "")
            if kind is not None:
                task = asyncio.get_running_loop().create_task(self._relist(srv, kind))
                srv.relists.add(task)  # held until done: the loop keeps only a weak reference
                task.add_done_callback(srv.relists.discard)

        return seen

    async def _relisted(self, srv: _Server) -> None:
        """Wait (at most `RELIST_PATIENCE`) for the listings the server's `list_changed` notifications asked
        for: a tool a call added is offered by the request that follows the call."""
        pending = [task for task in srv.relists if not task.done()]
        if pending:
            await asyncio.wait(pending, timeout=RELIST_PATIENCE)

    async def _relist(self, srv: _Server, kind: ListKind = "tools") -> None:
        client = srv.client
        if client is None or srv.state != "connected":
            return
        try:
            if kind == "tools":
                listed = await self._list_tools(client)
            else:
                names = await _list_names(client, kind)
        except Exception as exc:  # the old list stays; the next change tries again
            log.warning(
                "mcp: server '%s' changed its %s but could not list them: %s", srv.spec.name, kind, exc
            )
            return
        if srv.client is not client or srv.state != "connected":
            return
        if kind == "tools":
            self._register(srv, listed)
        elif kind == "prompts":
            srv.prompts = names
        else:
            srv.resources = names
        self._changed(srv)

    def _transport(self, spec: ServerSpec, stack: contextlib.AsyncExitStack, gate: Gate | None) -> Any:
        if spec.command:
            from mcp import StdioServerParameters
            from mcp.client.stdio import get_default_environment, stdio_client

            self.log_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            # Its stderr goes to the log through the redactor (a server may print its `env` or a header).
            errlog = stack.enter_context(RedactedStderrLog(self.log_dir / f"mcp-{spec.name}.log"))
            # What the SDK would give it, with the app's mark: the reaper stops a server (or its gate) a
            # kill -9 caught before its group was registered, and what it started in a session of its own.
            env = SUPERVISOR.marked_env(get_default_environment() | dict(spec.env))
            command, args = spec.command, list(spec.args)
            if gate is not None:  # the gate becomes `command args` once the manager has adopted it
                command, *args = gate.argv(command, args, env)
            params = StdioServerParameters(
                command=command,
                args=args,
                env=env,
                cwd=spec.cwd,
                encoding_error_handler=STDIO_DECODING,
            )
            quiet_sdk_parse_errors()
            return stdio_client(params, errlog=errlog)
        import httpx2

        # The process's one TLS context (`agent.core.tls`): httpx would read the CA bundle again for each
        # client, ~30 ms of CPU per HTTP server, per app and session, also for a plain-HTTP loopback URL.
        verify = shared_ssl_context(httpx2)
        if spec.transport == "sse":
            from mcp.client.sse import sse_client

            def sse_http_client(
                headers: dict[str, str] | None = None,
                timeout: httpx2.Timeout | None = None,
                auth: httpx2.Auth | None = None,
            ) -> httpx2.AsyncClient:
                """The SDK's own client (`create_mcp_http_client`: its timeouts, redirects left off) on
                the shared context."""
                return httpx2.AsyncClient(headers=headers, timeout=timeout, auth=auth, verify=verify)

            return sse_client(
                spec.url or "",
                headers=dict(spec.headers),
                timeout=spec.connect_timeout,
                sse_read_timeout=max(spec.timeout, 300.0),
                httpx_client_factory=sse_http_client,
            )
        from mcp.client.streamable_http import streamable_http_client

        http = httpx2.AsyncClient(
            headers=dict(spec.headers),
            timeout=httpx2.Timeout(spec.connect_timeout, read=max(spec.timeout, 300.0)),
            verify=verify,
        )
        return streamable_http_client(spec.url or "", http_client=http)

    async def _lifetime(self, srv: _Server) -> None:
        """Connect, list, register, then hold the connection until asked to stop or it breaks."""
        spec = srv.spec
        connected = False
        try:
            import anyio

            _import_sdk()  # seconds on a first connect: not counted against the server's connect_timeout
            # The scope holds the exit stack, so the client's task groups are left before the scope is.
            with anyio.CancelScope(deadline=anyio.current_time() + spec.connect_timeout) as scope:
                async with contextlib.AsyncExitStack() as stack:
                    # A stdio server is under the supervisor before it runs: started through the gate,
                    # it becomes the server once `_admit` has adopted its group (without a gate: its
                    # group is looked for from its first moments).
                    gate = self._gate(stack) if spec.command else None
                    watch = None
                    if spec.command:
                        admission = self._admit(srv, gate) if gate else self._watch_groups(srv)
                        watch = asyncio.get_running_loop().create_task(admission)
                    try:
                        client = await stack.enter_async_context(self._client(srv, stack, gate))
                    except Exception as exc:
                        failure = gate.exec_error() if gate is not None else None
                        if failure is not None:  # the command could not be run: said as a spawn says it
                            raise failure from exc
                        raise
                    finally:
                        if watch is not None:
                            watch.cancel()
                    if spec.command and gate is None:
                        self._note_groups(srv)
                    listed = await self._list_tools(client)
                    scope.deadline = math.inf
                    connected = True
                    instructions = getattr(client, "instructions", None)
                    srv.instructions = instructions if isinstance(instructions, str) else ""
                    self._register(srv, listed)
                    srv.prompts = await _list_names(client, "prompts", quiet=True)
                    srv.resources = await _list_names(client, "resources", quiet=True)
                    srv.client, srv.state, srv.error = client, "connected", ""
                    srv.ready.set()
                    self._changed(srv)
                    await self._held(srv)
            if scope.cancelled_caught and not connected:
                srv.state = "failed"
                srv.error = (
                    f"no answer to the MCP handshake within {spec.connect_timeout:g} s (connect_timeout)"
                )
                if srv.noise.lines:
                    srv.error += f"; it wrote only output that is not JSON-RPC ({srv.noise.first})"
                else:
                    tail = self._stderr_tail(spec)
                    srv.error += f" (stderr: {tail})" if tail else ""
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            srv.error = _describe(exc)
            srv.state = "exited" if connected else "failed"
            tail = self._stderr_tail(spec) if not connected else ""
            if tail:
                srv.error = f"{srv.error} (stderr: {tail})"
        finally:
            srv.client = None
            ended = {g for g in srv.pgids if not SUPERVISOR.alive(g)}
            srv.pgids -= ended
            self._known_groups -= ended
            for pgid in ended:
                SUPERVISOR.release(pgid)
            if srv.state == "connected":
                srv.state = "stopped" if srv.stop.is_set() else "exited"
                if srv.state == "exited" and not srv.error:
                    srv.error = "the connection closed"
            if srv.state in ("exited", "failed"):
                srv.exits += 1
                srv.retry_at = time.monotonic() + restart_delay(srv.exits)
            srv.gone.set()
            srv.ready.set()
            self._changed(srv)

    def _gate(self, stack: contextlib.AsyncExitStack) -> Gate | None:
        """The gate a stdio server starts through (Linux), closed with the connection; None elsewhere, or
        when its socket cannot be made (the server then starts as it is, its group looked for)."""
        if not Gate.supported():
            return None
        try:
            return stack.enter_context(Gate())
        except OSError as exc:
            log.warning("mcp: starting a server without its gate: %s", exc)
            return None

    async def _admit(self, srv: _Server, gate: Gate) -> None:
        """The gate's group under the supervisor (so with the reaper), then the gate may become the server."""
        try:
            await gate.admit(lambda pgid: self._adopt(srv, {pgid}))
        except (OSError, ConnectionError) as exc:  # it is not let go: it exits, and the connect fails
            log.warning("mcp: server '%s' could not be admitted: %s", srv.spec.name, exc)

    def _adopt(self, srv: _Server, groups: set[int]) -> None:
        srv.pgids |= groups
        self._known_groups |= groups
        for pgid in groups:
            SUPERVISOR.adopt(pgid, f"MCP server '{srv.spec.name}'")

    def _note_groups(self, srv: _Server) -> None:
        """Without a gate: the process groups of `srv`'s stdio server, found among our children, put under
        the supervisor."""
        if not srv.spec.command:
            return
        self._adopt(srv, server_groups([srv.spec.command, *srv.spec.args], exclude=self._known_groups))

    async def _watch_groups(self, srv: _Server) -> None:
        """Without a gate, while the connection is being made: note the server's group as soon as it is
        started (a kill -9 of the app before that leaves it running)."""
        while not srv.pgids:
            self._note_groups(srv)
            await asyncio.sleep(GROUP_WATCH_INTERVAL)

    async def _held(self, srv: _Server) -> None:
        """Until asked to stop, or the server's output ends (it exited while idle: noticed now, so the next
        call starts it again instead of failing on a dead connection)."""
        stop = asyncio.ensure_future(srv.stop.wait())
        ended = asyncio.ensure_future(srv.ended.wait())
        try:
            await asyncio.wait({stop, ended}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (stop, ended):
                task.cancel()
        if srv.ended.is_set() and not srv.stop.is_set():
            srv.error = "the server exited (its output ended)"

    async def _list_tools(self, client: Any) -> list[McpToolInfo]:
        listed: list[McpToolInfo] = []
        cursor: str | None = None
        for _page in range(LIST_PAGES):
            page = await client.list_tools(cursor=cursor, cache_mode="refresh")  # never a stale cached list
            listed += [McpToolInfo.from_sdk(t) for t in page.tools]
            cursor = page.next_cursor
            if not cursor:
                break
        return listed

    def _register(self, srv: _Server, listed: list[McpToolInfo]) -> None:
        """Its tools as the toolset `mcp-<server>`, with the server's `instructions` for new sessions'
        prompts (`agent.prompts.sources.server_instructions_section` caps them)."""
        spec = srv.spec
        toolset = f"mcp-{spec.name}"

        def taken(name: str) -> bool:
            return any(
                name in (t.name for t in tools)
                for ts, tools in self.catalog.dynamic().items()
                if ts != toolset
            )

        tools, skipped = build_tools(spec, listed, self.caller(), taken)
        srv.tools = tuple(t.name for t in tools)
        srv.skipped = tuple(skipped)
        description = f"MCP server {spec.name} ({spec.target})"
        self.catalog.register(Toolset(toolset, description, instructions=srv.instructions), tools)

    def _stderr_tail(self, spec: ServerSpec) -> str:
        if not spec.command:
            return ""
        try:
            lines = (self.log_dir / f"mcp-{spec.name}.log").read_text(errors="replace").splitlines()
        except OSError:
            return ""
        tail = [line.strip() for line in lines[-20:] if line.strip()]
        return " ".join(tail[-1].split())[:200] if tail else ""

    async def _connected(self, srv: _Server) -> Any:
        """The live client, connecting again first when the server went away."""
        async with srv.lock:
            if srv.state == "disabled":
                raise _Unavailable(f"the MCP server '{srv.spec.name}' is disabled (enabled: false)")
            task = srv.task
            if task is not None and not task.done() and (srv.stop.is_set() or srv.gone.is_set()):
                # The old connection broke and is still closing: its client is dead, let it finish first.
                await asyncio.wait({task}, timeout=CLOSE_TIMEOUT)
                if not task.done():
                    task.cancel()
            if srv.task is None or srv.task.done():
                wait = srv.retry_at - time.monotonic()
                if wait > 0:
                    raise _Unavailable(
                        f"the MCP server '{srv.spec.name}' exited {srv.exits} times in a row ({srv.error}); "
                        f"it is started again in {math.ceil(wait)} s"
                    )
                self._launch(srv)
                self._changed(srv)
        await srv.ready.wait()
        if srv.client is None:
            raise _Unavailable(f"the MCP server '{srv.spec.name}' is not connected: {srv.error}")
        return srv.client

    async def _call(
        self, srv: _Server, tool: str, arguments: dict[str, Any], on_progress: Progress | None = None
    ) -> CallReport:
        name = srv.spec.name
        try:
            client = await self._connected(srv)
        except _Unavailable as exc:
            return CallReport("unavailable", str(exc))
        gone = srv.gone
        progress = _progress_callback(on_progress) if on_progress is not None else None
        call = asyncio.ensure_future(client.call_tool(tool, arguments, progress_callback=progress))
        watch = asyncio.ensure_future(gone.wait())
        try:
            await asyncio.wait({call, watch}, return_when=asyncio.FIRST_COMPLETED)
            if not call.done():
                raise ConnectionError("the connection closed")
            result = call.result()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if _connection_closed(exc) or isinstance(exc, ConnectionError) or gone.is_set():
                why = srv.error or _describe(exc)
                srv.state, srv.error = "exited", why
                srv.stop.set()  # the lifetime task ends and cleans up; the next call starts it again
                return CallReport(
                    "error",
                    f"the MCP server '{name}' closed the connection during {tool} (it may have crashed: "
                    f"{why}); it is started again on the next call",
                )
            await self._relisted(srv)
            return CallReport("error", f"the MCP call {name}/{tool} failed: {_describe(exc)}")
        finally:
            for task in (call, watch):
                if not task.done():
                    task.cancel()
        await self._relisted(srv)
        srv.exits = 0  # it answered: a later exit is restarted at once again
        outcome = render_result(result, self.media_dir, self.hermes_home)
        return CallReport("error" if outcome.is_error else "ok", outcome.text, images=outcome.images)

    # ------------------------------------------------------------------------------------------ status

    def _status_of(self, srv: _Server) -> ServerStatus:
        spec = srv.spec
        return ServerStatus(
            name=spec.name,
            state=srv.state,
            transport=spec.transport,
            target=spec.target,
            error=srv.error,
            tools=srv.tools,
            skipped=srv.skipped,
            prompts=srv.prompts,
            resources=srv.resources,
            approval=spec.approval or "by annotations",
            calls=srv.calls,
            last_call=srv.last_call,
            last_error=srv.last_error,
            last_error_at=srv.last_error_at,
            noise_lines=srv.noise.lines,
            noise_sample=srv.noise.first,
        )

    def _note_call(self, srv: _Server, tool: str, report: CallReport) -> None:
        detail = report.text.splitlines()[0][:200] if report.status != "ok" and report.text else ""
        srv.calls += 1
        srv.last_call = LastCall(tool, report.status, report.duration, time.time(), detail)
        self._changed(srv)

    def _changed(self, srv: _Server) -> None:
        if srv.error and srv.error != srv.last_error:
            srv.last_error, srv.last_error_at = srv.error, time.time()
        if self.on_change is not None:
            try:
                self.on_change(self._status_of(srv))
            except Exception:
                log.exception("mcp: on_change failed")

    def _notify_problems(self) -> None:
        if self.on_change is None:
            return
        for problem in list(self._problems.values()):
            with contextlib.suppress(Exception):
                self.on_change(ServerStatus(name=problem.name, state="invalid", error=problem.message))

    def _kill_leftovers(self) -> None:
        """At exit: any stdio server group still running is killed (the SDK's shutdown could not run)."""
        for pgid in list(self._known_groups):
            if SUPERVISOR.alive(pgid):  # (registered: not a group its number names since it ended)
                signal_group(pgid, signal.SIGKILL)
            SUPERVISOR.release(pgid)
        self._known_groups.clear()
