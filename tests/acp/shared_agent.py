"""One `hermes-tui acp` for a test module, as an editor runs one agent for many threads.

Each start of the agent costs over a second of CPU (the ACP SDK, the app and the `openai` SDK are imported
before its first turn), and most ACP tests need a session, not a process. The tests of a module that take
the `shared_agent` fixture (`conftest.py`) share one agent process per xdist worker (`conftest.py` puts them
in one `xdist_group`): one HERMES_HOME, one scripted server, one SDK connection. Each test

- plays its own scenario: `play(scenario, client)` loads it into the server with the requests cleared, so
  `server.requests` are the test's own;
- opens its own sessions (`session/new` in its own cwd, its `tmp_path`) and reads only what is theirs:
  their updates and permissions in its own `Recorder`, their rows (`stored_sessions(home, cwd=...)`);
- has its sessions closed when it ends (`session/close`: a turn stopped, their MCP servers ended, the
  store's claims released). The connection's client half (`Switchboard`) gives every callback to the
  recorder of the test that runs; one about a session of a test that ended goes to nobody (a permission
  is answered `cancelled`, a form declined).

A test whose point is the process itself (a session loaded in a new process, the end of stdin, arguments,
its own config, the exit code or stderr) starts its own with `running_agent`.

When the agent dies, the request or wait of the test that runs fails at once saying so (the exit code, the
end of stderr) instead of at its deadline, and the next test starts a fresh agent.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from acp.core import ClientSideConnection
from acp.schema import (
    DeclineElicitationResponse,
    DeniedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from scripted import ScriptedServer
from tests.acp.agent_process import AgentProcess
from tests.acp.harness import Recorder, running_agent, write_home
from tests.waiting import TIMEOUT

T = TypeVar("T")

STDERR_TAIL = 2000
"""How much of the dead agent's stderr its failure shows (characters, from the end)."""

_OPENED = ("new_session", "fork_session")
"""Requests whose answer names a session the test opened."""
_REOPENED = ("load_session", "resume_session")
"""Requests that open the session they name."""


class Switchboard:
    """The shared connection's client half: each callback goes to the recorder of the test that runs,
    unless it is about a session of a test that ended."""

    def __init__(self) -> None:
        self.current = Recorder()
        self.ended: set[str] = set()

    def on_connect(self, conn: Any) -> None:
        pass

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if session_id not in self.ended:
            await self.current.session_update(session_id, update, **kwargs)

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse:
        if session_id in self.ended:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return await self.current.request_permission(session_id, tool_call, options, **kwargs)

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        if getattr(mode, "session_id", None) in self.ended:
            return DeclineElicitationResponse(action="decline")
        return await self.current.create_elicitation(message, mode, **kwargs)


class SharedAgent:
    """The module's agent, its home and its scripted server; `begin`/`end` around each test."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.server = ScriptedServer()
        self.home = root / "home"
        self.board = Switchboard()
        self._conn: ClientSideConnection | None = None
        self._proc: AgentProcess | None = None
        self._stack: contextlib.AsyncExitStack | None = None
        self._opened: list[str] = []
        self._test = ""
        self._death_said = False

    async def __aenter__(self) -> SharedAgent:
        self.server.start()
        write_home(self.root, self.server)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        try:
            await self._stop()
        finally:
            self.server.stop()

    # -- around each test ------------------------------------------------------------------------------

    async def begin(self, test: str) -> None:
        """A test starts: the agent running (a fresh one if the last died), nothing of the last test's."""
        self._test = test
        self._opened = []
        self._death_said = False
        self.board.current = Recorder()
        if self._proc is None or self._ended():
            await self._stop()
            self.board = Switchboard()
            self._stack = contextlib.AsyncExitStack()
            conn, proc, _client = await self._stack.enter_async_context(
                running_agent(self.home, self.root, cast(Recorder, self.board))
            )
            self._conn, self._proc = conn, proc

    async def end(self) -> None:
        """The test's sessions closed and ended (nothing of theirs reaches the next test). An agent that
        died unseen by the test (no request or wait of it failed) fails it here."""
        opened, self._opened = self._opened, []
        self.board.ended.update(opened)
        if self._ended():
            if self._death_said:
                return
            await self._reaped()
            raise AssertionError(self.gone())
        for session_id in dict.fromkeys(opened):
            await self.guard(self._connection().close_session(session_id=session_id), "session/close")

    def play(
        self, scenario: dict[str, Any], client: Recorder | None = None
    ) -> tuple[ClientSideConnection, Recorder]:
        """Serve `scenario` from its first call (the requests so far forgotten) and answer the agent with
        `client`: the test's connection (every request fails at once if the agent dies) and recorder."""
        self.server.load(scenario, clear_requests=True)
        recorder = client or Recorder()
        recorder.gone = self.gone
        self.board.current = recorder
        return cast(ClientSideConnection, _Guarded(self)), recorder

    # -- the agent's death -----------------------------------------------------------------------------

    def gone(self) -> str | None:
        """None while the agent runs; else what the failing test says."""
        proc = self._proc
        if proc is None or not self._ended():
            return None
        self._death_said = True
        try:
            stderr = (self.home / "stderr.txt").read_text(errors="replace")
        except OSError as exc:
            stderr = f"(unreadable: {exc})"
        if proc.returncode is None:
            ended = "closed its stdout but has not exited"
        else:
            ended = f"exited with {proc.returncode}"
        return (
            f"the module's shared hermes-tui acp (pid {proc.pid}) {ended} during {self._test}; the end of "
            f"its stderr:\n{stderr[-STDERR_TAIL:]}"
        )

    async def guard(self, request: Awaitable[T], what: str) -> T:
        """`request`'s answer, or AssertionError saying the agent died if it ends first."""
        proc = self._proc
        assert proc is not None, "the shared agent was never started (begin)"
        answer = asyncio.ensure_future(request)
        exited = asyncio.ensure_future(proc.wait())
        try:
            await asyncio.wait({answer, exited}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            answer.cancel()
            raise
        finally:
            exited.cancel()
        if not answer.done():
            answer.cancel()
            raise AssertionError(f"{what} unanswered: {self.gone()}")
        try:
            return answer.result()
        except ConnectionError as exc:  # the SDK's "Connection closed": the agent's stdout ended
            await self._reaped()
            raise AssertionError(f"{what} failed: {self.gone() or exc}") from exc

    # -- internals -------------------------------------------------------------------------------------

    def _ended(self) -> bool:
        """The agent exited, or its stdout ended (before its exit is seen): it answers nothing more."""
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        return proc.returncode is not None or proc.stdout.at_eof()

    async def _reaped(self) -> None:
        """Its exit code, once its stdout ended (bounded: a process that lingers is said as such)."""
        assert self._proc is not None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._proc.wait(), TIMEOUT)

    def _connection(self) -> ClientSideConnection:
        assert self._conn is not None, "the shared agent was never started (begin)"
        return self._conn

    def _opened_by(self, method: str, kwargs: dict[str, Any], answer: Any) -> None:
        if method in _OPENED:
            self._opened.append(answer.session_id)
        elif method in _REOPENED:
            self._opened.append(kwargs["session_id"])

    async def _stop(self) -> None:
        """Stdin closed: the agent ends by itself (as in `running_agent`)."""
        stack, self._stack = self._stack, None
        self._conn = self._proc = None
        if stack is not None:
            await stack.aclose()


class _Guarded:
    """The SDK's connection as a test uses it: each request raced against the agent's end, and the
    sessions it opens noted (closed when the test ends)."""

    def __init__(self, agent: SharedAgent) -> None:
        self._agent = agent

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._agent._connection(), name)
        if not callable(method):
            return method

        async def guarded(*args: Any, **kwargs: Any) -> Any:
            answer = await self._agent.guard(
                cast(Callable[..., Awaitable[Any]], method)(*args, **kwargs), name
            )
            self._agent._opened_by(name, kwargs, answer)
            return answer

        return guarded
