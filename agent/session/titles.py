"""Session titles: a short model-written title for the first exchange, and a fallback without a model.

`generate_title` makes one tiny request (no tools, a few tokens) on a transport of its own and returns
`None` on any failure or after `timeout` seconds, so the caller can run it in a background thread after the
first reply and fall back to `fallback_title`. It never raises.

This module never imports textual.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent.store import TITLE_MAX_CHARS, sanitize_title

if TYPE_CHECKING:
    from agent.store import SessionStoreProtocol

__all__ = ["TITLE_PROMPT", "clean_title", "fallback_title", "generate_title", "retitle_in_background"]

TITLE_PROMPT = (
    "You write titles for conversations between a user and a coding assistant. Reply with a title of 3 to 7 "
    "words that says what the conversation is about. Plain text only: no quotes, no trailing punctuation, "
    "no 'Title:' prefix, nothing else."
)
EXCERPT_CHARS = 1500
MAX_TITLE_TOKENS = 32
MAX_TITLE_WORDS = 10

_THINK_RE = re.compile(r"<(think|thinking|reasoning)>.*?(</\1>|$)", re.DOTALL | re.IGNORECASE)
_PREFIX_RE = re.compile(r"^(?:session\s+)?title\s*[:\-–—]\s*", re.IGNORECASE)
_EDGE_CHARS = "\"'`“”‘’«»*_#>[]() \t"


def _excerpt(text: str) -> str:
    text = (text or "").strip()
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS] + " …"


def clean_title(raw: str) -> str | None:
    """Turn a model's answer into a title: drop thinking blocks, a `Title:` prefix, quotes and Markdown,
    keep the first non-empty line, strip trailing punctuation, cap the words and length. None if nothing
    usable is left."""
    text = _THINK_RE.sub("", raw or "")
    line = next((ln for ln in text.splitlines() if ln.strip(_EDGE_CHARS)), "")
    line = _PREFIX_RE.sub("", line.strip(_EDGE_CHARS)).strip(_EDGE_CHARS)
    line = line.rstrip(".!?;:,").strip(_EDGE_CHARS)
    words = line.split()
    if not words:
        return None
    if len(words) > MAX_TITLE_WORDS:
        words = words[:MAX_TITLE_WORDS]
    title = sanitize_title(" ".join(words))
    return title or None


def generate_title(
    transport_factory: Callable[[], Any],
    first_user: str,
    first_reply: str,
    timeout: float = 20,
    *,
    close: bool = True,
) -> str | None:
    """Ask the model for a 3–7 word title of the first exchange; None on any error or after `timeout` s.

    `transport_factory()` returns a transport (`agent.transports.base.Transport`); it is closed afterwards
    unless `close=False` (pass that when the factory hands out a shared transport). Blocking: call it from
    a background thread.
    """
    try:
        from agent.transports.base import ModelRequest, complete_once

        user = _excerpt(first_user)
        if not user:
            return None
        conversation = f"User:\n{user}\n\nAssistant:\n{_excerpt(first_reply) or '(no reply yet)'}"
        request = ModelRequest(
            messages=[
                {"role": "system", "content": TITLE_PROMPT},
                {"role": "user", "content": f"{conversation}\n\nTitle for this conversation:"},
            ],
            tools=[],
            max_tokens=MAX_TITLE_TOKENS,
        )
        factory = transport_factory if close else _unclosed(transport_factory)
        response = complete_once(factory, request, timeout=timeout)
        return clean_title(getattr(response, "text", "") or "")
    except Exception:  # a title is never worth an error: the caller falls back
        return None


class _Unclosed:
    """A shared transport lent to one call: `close()` leaves it open for its owner."""

    def __init__(self, transport: Any) -> None:
        self._transport = transport

    def stream(self, *args: Any, **kwargs: Any) -> Any:
        return self._transport.stream(*args, **kwargs)

    def close(self) -> None:
        pass


def _unclosed(factory: Callable[[], Any]) -> Callable[[], Any]:
    return lambda: _Unclosed(factory())


def fallback_title(first_user: str) -> str:
    """The first non-empty line of the user's first message, whitespace collapsed, at most 100 chars (cut
    at a word boundary with '…' when longer). '' when the message has no visible text."""
    line = next((ln for ln in (first_user or "").splitlines() if ln.strip()), "")
    collapsed = " ".join(line.split())
    if len(collapsed) <= TITLE_MAX_CHARS:
        return sanitize_title(collapsed)
    cut = collapsed[: TITLE_MAX_CHARS - 1]
    if " " in cut[TITLE_MAX_CHARS // 2 :]:
        cut = cut[: cut.rfind(" ")]
    return sanitize_title(cut.rstrip(" ,;:.-")) + "…"


def retitle_in_background(
    store: SessionStoreProtocol,
    session_id: str,
    make_transport: Callable[[], Any],
    first_user: str,
    first_reply: str,
) -> None:
    """A short model-made title replaces the first-message one, off the turn's critical path (a thread of
    its own); a title the user set meanwhile is kept."""
    info = store.get_session(session_id)
    provisional = (info.title or "") if info is not None else ""

    def work() -> None:
        title = generate_title(make_transport, first_user, first_reply)
        if not title:
            return
        try:
            info = store.get_session(session_id)
            if info is not None and (info.title or "") == provisional:  # the user has not renamed it
                store.set_title(session_id, title)
        except Exception:
            pass

    threading.Thread(target=work, name="session-title", daemon=True).start()
