"""The list of fixes `guard.install()` puts in, all or none (see `manifest.py` for the names they touch)."""

from __future__ import annotations

import hermes_tui.textual_compat.callback_counts as callback_counts
import hermes_tui.textual_compat.component_nodes as component_nodes
import hermes_tui.textual_compat.frame_writer as frame_writer
import hermes_tui.textual_compat.input_decoder as input_decoder
import hermes_tui.textual_compat.input_wakeups as input_wakeups
import hermes_tui.textual_compat.parsed_css as parsed_css
import hermes_tui.textual_compat.strip_cycles as strip_cycles
import hermes_tui.textual_compat.styles_cache as styles_cache
import hermes_tui.textual_compat.text_area as text_area
from hermes_tui.textual_compat.guard import Patch

__all__ = ["PATCHES"]


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
        "strip-cycles",
        "a full-width line freed when dropped, not at the next collection",
        strip_cycles.install,
    ),
    Patch("component-nodes", "component classes restyled in place, no new nodes", component_nodes.install),
    Patch("parsed-css", "each piece of CSS parsed once per theme, not per stylesheet", parsed_css.install),
    Patch("frame-signal", "work after the first frame waits for a frame displayed", _gated),
    Patch("bubbling", "a key's journey ends where Textual stops it", _gated),
    Patch("palette-pages", "PageUp/PageDown in a palette with no visible list", _gated),
    Patch(
        "prompt-tokens",
        "paste tokens highlighted, the cursor never inside one",
        text_area.install,
        module="widgets.prompt.input",
    ),
]
