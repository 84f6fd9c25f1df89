"""Make untrusted text (model output, tool output, user paste) safe to show in the terminal.

Textual draws text through its own compositor, but a raw ESC, OSC or other C0/C1 control that reaches a
renderable can still corrupt the screen (cursor moves, title changes, OSC 52 clipboard writes, bells) or at
best show as garbage. Everything that came from outside goes through `sanitize_display` (whole strings) or a
`StreamSanitizer` (chunks, where an escape sequence may be split across two chunks) before display.

Only controls are removed: the text is otherwise kept literally (no markup interpretation, no trimming).
The string functions live in `agent.core.text_safety` (what the engine stores and exports is neutralised
the same way) and are re-exported here through `agent.api`; this module adds the Rich/Textual halves.

`literal_text` is for text the user must judge character by character (a command to approve, a question):
instead of removing invisible characters it shows each one as a visible `\\xNN` token.

`component_text_style` is the other half of showing such text: the Rich style for a span, taken from a
widget's component class (theme variables), safe to put on a `Text`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text

from agent.api import (
    KEPT_CONTROLS,
    PASTE_KEEP,
    StreamSanitizer,
    control_token,
    sanitize_display,
    visible_controls,
)
from agent.api import is_kept_char as _is_kept

if TYPE_CHECKING:
    from textual.widget import Widget

__all__ = [
    "PASTE_KEEP",
    "StreamSanitizer",
    "component_text_style",
    "control_token",
    "literal_text",
    "sanitize_display",
    "visible_controls",
]


def component_text_style(widget: Widget, component: str) -> Style:
    """The Rich style of `widget`'s component class, for a span inside the widget's own `Text`.

    Textual's *partial* component style keeps the text attributes but cannot resolve colours that depend on
    the background (`$text-muted` is "auto 60%", `$foreground 30%` has alpha): it returns them unblended
    (white). The *full* style blends them correctly but also carries the widget's background, which would
    paint over a focus/hover background. So: attributes from the partial style, the colour from the full one.
    """
    partial = widget.get_component_rich_style(component, partial=True)
    if partial.color is None:
        return partial
    full = widget.get_component_rich_style(component)
    return partial + Style(color=full.color)


def literal_text(value: str, style: str = "", escape_style: str = "reverse") -> Text:
    """Rich `Text` that shows `value` exactly, with invisible or terminal-controlling characters escaped.

    Model and tool output must never be interpreted as markup, and must not be able to move the cursor or
    hide part of itself (a `\\r` could overwrite the start of a command with something harmless-looking).
    Each such character becomes a visible `\\xNN` / `\\uNNNN` token in `escape_style`.

    Args:
        value: The untrusted text.
        style: Base style of the text.
        escape_style: Style of the visible escape tokens.

    Returns:
        A `Text` that renders the same characters on every terminal.
    """
    text = Text(style=style)
    plain: list[str] = []
    for char in value:
        if _is_kept(char, KEPT_CONTROLS):
            plain.append(char)
            continue
        if plain:
            text.append("".join(plain))
            plain.clear()
        text.append(control_token(char), style=escape_style)
    if plain:
        text.append("".join(plain))
    return text
