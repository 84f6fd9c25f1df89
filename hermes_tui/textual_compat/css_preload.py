"""Put the CSS of the widgets a turn mounts into the stylesheet before the first turn mounts them.

Textual adds a widget class's `DEFAULT_CSS` to the app's stylesheet when its first instance is mounted, and
the stylesheet then parses and maps all of its rules again: the first reply of a session took 57 ms of the
UI thread that way (the first user message, tool panel and notice too), right when the user had pressed
Enter and while the reply started streaming, so keys typed then waited for it. Done once after the first
frame instead, the later mounts find their CSS in place (`Stylesheet.add_source` returns at once for a
source it already has) and nothing else changes: the rules and their scopes are the ones Textual adds.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

from textual.app import App
from textual.dom import DOMNode

from hermes_tui.textual_compat.guard import active

__all__ = ["preload_default_css"]


def preload_default_css(app: App[Any], classes: Iterable[type[DOMNode]]) -> None:
    """Add the default CSS of `classes` (and their CSS bases) to `app`'s stylesheet, parsed and mapped
    (on an unverified Textual: nothing, and the first mounts parse it as usual)."""
    if not active():
        return
    stylesheet = app.stylesheet
    for cls in classes:
        # `DOMNode._get_default_css` reads only `_node_bases` of the instance: no widget is built for it.
        probe = SimpleNamespace(_node_bases=cls._css_bases(cls))
        for read_from, css, tie_breaker, scope in DOMNode._get_default_css(probe):  # type: ignore[arg-type]
            stylesheet.add_source(
                css, read_from=read_from, is_default_css=True, tie_breaker=tie_breaker, scope=scope
            )
    stylesheet.rules_map  # noqa: B018  (parses and maps the rules now, not at the first mount)
