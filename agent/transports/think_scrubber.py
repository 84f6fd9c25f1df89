"""Reasoning written into the answer text (`<think>…</think>`, DeepSeek/Qwen-style local models), moved to
where it belongs: the reasoning block, never the answer, the stored content or the next request.

A small streaming state machine, fed each content delta as it arrives. A tag can be split anywhere across
deltas (`<thi` + `nk>`): a tail that could still become a tag is held back until the next delta (or the end
of the stream) decides it. An opening tag at the start of a line (nothing but whitespace before it on its
line) opens a block at once. One in the middle of a line opens a block only if its closing tag follows (a
closed pair, `Hello <think>note</think> world`, is reasoning wherever it is, as in Hermes): what comes
after it is held back until the closing tag makes it reasoning, or the end of the stream (or
`MAX_PENDING` characters without one) shows it was prose that mentions `<think>`. A closing tag without an
opening one is dropped (it is never part of an answer). A block still open when the stream ends is
reasoning: a reply cut while thinking has no answer yet.

Tag names are Hermes' (`think`, `thinking`, `reasoning`, `thought`, `REASONING_SCRATCHPAD`), any case.
"""

from __future__ import annotations

__all__ = ["Segment", "ThinkScrubber", "scrub"]

TAG_NAMES = ("think", "thinking", "reasoning", "thought", "reasoning_scratchpad")
_OPEN = tuple(f"<{name}>" for name in TAG_NAMES)
_CLOSE = tuple(f"</{name}>" for name in TAG_NAMES)
_WHITESPACE = " \t\r\n"
MAX_PENDING = 4000
"""Characters held after a mid-line opening tag before it is taken for prose (its text is then shown)."""

Segment = tuple[bool, str]
"""(is_reasoning, text): what one delta turned into, in order."""


def _match(lowered: str, tags: tuple[str, ...]) -> str | None:
    for tag in tags:
        if lowered.startswith(tag):
            return tag
    return None


def _could_become(lowered: str, tags: tuple[str, ...]) -> bool:
    """`lowered` (a tail of the buffer starting with `<`) is a proper prefix of one of `tags`."""
    return any(len(lowered) < len(tag) and tag.startswith(lowered) for tag in tags)


class ThinkScrubber:
    """Feed it content deltas in order (`feed`), then `finish()` once the stream ended."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._in_block = False
        self._held = ""  # a tail that may be the start of a tag
        self._line_blank = True  # only whitespace since the last newline (or the start)
        self._after_close = (
            False  # a block just closed: drop the whitespace that separates it from the answer
        )
        # A mid-line opening tag (as written) and what followed it: a block only if its closing tag comes.
        self._pending_tag = ""
        self._pending = ""

    def feed(self, text: str) -> list[Segment]:
        if not self._held and not self._in_block and "<" not in text:
            return self._visible(text, [])  # the common case: plain answer text
        buf = self._held + text
        self._held = ""
        out: list[Segment] = []
        i = 0
        while i < len(buf):
            lowered = buf[i:].lower()
            if self._in_block:
                end, tag = _find_close(lowered)
                if end < 0:
                    keep = _partial_tail(lowered, _CLOSE)
                    inside = buf[i : len(buf) - keep]
                    self._held = buf[len(buf) - keep :]
                    if not self._pending_tag:
                        _add(out, True, inside)
                        return out
                    self._pending += inside
                    if len(self._pending) <= MAX_PENDING:
                        return out
                    rest = self._pending + self._held  # no closing tag came: it was prose
                    self._visible(self._pending_tag, out)
                    self._held = self._pending = self._pending_tag = ""
                    self._in_block = False
                    buf, i = rest, 0
                    continue
                _add(out, True, self._pending + buf[i : i + end])
                i += end + len(tag)
                self._in_block = False
                self._after_close = True
                self._pending = self._pending_tag = ""
                continue
            k = buf.find("<", i)
            if k < 0:
                self._visible(buf[i:], out)
                break
            self._visible(buf[i:k], out)
            lowered = buf[k:].lower()
            opening = _match(lowered, _OPEN)
            if opening is not None:
                self._in_block = True
                if not self._line_blank:
                    self._pending_tag = buf[k : k + len(opening)]
                i = k + len(opening)
                continue
            closing = _match(lowered, _CLOSE)
            if closing is not None:  # an orphan closing tag: dropped
                i = k + len(closing)
                self._after_close = self._line_blank
                continue
            if _could_become(lowered, _CLOSE) or _could_become(lowered, _OPEN):
                self._held = buf[k:]
                break
            self._visible("<", out)
            i = k + 1
        return out

    def finish(self) -> list[Segment]:
        """The stream ended: a held tail is what it looked like (reasoning inside an open block); a mid-line
        opening tag whose closing tag never came, and what followed it, were prose."""
        held, in_block = self._held, self._in_block
        tentative = self._pending_tag + self._pending
        after_close = self._after_close
        self._reset()
        if tentative:
            self._after_close = after_close
            return self._visible(tentative + held, [])
        if not held:
            return []
        return [(True, held)] if in_block else self._visible(held, [])

    @property
    def in_block(self) -> bool:
        return self._in_block and not self._pending_tag

    def _visible(self, text: str, out: list[Segment]) -> list[Segment]:
        if not text:
            return out
        if self._after_close:
            text = text.lstrip(_WHITESPACE)
            if not text:
                return out
            self._after_close = False
        newline = text.rfind("\n")
        if newline >= 0:
            self._line_blank = not text[newline + 1 :].strip()
        elif self._line_blank:
            self._line_blank = not text.strip()
        _add(out, False, text)
        return out


def _find_close(lowered: str) -> tuple[int, str]:
    best, found = -1, ""
    for tag in _CLOSE:
        at = lowered.find(tag)
        if at >= 0 and (best < 0 or at < best):
            best, found = at, tag
    return best, found


def _partial_tail(lowered: str, tags: tuple[str, ...]) -> int:
    """Length of the longest tail of `lowered` that is a proper prefix of one of `tags` (0 if none)."""
    start = lowered.rfind("<", max(0, len(lowered) - max(len(t) for t in tags)))
    if start < 0:
        return 0
    return len(lowered) - start if _could_become(lowered[start:], tags) else 0


def _add(out: list[Segment], reasoning: bool, text: str) -> None:
    if not text:
        return
    if out and out[-1][0] == reasoning:
        out[-1] = (reasoning, out[-1][1] + text)
    else:
        out.append((reasoning, text))


def scrub(text: str) -> tuple[str, str]:
    """A whole reply at once: (answer, reasoning)."""
    scrubber = ThinkScrubber()
    answer: list[str] = []
    reasoning: list[str] = []
    for is_reasoning, piece in (*scrubber.feed(text), *scrubber.finish()):
        (reasoning if is_reasoning else answer).append(piece)
    return "".join(answer), "".join(reasoning)
