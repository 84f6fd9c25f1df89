"""Work that waits until the first frame is on the terminal, not merely laid out.

`call_after_refresh` is not that during startup: Textual holds a batch around the app's own mounting (its
`run_process_messages`), a screen's idle handler runs its after-refresh callbacks at once while a batch is
held (`Screen._on_idle`), and `App._display` drops the frame. So work queued with it from an `on_mount` ran
before anything was drawn (measured: building the agent, 58 ms, between the layout and the first frame's
write; the MCP start, the theme watcher, the SDK prewarm and `gc.freeze` too). `FirstFrame` runs its
callbacks after the first `_display` that was not dropped (headless too: there nothing is written, but the
same call marks the moment).
"""

from __future__ import annotations

from collections.abc import Callable

from textual.dom import DOMNode


class FirstFrame:
    def __init__(self, call_later: Callable[[Callable[[], object]], object]) -> None:
        self._call_later = call_later
        self._pending: list[Callable[[], object]] = []
        self.shown = False

    def after(self, callback: Callable[[], object]) -> None:
        """Run `callback` once the first frame was displayed (soon, if it already was)."""
        if self.shown:
            self._call_later(callback)
        else:
            self._pending.append(callback)

    def displayed(self) -> None:
        """A frame was displayed: release what waited for the first, each as its own message, in order
        (one long callback never delays the writer thread's first write of the frame by more than one
        GIL switch)."""
        if self.shown:
            return
        self.shown = True
        pending, self._pending = self._pending, []
        for callback in pending:
            self._call_later(callback)


def after_first_frame(node: DOMNode, callback: Callable[[], object]) -> None:
    """`callback` after the app's first frame; an app without a `FirstFrame` (a test harness) runs it after
    the next refresh, as Textual would."""
    first_frame: FirstFrame | None = getattr(node.app, "first_frame", None)
    if first_frame is None:
        node.call_after_refresh(callback)
    else:
        first_frame.after(callback)
