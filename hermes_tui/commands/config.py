"""`/config`: the configuration's problems (the defaults used instead)."""

from __future__ import annotations

from hermes_tui.commands.base import CommandContext, SlashCommand

__all__ = ["CONFIG"]


def show_problems(ctx: CommandContext, _arg: str) -> None:
    problems = ctx.config_problems()
    if not problems:
        ctx.transcript.add_notice(
            "info", "No configuration problems (`hermes-tui config` shows every value)."
        )
        return
    lines = [f"{len(problems)} configuration problem(s); the defaults are used instead:"]
    lines += [f"  {problem}" for problem in problems]
    lines.append("`hermes-tui config` shows every value and where it came from.")
    ctx.transcript.add_notice("warn", "\n".join(lines), multiline=True)


CONFIG = SlashCommand("config", "Show configuration problems (the defaults used instead)", show_problems)
