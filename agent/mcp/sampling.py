"""MCP sampling (`sampling/createMessage`): a server asks the client's model for a completion, as Hermes'
`SamplingHandler` answers it.

The request is run through the session's own model (its settings and `make_transport`, on a transport of
its own: `agent.transports.base.complete_once`), never a client of its own; `sampling.model` names another
model of the same provider. Hermes' limits apply per server: `max_rpm` requests a minute (a sliding
window), `max_tokens` cut to `max_tokens_cap`, the call bounded by `timeout`, `allowed_models`, and at most
`max_tool_rounds` tool-use replies in a row when the server offers tools.

Who may allow it: the server is sampling inside one of its tool calls, so it asks the user of that call (its
`ToolContext`) through the approval gate, as a risky command does ("this session" allows the server's
sampling for the session, "always" saves the rule `mcp_<server>_sampling`); the server's `approval: never`
skips the question. With nobody to ask (`hermes-tui -z`), Hermes' default holds: the request runs, within
the limits above, and the trace says so; unless the server has `approval: always`, which goes to the gate
there too (denied unless `--yolo`, like a risky command). A refusal, a limit or a
failure is an error answer to the server (its tool sees it), never an exception on the loop.

The SDK's types are imported when a request comes (the SDK is loaded by then); the rest is plain data.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent.core.events import StatusNotice
from agent.mcp.elicitation import OpenQuestions
from agent.mcp.tools import normalize_schema, sanitize

if TYPE_CHECKING:
    from agent.mcp.config import SamplingSpec
    from agent.toolkit.registry import ToolContext

__all__ = ["SamplingHandler", "convert_messages", "sampling_tool_name"]

log = logging.getLogger(__name__)

WINDOW = 60.0
"""The rate limit's window in seconds (`max_rpm` requests in any minute)."""
SHOWN_CHARS = 400
"""How much of the conversation the approval question quotes."""

_STOP_REASONS = {
    "stop": "endTurn",
    "end_turn": "endTurn",
    "length": "maxTokens",
    "max_tokens": "maxTokens",
    "tool_calls": "toolUse",
    "tool_use": "toolUse",
    "stop_sequence": "stopSequence",
}
_LOG_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING}


def sampling_tool_name(server: str) -> str:
    """What the approval gate asks about (and an allow or deny rule names): `mcp_<server>_sampling`."""
    return f"mcp_{sanitize(server)}_sampling"


class SamplingRefused(Exception):
    """The request is not run; the message is what the server is told."""


def _blocks(message: Any) -> list[Any]:
    content = getattr(message, "content", None)
    if isinstance(content, list):
        return content
    return [] if content is None else [content]


def _result_text(block: Any) -> str:
    items = getattr(block, "content", None) or []
    return "\n".join(str(getattr(item, "text", "")) for item in items if getattr(item, "text", None))


def convert_messages(
    params: Any, save_image: Callable[[str, str], dict[str, Any] | None]
) -> list[dict[str, Any]]:
    """The server's `SamplingMessage`s as the loop's wire messages (chat-completions shaped): text as
    content, tool use as an assistant's `tool_calls`, tool results as `tool` messages, images as stored
    images (`save_image(base64, mime)` -> the `ImageRef` meta, or None when it cannot be stored) that the
    vision route and each transport then send in their own form. Audio is named, not sent (no transport
    takes it)."""
    out: list[dict[str, Any]] = []
    system = getattr(params, "system_prompt", None)
    if system:
        out.append({"role": "system", "content": str(system)})
    for message in getattr(params, "messages", None) or []:
        role = str(getattr(message, "role", "user"))
        texts: list[str] = []
        images: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        for block in _blocks(message):
            kind = getattr(block, "type", "")
            if kind == "text":
                texts.append(str(block.text))
            elif kind == "image":
                ref = save_image(str(block.data), str(getattr(block, "mime_type", "") or "image/png"))
                if ref is None:
                    texts.append("[an image that could not be read]")
                else:
                    images.append(ref)
            elif kind == "tool_use":
                arguments = block.input if isinstance(block.input, dict) else {"_raw": str(block.input)}
                calls.append(
                    {
                        "id": str(block.id),
                        "type": "function",
                        "function": {"name": str(block.name), "arguments": json.dumps(arguments)},
                    }
                )
            elif kind == "tool_result":
                out.append(
                    {"role": "tool", "tool_call_id": str(block.tool_use_id), "content": _result_text(block)}
                )
            else:
                texts.append(f"[{kind or 'content'} the client cannot send to the model]")
        if not (texts or images or calls):
            continue
        wire: dict[str, Any] = {"role": role, "content": "\n".join(texts)}
        if calls:
            wire["tool_calls"] = calls
        if images:
            wire["images"] = images
        out.append(wire)
    return out


def _tools(params: Any) -> list[dict[str, Any]]:
    """The server's tools for this request as chat-completions function specs ([] with `toolChoice: none`)."""
    choice = getattr(getattr(params, "tool_choice", None), "mode", None)
    if choice == "none":
        return []
    return [
        {
            "type": "function",
            "function": {
                "name": str(tool.name),
                "description": str(getattr(tool, "description", "") or ""),
                "parameters": normalize_schema(getattr(tool, "input_schema", None)),
            },
        }
        for tool in getattr(params, "tools", None) or []
    ]


def _shown(messages: list[dict[str, Any]]) -> str:
    """The conversation as the approval question quotes it: `role: text`, cut at `SHOWN_CHARS`."""
    text = " | ".join(f"{m['role']}: {' '.join(str(m.get('content') or '').split())}" for m in messages)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


@dataclass(eq=False)
class SamplingHandler:
    """One server's sampling: its limits' state (the rate window, the tool rounds) and the answer to each
    request. `context()` is the tool call the server is serving (None outside a call)."""

    server: str
    spec: SamplingSpec
    context: Callable[[], ToolContext | None]
    approval: str | None = None  # the server's `approval:` (never | always | None: ask)
    clock: Callable[[], float] = time.monotonic
    _stamps: list[float] = field(default_factory=list)
    _rounds: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    asking: OpenQuestions = field(default_factory=OpenQuestions)
    metrics: dict[str, int] = field(
        default_factory=lambda: {"requests": 0, "errors": 0, "tokens_used": 0, "tool_use_count": 0}
    )

    async def __call__(self, context: Any, params: Any) -> Any:
        """The SDK's `SamplingFnT`: run off the loop (the model call and the question block)."""
        return await asyncio.to_thread(self.answer, params)

    def answer(self, params: Any) -> Any:
        """A `CreateMessageResult` (or `...WithTools`), or `ErrorData` saying why not."""
        from mcp.types import INVALID_REQUEST, ErrorData

        try:
            return self._answer(params)
        except SamplingRefused as exc:
            self.metrics["errors"] += 1
            log.warning("mcp: sampling for '%s' refused: %s", self.server, exc)
            return ErrorData(code=INVALID_REQUEST, message=str(exc))

    # ------------------------------------------------------------------------------------------ steps

    def allow_rate(self) -> bool:
        """Hermes' sliding window: True (and counted) when fewer than `max_rpm` requests were let through
        in the last minute."""
        with self._lock:
            now = self.clock()
            self._stamps[:] = [t for t in self._stamps if t > now - WINDOW]
            if len(self._stamps) >= self.spec.max_rpm:
                return False
            self._stamps.append(now)
            return True

    def _answer(self, params: Any) -> Any:
        ctx = self.context()
        if ctx is None or ctx.settings is None or ctx.make_transport is None:
            raise SamplingRefused(
                f"sampling for MCP server '{self.server}' is only possible during one of its tool calls"
            )
        if not self.allow_rate():
            raise SamplingRefused(
                f"Sampling rate limit exceeded for server '{self.server}' "
                f"({self.spec.max_rpm} requests/minute)"
            )
        settings = ctx.settings
        model = self.spec.model or settings.model
        if self.spec.allowed_models and model not in self.spec.allowed_models:
            raise SamplingRefused(
                f"Model '{model}' not allowed for server '{self.server}'. "
                f"Allowed: {', '.join(self.spec.allowed_models)}"
            )
        if model != settings.model:
            settings = settings.model_copy(update={"model": model})
        from agent.images.routing import prepare_images

        # the vision route, as for the conversation's own images: pixels for a model that sees them
        messages = prepare_images(
            convert_messages(params, self._image_saver(ctx)), settings, vision_tool=False
        )
        tools = _tools(params)
        max_tokens = min(int(params.max_tokens), self.spec.max_tokens_cap)
        self._approve(ctx, messages, model, max_tokens)
        log.log(
            _LOG_LEVELS.get(self.spec.log_level.lower(), logging.INFO),
            "mcp: server '%s' sampling request: model=%s, max_tokens=%d, messages=%d",
            self.server,
            model,
            max_tokens,
            len(messages),
        )
        response = self._complete(ctx, settings, messages, tools, max_tokens)
        self.metrics["requests"] += 1
        usage = response.usage
        tokens = usage.total_tokens if usage is not None else 0
        self.metrics["tokens_used"] += tokens
        self._notice(
            ctx, f"MCP server '{self.server}' sampled {model}" + (f" ({tokens} tokens)" if tokens else "")
        )
        if response.tool_calls and tools:
            return self._tool_use(response, model)
        return self._text(response, model)

    def _image_saver(self, ctx: ToolContext) -> Callable[[str, str], dict[str, Any] | None]:
        def save(data_b64: str, mime: str) -> dict[str, Any] | None:
            from agent.images.store import ImageError, decode_base64, save_image

            try:
                ref = save_image(decode_base64(data_b64, "the image"), ctx.hermes_home, name="mcp-sampling")
            except (ImageError, OSError):
                return None
            return ref.to_meta()

        return save

    def _approve(self, ctx: ToolContext, messages: list[dict[str, Any]], model: str, max_tokens: int) -> None:
        """Raises SamplingRefused unless the user (or, with nobody to ask, Hermes' default) allows it."""
        if self.approval == "never" or ctx.approvals is None:
            return
        if not getattr(ctx.ui, "interactive", True) and self.approval != "always":
            return  # Hermes' default with nobody to ask: sampling runs; the notice after the call shows it
        shown = json.dumps(
            {"model": model, "max_tokens": max_tokens, "conversation": _shown(messages)}, ensure_ascii=False
        )
        with self.asking.held():
            verdict = ctx.approvals.review_tool_call(
                sampling_tool_name(self.server),
                shown,
                f"the MCP server '{self.server}' asks the model for a completion (sampling)",
                subject="MCP sampling request",
            )
        if not verdict.allowed:
            raise SamplingRefused(
                f"the user did not allow sampling for MCP server '{self.server}' ({verdict.decision.value})"
            )

    def _complete(
        self,
        ctx: ToolContext,
        settings: Any,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        max_tokens: int,
    ) -> Any:
        from agent.core.errors import InterruptedByUser, classify
        from agent.transports.base import ModelRequest, SideCallTimeout, complete_once

        make = ctx.make_transport
        assert make is not None  # checked by the caller
        request = ModelRequest(messages=messages, tools=tools, max_tokens=max_tokens)
        try:
            return complete_once(
                lambda: make(settings), request, timeout=self.spec.timeout, interrupt=ctx.interrupt
            )
        except SideCallTimeout:
            raise SamplingRefused(
                f"Sampling LLM call timed out after {self.spec.timeout:g}s for server '{self.server}'"
            ) from None
        except InterruptedByUser:
            raise SamplingRefused("Sampling LLM call cancelled: the user interrupted the turn") from None
        except Exception as exc:
            line = classify(
                exc, provider=settings.provider, model=settings.model, base_url=settings.base_url or ""
            )
            raise SamplingRefused(f"Sampling LLM call failed: {line.user_line()}") from None

    def _notice(self, ctx: ToolContext, text: str) -> None:
        try:
            ctx.ui.on_event(StatusNotice(kind="info", text=text))
        except Exception:
            log.exception("mcp: could not show the sampling notice")

    def _text(self, response: Any, model: str) -> Any:
        from mcp.types import CreateMessageResult, TextContent

        with self._lock:
            self._rounds = 0
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=response.text or ""),
            model=model,
            stop_reason=_STOP_REASONS.get(response.finish_reason or "", "endTurn"),
        )

    def _tool_use(self, response: Any, model: str) -> Any:
        from mcp.types import CreateMessageResultWithTools, ToolUseContent

        self.metrics["tool_use_count"] += 1
        with self._lock:
            if self.spec.max_tool_rounds == 0:
                self._rounds = 0
                raise SamplingRefused(f"Tool loops disabled for server '{self.server}' (max_tool_rounds=0)")
            self._rounds += 1
            if self._rounds > self.spec.max_tool_rounds:
                self._rounds = 0
                raise SamplingRefused(
                    f"Tool loop limit exceeded for server '{self.server}' "
                    f"(max {self.spec.max_tool_rounds} rounds)"
                )
        blocks = []
        for call in response.tool_calls:
            try:
                parsed = json.loads(call.arguments or "{}")
            except ValueError:
                parsed = {"_raw": call.arguments}
            blocks.append(
                ToolUseContent(
                    type="tool_use",
                    id=call.id,
                    name=call.name,
                    input=parsed if isinstance(parsed, dict) else {"_raw": parsed},
                )
            )
        return CreateMessageResultWithTools(
            role="assistant", content=blocks, model=model, stop_reason="toolUse"
        )
