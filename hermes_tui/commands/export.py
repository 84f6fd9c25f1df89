"""`/export [FILE]` and `/copy [N|code]` (a reply, or its last code block, to the clipboard).

`/export`: where to write (the argument, or asked with the session's title as the default), then the write
in a thread worker (a long session's Markdown takes a moment), then one line saying where it went or why
it failed. Markdown, or JSON for a .json path; the rendering itself is `hermes_tui.export`, shared with
the session browser.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hermes_tui.commands.base import CommandContext, SlashCommand

if TYPE_CHECKING:
    from hermes_tui.export import ExportFormat

__all__ = ["COPY", "EXPORT"]


def export(ctx: CommandContext, arg: str) -> None:
    """Export the current session to `arg`, or ask for a path when `arg` is empty."""
    session_id = ctx.session.agent.session_id
    if not session_id:
        ctx.transcript.add_notice("warn", "Nothing to export yet: send a message first.")
        return
    # The writers load on the first export, not with the chat screen (they are not on the first frame).
    from hermes_tui.export import default_export_path, format_for_path
    from hermes_tui.screens.sessions import ExportPathModal
    from hermes_tui.typed_path import typed_path

    cwd = Path(ctx.session.settings.cwd)
    if arg.strip():
        path = typed_path(arg, cwd)
        try:
            free = not path.exists() and path.parent.is_dir()
        except OSError:  # a name too long, a file where a folder should be: the dialog says which
            free = False
        if free:
            _write_in_worker(ctx, session_id, path, format_for_path(path))
            return
        default = arg.strip()  # replacing a file or creating folders: asked first, in the dialog
    else:
        info = ctx.store.get_session(session_id)
        default = f"./{default_export_path(info).name}" if info is not None else ""

    def chosen(answer: tuple[Path, ExportFormat] | None) -> None:
        if answer:
            _write_in_worker(ctx, session_id, *answer)

    ctx.push_screen(ExportPathModal(default, base_dir=cwd), chosen)


def _write_in_worker(ctx: CommandContext, session_id: str, path: Path, fmt: ExportFormat) -> None:
    def write() -> None:
        """Worker thread: write, then report on the UI thread."""
        from hermes_tui.export import write_export

        try:
            written = write_export(ctx.store, session_id, path, fmt)
        except (OSError, ValueError, KeyError) as exc:
            ctx.from_thread(ctx.transcript.add_notice, "error", f"Export failed: {exc}")
            return
        ctx.from_thread(ctx.transcript.add_notice, "info", f"Exported this session to {written}")

    ctx.in_thread(write, group="export")


def copy_reply(ctx: CommandContext, arg: str) -> None:
    """`/copy` the last reply, `/copy N` the Nth last, `/copy code` the last code block of the replies."""
    replies = [m.content for m in ctx.session.agent.messages if m.role == "assistant" and m.content]
    what = arg.strip().lower()
    if what == "code":
        text = next((block for reply in reversed(replies) for block in reversed(code_blocks(reply))), "")
        missing = "No code block in the replies yet."
    elif what:
        if not what.isdigit() or int(what) < 1:
            ctx.transcript.add_notice("warn", "/copy takes N (1 = the last reply), or code.")
            return
        n = int(what)
        text = replies[-n] if n <= len(replies) else ""
        missing = f"There are {len(replies)} replies: /copy {n} has nothing to copy."
    else:
        text = replies[-1] if replies else ""
        missing = "Nothing to copy yet."
    if not text:
        ctx.transcript.add_notice("warn", missing)
        return
    from hermes_tui.clipboard import copy_text

    ctx.transcript.add_notice("info", copy_text(ctx.copy_to_clipboard, text))


def code_blocks(markdown: str) -> list[str]:
    """The fenced and indented code blocks of a reply, in order, as the Markdown parser reads them."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(markdown)
    return [token.content.rstrip("\n") for token in tokens if token.type in ("fence", "code_block")]


COPY = SlashCommand(
    "copy",
    "Copy the last reply: /copy [N | code] (the Nth last, the last code block)",
    copy_reply,
    takes_argument=True,
)
EXPORT = SlashCommand(
    "export", "Export this session as Markdown: /export [FILE]", export, takes_argument=True
)
