"""The list of fixes `guard.install()` puts in, all or none (see `manifest.py` for the names they touch)."""

from __future__ import annotations

import hermes_tui.textual_compat.callback_counts as callback_counts
import hermes_tui.textual_compat.component_styles as component_styles
import hermes_tui.textual_compat.frame_writer as frame_writer
import hermes_tui.textual_compat.input_decoder as input_decoder
import hermes_tui.textual_compat.input_wakeups as input_wakeups
import hermes_tui.textual_compat.quiet_resize as quiet_resize
import hermes_tui.textual_compat.stream_layout as stream_layout
import hermes_tui.textual_compat.styles_cache as styles_cache
import hermes_tui.textual_compat.text_area as text_area
from hermes_tui.textual_compat.guard import Patch

__all__ = ["PATCHES"]


def _share_markdown_styles() -> bool:
    from hermes_tui.textual_compat.style_context import ContextCache
    from widgets.assistant_message import MarkdownView

    MarkdownView.shared_styles = ContextCache()
    return True


def _gated() -> bool:
    """A fix that checks `guard.active()` where it is used (no attribute to replace)."""
    return True


PATCHES: list[Patch] = [
    Patch(
        "input-decoder", "invalid UTF-8 and escapes inside a paste from the terminal", input_decoder.install
    ),
    Patch("callback-counts", "timers' callbacks counted once per function", callback_counts.install),
    Patch("input-wakeups", "the input thread sleeps while nothing is typed", input_wakeups.install),
    Patch("frame-writer", "frames written with one SGR change per style change", frame_writer.install),
    Patch("styles-cache", "a removed widget's painted lines are freed with it", styles_cache.install),
    Patch(
        "component-styles", "entries' component classes matched once per context", component_styles.install
    ),
    Patch("frame-signal", "work after the first frame waits for a frame displayed", _gated),
    Patch("bubbling", "a key's journey ends where Textual stops it", _gated),
    Patch("kept-map", "the chat's compositor keeps the map a full layout built", _gated),
    Patch("css-preload", "the first reply's CSS parsed after the first frame", _gated),
    Patch("palette-pages", "PageUp/PageDown in a palette with no visible list", _gated),
    Patch(
        "markdown-styles",
        "replies styled alike share one Markdown style",
        _share_markdown_styles,
        module="widgets.assistant_message",
    ),
    Patch(
        "quiet-resize",
        "entries resized without a second layout",
        quiet_resize.install,
        module="widgets.transcript",
    ),
    Patch(
        "stream-layout",
        "the anchor and layout: stream listing of the transcript",
        stream_layout.install,
        module="widgets.transcript",
    ),
    Patch(
        "prompt-tokens",
        "paste tokens highlighted, the cursor never inside one",
        text_area.install,
        module="widgets.prompt_input",
    ),
]
