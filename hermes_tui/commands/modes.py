"""The permission modes in the chat: `/mode [NAME]`, `/yolo`, and the mode key (Shift+Tab, bound by the chat
screen), all through one `set_mode` so the session, the status bar and the transcript agree.

The modes themselves (names, the key's order) are the engine's (`agent.api.PermissionMode`); which tool
calls each one runs, asks or refuses is the engine's policy, never decided here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_tui.commands.base import CommandContext, SlashCommand

if TYPE_CHECKING:
    from agent.api import PermissionMode
    from hermes_tui.commands.base import StatusAPI

__all__ = ["MODE", "MODE_KEY", "YOLO", "cycle_mode", "set_mode", "show_mode"]

MODE_KEY = "Shift+Tab"
"""The key that cycles the modes (Claude Code's), as `/help` and the status bar's notices name it."""


def show_mode(status: StatusAPI, mode: PermissionMode) -> None:
    """The status bar's mode (and its YOLO flag, which is the yolo mode)."""
    status.mode = mode.value
    status.yolo = mode.value == "yolo"


def set_mode(ctx: CommandContext, mode: PermissionMode, *, say: bool = True) -> None:
    """The session's mode from its next tool call on (a running turn included), shown and stored."""
    agent = ctx.session.agent
    agent.permission_mode = mode
    if mode.value == "yolo":
        ctx.session.yolo_offered = True
    show_mode(ctx.status, mode)
    if say:
        kind = "warn" if mode.value == "yolo" else "info"
        ctx.transcript.add_notice(kind, f"Permission mode: {mode.value} — {mode.describe}.")


def cycle_mode(ctx: CommandContext) -> None:
    """The mode key: default → ask → plan (→ yolo once chosen) → default."""
    from agent.api import cycle_after

    agent = ctx.session.agent
    set_mode(ctx, cycle_after(agent.permission_mode, with_yolo=ctx.session.yolo_offered))


def mode_command(ctx: CommandContext, arg: str) -> None:
    """`/mode NAME` switches; `/mode` alone lists the modes with the current one marked."""
    from agent.api import PermissionMode, UnknownMode, parse_mode

    if arg.strip():
        try:
            mode = parse_mode(arg)
        except UnknownMode as exc:
            ctx.transcript.add_notice("warn", str(exc))
            return
        set_mode(ctx, mode)
        return
    current = ctx.session.agent.permission_mode
    lines = [f"Permission modes ({MODE_KEY} cycles them; /mode NAME picks one):"]
    for mode in PermissionMode:
        mark = "●" if mode is current else "○"
        lines.append(f"  {mark} {mode.value:<8} {mode.describe}")
    ctx.transcript.add_notice("info", "\n".join(lines), multiline=True)


def toggle_yolo(ctx: CommandContext, _arg: str) -> None:
    """`/yolo`: the yolo mode, or back to default from it."""
    from agent.api import PermissionMode

    yolo = ctx.session.agent.permission_mode is PermissionMode.YOLO
    set_mode(ctx, PermissionMode.DEFAULT if yolo else PermissionMode.YOLO)


MODE = SlashCommand(
    "mode",
    "Permission mode: /mode default|ask|plan|yolo (alone: list them; Shift+Tab cycles)",
    mode_command,
    takes_argument=True,
)
YOLO = SlashCommand("yolo", "Toggle the yolo mode: nothing asks (hard blocks stay blocked)", toggle_yolo)
