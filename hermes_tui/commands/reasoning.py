"""`/reasoning`: how hard the model thinks, and whether its thinking is shown (Hermes' `/reasoning`).

`/reasoning LEVEL` sets the level for this session (from the next model call on; `--global` saves it as
`reasoning_effort` in tui/config.yaml too); `show` / `hide` (Hermes also says `on` / `off`) shows or leaves
out the reasoning blocks, saved as `show_reasoning`; no argument says what is in effect.
"""

from __future__ import annotations

from hermes_tui.commands.base import CommandContext, SlashCommand

__all__ = ["REASONING"]

_USAGE = "/reasoning none|minimal|low|medium|high|xhigh|max|ultra [--global], /reasoning show|hide"


def reasoning(ctx: CommandContext, arg: str) -> None:
    from agent.api import normalize_reasoning_level, reasoning_shown, reasoning_unsent

    words = arg.split()
    save = "--global" in words
    words = [w for w in words if w not in ("--global", "--session")]
    word = " ".join(words).strip().lower()
    settings = ctx.session.settings
    if not word:
        level = reasoning_unsent(settings) or settings.reasoning_label or "the provider's default"
        shown = "shown" if ctx.transcript.show_reasoning else "hidden"
        ctx.transcript.add_notice("info", f"Reasoning effort: {level}; reasoning {shown}. {_USAGE}")
        return
    if word in ("show", "on", "hide", "off"):
        show = word in ("show", "on")
        ctx.transcript.show_reasoning = show
        ctx.session.update_settings(show_reasoning=show)
        saved = _save(ctx, "show_reasoning", show)
        ctx.transcript.add_notice("info", f"Reasoning {'shown' if show else 'hidden'} from now on{saved}.")
        return
    chosen = normalize_reasoning_level(word)
    if not chosen:
        ctx.transcript.add_notice("warn", f"Unknown reasoning level {word!r}: {_USAGE}")
        return
    settings = ctx.session.update_settings(reasoning_choice=chosen)
    ctx.status.reasoning = reasoning_shown(settings)
    saved = _save(ctx, "reasoning_effort", chosen) if save else " (this session; --global saves it)"
    unsent = reasoning_unsent(settings)
    if unsent:  # a bare base URL takes no reasoning field (as in Hermes): say so
        ctx.transcript.add_notice("warn", f"Reasoning effort {chosen}{saved}, but {unsent}.")
        return
    ctx.transcript.add_notice("info", f"Reasoning effort {chosen} from the next model call{saved}.")


def _save(ctx: CommandContext, key: str, value: object) -> str:
    """Saved in tui/config.yaml: what the notice adds ("" when saved, else why not)."""
    from agent.api import SettingNotSaved, save_setting

    try:
        save_setting(ctx.session.settings.tui_config_path, key, value)
    except SettingNotSaved as exc:
        return f" (not saved: {exc})"
    return " (saved)"


REASONING = SlashCommand(
    "reasoning",
    "How hard the model thinks, and whether it is shown: /reasoning LEVEL|show|hide",
    reasoning,
    takes_argument=True,
)
