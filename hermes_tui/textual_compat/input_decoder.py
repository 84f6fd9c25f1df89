"""The Linux driver decodes what the terminal sends with `hermes_tui.terminal_input.TerminalDecoder`.

Textual 8.2.8's driver decodes stdin with a strict UTF-8 decoder (invalid bytes killed the input thread with
a traceback) and reads escapes inside a bracketed paste as keys. The fix is a decoder; this puts it where
the driver looks one up when its input thread starts: the name `getincrementaldecoder` in
`textual.drivers.linux_driver`, which it imports from `codecs`.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable

from hermes_tui.terminal_input import TerminalDecoder
from hermes_tui.textual_compat.hooks import wrap_once

__all__ = ["install"]


class _DecoderFactory:
    """Stands in for `codecs.getincrementaldecoder` in the driver module: UTF-8 gets `TerminalDecoder`."""

    def __init__(self, original: Callable[[str], type[codecs.IncrementalDecoder]]) -> None:
        self.original = original

    def __call__(self, encoding: str) -> type[codecs.IncrementalDecoder]:
        if codecs.lookup(encoding).name == "utf-8":
            return TerminalDecoder
        return self.original(encoding)


def install() -> bool:
    """Make Textual's Linux driver decode input with `TerminalDecoder`; True if it is in place."""
    try:
        from textual.drivers import linux_driver
    except Exception:  # another platform: its driver reads input differently
        return False
    return wrap_once(linux_driver, "getincrementaldecoder", _DecoderFactory)
