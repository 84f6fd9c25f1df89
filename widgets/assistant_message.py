"""The assistant's reply: streamed as Markdown while it arrives, frozen into one cheap widget when done.

Why it is built this way (measured, see design.md §9):

- Deltas can arrive at 2,000/s. `append()` only pushes onto a lock-protected buffer; a 15 Hz timer on this
  widget drains the buffer into a `MarkdownStream` (`Markdown.get_stream`), which re-parses only the last
  block. That is ~15 appends a second however fast the model is, instead of one re-render per delta.
- A Textual `Markdown` is one widget per block (a short reply is ~18 widgets), and widget count is what makes
  a long transcript slow. `finish()` therefore swaps the Markdown tree for ONE `FrozenMarkdown` widget that
  renders the final text with Rich's Markdown, styled from the Textual theme through component classes.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import ClassVar

from markdown_it import MarkdownIt
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Heading
from rich.markdown import Markdown as RichMarkdown
from rich.style import Style
from rich.syntax import Syntax
from rich.theme import Theme
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream

from widgets.text_safety import StreamSanitizer, component_text_style, sanitize_display

__all__ = ["AssistantMessage", "FrozenMarkdown"]


class _LeftHeading(Heading):
    """Rich centres h1; Textual's streaming view does not, so the frozen view keeps every heading left."""

    LEVEL_ALIGN: ClassVar = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")


class _ThemedCodeBlock(CodeBlock):
    """A fenced code block whose background comes from the Textual theme instead of the Pygments theme."""

    @classmethod
    def create(cls, markdown: RichMarkdown, token: object) -> _ThemedCodeBlock:  # type: ignore[override]
        block = super().create(markdown, token)  # type: ignore[arg-type]
        block.background = getattr(markdown, "code_background", None)
        return block  # type: ignore[return-value]

    background: str | None = None

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        yield Syntax(
            code,
            self.lexer_name,
            theme=self.theme,
            word_wrap=True,
            padding=(0, 1),
            background_color=self.background,
        )


class _CalmMarkdown(RichMarkdown):
    """Rich Markdown with left-aligned headings and theme-coloured code blocks."""

    elements: ClassVar = {
        **RichMarkdown.elements,
        "heading_open": _LeftHeading,
        "fence": _ThemedCodeBlock,
        "code_block": _ThemedCodeBlock,
    }
    code_background: str | None = None


class _Themed:
    """Render a Rich renderable with a Rich `Theme` pushed, so `markdown.*` styles follow the Textual theme.

    Rendering is eager inside the pushed theme: Rich resolves style names while it renders, and the theme
    must not leak into anything else the console draws.
    """

    def __init__(self, renderable: RichMarkdown, theme: Theme) -> None:
        self.renderable = renderable
        self.theme = theme

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        with console.use_theme(self.theme):
            segments = list(console.render(self.renderable, options))
        yield from segments


class FrozenMarkdown(Widget):
    """A finished Markdown document drawn by ONE widget (Rich Markdown), styled from theme variables.

    The Rich `markdown.*` style names are mapped onto this widget's component classes, so changing the
    Textual theme (or a user theme overriding these classes) restyles frozen replies too.
    """

    DEFAULT_CSS = """
    FrozenMarkdown {
        height: auto;
        color: $foreground;
        & > .frozen-markdown--h1 { color: $markdown-h1-color; text-style: bold; }
        & > .frozen-markdown--h2 { color: $markdown-h2-color; text-style: $markdown-h2-text-style; }
        & > .frozen-markdown--h3 { color: $markdown-h3-color; text-style: $markdown-h3-text-style; }
        & > .frozen-markdown--h4 { color: $markdown-h4-color; text-style: $markdown-h4-text-style; }
        & > .frozen-markdown--h5 { color: $markdown-h5-color; text-style: $markdown-h5-text-style; }
        & > .frozen-markdown--h6 { color: $markdown-h6-color; text-style: $markdown-h6-text-style; }
        & > .frozen-markdown--code-inline { background: $warning 10%; color: $text-warning 95%; }
        &:light > .frozen-markdown--code-inline { background: $error 5%; color: $text-error 95%; }
        & > .frozen-markdown--code-block { background: $foreground 4%; }
        & > .frozen-markdown--quote { color: $text-muted; text-style: italic; }
        & > .frozen-markdown--bullet { color: $text-primary; text-style: bold; }
        &:light > .frozen-markdown--bullet { color: $text-secondary; }
        & > .frozen-markdown--number { color: $text-primary; }
        & > .frozen-markdown--rule { color: $secondary; }
        & > .frozen-markdown--link { color: $text-accent; text-style: underline; }
        & > .frozen-markdown--table-border { color: $foreground 30%; }
        & > .frozen-markdown--table-header { color: $text-primary; text-style: bold; }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "frozen-markdown--h1",
        "frozen-markdown--h2",
        "frozen-markdown--h3",
        "frozen-markdown--h4",
        "frozen-markdown--h5",
        "frozen-markdown--h6",
        "frozen-markdown--code-inline",
        "frozen-markdown--code-block",
        "frozen-markdown--quote",
        "frozen-markdown--bullet",
        "frozen-markdown--number",
        "frozen-markdown--rule",
        "frozen-markdown--link",
        "frozen-markdown--table-border",
        "frozen-markdown--table-header",
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

    def __init__(
        self, source: str, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._source = source
        self._document: _CalmMarkdown | None = None
        self._document_dark = True

    @property
    def source(self) -> str:
        """The Markdown text shown (already sanitized by the owner)."""
        return self._source

    def update(self, source: str) -> None:
        """Show new Markdown text (re-parsed on the next render)."""
        self._source = source
        self._document = None
        self.refresh(layout=True)

    def _theme(self) -> Theme:
        """A Rich theme mapping Rich's markdown style names onto this widget's theme-driven styles."""
        styles: dict[str, Style] = {
            "markdown.code_block": Style(),
            "markdown.list": Style(),
            "markdown.h1.border": Style(),
            "markdown.kbd": Style(bold=True),
        }
        for rich_name, component in self._STYLE_MAP.items():
            styles[rich_name] = component_text_style(self, f"frozen-markdown--{component}")
        # Inline code needs its background blended over ours: take the full (non-partial) style.
        styles["markdown.code"] = self.get_component_rich_style("frozen-markdown--code-inline")
        return Theme(styles, inherit=True)

    def render(self) -> _Themed:
        """Parse once, then re-theme on every render (theme switches restyle frozen replies too)."""
        dark = self.app.current_theme.dark if self.is_attached else True
        if self._document is None or self._document_dark != dark:
            self._document = _CalmMarkdown(self._source, code_theme="monokai" if dark else "default")
            self._document_dark = dark
        block_bg = self.get_component_rich_style("frozen-markdown--code-block").bgcolor
        self._document.code_background = block_bg.name if block_bg is not None else None
        return _Themed(self._document, self._theme())


def _last_block_offset(source: str) -> int:
    """Character offset where the last top-level Markdown block starts (0 if there is only one block).

    Everything before it is final: appending text can only change the last block (the same assumption
    Textual's `Markdown.append` makes).
    """
    tokens = MarkdownIt("gfm-like").parse(source)
    start_line = 0
    for token in reversed(tokens):
        if token.level == 0 and token.map is not None:
            start_line = token.map[0]
            break
    if start_line <= 0:
        return 0
    lines = source.splitlines(keepends=True)
    return sum(len(line) for line in lines[:start_line])


class _StreamingMarkdown(Markdown):
    """Textual's Markdown, counting how much source has actually been applied (parsed and mounted).

    `MarkdownStream` gives no "caught up" signal; `is_drained`/`wait_until_drained()` need one.
    """

    def __init__(self) -> None:
        super().__init__()
        self.applied_chars = 0
        self.applied = asyncio.Event()

    def append(self, markdown: str) -> AwaitComplete:
        pending = super().append(markdown)
        target = len(self.source)

        async def tracked() -> None:
            await pending
            self.applied_chars = max(self.applied_chars, target)
            self.applied.set()

        return AwaitComplete(tracked())


class _DeltaBuffer:
    """Thread-safe accumulator: any thread pushes, the UI timer drains. `push` is a lock and two appends."""

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


class AssistantMessage(Widget):
    """One assistant text segment (a turn may have several, split by tool calls).

    Feed it with `append(delta)` (cheap, any thread), call `finish()` when the model call ends. A reply that
    turns out empty (a tool-only turn) stays hidden and costs no child widget.
    """

    DEFAULT_CSS = """
    AssistantMessage {
        height: auto;
        layout: stream;
        margin: 1 0 0 0;
        padding: 0 1;
        &.-empty { display: none; }
        & > Markdown {
            layout: stream;
            padding: 0;
            margin: 0;
            background: transparent;
        }
        & > Markdown > MarkdownBlock:last-child { margin-bottom: 0; }
        & > FrozenMarkdown.-head { margin-bottom: 1; }
    }
    """

    FLUSH_HZ: ClassVar[float] = 15.0
    """How often buffered deltas are pushed into the Markdown stream."""
    LIVE_BLOCK_LIMIT: ClassVar[int] = 60
    """A very long reply keeps at most about this many live Markdown blocks: beyond it, the finished blocks
    are moved into a frozen head (one widget) while the tail keeps streaming. 0 disables it."""

    def __init__(
        self,
        text: str = "",
        *,
        finished: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """Create a streaming reply, or (with `finished=True`) a frozen one, e.g. from saved history."""
        super().__init__(name=name, id=id, classes=classes)
        self._buffer = _DeltaBuffer()
        self._sanitizer = StreamSanitizer()
        self._finished = finished
        self._frozen_text: str | None = None
        self._markdown: _StreamingMarkdown | None = None
        self._stream: MarkdownStream | None = None
        self._timer: Timer | None = None
        self._written = 0  # characters handed to the current stream so far
        self._heads: list[FrozenMarkdown] = []  # finished blocks of a very long reply, frozen while streaming
        self._head_text = ""
        self._finishing: asyncio.Task[None] | None = None
        self._stream_lock = asyncio.Lock()
        if text:
            self._buffer.push(text)
        if not sanitize_display(text).strip():
            self.add_class("-empty")

    # ----------------------------------------------------------------------------------------- public API

    def append(self, text: str) -> None:
        """Queue a delta. Cheap and thread-safe; the text shows on the next timer tick (~66 ms)."""
        if text:
            self._buffer.push(text)

    @property
    def text(self) -> str:
        """Everything appended so far (sanitized for display), including what is not drawn yet."""
        if self._frozen_text is not None:
            return self._frozen_text
        return sanitize_display(self._buffer.full_text())

    @property
    def is_finished(self) -> bool:
        """True once `finish()` was called: no more text will come."""
        return self._finished

    @property
    def is_frozen(self) -> bool:
        """True when the reply is drawn by a single `FrozenMarkdown` (or by nothing, when empty)."""
        return self._frozen_text is not None

    @property
    def shown_text(self) -> str:
        """The Markdown source handed to the display so far (frozen segments + the live Markdown)."""
        if self._frozen_text is not None:
            return self._frozen_text
        return self._head_text + (self._markdown.source if self._markdown is not None else "")

    @property
    def live_block_count(self) -> int:
        """Top-level blocks in the live (streaming) Markdown widget."""
        return len(self._markdown.children) if self._markdown is not None else 0

    @property
    def is_drained(self) -> bool:
        """True when everything appended is on screen (in the streaming Markdown or the frozen view)."""
        if self._frozen_text is not None:
            return True
        if self._buffer.has_pending or self._markdown is None:
            return False
        return self._markdown.applied_chars >= self._written

    async def wait_until_drained(self, timeout: float = 10.0) -> None:
        """Drain now and wait until the streaming Markdown has applied every delta (for tests and callers
        that must read what is displayed). Raises TimeoutError if the widget cannot catch up in time."""
        if self._finishing is not None:
            await asyncio.wait_for(asyncio.shield(self._finishing), timeout)
            return
        await self._drain()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self.is_drained:
            if loop.time() > deadline:
                raise TimeoutError("AssistantMessage did not drain in time")
            markdown = self._markdown
            if markdown is None:  # not composed yet
                await asyncio.sleep(0.01)
            else:
                markdown.applied.clear()
                if not self.is_drained:
                    # Short slices: a roll-over may swap the Markdown widget while we wait.
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(markdown.applied.wait(), 0.1)
            await self._drain()

    def finish(self) -> AwaitComplete:
        """End the stream: draw the rest, stop the timer and freeze into one widget. Await it if you need the
        frozen widget in place; otherwise it completes in the background."""
        self._finished = True
        if self._finishing is None:
            if not self.is_attached or not self.is_mounted:
                # Not mounted yet: compose() will build the frozen view directly.
                return AwaitComplete(asyncio.sleep(0))
            self._finishing = asyncio.ensure_future(self._finish())
        return AwaitComplete(asyncio.shield(self._finishing))

    # ----------------------------------------------------------------------------------------- internals

    def compose(self) -> ComposeResult:
        if self._finished:
            self._frozen_text = self.text
            self.set_class(not self._frozen_text.strip(), "-empty")
            if self._frozen_text.strip():
                yield FrozenMarkdown(self._frozen_text)
            return
        self._markdown = _StreamingMarkdown()
        yield self._markdown

    def on_mount(self) -> None:
        if self._markdown is not None and not self._finished:
            self._stream = Markdown.get_stream(self._markdown)
            self._timer = self.set_interval(1 / self.FLUSH_HZ, self._drain, name="assistant-drain")
        elif self._markdown is not None and self._finishing is None:
            self._finishing = asyncio.ensure_future(self._finish())

    async def on_unmount(self) -> None:
        """Removed while still streaming (e.g. the transcript was cleared): stop the timer and the stream
        task so nothing keeps running for a widget that is gone."""
        if self._finishing is not None:
            return  # `_finish` owns the stream and checks `is_attached` before drawing
        self._finished = True
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        stream, self._stream = self._stream, None
        if stream is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await stream.stop()

    async def _drain(self) -> None:
        """Move buffered deltas into the Markdown stream (one append per tick, however many deltas).

        Serialized with `_finish` by a lock: a roll-over or the final freeze must never interleave with a
        drain (the timer task that runs a drain is cancelled when the timer stops)."""
        async with self._stream_lock:
            await self._drain_locked()

    async def _drain_locked(self) -> None:
        if self._stream is None:
            return
        raw = self._buffer.drain()
        if not raw:
            return
        markdown = self._markdown
        too_long = markdown is not None and 0 < self.LIVE_BLOCK_LIMIT < len(markdown.children)
        if too_long and self.is_attached:
            await self._roll_over()
        chunk = self._sanitizer.feed(raw)
        if not chunk or self._stream is None:
            return
        if self.has_class("-empty") and chunk.strip():
            self.remove_class("-empty")
        self._written += len(chunk)
        await self._stream.write(chunk)

    async def _roll_over(self) -> None:
        """Freeze every finished block of a very long reply into the head; restart the live Markdown with the
        last (possibly unfinished) block. Keeps streaming cost bounded by the tail, not the whole reply."""
        markdown, stream = self._markdown, self._stream
        assert markdown is not None and stream is not None
        self._stream = None
        await stream.stop()  # flushes what the stream still holds into `markdown`
        source = markdown.source
        split = _last_block_offset(source)
        if split <= 0:
            self._stream = Markdown.get_stream(markdown)
            return
        self._head_text += source[:split]
        head = FrozenMarkdown(source[:split], classes="-head")  # one more segment: each renders once
        self._heads.append(head)
        fresh = _StreamingMarkdown()
        with self.app.batch_update():
            await self.mount(head, before=markdown)
            await self.mount(fresh, after=markdown)
            await markdown.remove()
        self._markdown = fresh
        self._stream = Markdown.get_stream(fresh)
        tail = source[split:]
        self._written = len(tail)
        await self._stream.write(tail)

    async def _finish(self) -> None:
        async with self._stream_lock:
            await self._finish_locked()

    async def _finish_locked(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        final_text = self.text
        if self._stream is not None:
            await self._drain_locked()
            if (tail := self._sanitizer.flush()) and self._stream is not None:
                self._written += len(tail)
                await self._stream.write(tail)
            stream, self._stream = self._stream, None
            if stream is not None:
                await stream.stop()
        self._frozen_text = final_text
        stale: list[Widget] = [*self._heads]
        if self._markdown is not None:
            stale.append(self._markdown)
        self._markdown = None
        self._heads = []
        self._head_text = ""
        if not self.is_attached:  # removed meanwhile: nothing to draw
            return
        with self.app.batch_update():
            if final_text.strip():
                self.remove_class("-empty")
                await self.mount(FrozenMarkdown(final_text), before=stale[0] if stale else None)
            else:
                self.add_class("-empty")
            if stale:
                await self.remove_children(stale)
