"""`LineView`: the base of every widget that grows while you watch (a reply, reasoning, a tool's output).

One widget, drawn with Textual's Line API (`render_line` returning a `Strip` per line, as `Log` does), never
a widget per block: mounting and styling widgets is what made streaming expensive (design.md §9). The
widget's height is its line count; the transcript around it does the scrolling.

What a subclass provides: `blocks()` (finished blocks + the open one, from its model) and `render_block()`
(one block's strips at a width). What the base does:

- caches the lines per (width, style generation) in a `LineStack`, so only new or open blocks are
  rendered; a theme change or a resize renders every block again, once, at the next layout;
- `refresh_changed()` repaints just the lines that differ, and asks for a layout only when the height
  changed (in steps of `grow_step()` lines while streaming in a scrolled view: each layout scrolls and
  redraws the whole screen); a height-only change keeps the painted lines where `textual_compat` is
  active (`quiet_resize`);
- text selection: every strip carries its (x, y) offsets; `get_selection()` extracts from the rendered
  lines' text, so copying gives what the user sees (bullets and all), never Markdown markup;
- `LiveUpdates` (a helper used by subclasses) coalesces updates from any thread and runs them on the UI
  thread at most `RENDER_HZ` times a second, the first one at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Protocol

from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from widgets.markdown_view.lines import LineChange, LineStack
from widgets.markdown_view.render import Line
from widgets.transcript_part import TranscriptPart

__all__ = ["InputAware", "LineView", "LiveUpdates"]


class LineView(TranscriptPart):
    """A widget whose content is a stack of cached strips, one per line, grown at the end."""

    DEFAULT_CSS = """
    LineView {
        height: auto;
    }
    """

    PAINTED_KEPT: ClassVar[int] = 200
    """Painted lines kept above the end while the widget grows (see `_prune_painted`)."""

    _style_generation: int = 0
    _estimate_allowed: bool = False

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._stack: LineStack[Any] = LineStack(self.render_block, gap_after=self.gap_after)

    # ------------------------------------------------------------------------------------ for subclasses

    def blocks(self) -> tuple[Sequence[Any], Any]:
        """The finished blocks and the open one (or None)."""
        return (), None

    def render_block(self, block: Any, width: int) -> list[Line]:
        """One block's lines at `width` cells (the widget's base style already applied)."""
        raise NotImplementedError

    def gap_after(self, block: Any) -> bool:
        """Whether a blank line follows `block` before the next one."""
        return False

    def on_style_change(self) -> None:
        """Styles changed (theme, focus): drop whatever the subclass derived from them."""

    def header_height(self) -> int:
        """Lines drawn above the cached ones by `render_header` (a title line, say)."""
        return 0

    def render_header(self, y: int, width: int) -> Strip:
        """Header line `y` (0 <= y < `header_height()`)."""
        raise NotImplementedError

    def body_visible(self) -> bool:
        """False to show the header only (a collapsed block)."""
        return True

    def grow_step(self) -> int:
        """The height grows in steps of this many lines (blank ones at the end until text fills them).

        While a reply streams at the bottom of the transcript, every new line scrolls the whole view and
        Textual redraws every visible row (~10 KB of terminal output). Growing two or three lines at a
        time divides those redraws; the text itself still appears at once, in the reserved lines."""
        return 1

    def _padded(self, height: int) -> int:
        step = self.grow_step()
        return height if step <= 1 or not height else -(-height // step) * step

    # ------------------------------------------------------------------------------------ model -> lines

    @property
    def base_style(self) -> Style:
        """The widget's colour and background, to put under every segment."""
        return self.visual_style.rich_style

    @property
    def line_count(self) -> int:
        """Lines rendered at the current width (what the widget shows)."""
        return self._stack.height

    def sync_lines(self, width: int | None = None) -> LineChange:
        """Bring the strip cache up to date with the model for `width` (default: the current width)."""
        if width is None:
            width = self.size.width
        finished, open_block = self.blocks()
        change = self._stack.sync(finished, open_block, (width, self._style_generation), self.base_style)
        end = max(change.new_height, change.old_height)
        if change.first < end and self.is_mounted:
            # The painted copies of these lines are stale, whoever asked for the sync (a layout too):
            # so Textual's cache of painted lines only ever holds current ones (see `_prune_painted`).
            stale = Region(0, self.header_height() + change.first, 1, end - change.first)
            self.painted_stale(stale.translate(self.content_offset))
        return change

    def refresh_changed(self) -> None:
        """After the model changed: render what changed and repaint only those lines (a layout only when
        the height changed, which is what moves the rest of the transcript)."""
        if not self.is_mounted or not self.body_visible():
            return  # the first layout renders; a hidden body is rendered when shown
        width = self.size.width
        if width <= 0:
            self.refresh(layout=True)  # not laid out yet
            return
        change = self.sync_lines(width)
        top = self.header_height()
        padded = top + self._padded(change.new_height)
        grows = padded != self.size.height
        bottom = max(padded, self.size.height) if grows else top + max(change.new_height, change.old_height)
        if top + change.first < bottom:
            self.refresh(Region(0, top + change.first, width, bottom - top - change.first), layout=grows)

    def painted_stale(self, region: Region) -> None:
        """The painted copies of the lines in `region` are out of date. Plain Textual repaints a resized
        widget whole, so nothing is kept to go stale; `textual_compat.quiet_resize` keeps painted lines
        across a height change and forgets these."""

    def refresh_header(self) -> None:
        """Repaint the header lines only."""
        if self.is_mounted and (top := self.header_height()):
            self.refresh(Region(0, 0, self.size.width, top))

    def rendered_text(self) -> str:
        """The text of every rendered line (what the user reads), trailing spaces removed."""
        width = self.size.width
        lines = [self.render_header(y, width).text for y in range(self.header_height())]
        if self.body_visible():
            lines.extend("".join(segment.text for segment in line) for line in self._stack.lines())
        return "\n".join(line.rstrip() for line in lines)

    # ------------------------------------------------------------------------------------ Textual hooks

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._style_generation += 1
        self.on_style_change()
        self.refresh()

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width <= 0:
            return 0
        top = self.header_height()
        if not self.body_visible():
            return top
        if self._estimate_allowed and (estimate := self._estimated_height(width)) is not None:
            return top + self._padded(estimate)
        return top + self._padded(self.sync_lines(width).new_height)

    # ------------------------------------------------------------------------------------ lazy resize

    def allow_estimate(self, allowed: bool = True) -> None:
        """Let the next layout at a new width use an estimated height instead of rendering every block.

        Set by the container for entries out of view when the width changes, so a resize renders what the
        user sees first; `settle_height()` renders the rest right after the first frame.
        """
        self._estimate_allowed = allowed

    def settle_height(self) -> bool:
        """Render at the current width (ending an estimate); True if the height differs from the one laid
        out (a layout was then requested)."""
        self._estimate_allowed = False
        width = self.size.width
        if width <= 0 or not self.body_visible():
            return False
        height = self.header_height() + self._padded(self.sync_lines(width).new_height)
        if height == self.size.height:
            return False
        self.refresh(layout=True)
        return True

    def _estimated_height(self, width: int) -> int | None:
        """The rendered height scaled to a new width (text re-wraps in proportion), or None when there is
        nothing to scale from (never rendered, or the theme changed: render for real)."""
        key = self._stack.key
        if key is None or key[1] != self._style_generation or key[0] == width or not self._stack.height:
            return None
        return max(1, -(-self._stack.height * key[0] // width))

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        top = self.header_height()
        strip: Strip | None = None
        if y < top:
            strip = self.render_header(y, width)
        elif self.body_visible():
            if self._stack.key != (width, self._style_generation):
                self.sync_lines(width)
            if (line := self._stack.line(y - top)) is not None:
                strip = Strip(line)
        if strip is None:
            return Strip.blank(width, self.base_style)
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(y)) is not None:
            strip = self._select(strip, *span)
        return strip.apply_offsets(0, y)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract(self.rendered_text()), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def _select(self, strip: Strip, start: int, end: int) -> Strip:
        """`strip` with characters [start, end) (end -1: to the end) in the screen's selection style."""
        text = Text.assemble(
            *((segment.text, segment.style or "") for segment in strip if segment.text), end=""
        )
        text.stylize(
            self.screen.get_component_rich_style("screen--selection"), start, len(text) if end < 0 else end
        )
        return Strip(text.render(self.app.console))


class InputAware(Protocol):
    """An app that knows whether typed keys are still on their way to their widget."""

    def input_pending(self) -> bool: ...


class LiveUpdates:
    """Runs `update` on the UI thread soon after `request()` (from any thread), at most `hz` times a second.

    The first request after a quiet spell runs at once; requests during the next 1/hz s are coalesced into
    one run at the end of it. So the latest text is on screen within 1/hz s, and a burst of thousands of
    deltas a second costs `hz` renders, not thousands. When an update is costly the interval stretches to
    `slow_factor` times its cost (or the cost it reports: the part repeated on every update, such as a
    huge open code block drawn again), so that work takes at most about 1/slow_factor of the UI thread,
    but never beyond `MAX_INTERVAL`: the screen keeps moving.

    Typed keys come first: while the app says input is on its way (an `input_pending()` method on the app,
    see `InputAware`), a due update waits in steps of `INPUT_WAIT`, for at most `MAX_INTERVAL` since the
    last one. A render of a fast stream is a slice of tens of milliseconds, and a key passes several
    message queues on its way to the prompt, each waiting behind whatever slice runs then: during a burst
    five typed letters took half a second to show (measured in tmux); without the renders in their way,
    they are echoed at once.
    """

    MAX_INTERVAL = 0.2
    INPUT_WAIT = 0.02

    __slots__ = (
        "_hz",
        "_interval",
        "_last",
        "_lock",
        "_owner",
        "_requested",
        "_slow_factor",
        "_timer",
        "_update",
    )

    def __init__(
        self, owner: Widget, update: Callable[[], float | None], *, hz: float, slow_factor: float = 4.0
    ) -> None:
        self._owner = owner
        self._update = update
        self._hz = hz
        self._slow_factor = slow_factor
        self._lock = threading.Lock()
        self._requested = False
        self._timer: Timer | None = None
        self._last = 0.0
        self._interval = 1 / hz

    def request(self) -> None:
        """Ask for an update (thread-safe, cheap: one message per burst)."""
        with self._lock:
            if self._requested:
                return
            self._requested = True
        if not self._owner.call_later(self._run):
            with self._lock:
                self._requested = False  # not running (not mounted yet, or closing): the owner updates later

    def run_now(self) -> None:
        """Update at once (UI thread), whatever the rate: the stream ended, or a caller needs the result."""
        self.cancel()
        with self._lock:
            self._requested = False
        self._execute()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _run(self) -> None:
        with self._lock:
            self._requested = False
        if self._timer is not None:
            return  # a deferred run is already due
        now = time.monotonic()
        wait = self._last + self._interval - now
        if wait <= 0 and self._yield_to_input(now):
            wait = self.INPUT_WAIT
        if wait > 0:
            self._timer = self._owner.set_timer(wait, self._deferred, name="live-update")
            return
        self._execute()

    def _deferred(self) -> None:
        self._timer = None
        if self._yield_to_input(time.monotonic()):
            self._timer = self._owner.set_timer(self.INPUT_WAIT, self._deferred, name="live-update")
            return
        self._execute()

    def _yield_to_input(self, now: float) -> bool:
        """True if typed keys are on their way and the screen moved recently enough to wait for them."""
        if now - self._last >= self.MAX_INTERVAL:
            return False
        try:
            pending = getattr(self._owner.app, "input_pending", None)
        except Exception:  # no app (a test drives the widget alone)
            return False
        return bool(pending is not None and pending())

    def _execute(self) -> None:
        start = time.monotonic()
        repeated = self._update()
        end = time.monotonic()
        self._last = end
        cost = end - start if repeated is None else repeated
        self._interval = min(self.MAX_INTERVAL, max(1 / self._hz, cost * self._slow_factor))
