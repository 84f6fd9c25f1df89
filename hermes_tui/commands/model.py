"""`/model`: a picker of the provider's models; `/model NAME` switches for the next turn."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_tui.commands.base import CommandContext, SlashCommand

if TYPE_CHECKING:
    from agent.api import ModelCatalog

__all__ = ["MODEL"]


def switch_model(ctx: CommandContext, name: str) -> None:
    """`/model NAME` refuses a name the provider does not list (with the closest ones); when the list cannot
    be read, any name is taken."""
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
    ctx.in_thread(
        lambda: ctx.from_thread(_checked, ctx, name, load_catalog(settings)),
        group="model-check",
        exclusive=True,
    )


def _checked(ctx: CommandContext, name: str, catalog: ModelCatalog) -> None:
    from agent.api import closest_models

    if not catalog.has(name):
        close = closest_models(name, catalog.models)
        hint = f" Closest: {', '.join(close)}." if close else ""
        ctx.transcript.add_notice("warn", f"The provider has no model {name!r}.{hint} /model lists them all.")
        return
    if ctx.controller.busy:
        ctx.transcript.add_notice("warn", "A turn started: switch the model when it ends.")
        return
    ctx.session.switch_model(name)
    ctx.status.set_model(name)
    ctx.status.set_reasoning(ctx.session.settings.reasoning_label)  # the new model's override, if any
    unchecked = "" if catalog.known else f" (not checked: {catalog.problem})"
    ctx.transcript.add_notice("info", f"Model switched to {name} for the next turn.{unchecked}")


MODEL = SlashCommand(
    "model", "Switch the model for the next turn: /model NAME", switch_model, takes_argument=True
)
