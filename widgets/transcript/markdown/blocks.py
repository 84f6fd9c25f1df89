"""A growing Markdown document split into top-level blocks: the finished ones and the open last one.

Why: a streamed reply only ever changes at its end. Once a new top-level block has started (markdown-it's
token line maps tell where), every block before it is final, so it can be parsed and rendered once and
cached. Only the open tail (usually one paragraph, list or code fence) is parsed again as text arrives.
This is the assumption Textual's own `Markdown.append` makes. It breaks only for link reference
definitions that come after the link, which LLM replies do not write.

The same splitter serves a finished reply loaded from history (all blocks at once, then `close()`), so a
streamed reply and the same reply loaded later are made of the same blocks and look the same.

Pure Python (markdown-it only): testable without a screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

__all__ = ["Block", "BlockDocument", "markdown_parser"]


def markdown_parser() -> MarkdownIt:
    """The parser configuration Rich's `Markdown` uses (CommonMark + tables + strikethrough).

    Splitting and rendering must agree on what a block is, so both use this one configuration. markdown-it
    is imported here, by the first reply, not at startup (~20 ms the first frame does not need).
    """
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("strikethrough").enable("table")


class Block:
    """One top-level Markdown block: its source (trailing blank lines included) and its tokens.

    A finished block gives its tokens up once drawn (`release()`): a long reply kept thousands of token
    objects alive for the garbage collector to scan, for a re-render (resize, theme) that can parse the
    block's source again just as well. Compared by identity.
    """

    __slots__ = ("_tokens", "finished", "kind", "source")

    def __init__(self, source: str, tokens: Sequence[Token], kind: str, finished: bool) -> None:
        self.source = source
        self._tokens: tuple[Token, ...] | None = tuple(tokens)
        self.kind = kind
        """The type of the block's first token: `paragraph_open`, `fence`, `hr`, `bullet_list_open`..."""
        self.finished = finished
        """False for the open last block of a stream (its source may still grow and change meaning)."""

    @property
    def tokens(self) -> tuple[Token, ...]:
        """The block's markdown-it tokens (parsed again from its source if they were released)."""
        if self._tokens is not None:
            return self._tokens
        return tuple(_shared_parser().parse(self.source))

    def release(self) -> None:
        """Drop the tokens of a finished block (they are parsed again if ever needed)."""
        if self.finished:
            self._tokens = None

    @property
    def separated(self) -> bool:
        """Whether a blank line follows this block before the next one (Rich's rule: not after a rule,
        which draws its own space)."""
        return self.kind != "hr"


_PARSER: list[MarkdownIt] = []


def _shared_parser() -> MarkdownIt:
    """One parser for re-parsing released blocks (a parser is reusable, and costly to build)."""
    if not _PARSER:
        _PARSER.append(markdown_parser())
    return _PARSER[0]


def _groups(tokens: Sequence[Token]) -> list[tuple[int, int]]:
    """(start, end) token index ranges of the top-level blocks, in order."""
    groups: list[tuple[int, int]] = []
    start = 0
    for index, token in enumerate(tokens):
        if token.level != 0:
            continue
        if token.nesting == 1:
            start = index
        elif token.nesting == 0:  # self-closing: fence, code_block, hr, html_block
            groups.append((index, index + 1))
        else:
            groups.append((start, index + 1))
    return groups


def _line_starts(text: str) -> list[int]:
    """Character offset where each line of `text` starts (markdown-it's map lines)."""
    starts = [0]
    find = text.find
    position = find("\n")
    while position != -1:
        starts.append(position + 1)
        position = find("\n", position + 1)
    return starts


class BlockDocument:
    """Markdown source that grows at the end, kept as finished blocks plus the open last one.

    `feed()` only appends text; `update()` re-parses the open tail (never the finished blocks) and returns
    how many blocks became finished. `close()` ends the stream: the open block becomes finished.
    """

    __slots__ = ("_changed", "_closed", "_finished", "_open", "_parser", "_source", "_stable")

    def __init__(self, source: str = "", *, parser: MarkdownIt | None = None) -> None:
        self._parser = parser or _shared_parser()  # building one costs ~4 ms: one per reply added up
        self._source = source
        self._stable = 0  # offset where the open tail starts: everything before is in `_finished`
        self._finished: list[Block] = []
        self._open: Block | None = None
        self._changed = bool(source)
        self._closed = False

    @property
    def source(self) -> str:
        """Everything fed so far."""
        return self._source

    @property
    def finished(self) -> Sequence[Block]:
        """The blocks that can no longer change, in order."""
        return self._finished

    @property
    def open_block(self) -> Block | None:
        """The last block while it may still change (None when the tail is blank or the stream closed)."""
        return self._open

    @property
    def blocks(self) -> list[Block]:
        """Every block in order: the finished ones, then the open one."""
        return [*self._finished, self._open] if self._open is not None else list(self._finished)

    @property
    def is_closed(self) -> bool:
        return self._closed

    @property
    def is_current(self) -> bool:
        """True when the blocks reflect everything fed (no `update()` needed)."""
        return not self._changed

    def feed(self, text: str) -> None:
        """Append source text. Cheap: parsing waits for `update()`."""
        if text:
            if self._closed:
                raise ValueError("the document is closed")
            self._source += text
            self._changed = True

    def update(self) -> int:
        """Re-parse the open tail; returns how many blocks became finished."""
        if not self._changed:
            return 0
        self._changed = False
        before = len(self._finished)
        tail = self._source[self._stable :]
        tokens = self._parser.parse(tail)
        groups = _groups(tokens)
        self._open = None
        if not groups:
            if self._closed:
                self._stable = len(self._source)
            return 0
        starts = _line_starts(tail)
        ends = len(tail)

        def offset(line: int) -> int:
            return starts[line] if line < len(starts) else ends

        first_lines = [(tokens[start].map or (0, 0))[0] for start, _ in groups]
        open_from = len(groups) if self._closed else len(groups) - 1
        for number, (start, end) in enumerate(groups):
            begin = offset(first_lines[number])
            stop = offset(first_lines[number + 1]) if number + 1 < len(groups) else ends
            finished = number < open_from
            block = Block(tail[begin:stop], tokens[start:end], tokens[start].type, finished)
            if finished:
                self._finished.append(block)
            else:
                self._open = block
        if self._closed:
            self._stable = len(self._source)
        elif open_from:
            self._stable += offset(first_lines[open_from])  # the open block is where the tail starts next
        return len(self._finished) - before

    def close(self) -> int:
        """The stream ended: parse what is left and finish the last block. Returns the blocks finished."""
        if self._closed:
            return 0
        self._closed = True
        self._changed = True
        return self.update()
