"""A session's context compression as the agent runs it: when to compress, and one compression run.

`agent.compression` holds the pure parts (what to keep, the marker, the wire view); this module is the part
that asks the model for the summary and tells the user what it did, so the turn loop only says *when*:
before a request over the threshold (`maybe`), after a provider's context-too-large error (`run`), and on
`/compress`. It reads the agent's current settings, transport and model through `CompressionHost`, since
`/model` and a fallback change them between calls.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from agent.compression import (
    SUMMARY_INSTRUCTIONS,
    CompressionPlan,
    estimate_tokens,
    make_marker,
    plan,
    render_for_summary,
)
from agent.config import Settings
from agent.errors import InterruptedByUser, classify
from agent.events import StatusNotice
from agent.messages import Message
from agent.transports.base import ModelRequest, PartialInterrupt, SilentSink, Transport
from agent.ui import AgentUI

if TYPE_CHECKING:
    from agent.store import SessionStoreProtocol

__all__ = ["MAX_COMPRESSIONS_PER_TURN", "MIN_FRESH_TO_COMPRESS", "CompressionHost", "Compressor"]

MAX_COMPRESSIONS_PER_TURN = 3
MIN_FRESH_TO_COMPRESS = 4


class CompressionHost(Protocol):
    """What compression reads of the agent it works for (the current values, looked up each time)."""

    settings: Settings
    ui: AgentUI
    store: SessionStoreProtocol | None
    messages: list[Message]

    @property
    def transport(self) -> Transport: ...

    @property
    def model(self) -> str: ...


class Compressor:
    def __init__(
        self,
        host: CompressionHost,
        *,
        wire: Callable[[], list[dict[str, Any]]],
        append: Callable[[Message], None],
        interrupt: threading.Event,
    ) -> None:
        """`wire`: the request's messages as the model would see them now; `append`: add a message to the
        session (and the store); `interrupt`: the agent's, so Esc stops a summary being written."""
        self.host = host
        self._wire = wire
        self._append = append
        self._interrupt = interrupt
        self.count = 0  # compressions this turn

    def new_turn(self) -> None:
        self.count = 0

    @property
    def may_run(self) -> bool:
        """A turn compresses at most MAX_COMPRESSIONS_PER_TURN times (each one costs a model call)."""
        return self.count < MAX_COMPRESSIONS_PER_TURN

    def threshold(self) -> int:
        settings = self.host.settings
        return int(settings.effective_context_window * settings.compression_threshold)

    def plan(self) -> CompressionPlan:
        """What to keep and what to summarize, by the session's compression settings."""
        settings = self.host.settings
        ratio = min(max(settings.compression_target_ratio, 0.1), 0.8)  # Hermes' clamp
        return plan(
            self.host.messages,
            keep_head=settings.compression_protect_first_n,
            keep_tail=settings.compression_protect_last_n,
            tail_tokens=int(self.threshold() * ratio),
        )

    def maybe(self, tools: list[dict[str, Any]]) -> None:
        """Compress before a request whose estimate is over the threshold."""
        if not self.host.settings.compression_enabled or not self.may_run:
            return
        if estimate_tokens(self._wire(), tools) <= self.threshold():
            return
        messages = self.host.messages
        fresh = [i for i in self.plan().middle if messages[i].meta.get("synthetic") != "compression"]
        if len(fresh) < MIN_FRESH_TO_COMPRESS:
            return  # the recent tail alone is this big: summarizing a few messages again would not help
        self.run("the conversation is over the compression threshold")

    def run(self, reason: str) -> bool:
        """Summarize the middle of the conversation into a marker message. False (and a notice saying
        why) when there was nothing to compress or the summary failed; InterruptedByUser on Esc."""
        host = self.host
        chosen = self.plan()
        if not chosen.worthwhile:
            self._notice("info", "Nothing to compress yet: the conversation is short.")
            return False
        self.count += 1
        before = estimate_tokens(self._wire())
        self._notice("info", f"Compressing the conversation ({reason})…")
        request = ModelRequest(
            messages=[
                {"role": "system", "content": SUMMARY_INSTRUCTIONS},
                {"role": "user", "content": render_for_summary(host.messages, chosen.middle)},
            ],
            tools=[],
        )
        try:
            summary = host.transport.stream(request, SilentSink(), self._interrupt).text.strip()
        except PartialInterrupt:
            raise InterruptedByUser() from None
        except Exception as exc:
            c = classify(exc, provider=host.settings.provider, model=host.model)
            self._notice("warn", f"Compression failed: {c.user_line()}")
            return False
        if not summary:
            self._notice("warn", "Compression failed: the model returned an empty summary.")
            return False
        marker = make_marker(summary, chosen, 0)
        self._append(marker)
        after = estimate_tokens(self._wire())
        marker.meta["saved_tokens"] = max(0, before - after)
        if host.store is not None and marker.id is not None:
            host.store.update_message(marker)
        self._notice(
            "info",
            f"Compressed {len(chosen.middle)} messages: ~{before:,} → ~{after:,} tokens "
            f"(saved ~{max(0, before - after):,}). The full history stays searchable.",
        )
        return True

    def _notice(self, kind: str, text: str) -> None:
        self.host.ui.on_event(StatusNotice(kind=kind, text=text))
