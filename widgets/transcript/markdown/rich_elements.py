"""Rich's Markdown elements as the app draws them: drawn from already parsed tokens (one block's), headings
left-aligned, fenced code on the Textual theme's code background with a cached Pygments lexer.

Imported on the first block drawn (`render.render_markdown_block`), not at startup: Rich's Markdown, Syntax
and Pygments are ~25 ms that an empty chat's first frame does not need.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import ClassVar

from markdown_it.token import Token
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Heading
from rich.markdown import Markdown as RichMarkdown
from rich.syntax import Syntax

__all__ = ["COMMON_FENCES", "BlockMarkdown", "warm_lexers"]

COMMON_FENCES = ("python", "bash")
"""Fence languages whose lexers are built ahead of the first reply (`warm_lexers`): Pygments compiles a
lexer's regular expressions on first use, 63 ms for Python, and the first code block of a session then
stalled the stream (py-spy at 50 chunks/s: 4% of the UI thread over the whole reply, all in one go)."""


class _LeftHeading(Heading):
    """Rich centres h1; the rest of the app keeps headings left-aligned."""

    LEVEL_ALIGN: ClassVar = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")


@lru_cache(maxsize=64)
def _lexer(name: str) -> Lexer | str:
    """A Pygments lexer by fence name, looked up once (the open fence of a stream is drawn ~15 times a
    second; Rich would search the lexer registry each time). Unknown names draw as plain text."""
    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=4)
    except ClassNotFound:
        return "text"


class _ThemedCodeBlock(CodeBlock):
    """A fenced code block whose background comes from the Textual theme instead of the Pygments theme."""

    background: str | None = None

    @classmethod
    def create(cls, markdown: RichMarkdown, token: Token) -> _ThemedCodeBlock:
        block = super().create(markdown, token)
        assert isinstance(block, _ThemedCodeBlock)
        block.background = getattr(markdown, "code_background", None)
        return block

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        yield Syntax(
            code,
            _lexer(self.lexer_name),
            theme=self.theme,
            word_wrap=True,
            padding=(0, 1),
            background_color=self.background,
        )


class BlockMarkdown(RichMarkdown):
    """Rich Markdown drawn from already parsed tokens (one block's), with the app's element tweaks."""

    elements: ClassVar = {
        **RichMarkdown.elements,
        "heading_open": _LeftHeading,
        "fence": _ThemedCodeBlock,
        "code_block": _ThemedCodeBlock,
    }

    def __init__(self, tokens: Iterable[Token], *, code_theme: str, code_background: str | None) -> None:
        # Not calling super().__init__: it would parse the source again. These are the attributes Rich's
        # `__rich_console__` reads (rich 15).
        self.markup = ""
        self.parsed = list(tokens)
        self.code_theme = code_theme
        self.justify = None
        self.style = "none"
        self.hyperlinks = True
        self.inline_code_lexer = None
        self.inline_code_theme = code_theme
        self.code_background = code_background


def warm_lexers(names: Iterable[str] = COMMON_FENCES) -> None:
    """Build (and cache) the lexers of `names` now: from a background thread after the first frame."""
    for name in names:
        _lexer(name)
