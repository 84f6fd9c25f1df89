"""What the transcript lends its entries to draw with: the styles of its component classes, per generation.

Entries are models, not widgets (`widgets.transcript.entries`), so they have no styles of their own: every
component class is the transcript's (`Transcript > .tool-panel--*` and so on, `TRANSCRIPT_CSS`; the class
names kept from when entries were widgets), and an entry asks the lender for a span's or its own style.
Styles are looked up once per style generation: a new generation only when what entries draw with
changed (a theme, a hot reload; a focus change usually changes nothing they use and costs nothing then).

The lender is the entries' `Painter`: what they report back (a change, a withdrawal) goes to the view.
"""

from __future__ import annotations

from typing import Protocol

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

from widgets.transcript.entries.base import Entry
from widgets.transcript.markdown.look import MARKDOWN_CLASSES, build_markdown_style, markdown_css
from widgets.transcript.markdown.render import MarkdownStyle
from widgets.transcript.pacer import Pacer

__all__ = ["COMPONENT_CLASSES", "TRANSCRIPT_CSS", "EntryOwner", "StyleLender"]


_COMPONENT_CSS = """
Transcript {
    height: 1fr;
    padding: 0;
    scrollbar-size-vertical: 1;
    scrollbar-gutter: stable;  /* the width never changes when the scrollbar comes: no re-wrap mid-stream */
    color: $foreground;
    & > .transcript--reply { color: $foreground; }
    & > .transcript--cursor { background: $primary 15%; }
    & > .transcript--new-output { background: $primary 25%; color: $foreground; }
    & > .transcript--user { background: $boost; color: $foreground; }
    & > .transcript--rewound { color: $text-disabled; }
    & > .user-message--border { color: $primary; }
    & > .user-message--more { color: $text-muted; text-style: italic; }
    & > .user-message--image { color: $text-accent; text-style: bold; }
    & > .reasoning--base { color: $text-muted; }
    & > .reasoning--title { color: $text-secondary; text-style: bold; }
    & > .reasoning--meta { color: $text-muted; }
    & > .reasoning--body { color: $text-muted; text-style: italic; }
    & > .notice--info { color: $text-muted; }
    & > .notice--warn { color: $text-warning; }
    & > .notice--retry { color: $text-warning; }
    & > .notice--error { color: $text-error; }
    & > .notice--interrupted { color: $text-warning; }
    & > .notice--success { color: $text-success; }
    & > .notice--hint { color: $text-muted; }
    & > .transcript--tool { color: $foreground; }
    & > .tool-panel--body { color: $foreground 80%; }
    & > .tool-panel--border-body { color: $foreground 20%; }
    & > .tool-panel--border-error { color: $error 70%; }
    & > .tool-panel--border-denied { color: $error 70%; }
    & > .tool-panel--border-running { color: $accent 60%; }
    & > .tool-panel--chevron { color: $text-muted; }
    & > .tool-panel--name { color: $text-primary; text-style: bold; }
    & > .tool-panel--summary { color: $foreground 85%; }
    & > .tool-panel--preparing { color: $text-muted; text-style: italic; }
    & > .tool-panel--time { color: $text-muted; }
    & > .tool-panel--running { color: $accent; }
    & > .tool-panel--ok { color: $success; }
    & > .tool-panel--error { color: $error; }
    & > .tool-panel--cancelled { color: $warning; }
    & > .tool-panel--denied { color: $error; }
    & > .tool-panel--note { color: $text-muted; text-style: italic; }
    & > .tool-panel--error-text { color: $text-error; }
    & > .tool-panel--diff-add { color: $success; }
    & > .tool-panel--diff-del { color: $error; }
    & > .tool-panel--diff-hunk { color: $accent; }
    & > .tool-panel--diff-meta { color: $text-muted; text-style: bold; }
    & > .tool-panel--todo-pending { color: $foreground; }
    & > .tool-panel--todo-active { color: $accent; text-style: bold; }
    & > .tool-panel--todo-done { color: $success; }
    & > .tool-panel--todo-cancelled { color: $text-muted; text-style: strike; }
    & > .subagents--border { color: $accent 40%; }
    & > .subagents--goal { color: $foreground; text-style: bold; }
    & > .subagents--running { color: $accent; }
    & > .subagents--ok { color: $success; }
    & > .subagents--error { color: $error; }
    & > .subagents--cancelled { color: $warning; }
    & > .subagents--muted { color: $text-muted; }
    & > .subagents--text { color: $text-muted; text-style: italic; }
    & > .spinner--glyph { color: $accent; }
    & > .spinner--face { color: $secondary; }
    & > .spinner--verb { color: $foreground; text-style: italic; }
    & > .spinner--elapsed { color: $text-muted; }
    & > .spinner--hint { color: $text-muted; }
    & > .spinner--stall { color: $text-warning; }
}
"""


def _component_classes() -> frozenset[str]:
    names = {
        line.strip().split("{")[0].strip().removeprefix("& > .")
        for line in _COMPONENT_CSS.splitlines()
        if line.strip().startswith("& > .")
    }
    return frozenset(names | set(MARKDOWN_CLASSES))


TRANSCRIPT_CSS = _COMPONENT_CSS + markdown_css("Transcript")
COMPONENT_CLASSES: frozenset[str] = _component_classes()


class EntryOwner(Protocol):
    """The view, as the entries' painter reports to it."""

    @property
    def pacer(self) -> Pacer: ...

    def entry_changed(self, entry: Entry, first: int = 0, last: int | None = None) -> None: ...

    def remove_entry(self, entry: Entry) -> None: ...


class StyleLender:
    """The `Painter` the transcript's entries draw with: `widget`'s console and component styles, cached
    per style generation; their changes go to `owner` (the same view)."""

    def __init__(self, widget: Widget, owner: EntryOwner) -> None:
        self._widget = widget
        self.owner = owner
        """Where the entries' reports go (the view)."""
        self._generation = 0
        self._styles: dict[tuple[str, bool], Style] = {}
        self._signature: tuple[Style, ...] | None = None
        self._stale = True
        self._base: Style | None = None
        self._markdown: MarkdownStyle | None = None

    # ----------------------------------------------------------------------------------------- Painter

    @property
    def pacer(self) -> Pacer:
        return self.owner.pacer

    @property
    def console(self) -> Console:
        return self._widget.app.console

    @property
    def generation(self) -> int:
        return self._generation

    @property
    def base_style(self) -> Style:
        """The view's own colour and background (`rich_style` walks every ancestor: kept until styles
        change, as it is under every row)."""
        if self._base is None:
            self._base = self._widget.rich_style
        return self._base

    @property
    def scrolls(self) -> bool:
        return self._widget.max_scroll_y > 0

    @property
    def markdown_style(self) -> MarkdownStyle:
        """The replies' Markdown look, built once per style generation and shared by every reply."""
        if self._markdown is None:
            self._markdown = build_markdown_style(self._widget, self.entry_style("transcript--reply"))
        return self._markdown

    def span_style(self, component: str) -> Style:
        """A component's style for a span of text: its attributes, and its colour blended (Textual's
        partial style cannot blend `$text-muted` or a colour with alpha; the full one carries the
        background too, which would paint over the cursor's)."""
        key = (component, False)
        style = self._styles.get(key)
        if style is None:
            widget = self._widget
            partial = widget.get_component_rich_style(component, partial=True)
            if partial.color is not None:
                partial = partial + Style(color=widget.get_component_rich_style(component).color)
            style = self._styles[key] = partial
        return style

    def entry_style(self, component: str) -> Style:
        """An entry's own style: the view's, with the component's colour, attributes and background."""
        key = (component, True)
        style = self._styles.get(key)
        if style is None:
            full = self._widget.get_component_rich_style(component)
            style = self.base_style + self.span_style(component) + Style(bgcolor=full.bgcolor)
            self._styles[key] = style
        return style

    def entry_changed(self, entry: Entry, first: int = 0, last: int | None = None) -> None:
        self.owner.entry_changed(entry, first, last)

    def remove_entry(self, entry: Entry) -> None:
        self.owner.remove_entry(entry)

    # ----------------------------------------------------------------------------------------- the view's

    def styles_updated(self) -> None:
        """Textual updated the view's styles: looked at before the next paint (`restyle`), as component
        styles come after the notice."""
        self._stale = True

    def restyle(self) -> bool:
        """After a style update: a new generation if what entries draw with changed (True: lines drawn
        before are stale)."""
        if not self._stale:
            return False
        self._stale = False
        self._styles = {}
        self._base = None
        widget = self._widget
        signature = (
            widget.rich_style,
            *(widget.get_component_rich_style(name) for name in sorted(COMPONENT_CLASSES)),
        )
        if signature == self._signature:
            return False
        self._signature = signature
        self._generation += 1
        self._markdown = None
        return True

    def cursor_style(self) -> Style:
        """The keyboard cursor's highlight: a background over the entry's own styles."""
        return Style(bgcolor=self._widget.get_component_rich_style("transcript--cursor").bgcolor)

    def rewound_style(self) -> Style:
        """Over a rewound entry's own styles: its text in the theme's disabled colour (dimmed)."""
        return self.span_style("transcript--rewound")

    def bar(self, label: str, width: int) -> Strip:
        """A row `width` cells wide with `label` centred in the "new output" bar's style."""
        style = self._widget.get_component_rich_style("transcript--new-output")
        label = label[:width]
        left = max(0, (width - len(label)) // 2)
        return Strip([Segment(" " * left + label + " " * max(0, width - left - len(label)), style)], width)
