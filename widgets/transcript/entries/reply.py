"""The assistant's reply: one transcript entry from the first delta to the end, and for saved history.

Why it is built this way (measured: docs/architecture.md, "The transcript"): a Textual `Markdown` is a widget
per block, and mounting and styling those widgets is what made streaming cost most of a core. Here the reply's
source is a `BlockDocument` (top-level blocks split by markdown-it's line maps); each finished block is
rendered once per width and theme into cached lines (`LineStack`), only the open last block is parsed and
rendered again, at most `RENDER_HZ` times a second however fast deltas come (`LiveUpdates`). A finished reply
is the same entry with nothing open: there is no swap when it ends, and a reply loaded from history is drawn
exactly as the streamed one was.

Everything runs on the UI thread (the app's event pipeline feeds it); `append()` is two list appends.
Model text is sanitized (`StreamSanitizer`: escape sequences split across deltas are held back) and only
ever reaches Rich as `Text`, never as console markup.

The Markdown look (component classes, CSS, the Rich theme built from them) is
`widgets.transcript.markdown.look`'s: the transcript lends it to its replies.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Generator, Sequence
from typing import ClassVar

from widgets.support import timing
from widgets.support.text_safety import StreamSanitizer, sanitize_display
from widgets.transcript.entries.base import LinesEntry, LiveUpdates, Painter
from widgets.transcript.markdown.blocks import Block, BlockDocument
from widgets.transcript.markdown.render import Line, render_markdown_block
from widgets.transcript.record import TranscriptRecord

__all__ = ["ReplyEntry"]


class _Done:
    """An awaitable that is already complete (callers may await `finish()`, or not)."""

    def __await__(self) -> Generator[None, None, None]:
        return
        yield


_DONE = _Done()


class _DeltaBuffer:
    """The deltas appended and not drawn yet, and all of them (UI thread: `push` is two appends)."""

    __slots__ = ("_all", "_pending")

    def __init__(self) -> None:
        self._pending: list[str] = []
        self._all: list[str] = []

    def push(self, text: str) -> None:
        self._pending.append(text)
        self._all.append(text)

    def drain(self) -> str:
        if not self._pending:
            return ""
        text = "".join(self._pending)
        self._pending.clear()
        return text

    @property
    def has_pending(self) -> bool:
        return bool(self._pending)

    def full_text(self) -> str:
        if len(self._all) > 1:
            self._all[:] = ["".join(self._all)]
        return self._all[0] if self._all else ""


class ReplyEntry(LinesEntry):
    """One assistant text segment (a turn may have several, split by tool calls).

    Feed it with `append(delta)` (cheap, UI thread), call `finish()` when the model call ends. A reply
    that turns out empty (a tool-only turn) draws nothing.
    """

    KIND: ClassVar[str] = "assistant"
    STYLE: ClassVar[str] = "transcript--reply"

    RENDER_HZ: ClassVar[float] = timing.RENDER_HZ
    """At most this many renders of the open block a second, however fast deltas arrive. Each render is a
    frame, and Textual's per-frame work (compositing, writing) is most of what streaming costs: 15 frames
    a second read as smoothly as 20 and cost a quarter less (measured in tmux)."""
    FEED_CHARS: ClassVar[int] = 6_000
    """At most this many characters go into the document per render. A burst (a fast model, a stalled
    connection catching up) can bring ten thousand characters between two renders; parsing and rendering
    them at once froze the screen for a third of a second. In slices, the text appears a little later
    but the screen and the keyboard keep up."""
    FEED_SECONDS: ClassVar[float] = 0.012
    """Within `FEED_MIN`..`FEED_CHARS`, a slice is as many characters as the last slices rendered in this
    long. A key typed during a slice waits for it: with 6,000-character slices, letters typed during a
    20,000-word burst took ~0.5 s to show (tmux, a shared 2-core machine); in slices of this length they
    show within a tenth of a second."""
    FEED_MIN: ClassVar[int] = 300
    FEED_FIRST: ClassVar[int] = 1_500
    """The first slice of a reply, before any has been measured."""
    GROW_STEP: ClassVar[int] = 3
    """While streaming in a scrolled transcript, the reply grows this many lines at a time (see
    `LinesEntry.grow_step`); elsewhere (a short transcript, a finished reply) it is exactly its text."""

    def __init__(self, text: str = "", *, finished: bool = False) -> None:
        """A streaming reply, or (with `finished=True`) a finished one, e.g. from saved history."""
        super().__init__()
        self._document = BlockDocument()
        self._buffer = _DeltaBuffer()
        self._sanitizer = StreamSanitizer()
        self._backlog = ""  # sanitized text not in the document yet (beyond one render's `FEED_CHARS`)
        self._feed_rate: float | None = None  # characters per second the last large slices rendered at
        self._finished = False
        self._updates: LiveUpdates | None = None
        self._shows = bool(sanitize_display(text).strip())
        if text:
            self._buffer.push(text)
        if finished:
            self._finished = True  # the document is filled when first drawn (`blocks`): a long
            # history's replies are parsed only as they come into view

    # ----------------------------------------------------------------------------------------- public API

    def append(self, text: str) -> None:
        """Queue a delta (UI thread). Cheap; on screen within 1/RENDER_HZ s."""
        if text and not self._finished:
            self._buffer.push(text)
            if self._updates is not None:
                self._updates.request()

    @property
    def text(self) -> str:
        """Everything appended so far (sanitized for display), including what is not drawn yet."""
        return sanitize_display(self._buffer.full_text())

    @property
    def source(self) -> str:
        """The Markdown source handed to the document so far."""
        return self._document.source

    shown_text = source
    copy_text = text
    CAN_COPY = True

    @property
    def document(self) -> BlockDocument:
        return self._document

    @property
    def is_finished(self) -> bool:
        """True once `finish()` was called: no more text will come."""
        return self._finished

    @property
    def visible(self) -> bool:
        return self._shows

    @property
    def is_drained(self) -> bool:
        """True when everything appended is in the entry's document (drawn on the next paint)."""
        return (
            not self._buffer.has_pending
            and not self._backlog
            and (not self._finished or self._document.is_closed)
        )

    async def wait_until_drained(self, timeout: float = 10.0) -> None:
        """Apply everything appended now (for tests and callers that must read what is displayed)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        self._run_now()
        while not self.is_drained:
            if loop.time() > deadline:
                raise TimeoutError("ReplyEntry did not drain in time")
            await asyncio.sleep(0)  # let a frame happen between slices, as the stream would
            self._run_now()

    def finish(self) -> Awaitable[None]:
        """End the stream: draw the rest and close the last block (at once, or in slices of `FEED_CHARS`
        right after each other for a large backlog). The awaitable does not wait for the slices."""
        if not self._finished:
            self._finished = True
            self._run_now()
        return _DONE

    def record(self) -> TranscriptRecord | None:
        text = self.text
        return TranscriptRecord("assistant", text) if text.strip() else None

    # ----------------------------------------------------------------------------------------- the entry

    def attach(self, painter: Painter) -> None:
        super().attach(painter)
        self._updates = LiveUpdates(painter.pacer, self._apply_pending, hz=self.RENDER_HZ)
        if not self._finished and (self._buffer.has_pending or self._backlog):
            self._updates.request()

    def detach(self) -> None:
        if self._updates is not None:
            self._updates.cancel()

    def blocks(self) -> tuple[Sequence[Block], Block | None]:
        document = self._document
        if self._finished and not document.is_closed:
            self._fill(budget=False)  # a finished reply's text, parsed the first time it is drawn
        document.update()
        return document.finished, document.open_block

    def gap_after(self, block: Block) -> bool:
        return block.separated

    def render_block(self, block: Block, width: int) -> list[Line]:
        painter = self.painter
        assert painter is not None
        lines = render_markdown_block(painter.console, block, width, painter.markdown_style)
        block.release()  # a finished block is drawn from the cache from now on
        return lines

    def estimate_content(self, width: int) -> int:
        if self._stack.key is None:
            return _estimate_rows(self._document.source or self._buffer.full_text(), max(1, width - 2))
        return super().estimate_content(width)

    def grow_step(self) -> int:
        if self._finished:
            return 1
        # Only where growing scrolls the view (the costly redraw). Below a short transcript, every line
        # is cheap, and blank lines under the text would only look odd.
        painter = self.painter
        return self.GROW_STEP if painter is not None and painter.scrolls else 1

    # ----------------------------------------------------------------------------------------- internals

    def _run_now(self) -> None:
        if self._updates is not None:
            self._updates.run_now()
        else:
            self._apply_pending()

    def _fill(self, budget: bool) -> str | None:
        """Move buffered text into the document (at most one slice with `budget`); the slice, or None
        when nothing changed."""
        raw = self._buffer.drain()
        if raw:
            self._backlog += self._sanitizer.feed(raw)
        if self._finished:
            self._backlog += self._sanitizer.flush()
        limit = self._feed_limit()
        if budget and len(self._backlog) > limit:
            chunk, self._backlog = self._backlog[:limit], self._backlog[limit:]
        else:
            chunk, self._backlog = self._backlog, ""
        if chunk:
            self._document.feed(chunk)
            if not self._shows and chunk.strip():
                self._shows = True
        if self._finished and not self._backlog and not self._document.is_closed:
            self._document.close()
        elif not chunk:
            return None
        return chunk

    def _feed_limit(self) -> int:
        """Characters for the next slice: what renders in about `FEED_SECONDS`, going by the last ones."""
        if self._feed_rate is None:
            return self.FEED_FIRST
        return max(self.FEED_MIN, min(self.FEED_CHARS, int(self._feed_rate * self.FEED_SECONDS)))

    def _apply_pending(self, budget: bool = True) -> float | None:
        """Move buffered deltas into the document (at most `FEED_CHARS` of them) and tell the view what
        changed (UI thread). Returns the time spent on the open block, the part drawn again and again, for
        `LiveUpdates` to slow down when it is large; the finished blocks are progress, not waste."""
        started = time.perf_counter()
        chunk = self._fill(budget)
        if chunk is None:
            return None
        self.refresh_changed()
        if len(chunk) >= self.FEED_MIN:
            rate = len(chunk) / max(time.perf_counter() - started, 1e-4)
            self._feed_rate = rate if self._feed_rate is None else (self._feed_rate + rate) / 2
        if self._backlog and self._updates is not None:
            self._updates.request()  # the next slice, at the next render
        return self._stack.open_cost


def _estimate_rows(text: str, width: int) -> int:
    """Rows `text` takes wrapped at `width` (a guess: Markdown adds and removes a little)."""
    rows = 0
    for line in text.split("\n"):
        rows += max(1, -(-len(line) // width))
    return max(1, rows)
