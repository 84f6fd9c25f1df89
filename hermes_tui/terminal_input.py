"""The bytes the terminal sends become text here, before Textual's key parser sees them.

Two faults of Textual 8.2.8's Linux driver, both fixed at this one boundary (the driver's UTF-8 decoder):

- **Bad bytes**: it decodes stdin with a strict UTF-8 decoder, so pasting `aa\\xe9\\xe9bb` (Latin-1 text, a
  binary file, a terminal in the wrong locale) raised `UnicodeDecodeError` in the input thread and the app
  died with a traceback. Here an invalid byte becomes U+FFFD, visibly.
- **Pastes read as keys**: inside a bracketed paste its parser still reads an ESC as the start of a key
  sequence, so `abc ESC]0;T BEL def` sent a BEL (= Ctrl+G, "open $EDITOR") as a key and `ESC[31m` was typed
  out of order. A paste is text: between `ESC[200~` and `ESC[201~` every control character except
  newline, carriage return and tab is written as its visible token (`\\x1b`, `\\x07`, `\\x9b`,
  `widgets.support.text_safety.visible_controls`), so the parser finds nothing to interpret and every widget
  (the prompt, the search box, a dialog) receives the paste literally and in order.

- **Alt+Enter lost its Alt**: legacy terminals send Alt+Enter as ESC CR, which the parser reports as plain
  `enter` (so "newline" sent the message). ESC CR read together becomes the kitty-protocol sequence for
  `alt+enter`, which the parser knows. (ESC then Enter typed within the same read looks exactly like this,
  as in every terminal program.)

`hermes_tui.textual_compat.input_decoder` puts `TerminalDecoder` in the driver (the decoder factory its
input thread calls when it starts); the decoding itself is plain text work and lives here.
"""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING

from widgets.support.text_safety import PASTE_KEEP, visible_controls

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["PASTE_END", "PASTE_START", "PasteGuard", "TerminalDecoder"]

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
LEGACY_ALT_ENTER = "\x1b\r"
KITTY_ALT_ENTER = "\x1b[13;3u"


class PasteGuard:
    """Neutralises control characters inside bracketed pastes, across reads of any size.

    Outside a paste, text passes through at once (a lone ESC at the end of a read is the Escape key and
    must not wait for the next read). Inside one, a tail that could be the start of the end marker is held
    back until the next read tells."""

    def __init__(self) -> None:
        self.in_paste = False
        self._held = ""  # inside a paste: a possible start of PASTE_END
        self._tail = ""  # outside: the last few characters passed on, to find a start marker split in two

    def feed(self, text: str) -> str:
        out: list[str] = []
        while text:
            if not self.in_paste:
                seen = self._tail + text
                start = seen.find(PASTE_START)
                if start < 0:
                    out.append(text)
                    self._tail = seen[-(len(PASTE_START) - 1) :]
                    return "".join(out)
                cut = start + len(PASTE_START) - len(self._tail)  # end of the marker, in `text`
                out.append(text[:cut])
                text = text[cut:]
                self.in_paste, self._tail = True, ""
                continue
            text = self._held + text
            self._held = ""
            end = text.find(PASTE_END)
            if end < 0:
                keep = _partial_suffix(text, PASTE_END)
                body, self._held = (text[:-keep], text[-keep:]) if keep else (text, "")
                out.append(visible_controls(body, keep=PASTE_KEEP, formats=False))
                return "".join(out)
            out.append(visible_controls(text[:end], keep=PASTE_KEEP, formats=False) + PASTE_END)
            text = text[end + len(PASTE_END) :]
            self.in_paste = False
        return "".join(out)

    def flush(self) -> str:
        """What is held back, at the end of input."""
        held, self._held = self._held, ""
        return visible_controls(held, keep=PASTE_KEEP, formats=False) if self.in_paste else held


def _partial_suffix(text: str, marker: str) -> int:
    """Length of the longest end of `text` that is a proper start of `marker` (0 if none)."""
    for length in range(min(len(marker) - 1, len(text)), 0, -1):
        if text.endswith(marker[:length]):
            return length
    return 0


class TerminalDecoder(codecs.IncrementalDecoder):
    """UTF-8 with U+FFFD for invalid bytes, then `PasteGuard`: the driver's decoder."""

    def __init__(self, errors: str = "replace") -> None:
        super().__init__(errors)
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._paste = PasteGuard()

    def decode(self, input: ReadableBuffer, final: bool = False) -> str:
        text = self._paste.feed(self._utf8.decode(input, final))
        if final:
            text += self._paste.flush()
        # Pasted controls are tokens by now, so a raw ESC CR here was typed.
        return text.replace(LEGACY_ALT_ENTER, KITTY_ALT_ENTER) if LEGACY_ALT_ENTER in text else text

    def reset(self) -> None:
        self._utf8.reset()
        self._paste = PasteGuard()
