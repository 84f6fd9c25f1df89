"""One editor thread: an engine session (its own cwd, approvals, todos, MCP servers, cost), its turns, Esc.

A turn runs on the session's own thread (one at a time, like the TUI's worker), so two sessions prompted at
once run side by side and nothing of one is the other's: the engine's `Session` keeps its messages,
approval memory, todos and cost; the editor's MCP servers are connected into this session's
`LayeredCatalog` only. `cancel()` interrupts the engine (the stream is dropped, running tools killed, the
partial reply stored as partial) and answers the prompt `cancelled` within `CANCEL_PATIENCE`, whether or
not the engine has finished stopping: its late events are dropped (`SessionBridge.answered`) and the next
prompt waits on the same thread for it to end.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import concurrent.futures
import contextlib
import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

import acp
from acp.schema import (
    AudioContentBlock,
    CurrentModeUpdate,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    PromptResponse,
    ResourceContentBlock,
    SessionInfoUpdate,
    StopReason,
    TextContentBlock,
    TextResourceContents,
)
from acp.schema import Usage as AcpUsage

from agent.api import ImageError, attached_block, read_bounded_text, save_image, with_attached
from hermes_tui.acp import commands
from hermes_tui.acp.bridge import SessionBridge
from hermes_tui.acp.modes import current_mode

if TYPE_CHECKING:
    from acp.interfaces import Client

    from agent.api import Agent, ImageRef, McpManager, SessionStoreProtocol, TurnResult

log = logging.getLogger(__name__)

CANCEL_PATIENCE = 0.4
"""After `session/cancel`, how long the prompt waits for the engine to stop before answering `cancelled`
anyway (seconds): the protocol's Esc must feel instant (the acceptance says 0.5 s)."""
LINKED_FILE_BYTES = 256 * 1024
"""A `resource_link` to a local file is attached up to this size; a bigger one is named, not read."""

Block = (
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock
)

_STOP_REASONS: dict[str, StopReason] = {
    "completed": "end_turn",
    "interrupted": "cancelled",
    "budget_exhausted": "max_turn_requests",
    "truncated": "max_tokens",
    "thinking_exhausted": "max_tokens",
    "error:content_filter": "refusal",
}


def stop_reason(exit_reason: str) -> StopReason:
    """ACP's reason for a turn that ended so. A failure (its line already sent as text) ends the turn."""
    return _STOP_REASONS.get(exit_reason, "end_turn")


class AcpSession:
    """One ACP session: its engine session, the bridge its events cross, its turn thread."""

    def __init__(
        self,
        engine: Agent,
        bridge: SessionBridge,
        client: Client,
        store: SessionStoreProtocol,
        mcp: McpManager | None,
    ) -> None:
        self.engine = engine
        self.bridge = bridge
        self.client = client
        self.store = store
        self.mcp = mcp
        self.id = engine.session_id
        self.cwd = Path(engine.settings.cwd)
        self._thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix=f"acp-{self.id[-8:]}")
        self._turns = 0
        self._cancelled: asyncio.Event | None = None
        self._title: str | None = None
        self._pump = asyncio.get_running_loop().create_task(bridge.pump())

    # ------------------------------------------------------------------ the protocol's requests

    async def prompt(self, blocks: Sequence[Block]) -> PromptResponse:
        stop, usage = await self._prompt(blocks)
        await self._title_changed()
        return PromptResponse(stop_reason=stop, usage=usage)

    async def _prompt(self, blocks: Sequence[Block]) -> tuple[StopReason, AcpUsage | None]:
        text, images, problems = self._message(blocks)
        for problem in problems:
            await self._say(f"⚠ {problem}\n\n")
        command = commands.parse(text)
        if command is not None:
            return await self._command(*command), None
        if not text.strip() and not images:
            return "end_turn", None
        if not self.engine.settings.is_configured:
            await self._say(
                "No model provider is configured: set one in $HERMES_HOME/config.yaml (or OPENAI_API_KEY, "
                "ANTHROPIC_API_KEY, OPENROUTER_API_KEY) and restart the agent."
            )
            return "end_turn", None
        self._turns += 1
        turn = self._turns
        cancelled = self._cancelled = asyncio.Event()
        loop = asyncio.get_running_loop()
        run: asyncio.Future[Any] = loop.run_in_executor(self._thread, self._run_turn, turn, text, images)
        stopper: asyncio.Future[Any] = asyncio.ensure_future(cancelled.wait())
        try:
            await asyncio.wait([run, stopper], return_when=asyncio.FIRST_COMPLETED)
            if cancelled.is_set():
                self.engine.interrupt()
                with contextlib.suppress(Exception):  # still stopping (a timeout), or failed: both read below
                    await asyncio.wait_for(asyncio.shield(run), CANCEL_PATIENCE)
        finally:
            stopper.cancel()
            if self._cancelled is cancelled:
                self._cancelled = None
        if not run.done():  # still stopping: it ends on its thread, unseen
            self.bridge.answered = turn
            self.bridge.updates.finish()  # what its text held back is not the next turn's
            log.info("session %s: turn %d answered cancelled while it stops", self.id, turn)
            return "cancelled", None
        await self.bridge.flush()
        for update in self.bridge.updates.finish():
            await self._update(update)
        self.bridge.answered = turn
        try:
            result: TurnResult = run.result()
        except Exception:
            log.exception("session %s: the turn failed", self.id)
            raise
        return ("cancelled" if cancelled.is_set() else stop_reason(result.exit_reason)), _usage(result)

    async def _title_changed(self) -> None:
        """The thread's title, once the first message named the session (or `/title` renamed it)."""
        try:
            info = await asyncio.to_thread(self.store.get_session, self.id)
        except Exception:  # the store is the engine's to report; a title is a nicety
            return
        if info is not None and info.title and info.title != self._title:
            self._title = info.title
            updated = datetime.fromtimestamp(info.updated_at, UTC).isoformat()
            await self._update(
                SessionInfoUpdate(session_update="session_info_update", title=info.title, updated_at=updated)
            )

    def cancel(self) -> None:
        if self._cancelled is not None:
            self._cancelled.set()
        else:
            self.engine.interrupt()  # a slash command's model call (/compress) stops too

    async def close(self) -> None:
        """Stop the turn (if any), wait for it briefly, release the session and its MCP servers."""
        self.cancel()
        self.bridge.gone.set()
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, self._close_engine)
        self.bridge.stop()
        with contextlib.suppress(Exception):
            await self._pump
        self._thread.shutdown(wait=False)

    def _close_engine(self) -> None:
        self.engine.interrupt()
        self.engine.wait_idle(10.0)
        self.engine.close()
        if self.mcp is not None:
            self.mcp.close()

    # ------------------------------------------------------------------ internals

    def _run_turn(self, turn: int, text: str, images: list[ImageRef]) -> TurnResult:
        self.bridge.turn = turn
        return self.engine.run_conversation(text, images)

    async def _command(self, name: str, arg: str) -> StopReason:
        loop = asyncio.get_running_loop()
        try:
            reply = await loop.run_in_executor(self._thread, commands.run, self.engine, self.store, name, arg)
        except Exception as exc:  # a bad name for /model, a store that refuses: one line, the turn ends
            log.info("/%s failed: %s", name, exc)
            reply = f"/{name}: {exc}"
        await self._say(reply)
        if name in ("yolo", "mode"):
            await self._update(
                CurrentModeUpdate(
                    session_update="current_mode_update", current_mode_id=current_mode(self.engine)
                )
            )
        return "end_turn"

    async def _say(self, text: str) -> None:
        await self._update(acp.update_agent_message_text(text))

    async def _update(self, update: Any) -> None:
        if self.bridge.gone.is_set():
            return
        try:
            await self.client.session_update(self.id, update)
        except Exception as exc:
            log.info("update not sent: %s", exc)
            self.bridge.gone.set()

    def _message(self, blocks: Sequence[Block]) -> tuple[str, list[ImageRef], list[str]]:
        """The prompt as the engine's message: text joined, files attached as the TUI attaches `@file`,
        images stored. Problems (an image that cannot be read) are said, never fatal."""
        texts: list[str] = []
        attached: list[str] = []
        images: list[ImageRef] = []
        problems: list[str] = []
        home = self.engine.settings.hermes_home
        for block in blocks:
            if isinstance(block, TextContentBlock):
                texts.append(block.text)
            elif isinstance(block, ImageContentBlock):
                try:
                    images.append(save_image(base64.b64decode(block.data, validate=True), home))
                except (ImageError, binascii.Error, ValueError) as exc:
                    problems.append(f"an image was not attached: {exc}")
            elif isinstance(block, EmbeddedResourceContentBlock):
                resource = block.resource
                label = _label(resource.uri)
                if isinstance(resource, TextResourceContents):
                    attached.append(attached_block("file", label, resource.text))
                else:
                    problems.append(f"{label} was not attached: only text resources are read")
            elif isinstance(block, ResourceContentBlock):
                attached.append(self._linked(block.uri, block.name))
            else:
                problems.append("audio is not supported: not sent")
        return with_attached("".join(texts), attached), images, problems

    def _linked(self, uri: str, name: str) -> str:
        parsed = urlparse(uri)
        if parsed.scheme == "file":
            path = Path(unquote(parsed.path))
            try:
                return attached_block("file", str(path), read_bounded_text(path, limit=LINKED_FILE_BYTES))
            except (OSError, ValueError) as exc:
                return attached_block("link", name or uri, "", note=f"(not read: {exc})")
        return attached_block("link", name or uri, uri)


def _usage(result: TurnResult) -> AcpUsage | None:
    """The turn's tokens as ACP counts them (None when the turn made no call)."""
    usage = result.usage
    if not (usage.prompt_tokens or usage.completion_tokens):
        return None
    return AcpUsage(
        input_tokens=usage.prompt_tokens,
        output_tokens=usage.completion_tokens,
        total_tokens=usage.prompt_tokens + usage.completion_tokens,
        thought_tokens=usage.reasoning_tokens or None,
        cached_read_tokens=usage.cache_read_tokens or None,
        cached_write_tokens=usage.cache_write_tokens or None,
    )


def _label(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri
