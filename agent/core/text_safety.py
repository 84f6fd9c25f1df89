"""Neutralise control characters in untrusted text (model output, tool output, web pages, a paste): the one
implementation, shared by the display (`widgets.support.text_safety` re-exports it) and by what the engine
stores and exports (issue 33 item 5: a page title with ESC bytes is stored and exported as the screen shows
it).

A raw ESC, OSC or other C0/C1 control that reaches a terminal can corrupt the screen (cursor moves, title
changes, OSC 52 clipboard writes, bells) or at best show as garbage; in a stored transcript or a Markdown
export it does the same the day someone `cat`s the file. `sanitize_display` (whole strings) and
`StreamSanitizer` (chunks, where an escape sequence may be split across two chunks) remove them; only
controls are removed, the text is otherwise kept literally (no markup interpretation, no trimming).

`visible_controls` is the other way for text the user must judge character by character: each invisible
character shown as a `\\xNN` token instead of removed. Pure `str` functions: no terminal library here.
"""

from __future__ import annotations

import functools
import re
import unicodedata

__all__ = [
    "KEPT_CONTROLS",
    "PASTE_KEEP",
    "StreamSanitizer",
    "control_token",
    "is_kept",
    "sanitize_display",
    "visible_controls",
]

# Complete escape sequences, in the order the regex must try them.
_ESCAPE_RE = re.compile(
    r"""
      \x1b\[[0-?]*[ -/]*[@-~]                 # CSI: ESC [ params intermediates final (colours, cursor moves)
    | \x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c) # OSC: ESC ] ... BEL or ST (titles, hyperlinks, clipboard)
    | \x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)   # DCS, SOS, PM, APC: ... ST
    | \x1b[ -/]*[0-~]                         # two/three byte escapes (charset selection, RIS, keypad...)
    | \x9b[0-?]*[ -/]*[@-~]                   # 8-bit CSI
    | \x9d[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)  # 8-bit OSC
    """,
    re.VERBOSE,
)

# The start of an escape sequence that is not complete yet (must match up to the end of the text).
_PARTIAL_ESCAPE_RE = re.compile(
    r"""
      \x1b(?:
            \[[0-?]*[ -/]*
          | \][^\x07\x1b\x9c]*\x1b?
          | [PX^_][^\x1b\x9c]*\x1b?
          | [ -/]*
      )
    | \x9b[0-?]*[ -/]*
    | \x9d[^\x07\x1b\x9c]*\x1b?
    """,
    re.VERBOSE,
)

_INTRODUCER_RE = re.compile(r"[\x1b\x9b\x9d]")

# C0 controls except \t and \n, DEL, and the C1 block. (\r is handled before this runs.)
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

# Fast path: does the text contain anything we would change at all?
_ANY_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

_CRLF_RE = re.compile(r"\r\n?")


def sanitize_display(text: str) -> str:
    """Return `text` with terminal escape sequences and control characters removed.

    Kept: every printable character, `\\n` and `\\t`. `\\r\\n` and a lone `\\r` become `\\n` (a progress bar
    that redraws with `\\r` then reads as successive lines instead of one garbled line). Escape sequences
    (CSI colours, OSC titles/hyperlinks/clipboard, DCS...) are removed whole; stray controls are dropped.
    Rich markup such as `[bold]` is *not* touched: callers display the result as plain `Text`.
    """
    if not _ANY_CONTROL_RE.search(text):
        return text
    if "\r" in text:
        text = _CRLF_RE.sub("\n", text)
    text = _ESCAPE_RE.sub("", text)
    return _CONTROL_RE.sub("", text)


class StreamSanitizer:
    """Sanitize a stream of chunks, holding back an escape sequence split across two chunks.

    `sanitize_display` on each chunk alone would strip `ESC [3` from one chunk and then show `1m` from the
    next. This keeps an unfinished sequence (and a trailing `\\r` that may be half of `\\r\\n`) until the next
    chunk completes it. A held tail longer than `max_hold` characters is released as is (and sanitized), so
    a bogus introducer cannot swallow output forever.

    Not thread-safe: use it on the thread that drains the buffer.
    """

    __slots__ = ("_held", "max_hold")

    def __init__(self, max_hold: int = 4096) -> None:
        self._held = ""
        self.max_hold = max_hold

    def feed(self, chunk: str) -> str:
        """Return the displayable text of everything fed so far that is complete."""
        data = self._held + chunk if self._held else chunk
        self._held = ""
        if not data:
            return ""
        cut = _holdback_start(data, self.max_hold)
        if cut is not None:
            self._held = data[cut:]
            data = data[:cut]
        return sanitize_display(data)

    def flush(self) -> str:
        """Return whatever is still held back (the stream ended), sanitized."""
        data, self._held = self._held, ""
        return sanitize_display(data)


def _holdback_start(data: str, max_hold: int) -> int | None:
    """Index where an unfinished escape sequence (or a trailing `\\r`) starts, or None if there is none."""
    if not _ANY_CONTROL_RE.search(data, max(0, len(data) - max_hold)):
        return None
    window_start = max(0, len(data) - max_hold)
    covered_until = window_start
    for intro in _INTRODUCER_RE.finditer(data, window_start):
        position = intro.start()
        if position < covered_until:
            continue  # inside a complete sequence found earlier (e.g. the ESC of an OSC's ST)
        if _PARTIAL_ESCAPE_RE.fullmatch(data, position):
            return position  # checked first: `ESC [` is both a complete 2-byte escape and a CSI prefix
        complete = _ESCAPE_RE.match(data, position)
        if complete is not None:
            covered_until = complete.end()
    if data.endswith("\r"):
        return len(data) - 1
    return None


# Characters that would let a command look different from what it is: C0/C1 controls (ANSI escapes, \r,
# backspace) and the invisible "format" characters (bidi overrides, zero-width joiners, BOM).
KEPT_CONTROLS = frozenset({"\n", "\t"})


PASTE_KEEP = "\n\r\t"
"""The controls a paste keeps as they are (line breaks and tabs); `visible_controls` shows the rest."""


def control_token(char: str) -> str:
    """The visible stand-in for an invisible character: `\\x1b`, `\\x9b`, `\\u200b`."""
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def is_kept(char: str, kept: frozenset[str] | set[str], formats: bool = True) -> bool:
    """Whether `char` is shown as itself: one of `kept`, or neither a control, a lone surrogate nor (with
    `formats`) an invisible format character."""
    hidden = ("Cc", "Cf", "Cs") if formats else ("Cc", "Cs")
    return char in kept or unicodedata.category(char) not in hidden


def visible_controls(value: str, *, keep: str = "\n\t", formats: bool = True) -> str:
    """`value` with every control character (and, with `formats`, every invisible format character) shown
    as its `control_token` (the characters in `keep` stay as they are): what `literal_text` shows, as a
    plain string for a terminal that is not Textual's (headless mode writing to a tty).

    Pasted text uses `keep="\\n\\r\\t", formats=False`: a paste is text, in order, never keys, but an ESC,
    BEL or C1 control must neither act on the terminal nor hide in the prompt, while the zero-width joiners
    inside emoji stay."""
    if value.isprintable():  # the common case: nothing to show differently
        return value
    return value.translate(_shown_as(keep, formats))


class _ShownAs(dict[int, str]):
    """A `str.translate` table from each character met so far to how `visible_controls` shows it, filled
    as characters are met: `translate` looks each one up in C, so a 10 MB paste of text with line breaks
    takes milliseconds instead of seconds of a Python loop over its characters. Bounded: past `LIMIT`
    distinct characters the rest are worked out each time (a paste of every code point costs no memory)."""

    LIMIT = 65_536

    def __init__(self, keep: str, formats: bool) -> None:
        super().__init__()
        self._kept = frozenset(keep)
        self._formats = formats

    def __missing__(self, code: int) -> str:
        char = chr(code)
        shown = char if is_kept(char, self._kept, self._formats) else _stand_in(char)
        if len(self) < self.LIMIT:
            self[code] = shown
        return shown


@functools.cache
def _shown_as(keep: str, formats: bool) -> _ShownAs:
    """One table per way of showing (the paste's and the display's): callers pass a few literal `keep`s."""
    return _ShownAs(keep, formats)


def _stand_in(char: str) -> str:
    """A lone surrogate (undecodable bytes read with `surrogateescape`, a broken clipboard) cannot be drawn
    or encoded at all: it becomes U+FFFD, as undecodable bytes from the terminal do. Any other hidden
    character becomes its `control_token`."""
    return "\ufffd" if unicodedata.category(char) == "Cs" else control_token(char)
