"""Render one Markdown block (or one line of plain text) into strips, with Rich, themed from Textual.

Rich's Markdown elements do the drawing (headings, nested lists, tables, quotes, rules, links, highlighted
code); they are fed the block's markdown-it tokens directly, so nothing is parsed twice. A few elements are
adjusted to match the rest of the app: headings stay left-aligned, fenced code uses the Textual theme's
code background instead of the Pygments one. Model text only ever reaches Rich as token text appended to
`Text` objects: it is never interpreted as console markup.

The Markdown elements themselves are in `rich_elements`, imported by the first block drawn: Rich's
Markdown, Syntax and Pygments cost ~25 ms that the first frame (an empty chat) does not need.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from rich.theme import Theme

if TYPE_CHECKING:
    from widgets.transcript.markdown.blocks import Block

__all__ = ["Line", "MarkdownStyle", "render_markdown_block", "render_plain", "render_text"]

Line = tuple[Segment, ...]
"""One rendered line: its segments, the widget's base style applied. Kept as a plain tuple, not a Textual
`Strip`: a Strip carries seven caches of its own, and a long reply held as Strips was 60,000 extra objects
for the garbage collector to scan on every full pass (~0.1 s pauses while a burst streamed)."""


@dataclass(frozen=True, slots=True)
class MarkdownStyle:
    """Everything a block's look depends on besides its text and the width."""

    theme: Theme
    """Rich `markdown.*` styles, taken from the widget's component classes (so from the Textual theme)."""
    code_theme: str
    """The Pygments theme for code (a dark or a light one, following the Textual theme)."""
    code_background: str | None
    """Background of fenced code blocks (the theme's, not the Pygments theme's)."""
    base: Style
    """The widget's own style (colour, background), under everything."""


def _lines(lines: list[list[Segment]], base: Style) -> list[Line]:
    apply = Segment.apply_style
    return [tuple(apply(line, base)) for line in lines]


def render_markdown_block(console: Console, block: Block, width: int, style: MarkdownStyle) -> list[Line]:
    """The lines of one top-level block at `width` cells."""
    from widgets.transcript.markdown.rich_elements import BlockMarkdown

    document = BlockMarkdown(block.tokens, code_theme=style.code_theme, code_background=style.code_background)
    options = console.options.update(width=max(1, width), height=None, highlight=False)
    with console.use_theme(style.theme):
        lines = console.render_lines(document, options, pad=False, new_lines=False)
    # Rich starts a block with an empty line when a nested element asked for space after it (a list's
    # last paragraph): between blocks, the caller already puts one blank line.
    skip = 0
    while skip < len(lines) and not any(segment.text for segment in lines[skip]):
        skip += 1
    return _lines(lines[skip:], style.base)


def render_plain(console: Console, text: str, width: int, style: Style) -> list[Line]:
    """One line of plain text (no markup, no highlighting), wrapped at `width` cells."""
    return render_text(console, Text(text, end=""), width, style)


def render_text(console: Console, text: Text, width: int, base: Style) -> list[Line]:
    """A `Text` (already styled spans), wrapped at `width` cells, over the `base` style."""
    if not text:
        return [(Segment(" ", base),)]
    options = console.options.update(width=max(1, width), height=None, highlight=False)
    return _lines(console.render_lines(text, options, pad=False, new_lines=False), base)
