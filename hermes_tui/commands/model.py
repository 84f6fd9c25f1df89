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
    warning and the closest listed ones: a server may serve names it does not list (an alias)."""
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

    def check() -> None:
        catalog = load_catalog(settings)
        if catalog.cached and not catalog.has(name):
            catalog = load_catalog(settings, refresh=True)
        ctx.from_thread(_checked, ctx, name, catalog)

    ctx.in_thread(
        check,
        group="model-check",
        exclusive=True,
    )


def _checked(ctx: CommandContext, name: str, catalog: ModelCatalog) -> None:
    from agent.api import closest_models

    if ctx.controller.busy:
        ctx.transcript.add_notice("warn", "A turn started: switch the model when it ends.")
        return
    listed = catalog.has(name) or name == ctx.session.settings.model
    ctx.session.switch_model(name)
    ctx.status.model = name
    ctx.status.reasoning = ctx.session.settings.reasoning_label  # the new model's override, if any
    if not listed:
        close = closest_models(name, catalog.models)
        hint = f" (closest listed: {', '.join(close)})" if close else ""
        ctx.transcript.add_notice(
            "warn",
            f"Model switched to {name} for the next turn, but the provider does not list it{hint}: "
            "the next request will say whether it exists. /model lists them all.",
        )
        return
    unchecked = "" if catalog.known else f" (not checked: {catalog.problem})"
    ctx.transcript.add_notice("info", f"Model switched to {name} for the next turn.{unchecked}")


MODEL = SlashCommand(
    "model", "Switch the model for the next turn: /model NAME", switch_model, takes_argument=True
)
