"""Unit tests of the models behind the line-cached views (no screen): how a growing Markdown document is
split into blocks, which lines are rendered (and how often), and plain text kept as lines."""

from __future__ import annotations

import pytest
from rich.console import Console
from rich.style import Style
from rich.theme import Theme

from widgets.transcript.markdown.blocks import Block, BlockDocument
from widgets.transcript.markdown.lines import LineStack
from widgets.transcript.markdown.render import Line, MarkdownStyle, render_markdown_block
from widgets.transcript.markdown.text_lines import TextLines

EVERY_ELEMENT = (
    "# Title\n\nIntro with **bold**, *italic*, `code`, ~~gone~~ and a [link](https://example.com).\n\n"
    "## Lists\n\n- one\n- two\n  - nested *a*\n  - nested b\n- three\n\n1. first\n2. second\n\n"
    "> A quote\n> over two lines\n\n```python\ndef f(x):\n    return x + 1\n```\n\n"
    "| name | value |\n|------|------:|\n| a | 1 |\n| 漢字 | 22 |\n\n---\n\n"
    "Setext heading\n==============\n\n    indented code\n\nWide 😀 emoji and [bold]not markup[/bold].\n"
)


def feed_in_pieces(source: str, size: int) -> BlockDocument:
    document = BlockDocument()
    for start in range(0, len(source), size):
        document.feed(source[start : start + size])
        document.update()
    document.close()
    return document


@pytest.mark.parametrize("size", [1, 2, 3, 7, 50, 10_000])
def test_a_streamed_document_ends_with_the_same_blocks_as_the_whole_text(size: int) -> None:
    whole = BlockDocument(EVERY_ELEMENT)
    whole.close()
    streamed = feed_in_pieces(EVERY_ELEMENT, size)
    assert [b.source for b in streamed.blocks] == [b.source for b in whole.blocks]
    assert [b.kind for b in streamed.blocks] == [b.kind for b in whole.blocks]
    assert "".join(b.source for b in whole.blocks) == EVERY_ELEMENT
    assert all(block.finished for block in streamed.blocks)


def test_only_the_last_block_is_open_and_finished_blocks_never_change() -> None:
    document = BlockDocument()
    seen: list[Block] = []
    for start in range(0, len(EVERY_ELEMENT), 5):
        document.feed(EVERY_ELEMENT[start : start + 5])
        document.update()
        assert list(document.finished[: len(seen)]) == seen  # the same objects, in the same order
        seen = list(document.finished)
        if document.open_block is not None:
            assert not document.open_block.finished
    assert document.open_block is not None  # the last paragraph is still open until the stream ends
    document.close()
    assert document.open_block is None and len(document.finished) == len(seen) + 1


def test_an_open_code_fence_is_one_open_block_until_it_closes() -> None:
    document = BlockDocument("Intro.\n\n```python\ndef f():\n\n    return 1\n")
    document.update()
    assert [b.kind for b in document.finished] == ["paragraph_open"]
    assert document.open_block is not None and document.open_block.kind == "fence"
    document.feed("```\n\nAfter.")
    document.update()
    assert [b.kind for b in document.finished] == ["paragraph_open", "fence"]


def test_a_document_cannot_grow_after_close() -> None:
    document = BlockDocument("text")
    document.close()
    with pytest.raises(ValueError):
        document.feed("more")


def _stack(console: Console) -> tuple[LineStack[Block], list[str]]:
    rendered: list[str] = []
    style = MarkdownStyle(Theme({}), "monokai", None, Style())

    def render(block: Block, width: int) -> list[Line]:
        rendered.append(block.source)
        return render_markdown_block(console, block, width, style)

    return LineStack(render, gap_after=lambda block: block.separated), rendered


def test_each_finished_block_is_rendered_once_per_width() -> None:
    console = Console(width=80, color_system=None)
    stack, rendered = _stack(console)
    document = BlockDocument()
    for start in range(0, len(EVERY_ELEMENT), 4):
        document.feed(EVERY_ELEMENT[start : start + 4])
        document.update()
        stack.sync(document.finished, document.open_block, (60, 0))
    document.close()
    stack.sync(document.finished, None, (60, 0))
    finished_renders = [source for source in rendered if source in {b.source for b in document.finished}]
    # A block's final text is rendered when it finishes; before that it was the open block (re-rendered as
    # it grew). Once finished, never again at this width:
    assert stack.rendered_blocks == len(document.finished)
    rendered.clear()
    stack.sync(document.finished, None, (60, 0))
    assert rendered == []
    stack.sync(document.finished, None, (40, 0))  # a resize renders everything again, once
    assert len(rendered) == len(document.finished)
    assert finished_renders


def test_sync_reports_the_first_line_that_changed() -> None:
    console = Console(width=80, color_system=None)
    stack, _ = _stack(console)
    document = BlockDocument("First paragraph.\n\nSecond paragraph that will")
    document.update()
    stack.sync(document.finished, document.open_block, (80, 0))
    height = stack.height
    document.feed(" grow a little.")
    document.update()
    change = stack.sync(document.finished, document.open_block, (80, 0))
    assert change.first == height - 1  # only the open paragraph's (last) line changed
    assert not change.resized
    unchanged = stack.sync(document.finished, document.open_block, (80, 0))
    assert unchanged.first == stack.height  # nothing changed


def test_blocks_are_separated_like_a_whole_rich_document() -> None:
    console = Console(width=70, color_system=None)
    stack, _ = _stack(console)
    document = BlockDocument("Para one.\n\n- a\n- b\n\n---\n\nPara two.\n")
    document.close()
    stack.sync(document.finished, None, (70, 0))
    lines = ["".join(segment.text for segment in line).rstrip() for line in stack.lines()]
    assert lines == ["Para one.", "", " • a", " • b", "", "-" * 70, "", "Para two."]


def test_text_lines_keep_finished_lines_and_hold_trailing_blank_lines() -> None:
    lines = TextLines()
    lines.feed("\n\nfirst\nsec")
    assert [line.text for line in lines.finished] == ["first"]
    assert lines.open_line is not None and lines.open_line.text == "sec"
    first = lines.finished[0]
    lines.feed("ond\n\n\n")
    assert [line.text for line in lines.finished] == ["first", "second"]  # blank lines wait for text
    assert lines.finished[0] is first
    lines.feed("third")
    assert [line.text for line in lines.finished] == ["first", "second", "", ""]
    lines.close()
    assert [line.text for line in lines.finished][-1] == "third" and lines.open_line is None
