"""How the chat looks, applied to its widgets: what the configuration says (the status line's flags, the
transcript's options), once when the chat opens, and a theme's Hermes flavour (the spinner's faces and
verbs, the prompt symbol, the tool icons), when the chat opens and at every theme change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_tui.tool_icons import ToolIcons
from themes.model import ThemeSpec
from widgets.prompt.input import PromptBar
from widgets.transcript.view import Transcript

if TYPE_CHECKING:
    from agent.api import Settings
    from hermes_tui.commands.base import StatusAPI

__all__ = ["apply_display_settings", "apply_flavour"]


def apply_display_settings(settings: Settings, status: StatusAPI, transcript: Transcript) -> None:
    """The reasoning level and where the tools run on the status line; diffs open, reasoning shown in the
    transcript. Before a resumed session is loaded, so its entries follow them too. (The permission mode,
    YOLO included, is the session's: `hermes_tui.commands.modes.show_mode` once the engine is built.)"""
    from agent.api import environment_label, reasoning_shown

    status.reasoning = reasoning_shown(settings)  # "" where the endpoint takes no reasoning field
    status.where = environment_label(settings)  # "" for local without a sandbox: the usual case says nothing
    transcript.show_reasoning = settings.show_reasoning
    transcript.expand_diffs = settings.expand_diffs


def apply_flavour(
    spec: ThemeSpec, transcript: Transcript, prompt_bar: PromptBar, icons: ToolIcons
) -> ToolIcons:
    """Apply `spec` and return the chat's icons with the theme's (a new table for the transcript's panels,
    the session's plugin icons kept)."""
    spinner = transcript.spinner
    if spec.spinner.faces:
        spinner.faces = tuple(spec.spinner.faces)
    if spec.spinner.verbs:
        spinner.verbs = tuple(spec.spinner.verbs)
    if spec.prompt_symbol:
        prompt_bar.prompt_symbol = spec.prompt_symbol
    return ToolIcons(theme=dict(spec.tool_icons), plugins=icons.plugins)
