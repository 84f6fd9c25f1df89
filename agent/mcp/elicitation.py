"""MCP elicitation (`elicitation/create`): a server asks the user for input in the middle of a tool call.

Hermes routes a form request through its approval prompt and answers `accept` with empty content; here the
server's message and its requested schema (a flat object: strings, numbers, integers, booleans, enums and
multi-select enums, as the spec allows) become questions on the clarify card, one a field, and the answers
are returned as `accept` with content checked against the schema (types, enums, bounds, lengths, required
fields). An answer that does not fit is asked again with the reason, at most `ATTEMPTS` times. Every
question offers "Decline" (the user refuses: `decline`); an optional field offers "Skip"; a field with
nothing to pick opens on the card's text input (those two are one Esc away). Escape, an
interrupt or the timeout (`elicitation.timeout`, Hermes' 300 s for the whole form) is `cancel`. With nobody
to ask (`hermes-tui -z`) the request is declined, as Hermes' prompt fails closed.

A URL-mode request (a sign-in or a payment the server wants done out of band, never through the model) is
a card showing the whole address and the server's reason: "I'll open it" is `accept` (the user consents to
go there; nothing is opened for them, as the spec asks of a client that cannot show the page itself),
"Decline" is `decline`, Escape `cancel`. Only http and https addresses are offered; anything else is
declined with a notice. (Hermes declines every URL-mode request; the SDK declares URL mode whenever a
handler is given, so declining them all would offer servers' URL flows that always fail.)

The card is asked through the tool call's `AgentUI.ask_clarify` (the TUI shows it; this worker thread never
touches a widget).
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agent.core.events import StatusNotice
from agent.core.ui import ClarifyRequest

if TYPE_CHECKING:
    from agent.mcp.config import ElicitationSpec
    from agent.toolkit.registry import ToolContext

__all__ = [
    "DECLINE",
    "OPEN_URL",
    "SKIP",
    "ElicitationHandler",
    "FieldError",
    "OpenQuestions",
    "coerce",
    "fields_of",
]

log = logging.getLogger(__name__)

DECLINE = "Decline (tell the server no)"
SKIP = "Skip (leave it empty)"
OPEN_URL = "I'll open it"
ATTEMPTS = 3
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_TRUE = {"true", "yes", "y", "1", "on"}
_FALSE = {"false", "no", "n", "0", "off"}

Value = str | int | float | bool | list[str] | None


class FieldError(ValueError):
    """An answer that does not fit its field; the message is shown with the question asked again."""


class OpenQuestions:
    """How many of a server's questions wait for the user now: the manager does not count that time against
    the tool call's `timeout` (the user reading a form is not the server being slow)."""

    def __init__(self) -> None:
        self._open = 0
        self._lock = threading.Lock()

    @property
    def is_open(self) -> bool:
        return self._open > 0

    @contextmanager
    def held(self) -> Iterator[None]:
        with self._lock:
            self._open += 1
        try:
            yield
        finally:
            with self._lock:
                self._open -= 1


@dataclass(frozen=True)
class Field:
    """One property of the requested schema."""

    name: str
    schema: dict[str, Any]
    required: bool

    @property
    def kind(self) -> str:
        return str(self.schema.get("type") or "string")

    def label(self) -> str:
        title = str(self.schema.get("title") or self.name)
        bits = [self.kind if self.kind != "array" else "one or more, comma-separated"]
        low, high = self.schema.get("minimum"), self.schema.get("maximum")
        if low is not None or high is not None:
            bits.append(f"{'' if low is None else low} to {'' if high is None else high}".strip())
        if self.required:
            bits.append("required")
        if "default" in self.schema:
            bits.append(f"default: {self.schema['default']}")
        described = f": {self.schema['description']}" if self.schema.get("description") else ""
        return f"{title} ({', '.join(bits)}){described}"


def fields_of(schema: Any) -> list[Field]:
    """The flat schema's properties, in order (a non-object schema has none)."""
    if not isinstance(schema, dict):
        return []
    props = schema.get("properties")
    if not isinstance(props, dict):
        return []
    required = set(schema.get("required") or ())
    return [Field(str(k), v if isinstance(v, dict) else {}, str(k) in required) for k, v in props.items()]


def _options(schema: dict[str, Any]) -> list[str]:
    """An enum's values: `enum`, or the titled `oneOf`/`anyOf` of `const`s (also of an array's items)."""
    if isinstance(schema.get("enum"), list):
        return [str(v) for v in schema["enum"]]
    for key in ("oneOf", "anyOf"):
        if isinstance(schema.get(key), list):
            return [str(o.get("const")) for o in schema[key] if isinstance(o, dict) and "const" in o]
    items = schema.get("items")
    if schema.get("type") == "array" and isinstance(items, dict):
        return _options(items)
    return []


def _number(field: Field, text: str) -> int | float:
    try:
        value: int | float = int(text) if field.kind == "integer" else float(text)
    except ValueError:
        raise FieldError(
            f"'{text}' is not {'an integer' if field.kind == 'integer' else 'a number'}"
        ) from None
    low, high = field.schema.get("minimum"), field.schema.get("maximum")
    if isinstance(low, int | float) and value < low:
        raise FieldError(f"{value} is below the minimum {low}")
    if isinstance(high, int | float) and value > high:
        raise FieldError(f"{value} is above the maximum {high}")
    return value


def _string(field: Field, text: str) -> str:
    low, high = field.schema.get("minLength"), field.schema.get("maxLength")
    if isinstance(low, int) and len(text) < low:
        raise FieldError(f"at least {low} characters, please")
    if isinstance(high, int) and len(text) > high:
        raise FieldError(f"at most {high} characters, please")
    if field.schema.get("format") == "email" and not _EMAIL.match(text):
        raise FieldError(f"'{text}' is not an email address")
    return text


def coerce(field: Field, answer: str) -> Value:
    """The typed answer as the schema's value; FieldError with the reason when it does not fit."""
    text = answer.strip()
    options = _options(field.schema)
    if field.kind == "array":
        picked = [p.strip() for p in text.split(",") if p.strip()]
        wrong = [p for p in picked if options and p not in options]
        if wrong:
            raise FieldError(f"{', '.join(wrong)}: not among {', '.join(options)}")
        return picked
    if options and text not in options:
        raise FieldError(f"'{text}' is not one of {', '.join(options)}")
    if field.kind == "boolean":
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise FieldError(f"'{text}' is not yes or no")
    if field.kind in ("integer", "number"):
        return _number(field, text)
    return _string(field, text)


def _choices(field: Field) -> tuple[str, ...]:
    if field.kind == "boolean":
        picks = ["yes", "no"]
    else:
        picks = _options(field.schema)
        if not picks and "default" in field.schema:
            picks = [str(field.schema["default"])]
    return (*picks[:6], *(() if field.required else (SKIP,)), DECLINE)


@dataclass(eq=False)
class ElicitationHandler:
    """One server's elicitation. `context()` is the tool call the server is serving (None outside one)."""

    server: str
    spec: ElicitationSpec
    context: Callable[[], ToolContext | None]
    clock: Callable[[], float] = time.monotonic
    asking: OpenQuestions = dataclass_field(default_factory=OpenQuestions)

    async def __call__(self, context: Any, params: Any) -> Any:
        """The SDK's `ElicitationFnT`: the questions are asked off the loop (they block)."""
        from mcp.types import ElicitResult

        action, content = await asyncio.to_thread(self.ask, params)
        return ElicitResult(action=action, content=content if action == "accept" else None)

    def ask(self, params: Any) -> tuple[str, dict[str, Value] | None]:
        """("accept", content) | ("decline", None) | ("cancel", None)."""
        message = str(getattr(params, "message", "") or f"The MCP server '{self.server}' asks for input")
        ctx = self.context()
        if getattr(params, "mode", "form") == "url":
            return self._ask_url(ctx, message, str(getattr(params, "url", "") or ""))
        if ctx is None or not getattr(ctx.ui, "interactive", True):
            self._notice(
                ctx, f"MCP server '{self.server}' asked for input (declined: nobody to answer): {message}"
            )
            return "decline", None
        deadline = self.clock() + self.spec.timeout
        fields = fields_of(getattr(params, "requested_schema", None))
        head = f"MCP server '{self.server}' asks: {message}"
        if not fields:  # a confirmation: nothing to fill in
            answer = self._question(ctx, head, ("Accept", DECLINE), deadline)
            if answer is None:
                return "cancel", None
            return ("accept", {}) if answer == "Accept" else ("decline", None)
        content: dict[str, Value] = {}
        for field in fields:
            note = ""
            for _attempt in range(ATTEMPTS):
                answer = self._question(ctx, f"{head}\n{field.label()}{note}", _choices(field), deadline)
                if answer is None:
                    return "cancel", None
                if answer == DECLINE:
                    return "decline", None
                if answer == SKIP and not field.required:
                    break
                try:
                    content[field.name] = coerce(field, answer)
                    break
                except FieldError as exc:
                    note = f"\n(not accepted: {exc}; try again)"
            else:
                return "cancel", None
        return "accept", content

    def _ask_url(self, ctx: ToolContext | None, message: str, url: str) -> tuple[str, None]:
        """A URL-mode request: ("accept", None) when the user will open the page, else decline/cancel."""
        if urlsplit(url).scheme.lower() not in ("http", "https") or not urlsplit(url).netloc:
            self._notice(
                ctx, f"MCP server '{self.server}' asked to open a non-web address (declined): {url!r}"
            )
            return "decline", None
        if ctx is None or not getattr(ctx.ui, "interactive", True):
            self._notice(ctx, f"MCP server '{self.server}' asked to open {url} (declined: nobody to answer)")
            return "decline", None
        question = (
            f"MCP server '{self.server}' asks you to open this page in your browser "
            f"({urlsplit(url).hostname}):\n{url}\n{message}\n"
            "(hermes-tui does not open it: what you do there stays between you and that site)"
        )
        answer = self._question(ctx, question, (OPEN_URL, DECLINE), self.clock() + self.spec.timeout)
        if answer is None:
            return "cancel", None
        return ("accept", None) if answer == OPEN_URL else ("decline", None)

    def _question(
        self, ctx: ToolContext, question: str, choices: tuple[str, ...], deadline: float
    ) -> str | None:
        left = deadline - self.clock()
        if left <= 0:
            return None
        typed = not any(c not in (DECLINE, SKIP) for c in choices)  # nothing to pick: the answer is typed
        request = ClarifyRequest(
            question=question, choices=choices, timeout=left, cancel=ctx.interrupt, free_text_first=typed
        )
        try:
            with self.asking.held():
                return ctx.ui.ask_clarify(request)
        except Exception:
            log.exception("mcp: the UI could not ask the elicitation question")
            return None

    def _notice(self, ctx: ToolContext | None, text: str) -> None:
        log.info("mcp: %s", text)
        if ctx is None:
            return
        try:
            ctx.ui.on_event(StatusNotice(kind="info", text=text))
        except Exception:
            log.exception("mcp: could not show the elicitation notice")
