"""The Markdown look: one set of component classes (`MARKDOWN_CLASSES`, styled by `markdown_css`), on the
transcript for its replies and on `MarkdownView`, a widget that only lends that look to a pane showing
Markdown among other text (the session preview): one Markdown renderer, one look.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from rich.theme import Theme
from textual.widget import Widget

from widgets.support.text_safety import component_text_style, sanitize_display
from widgets.transcript.markdown.blocks import Block, BlockDocument
from widgets.transcript.markdown.lines import LineStack
from widgets.transcript.markdown.render import MarkdownStyle, render_markdown_block

__all__ = ["MARKDOWN_CLASSES", "MarkdownView", "build_markdown_style", "markdown_css"]


def markdown_css(selector: str) -> str:
    """The Markdown look, for `selector`'s component classes (the transcript, `MarkdownView`)."""
    return f"""
    {selector} {{
        & > .markdown-view--h1 {{ color: $markdown-h1-color; text-style: bold; }}
        & > .markdown-view--h2 {{ color: $markdown-h2-color; text-style: $markdown-h2-text-style; }}
        & > .markdown-view--h3 {{ color: $markdown-h3-color; text-style: $markdown-h3-text-style; }}
        & > .markdown-view--h4 {{ color: $markdown-h4-color; text-style: $markdown-h4-text-style; }}
        & > .markdown-view--h5 {{ color: $markdown-h5-color; text-style: $markdown-h5-text-style; }}
        & > .markdown-view--h6 {{ color: $markdown-h6-color; text-style: $markdown-h6-text-style; }}
        & > .markdown-view--code-inline {{ background: $warning 10%; color: $text-warning 95%; }}
        &:light > .markdown-view--code-inline {{ background: $error 5%; color: $text-error 95%; }}
        & > .markdown-view--code-block {{ background: $foreground 4%; }}
        & > .markdown-view--quote {{ color: $text-muted; text-style: italic; }}
        & > .markdown-view--bullet {{ color: $text-primary; text-style: bold; }}
        &:light > .markdown-view--bullet {{ color: $text-secondary; }}
        & > .markdown-view--number {{ color: $text-primary; }}
        & > .markdown-view--rule {{ color: $secondary; }}
        & > .markdown-view--link {{ color: $text-accent; text-style: underline; }}
        & > .markdown-view--table-border {{ color: $foreground 30%; }}
        & > .markdown-view--table-header {{ color: $text-primary; text-style: bold; }}
    }}
    """


_STYLE_MAP: dict[str, str] = {
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

MARKDOWN_CLASSES: frozenset[str] = frozenset(
    {f"markdown-view--{name}" for name in _STYLE_MAP.values()} | {"markdown-view--code-block"}
)


def build_markdown_style(widget: Widget, base: Style) -> MarkdownStyle:
    """The Rich theme and code colours of `widget`'s Markdown component classes (the current theme's)."""
    dark = widget.app.current_theme.dark if widget.is_attached else True
    styles: dict[str, Style] = {
        "markdown.code_block": Style(),
        "markdown.list": Style(),
        "markdown.h1.border": Style(),
        "markdown.kbd": Style(bold=True),
    }
    for rich_name, component in _STYLE_MAP.items():
        styles[rich_name] = component_text_style(widget, f"markdown-view--{component}")
    # Inline code needs its background blended over ours: take the full (non-partial) style.
    styles["markdown.code"] = widget.get_component_rich_style("markdown-view--code-inline")
    block_bg = widget.get_component_rich_style("markdown-view--code-block").bgcolor
    return MarkdownStyle(
        theme=Theme(styles, inherit=True),
        code_theme="monokai" if dark else "default",
        code_background=block_bg.name if block_bg is not None else None,
        base=base,
    )


class MarkdownView(Widget):
    """Lends the replies' Markdown look to a pane that shows Markdown among other text (`render_source`).
    It draws nothing itself (keep it hidden)."""

    DEFAULT_CSS = markdown_css("MarkdownView")
    COMPONENT_CLASSES: ClassVar[set[str]] = set(MARKDOWN_CLASSES)

    def render_source(self, source: str, width: int) -> Text:
        """Markdown drawn exactly as the transcript draws a reply (blocks, gaps, the theme's styles), as one
        `Text` of lines at most `width` cells wide. The view must be attached (it lends its styles)."""
        document = BlockDocument(sanitize_display(source))
        document.close()
        console = self.app.console
        style = build_markdown_style(self, self.rich_style)
        stack: LineStack[Block] = LineStack(
            lambda block, cells: render_markdown_block(console, block, cells, style),
            gap_after=lambda block: block.separated,
        )
        stack.sync(document.finished, document.open_block, (max(1, width), 0))
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
