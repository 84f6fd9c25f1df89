"""The command palette (Ctrl+P), guarded against a Textual 8.2.8 crash on its input path.

`OptionList._move_page` looks up the highlighted option's line in a cache that is only filled while the
list has a visible area. On a terminal too short to show the palette's list (a resize storm passes through
such sizes), PageUp/PageDown with commands listed raised `KeyError: 0` and the app died with a traceback.
A page move with nothing visible to page through does nothing here
(docs/upstream/option_list_page_keyerror.md; the guard goes when Textual's own check covers the empty
area).
"""

from __future__ import annotations

from textual.command import CommandList, CommandPalette
from textual.widgets import OptionList

from hermes_tui.textual_compat.guard import active

__all__ = ["GuardedCommandPalette", "can_page"]

PAGE_ACTIONS = frozenset({"page_up", "page_down"})


def can_page(option_list: OptionList) -> bool:
    """True if `option_list` shows options a page move can go through (else Textual 8.2.8 raises)."""
    return bool(option_list.option_count) and bool(option_list.scrollable_content_region)


class GuardedCommandPalette(CommandPalette):
    def _action_command_list(self, action: str) -> None:
        if active() and action in PAGE_ACTIONS and not can_page(self.query_one(CommandList)):
            return
        super()._action_command_list(action)
