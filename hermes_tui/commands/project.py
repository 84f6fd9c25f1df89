"""`/init`: the model studies the project and writes its `AGENTS.md`, as Claude Code's and Codex's do.

The file is what every later session reads first (`AGENTS.md` is one of the context files of the system
prompt), so it is written by a turn of its own: the model explores with its tools and writes the file, and
the user sees each step and approves what the approval gate asks, as for any turn. An existing file is
replaced only after the user says so; the model is then told to improve it, not to start from nothing.
"""

from __future__ import annotations

from pathlib import Path

from hermes_tui.commands.base import CommandContext, SlashCommand

__all__ = ["INIT", "init_request"]

AGENTS_FILE = "AGENTS.md"

_ASK = """\
/init: look at this project ({cwd}) and write {action} `AGENTS.md` at its root: the instructions an AI \
coding agent reads before it works here. Read what tells you most first (the README, the build and \
package files, the CI configuration, the layout of the source and the tests), then write, briefly and \
specifically for this project:
- what the project is and how its code is laid out;
- the exact commands to build, run, lint and test it (one test file or test too);
- the conventions a change must follow (style, naming, layering, what the tests enforce);
- anything surprising a newcomer would trip on.
Keep it short (well under 200 lines), only what holds for this project, no generic advice. {existing}\
When the file is written, say in two lines what it covers."""

_EXISTING = "An AGENTS.md is already there: read it first, keep what is still true and improve the rest. "


def init_request(cwd: Path, *, existing: bool) -> str:
    """The message `/init` sends: what to look at, what the file must hold, how long it may be."""
    return _ASK.format(
        cwd=cwd, action="a better" if existing else "an", existing=_EXISTING if existing else ""
    )


def init_project(ctx: CommandContext, _arg: str) -> None:
    """Send the `/init` turn; with an `AGENTS.md` already there, only after the user agrees to replace it."""
    cwd = Path(ctx.session.settings.cwd)
    target = cwd / AGENTS_FILE
    if not target.exists():
        ctx.controller.submit(init_request(cwd, existing=False))
        return
    from hermes_tui.screens.modals import ConfirmModal

    def answered(replace: bool | None) -> None:
        if replace:
            ctx.controller.submit(init_request(cwd, existing=True))
        else:
            ctx.transcript.add_notice("info", f"/init cancelled: {target} is left as it is.")
        ctx.focus_prompt()

    ctx.push_screen(
        ConfirmModal(
            "Replace AGENTS.md?",
            f"{target} already exists. The model will read it and write an improved one in its place.",
            confirm_label="Rewrite it",
            variant="warning",
            note="Every later session in this folder reads this file first.",
        ),
        answered,
    )


INIT = SlashCommand("init", "Have the model study the project and write its AGENTS.md", init_project)
