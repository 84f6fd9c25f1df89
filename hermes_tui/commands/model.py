"""`/model`: a picker of the provider's models; `/model NAME` switches for the next turn."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_tui.commands.base import CommandContext, SlashCommand

if TYPE_CHECKING:
    from agent.api import ModelCatalog

__all__ = ["MODEL"]


def switch_model(ctx: CommandContext, name: str) -> None:
    """`/model NAME` switches to a name the provider lists (`GET /models`, asked again when a day-old list
    lacks it: a local server restarted with another model keeps its address) and to any other name with a
    warning and the closest listed ones: a server may serve names it does not list (an alias). The switch
    is made at once, before the list is asked: a message sent right after `/model NAME` goes to NAME (the
    check used to switch only when it came back, and dropped the switch if a turn had started)."""
    from agent.api import load_catalog

    name = name.strip()
    if ctx.controller.busy:
        ctx.transcript.add_notice("warn", "The model switches for the next turn: wait for this one to end.")
        return
    settings = ctx.session.settings
    if not name:
        from hermes_tui.screens.model_picker import ModelPicker

        picker = ModelPicker(settings.model, lambda: load_catalog(settings))
        ctx.push_screen(picker, lambda chosen: switch_model(ctx, chosen) if chosen else None)
        return

    previous = settings.model
    ctx.session.switch_model(name)
    ctx.status.model = name
    from agent.api import reasoning_shown

    ctx.status.reasoning = reasoning_shown(ctx.session.settings)  # the new model's override, if any

    def check() -> None:
        catalog = load_catalog(settings)
        if catalog.cached and not catalog.has(name):
            catalog = load_catalog(settings, refresh=True)
        ctx.from_thread(_checked, ctx, name, previous, catalog)

    ctx.in_thread(
        check,
        group="model-check",
        exclusive=True,
    )


def _checked(ctx: CommandContext, name: str, previous: str, catalog: ModelCatalog) -> None:
    """The provider's list came back: say whether it serves `name` (already switched to)."""
    from agent.api import closest_models

    listed = catalog.has(name) or name == previous
    when = "this turn" if ctx.controller.busy else "the next turn"  # a message sent meanwhile
    if not listed:
        close = closest_models(name, catalog.models)
        hint = f" (closest listed: {', '.join(close)})" if close else ""
        ctx.transcript.add_notice(
            "warn",
            f"Model switched to {name} for {when}, but the provider does not list it{hint}: "
            "the request will say whether it exists. /model lists them all.",
        )
        return
    unchecked = "" if catalog.known else f" (not checked: {catalog.problem})"
    ctx.transcript.add_notice("info", f"Model switched to {name} for {when}.{unchecked}")


MODEL = SlashCommand(
    "model", "Switch the model for the next turn: /model NAME", switch_model, takes_argument=True
)
