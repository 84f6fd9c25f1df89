"""What a theme's Hermes flavour changes in the chat: the spinner's faces and verbs, the prompt symbol and
the tool icons (a new table for the transcript's panels, the session's plugin icons kept)."""

from __future__ import annotations

from hermes_tui.tool_icons import ToolIcons
from themes.model import ThemeSpec
from widgets.prompt_input import PromptBar
from widgets.transcript import Transcript

__all__ = ["apply_flavour"]


def apply_flavour(
    spec: ThemeSpec, transcript: Transcript, prompt_bar: PromptBar, icons: ToolIcons
) -> ToolIcons:
    """Apply `spec` and return the chat's icons with the theme's."""
    spinner = transcript.spinner
    if spec.spinner.faces:
        spinner.faces = tuple(spec.spinner.faces)
    if spec.spinner.verbs:
        spinner.verbs = tuple(spec.spinner.verbs)
    if spec.prompt_symbol:
        prompt_bar.prompt_symbol = spec.prompt_symbol
    return ToolIcons(theme=dict(spec.tool_icons), plugins=icons.plugins)
