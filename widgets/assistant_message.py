"""The assistant's reply: ONE line-cached widget from the first delta to the end, and for saved history.

Why it is built this way (measured, design.md §4 and §9): a Textual `Markdown` is a widget per block, and
mounting and styling those widgets is what made streaming cost most of a core. Here the reply's source is
a `BlockDocument` (top-level blocks split by markdown-it's line maps); each finished block is rendered once
per width and theme into cached strips (`LineStack`), only the open last block is parsed and rendered
again, at most `RENDER_HZ` times a second however fast deltas come (`LiveUpdates`). A finished reply is
the same widget with nothing open: there is no swap when it ends, and a reply loaded from history is
drawn exactly as the streamed one was.

`append()` is cheap and thread-safe (a lock and a list append); everything else runs on the UI thread.
Model text is sanitized (`StreamSanitizer`: escape sequences split across deltas are held back) and only
ever reaches Rich as `Text`, never as console markup.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Generator, Iterable, Sequence
from typing import ClassVar, Protocol

from rich.style import Style
from rich.text import Text
from rich.theme import Theme
from textual.dom import DOMNode
from textual.widget import Widget

from widgets.markdown_view.blocks import Block, BlockDocument
from widgets.markdown_view.lines import LineStack
from widgets.markdown_view.render import Line, MarkdownStyle, render_markdown_block
from widgets.markdown_view.view import LineView, LiveUpdates
from widgets.text_safety import StreamSanitizer, component_text_style, sanitize_display

__all__ = ["AssistantMessage", "MarkdownView"]


class _Done:
    """An awaitable that is already complete (callers may await `finish()`, or not)."""

    def __await__(self) -> Generator[None, None, None]:
        return
        yield


_DONE = _Done()


class MarkdownView(LineView):
    """Markdown drawn by one widget, styled from the Textual theme through component classes.

    The Rich `markdown.*` style names map onto the component classes below, so a theme switch (or a user
    theme overriding these classes) restyles every reply, streamed or loaded.
    """

    DEFAULT_CSS = """
    MarkdownView {
        height: auto;
        color: $foreground;
        & > .markdown-view--h1 { color: $markdown-h1-color; text-style: bold; }
        & > .markdown-view--h2 { color: $markdown-h2-color; text-style: $markdown-h2-text-style; }
        & > .markdown-view--h3 { color: $markdown-h3-color; text-style: $markdown-h3-text-style; }
        & > .markdown-view--h4 { color: $markdown-h4-color; text-style: $markdown-h4-text-style; }
        & > .markdown-view--h5 { color: $markdown-h5-color; text-style: $markdown-h5-text-style; }
        & > .markdown-view--h6 { color: $markdown-h6-color; text-style: $markdown-h6-text-style; }
        & > .markdown-view--code-inline { background: $warning 10%; color: $text-warning 95%; }
        &:light > .markdown-view--code-inline { background: $error 5%; color: $text-error 95%; }
        & > .markdown-view--code-block { background: $foreground 4%; }
        & > .markdown-view--quote { color: $text-muted; text-style: italic; }
        & > .markdown-view--bullet { color: $text-primary; text-style: bold; }
        &:light > .markdown-view--bullet { color: $text-secondary; }
        & > .markdown-view--number { color: $text-primary; }
        & > .markdown-view--rule { color: $secondary; }
        & > .markdown-view--link { color: $text-accent; text-style: underline; }
        & > .markdown-view--table-border { color: $foreground 30%; }
        & > .markdown-view--table-header { color: $text-primary; text-style: bold; }
    }
    """

    SHARE_COMPONENT_STYLES: ClassVar[bool] = True
    """Entries of a kind style their component classes alike: matched once (textual_compat)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "markdown-view--h1",
        "markdown-view--h2",
        "markdown-view--h3",
        "markdown-view--h4",
        "markdown-view--h5",
        "markdown-view--h6",
        "markdown-view--code-inline",
        "markdown-view--code-block",
        "markdown-view--quote",
        "markdown-view--bullet",
        "markdown-view--number",
        "markdown-view--rule",
        "markdown-view--link",
        "markdown-view--table-border",
        "markdown-view--table-header",
    }

    _STYLE_MAP: ClassVar[dict[str, str]] = {
        "markdown.h1": "h1",
        "markdown.h2": "h2",
        "markdown.h3": "h3",
        "markdown.h4": "h4",
        "markdown.h5": "h5",
        "markdown.h6": "h6",
        "markdown.h7": "h6",
        "markdown.code": "code-inline",
        "markdown.block_quote": "quote",
        "markdown.item.bullet": "bullet",
        "markdown.item.number": "number",
        "markdown.hr": "rule",
        "markdown.link": "link",
        "markdown.link_url": "link",
        "markdown.table.border": "table-border",
        "markdown.table.header": "table-header",
    }

    _markdown_style: MarkdownStyle | None = None

    shared_styles: ClassVar[SharedStyles]
    """Where replies styled alike share one `MarkdownStyle` (set below the class: `ComputeEach`)."""

    def __init__(
        self, source: str = "", *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._document = BlockDocument(source)
        self._markdown_style: MarkdownStyle | None = None

    @property
    def source(self) -> str:
        """The Markdown source handed to the view so far (sanitized by the owner)."""
        return self._document.source

    @property
    def document(self) -> BlockDocument:
        return self._document

    def blocks(self) -> tuple[Sequence[Block], Block | None]:
        document = self._document
        document.update()
        return document.finished, document.open_block

    def gap_after(self, block: Block) -> bool:
        return block.separated

    def render_block(self, block: Block, width: int) -> list[Line]:
        lines = render_markdown_block(self.app.console, block, width, self.markdown_style)
        block.release()  # a finished block is drawn from the cache from now on
        return lines

    def on_style_change(self) -> None:
        self._markdown_style = None

    def render_source(self, source: str, width: int) -> Text:
        """Other Markdown drawn exactly as this view draws its own (blocks, gaps, the theme's styles), as
        one `Text` of lines at most `width` cells wide: for a pane that shows Markdown among other text
        (the session preview), so there is one Markdown renderer. The view must be attached (it lends
        its styles); it may be hidden."""
        document = BlockDocument(sanitize_display(source))
        document.close()
        console, style = self.app.console, self.markdown_style
        stack: LineStack[Block] = LineStack(
            lambda block, cells: render_markdown_block(console, block, cells, style), gap_after=self.gap_after
        )
        stack.sync(document.finished, document.open_block, (max(1, width), self._style_generation))
        text = Text(end="")
        for number, line in enumerate(stack.lines()):
            row = Text(end="")
            for segment in line:
                row.append(segment.text, segment.style)
            row.rstrip()  # no padding to wrap again in a pane a little narrower than `width`
            if number:
                text.append("\n")
            text.append_text(row)
        return text

    @property
    def markdown_style(self) -> MarkdownStyle:
        """The Rich theme and code colours for the current Textual theme (built once per style change, and
        shared by the replies styled alike: building it resolved 17 component styles, ~1 ms a reply, a
        tenth of the time of paging back through a long session)."""
        if self._markdown_style is None:
            if self.is_attached:
                self._markdown_style = self.shared_styles.get(
                    self, self._build_markdown_style, self.COMPONENT_CLASSES
                )
            else:
                self._markdown_style = self._build_markdown_style()
        return self._markdown_style

    def _build_markdown_style(self) -> MarkdownStyle:
        dark = self.app.current_theme.dark if self.is_attached else True
        styles: dict[str, Style] = {
            "markdown.code_block": Style(),
            "markdown.list": Style(),
            "markdown.h1.border": Style(),
            "markdown.kbd": Style(bold=True),
        }
        for rich_name, component in self._STYLE_MAP.items():
            styles[rich_name] = component_text_style(self, f"markdown-view--{component}")
        # Inline code needs its background blended over ours: take the full (non-partial) style.
        styles["markdown.code"] = self.get_component_rich_style("markdown-view--code-inline")
        block_bg = self.get_component_rich_style("markdown-view--code-block").bgcolor
        return MarkdownStyle(
            theme=Theme(styles, inherit=True),
            code_theme="monokai" if dark else "default",
            code_background=block_bg.name if block_bg is not None else None,
            base=self.base_style,
        )


class SharedStyles(Protocol):
    """Values computed from a node's styles, shared by the nodes styled alike (`get` computes on a miss)."""

    def get(
        self, node: DOMNode, compute: Callable[[], MarkdownStyle], component_classes: Iterable[str] = ()
    ) -> MarkdownStyle: ...


class ComputeEach:
    """No sharing: each reply builds its own (plain Textual gives no key for "styled alike"; the one that
    `textual_compat.style_context` makes goes in `MarkdownView.shared_styles` where it is active)."""

    def get(
        self, node: DOMNode, compute: Callable[[], MarkdownStyle], component_classes: Iterable[str] = ()
    ) -> MarkdownStyle:
        return compute()


MarkdownView.shared_styles = ComputeEach()


class _DeltaBuffer:
    """Thread-safe accumulator: any thread pushes, the UI drains. `push` is a lock and two appends."""

    __slots__ = ("_all", "_lock", "_pending")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[str] = []
        self._all: list[str] = []

    def push(self, text: str) -> None:
        with self._lock:
            self._pending.append(text)
            self._all.append(text)

    def drain(self) -> str:
        with self._lock:
            if not self._pending:
                return ""
            text = "".join(self._pending)
            self._pending.clear()
        return text

    @property
    def has_pending(self) -> bool:
        with self._lock:
            return bool(self._pending)

    def full_text(self) -> str:
        with self._lock:
            if len(self._all) > 1:
                self._all[:] = ["".join(self._all)]
            return self._all[0] if self._all else ""


class AssistantMessage(MarkdownView):
    """One assistant text segment (a turn may have several, split by tool calls).

    Feed it with `append(delta)` (cheap, any thread), call `finish()` when the model call ends. A reply
    that turns out empty (a tool-only turn) stays hidden.
    """

    DEFAULT_CSS = """
    AssistantMessage {
        margin: 1 0 0 0;
        padding: 0 1;
    }
    """

    RENDER_HZ: ClassVar[float] = 15.0
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
    long. A key typed during a slice waits for it (and for each slice between the message queues it then
    passes): with 6,000-character slices, letters typed during a 20,000-word burst took ~0.5 s to show
    (tmux, a shared 2-core machine); in slices of this length they show within a tenth of a second. The
    whole burst is drawn a little later, still well before the bare SDK has read it."""
    FEED_MIN: ClassVar[int] = 300
    FEED_FIRST: ClassVar[int] = 1_500
    """The first slice of a reply, before any has been measured."""
    GROW_STEP: ClassVar[int] = 3
    """While streaming in a scrolled transcript, the reply grows this many lines at a time (see
    `LineView.grow_step`); elsewhere (a short transcript, a finished reply) it is exactly its text."""

    def __init__(
        self,
        text: str = "",
        *,
        finished: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """Create a streaming reply, or (with `finished=True`) a finished one, e.g. from saved history."""
        super().__init__(name=name, id=id, classes=classes)
        self._buffer = _DeltaBuffer()
        self._sanitizer = StreamSanitizer()
        self._backlog = ""  # sanitized text not in the document yet (beyond one render's `FEED_CHARS`)
        self._feed_rate: float | None = None  # characters per second the last large slices rendered at
        self._finished = False
        self._updates = LiveUpdates(self, self._apply_pending, hz=self.RENDER_HZ)
        if text:
            self._buffer.push(text)
        self.display = bool(sanitize_display(text).strip())
        if finished:
            self._finished = True
            self._apply_pending(budget=False)  # nothing is drawn before the first layout anyway

    # ----------------------------------------------------------------------------------------- public API

    def append(self, text: str) -> None:
        """Queue a delta. Cheap and thread-safe; on screen within 1/RENDER_HZ s."""
        if text and not self._finished:
            self._buffer.push(text)
            self._updates.request()

    @property
    def text(self) -> str:
        """Everything appended so far (sanitized for display), including what is not drawn yet."""
        return sanitize_display(self._buffer.full_text())

    @property
    def is_finished(self) -> bool:
        """True once `finish()` was called: no more text will come."""
        return self._finished

    @property
    def shown_text(self) -> str:
        """The Markdown source handed to the display so far."""
        return self.source

    @property
    def is_drained(self) -> bool:
        """True when everything appended is in the view's model (drawn on the next paint)."""
        return (
            not self._buffer.has_pending
            and not self._backlog
            and (not self._finished or self._document.is_closed)
        )

    async def wait_until_drained(self, timeout: float = 10.0) -> None:
        """Apply everything appended now (for tests and callers that must read what is displayed)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        self._updates.run_now()
        while not self.is_drained:
            if loop.time() > deadline:
                raise TimeoutError("AssistantMessage did not drain in time")
            await asyncio.sleep(0)  # let a frame happen between slices, as the stream would
            self._updates.run_now()

    def finish(self) -> Awaitable[None]:
        """End the stream: draw the rest and close the last block (at once, or in slices of `FEED_CHARS`
        right after each other for a large backlog). The awaitable is for callers written against the
        old asynchronous API; it does not wait for the slices."""
        if not self._finished:
            self._finished = True
            self._updates.run_now()
        return _DONE

    # ----------------------------------------------------------------------------------------- internals

    def grow_step(self) -> int:
        if self._finished:
            return 1
        # Only where growing scrolls the view (the costly redraw). Below a short transcript, every line
        # is cheap, and blank lines under the text would only look odd.
        parent = self.parent
        scrolls = isinstance(parent, Widget) and parent.is_scrollable and parent.max_scroll_y > 0
        return self.GROW_STEP if scrolls else 1

    def on_unmount(self) -> None:
        self._updates.cancel()

    def _feed_limit(self) -> int:
        """Characters for the next slice: what renders in about `FEED_SECONDS`, going by the last ones."""
        if self._feed_rate is None:
            return self.FEED_FIRST
        return max(self.FEED_MIN, min(self.FEED_CHARS, int(self._feed_rate * self.FEED_SECONDS)))

    def _apply_pending(self, budget: bool = True) -> float | None:
        """Move buffered deltas into the document (at most `FEED_CHARS` of them) and repaint what changed
        (UI thread). Returns the time spent on the open block, the part that is drawn again and again, for
        `LiveUpdates` to slow down when it is large; the finished blocks are progress, not waste."""
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
        started = time.perf_counter()
        if chunk:
            self._document.feed(chunk)
            if not self.display and chunk.strip():
                self.display = True
        if self._finished and not self._backlog and not self._document.is_closed:
            self._document.close()
        elif not chunk:
            return None
        self.refresh_changed()
        if len(chunk) >= self.FEED_MIN:
            rate = len(chunk) / max(time.perf_counter() - started, 1e-4)
            self._feed_rate = rate if self._feed_rate is None else (self._feed_rate + rate) / 2
        if self._backlog:
            self._updates.request()  # the next slice, at the next render
        return self._stack.open_cost
