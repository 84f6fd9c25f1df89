"""Big pastes kept out of the prompt: the prompt shows a token (`[Pasted #1: 214 lines]`), this store keeps
the text it stands for.

A 2,000-line log pasted into the prompt would fill it and push the transcript off screen (Claude Code and
Codex collapse such pastes). So a paste past `MAX_LINES` lines or `MAX_CHARS` characters goes here, and the
prompt holds its token, one atomic word the user types around. Sending, the queue's delivery and the editor
(Ctrl+G) `expand` the tokens back into the full text: what goes on the wire, into the store and into the
transcript is always the whole paste.

Pure Python (no Textual), so the rules are tested on their own. Pastes are numbered from 1 for the prompt's
lifetime and never dropped: a token recalled from the prompt history, or brought back by undo, still names
its text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MAX_CHARS", "MAX_LINES", "Paste", "PasteStore", "TokenSpan", "is_big", "line_count"]

MAX_LINES = 10
"""A paste of more lines than this collapses (Claude Code's feel)."""
MAX_CHARS = 1_000
"""A paste longer than this collapses even on one line (a minified file, a base64 blob)."""

_TOKEN = re.compile(r"\[Pasted #(\d+): [^\]\n]*\]")


def line_count(text: str) -> int:
    """Lines as an editor counts them: a final newline ends the last line, it does not start another."""
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def is_big(text: str) -> bool:
    """True when `text` is too big to show in the prompt (more than MAX_LINES lines or MAX_CHARS chars)."""
    return len(text) > MAX_CHARS or line_count(text) > MAX_LINES


@dataclass(frozen=True)
class Paste:
    number: int
    text: str

    @property
    def token(self) -> str:
        """What the prompt shows in its place: `[Pasted #1: 214 lines]`, `[Pasted #2: 12,345 chars]`."""
        lines = line_count(self.text)
        size = f"{lines:,} lines" if lines > 1 else f"{len(self.text):,} chars"
        return f"[Pasted #{self.number}: {size}]"


@dataclass(frozen=True)
class TokenSpan:
    """A known paste's token in one line of the prompt: columns `start` (the `[`) to `end` (after `]`)."""

    start: int
    end: int
    paste: Paste


class PasteStore:
    """The pastes of one prompt, by number. A token counts only when it is exactly a stored paste's token,
    so typed text that merely looks like one stays text."""

    def __init__(self) -> None:
        self._pastes: dict[int, Paste] = {}

    def __len__(self) -> int:
        return len(self._pastes)

    def add(self, text: str) -> Paste:
        """Keep `text` as the next numbered paste."""
        paste = Paste(len(self._pastes) + 1, text)
        self._pastes[paste.number] = paste
        return paste

    def get(self, number: int) -> Paste | None:
        return self._pastes.get(number)

    def spans(self, line: str) -> list[TokenSpan]:
        """The known tokens in `line`, left to right."""
        if not self._pastes or "[Pasted #" not in line:
            return []
        found = []
        for match in _TOKEN.finditer(line):
            paste = self._pastes.get(int(match.group(1)))
            if paste is not None and paste.token == match.group(0):
                found.append(TokenSpan(match.start(), match.end(), paste))
        return found

    def span_at(self, line: str, column: int, *, inclusive: bool = False) -> TokenSpan | None:
        """The token `column` is strictly inside (or, `inclusive`, also at either edge of), if any."""
        for span in self.spans(line):
            if span.start < column < span.end or (inclusive and span.start <= column <= span.end):
                return span
        return None

    def expand(self, text: str) -> str:
        """`text` with every known token replaced by the full text it stands for."""
        if not self._pastes or "[Pasted #" not in text:
            return text

        def full(match: re.Match[str]) -> str:
            paste = self._pastes.get(int(match.group(1)))
            return paste.text if paste is not None and paste.token == match.group(0) else match.group(0)

        return _TOKEN.sub(full, text)

    def collapse(self, text: str) -> str:
        """`text` with each stored paste that appears in it whole put back as its token (after the editor:
        the pastes the user left untouched collapse again, the ones edited stay text)."""
        for paste in sorted(self._pastes.values(), key=lambda p: len(p.text), reverse=True):
            if paste.text in text:
                text = text.replace(paste.text, paste.token)
        return text
