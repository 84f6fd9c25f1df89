"""`/image FILE...` attaches images to the next message; `--paste` the clipboard's; `clear` all. A paste
without text (the clipboard may hold an image) goes through `paste_image` too."""

from __future__ import annotations

from hermes_tui.commands.base import CommandContext, SlashCommand

__all__ = ["IMAGE", "paste_image"]


def attach(ctx: CommandContext, arg: str) -> None:
    arg = arg.strip()
    attachments = ctx.attachments
    if arg == "clear":
        attachments.clear()
    elif arg in ("--paste", "paste"):
        paste_image(ctx)
    elif arg:
        attachments.add_typed(arg)
    else:
        attached = ", ".join(ref.name for ref in attachments.refs) or "none"
        ctx.transcript.add_notice(
            "info",
            f"Attached: {attached}. /image FILE attaches one (or paste its path), /image --paste "
            "the clipboard's, /image clear removes them; click a badge to remove it.",
        )


def paste_image(ctx: CommandContext) -> None:
    """The clipboard's image, read in a thread, becomes an attachment (or a notice saying why not)."""

    def pasted(data: bytes | None, why: str) -> None:
        if data is None:
            ctx.transcript.add_notice("warn", f"No image pasted: {why}.")
        else:
            ctx.attachments.add([(data, "clipboard.png")])

    def work() -> None:
        from hermes_tui.clipboard import paste_image as read_clipboard

        ctx.from_thread(pasted, *read_clipboard())

    ctx.in_thread(work, group="clipboard")


IMAGE = SlashCommand("image", "Attach an image: /image FILE | --paste | clear", attach, takes_argument=True)
