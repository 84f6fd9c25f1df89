"""What the transcript draws: entries as models, each a stack of cached lines, none of them a widget.

The transcript is one Line-API view over the whole conversation (docs/architecture.md, "The transcript"): the
view owns the scrolling, the virtual canvas and the focus; an entry (a user message, a reply, reasoning, a
tool call, a notice) only knows its content and how to draw it into lines at a width. Lines are plain tuples
of Rich segments (`Line`), cached per (width, style generation) by each entry, drawn only when in view.

An entry draws with what the view lends it (`Painter`: the console, the styles of the view's component
classes, a style generation that changes with the theme) and tells the view when its lines change
(`changed`). Entries are made and fed on the UI thread only (the agent's events reach them through the
app's event pipeline, `hermes_tui.chat.pipeline`), so they hold no locks.

`LinesEntry` is the base of entries that grow while you watch (a reply, reasoning, a tool's output):
finished blocks are rendered once into a `LineStack`, only the open last block again, at most a few
times a second (`LiveUpdates`, on the view's pacer: `widgets.transcript.pacer`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from rich.console import Console
from rich.segment import Segment
from rich.style import Style

from widgets.support import timing
from widgets.transcript.markdown.lines import LineChange, LineStack
from widgets.transcript.markdown.render import Line, MarkdownStyle

if TYPE_CHECKING:
    from widgets.transcript.pacer import Deadline, Pacer
    from widgets.transcript.record import TranscriptRecord

__all__ = ["Entry", "LinesEntry", "LiveUpdates", "Painter", "blank_line", "pad_line"]


class Painter(Protocol):
    """What the transcript lends its entries to draw with, and hears back from them."""

    @property
    def pacer(self) -> Pacer:
        """The view's one clock (`widgets.transcript.pacer`): live entries' throttled renders run on it."""
        ...

    @property
    def console(self) -> Console: ...

    @property
    def generation(self) -> int:
        """Changes whenever styles change (theme, focus): lines cached under another are stale."""
        ...

    @property
    def base_style(self) -> Style:
        """The view's own colour and background, under every line."""
        ...

    @property
    def markdown_style(self) -> MarkdownStyle: ...

    @property
    def scrolls(self) -> bool:
        """The view has more lines than fit (growing at the end scrolls it)."""
        ...

    def span_style(self, component: str) -> Style:
        """A component class's style for a span of text (attributes, and its colour blended)."""
        ...

    def entry_style(self, component: str) -> Style:
        """An entry's own style: the view's, with the component's colour, attributes and background."""
        ...

    def entry_changed(self, entry: Entry, first: int = 0, last: int | None = None) -> None:
        """`entry`'s content lines from `first` on (to `last`, if given) changed; its height may have too."""
        ...

    def remove_entry(self, entry: Entry) -> None:
        """Take `entry` out of the transcript (a withdrawn stream)."""
        ...


def blank_line(width: int, style: Style) -> Line:
    return (Segment(" " * max(0, width), style),)


def pad_line(line: Line, width: int, left: int, right: int, style: Style, *, prefix: Line = ()) -> Line:
    """`line` placed in a row of `width` cells: `left` cells (after `prefix`, a border say), the line, then
    filled to `width - right` and `right` more cells, all in `style` where the line has none."""
    used = sum(segment.cell_length for segment in (*prefix, *line)) + left
    fill = max(0, width - used)
    head: tuple[Segment, ...] = (Segment(" " * left, style),) if left else ()
    tail = (Segment(" " * fill, style),) if fill else ()
    return (*prefix, *head, *line, *tail)


class Entry:
    """One entry of the transcript. Subclasses draw `content_line`s; the view adds the gap above."""

    GAP: ClassVar[int] = 1
    """Blank lines above the entry (the margin between entries)."""
    STYLE: ClassVar[str] = "transcript--entry"
    """The component class of the entry's own colour."""
    KIND: ClassVar[str] = "entry"

    painter: Painter | None = None
    grouped: bool = False
    """Set by the view on a tool call right after another: no gap between them."""
    rewound: bool = False
    """A rewind took it out of the model's context: the view draws it dimmed (`transcript--rewound`)."""

    # ------------------------------------------------------------------------------------ the view's side

    def attach(self, painter: Painter) -> None:
        self.painter = painter

    def detach(self) -> None:
        """Taken out of the transcript (cleared, withdrawn): stop whatever runs for it."""

    def remove(self) -> None:
        """Take this entry out of its transcript."""
        if self.painter is not None:
            self.painter.remove_entry(self)

    @property
    def visible(self) -> bool:
        """False draws nothing, not even the gap (a reply that turned out empty)."""
        return True

    @property
    def gap(self) -> int:
        return 0 if self.grouped or not self.visible else self.GAP

    def measure(self, width: int) -> int:
        """The entry's exact height at `width`, gap included (renders what it must)."""
        if not self.visible:
            return 0
        return self.gap + self.content_height(width)

    def estimate(self, width: int) -> int:
        """A cheap guess of `measure(width)`, for an entry not drawn at this width yet."""
        if not self.visible:
            return 0
        return self.gap + self.estimate_content(width)

    def line(self, y: int, width: int) -> Line:
        """Line `y` of the entry (gap included) at `width` cells; call `measure(width)` first."""
        gap = self.gap
        if y < gap:
            return blank_line(width, self.base_style)
        return self.content_line(y - gap, width)

    @property
    def base_style(self) -> Style:
        painter = self.painter
        if painter is None:
            return Style()
        return painter.entry_style(self.style_class())

    def style_class(self) -> str:
        """The component class of the entry's colour (`STYLE`; a notice's depends on its kind)."""
        return self.STYLE

    # ------------------------------------------------------------------------------------ for subclasses

    def content_height(self, width: int) -> int:
        raise NotImplementedError

    def content_line(self, y: int, width: int) -> Line:
        raise NotImplementedError

    def estimate_content(self, width: int) -> int:
        return self.content_height(width)

    @property
    def can_toggle(self) -> bool:
        """Something to expand or collapse (Enter, Space, a click)."""
        return False

    def toggle(self) -> bool:
        """Expand or collapse; False when there was nothing to do."""
        return False

    CAN_COPY: ClassVar[bool] = False
    """The transcript's cursor stops here to copy (a class flag: `copy_text` of every reply costs a join
    of its whole text, too much for each cursor move over a long session)."""

    @property
    def copy_text(self) -> str:
        """What `y` (or Enter on an entry that does not open) copies at the transcript's cursor: the
        entry's own text, whole, not the wrapped lines drawn ("": nothing worth copying)."""
        return ""

    def click(self, y: int, x: int) -> bool:
        """A click on content line `y`, cell `x`; True if it did something (the view repaints)."""
        return self.toggle()

    @property
    def is_finished(self) -> bool:
        return True

    @property
    def is_live(self) -> bool:
        """Wants the view's pacer ticks (a running tool's clock, its output)."""
        return False

    def tick(self, frame: int) -> None:
        """A pacer tick (UI thread), while `is_live`."""

    def record(self) -> TranscriptRecord | None:
        """The entry as plain data (None: nothing to keep)."""
        return None

    def on_style_change(self) -> None:
        """Styles changed: drop what was derived from them (the line caches key on the generation)."""

    def changed(self, first: int = 0, last: int | None = None) -> None:
        """Content lines from `first` on (to `last`) changed: the view measures and repaints them."""
        if self.painter is not None:
            self.painter.entry_changed(self, first, last)

    def rendered_text(self, width: int | None = None) -> str:
        """What the entry shows, as text (trailing spaces removed): for tests and copying."""
        width = width or 80
        height = self.measure(width) if self.painter is not None else 0
        rows = ["".join(segment.text for segment in self.line(y, width)) for y in range(self.gap, height)]
        return "\n".join(row.rstrip() for row in rows)


class LinesEntry(Entry):
    """An entry whose content is a stack of cached lines, one per row, grown at the end.

    What a subclass provides: `blocks()` (finished blocks + the open one), `render_block()` (one block's
    lines at a width), optionally a header (`header_height`, `render_header`) and `body_visible`.
    """

    PAD: ClassVar[tuple[int, int]] = (1, 1)
    """Cells left and right of the content."""

    def __init__(self) -> None:
        self._stack: LineStack[Any] = LineStack(self.render_block, gap_after=self.gap_after)

    # ------------------------------------------------------------------------------------ for subclasses

    def blocks(self) -> tuple[Sequence[Any], Any]:
        return (), None

    def render_block(self, block: Any, width: int) -> list[Line]:
        """One block's lines at `width` cells (the entry's base style applied)."""
        raise NotImplementedError

    def gap_after(self, block: Any) -> bool:
        return False

    def header_height(self) -> int:
        return 0

    def render_header(self, y: int, width: int) -> Line:
        """Header line `y` at the content width `width`."""
        raise NotImplementedError

    def body_visible(self) -> bool:
        return True

    def grow_step(self) -> int:
        """The height grows in steps of this many lines while streaming in a scrolled view: every new line
        scrolls the whole view and the terminal redraws every visible row; two or three at a time divide
        those redraws (the text itself still appears at once, in the reserved lines)."""
        return 1

    # ------------------------------------------------------------------------------------ lines

    def _inner(self, width: int) -> int:
        left, right = self.PAD
        return max(1, width - left - right)

    def _key(self, width: int) -> tuple[int, int]:
        return (self._inner(width), self.painter.generation if self.painter is not None else 0)

    def sync_lines(self, width: int) -> LineChange:
        """Bring the line cache up to date with the model for `width`."""
        finished, open_block = self.blocks()
        return self._stack.sync(finished, open_block, self._key(width), self.base_style)

    def _padded(self, height: int) -> int:
        step = self.grow_step()
        return height if step <= 1 or not height else -(-height // step) * step

    def content_height(self, width: int) -> int:
        top = self.header_height()
        if not self.body_visible():
            return top
        return top + self._padded(self.sync_lines(width).new_height)

    def estimate_content(self, width: int) -> int:
        """The rendered height scaled to a new width (text re-wraps in proportion), else exact."""
        key = self._stack.key
        top = self.header_height()
        if not self.body_visible():
            return top
        if key is not None and self._stack.height and key[0] != self._inner(width):
            return top + max(1, -(-self._stack.height * key[0] // self._inner(width)))
        return self.content_height(width)

    def content_line(self, y: int, width: int) -> Line:
        left, right = self.PAD
        inner = self._inner(width)
        top = self.header_height()
        style = self.base_style
        if y < top:
            return pad_line(self.render_header(y, inner), width, left, right, style)
        if self._stack.key != self._key(width):
            self.sync_lines(width)
        line = self._stack.line(y - top)
        return pad_line(line or (), width, left, right, style)

    @property
    def line_count(self) -> int:
        """Lines of the body at the width last drawn."""
        return self._stack.height

    def refresh_changed(self) -> None:
        """After the model changed: tell the view which lines differ (it decides what to repaint)."""
        painter = self.painter
        if painter is None or not self.body_visible():
            return
        key = self._stack.key
        if key is None:
            self.changed(0)
            return
        finished, open_block = self.blocks()
        change = self._stack.sync(finished, open_block, key, self.base_style)
        self.changed(self.header_height() + change.first)


class LiveUpdates:
    """Runs `update` soon after `request()`, at most `hz` times a second, on the view's pacer (UI thread).

    The first request after a quiet spell runs at once; requests during the next 1/hz s are coalesced into
    one run at the end of it (a deadline on the pacer). So the latest text is on screen within 1/hz s, and a
    burst of thousands of deltas a second costs `hz` renders, not thousands. When an update is costly the
    interval stretches to `slow_factor` times its cost (or the cost it reports: the part repeated on every
    update, such as a huge open code block drawn again), so that work takes at most about 1/slow_factor of
    the UI thread, but never beyond `MAX_INTERVAL`: the screen keeps moving.

    Typed keys come first: while the pacer says input is on its way (`input_pending`), a due update waits
    in steps of `INPUT_WAIT`, for at most `MAX_INTERVAL` since the last one: a key passes several message
    queues on its way to the prompt, each waiting behind whatever render runs then.
    """

    MAX_INTERVAL = timing.RENDER_MAX_INTERVAL
    INPUT_WAIT = timing.RENDER_INPUT_WAIT

    __slots__ = (
        "_deadline",
        "_hz",
        "_interval",
        "_last",
        "_pacer",
        "_requested",
        "_slow_factor",
        "_update",
    )

    def __init__(
        self,
        pacer: Pacer,
        update: Callable[[], float | None],
        *,
        hz: float,
        slow_factor: float = timing.RENDER_SLOW_FACTOR,
    ) -> None:
        self._pacer = pacer
        self._update = update
        self._hz = hz
        self._slow_factor = slow_factor
        self._requested = False
        self._deadline: Deadline | None = None
        self._last = 0.0
        self._interval = 1 / hz

    def request(self) -> None:
        """Ask for an update (cheap: one `call_later` per burst)."""
        if self._requested:
            return
        self._requested = True
        if not self._pacer.soon(self._run):
            self._requested = False  # not running (not mounted yet, or closing): the owner updates later

    def run_now(self) -> None:
        """Update at once, whatever the rate: the stream ended, or a caller needs the result."""
        self.cancel()
        self._requested = False
        self._execute()

    def cancel(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _run(self) -> None:
        self._requested = False
        if self._deadline is not None:
            return  # a deferred run is already due
        now = self._pacer.clock()
        wait = self._last + self._interval - now
        if wait <= 0 and self._yield_to_input(now):
            wait = self.INPUT_WAIT
        if wait > 0:
            self._deadline = self._pacer.after(wait, self._deferred)
            return
        self._execute()

    def _deferred(self) -> None:
        self._deadline = None
        if self._yield_to_input(self._pacer.clock()):
            self._deadline = self._pacer.after(self.INPUT_WAIT, self._deferred)
            return
        self._execute()

    def _yield_to_input(self, now: float) -> bool:
        """True if typed keys are on their way and the screen moved recently enough to wait for them."""
        if now - self._last >= self.MAX_INTERVAL:
            return False
        return self._pacer.input_pending()

    def _execute(self) -> None:
        clock = self._pacer.clock
        start = clock()
        repeated = self._update()
        end = clock()
        self._last = end
        cost = end - start if repeated is None else repeated
        self._interval = min(self.MAX_INTERVAL, max(1 / self._hz, cost * self._slow_factor))
