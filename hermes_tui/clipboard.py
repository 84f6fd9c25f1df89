"""Copy text to the clipboard, and say honestly whether it worked.

OSC 52 (through Textual) reaches the terminal's clipboard when the terminal allows it, but nothing reports
back whether it did. A local clipboard tool (wl-copy, xclip, xsel, pbcopy) can confirm; it needs a display.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable

TOOLS: tuple[tuple[str, list[str], str], ...] = (
    ("wl-copy", ["wl-copy"], "WAYLAND_DISPLAY"),
    ("xclip", ["xclip", "-selection", "clipboard"], "DISPLAY"),
    ("xsel", ["xsel", "--clipboard", "--input"], "DISPLAY"),
    ("pbcopy", ["pbcopy"], ""),
)


def copy_with_local_tool(text: str) -> str | None:
    """The name of the tool that confirmed the copy, or None."""
    for name, argv, needs in TOOLS:
        if shutil.which(argv[0]) is None or (needs and not os.environ.get(needs)):
            continue
        try:
            proc = subprocess.run(argv, input=text.encode("utf-8"), capture_output=True, timeout=3)
        except (OSError, subprocess.SubprocessError):
            continue
        if proc.returncode == 0:
            return name
    return None


def copy_text(osc52: Callable[[str], None], text: str) -> str:
    """Copy through every route available (`osc52`: the app's `copy_to_clipboard`); return the sentence
    to show the user."""
    osc52(text)  # OSC 52: harmless where unsupported
    tool = copy_with_local_tool(text)
    size = f"{len(text):,} characters"
    if tool:
        return f"Copied {size} to the clipboard (confirmed by {tool})."
    hint = " Inside tmux, `set -g set-clipboard on` lets it through." if os.environ.get("TMUX") else ""
    return (
        f"Sent {size} to the terminal's clipboard (OSC 52). No local clipboard tool could confirm it: "
        f"if nothing arrived, your terminal blocks OSC 52.{hint}"
    )


PASTE_IMAGE_TOOLS: tuple[tuple[str, list[str], str], ...] = (
    ("wl-paste", ["wl-paste", "--no-newline", "--type", "image/png"], "WAYLAND_DISPLAY"),
    ("xclip", ["xclip", "-selection", "clipboard", "-t", "image/png", "-o"], "DISPLAY"),
    ("pngpaste", ["pngpaste", "-"], ""),
)


def paste_image() -> tuple[bytes | None, str]:
    """(PNG bytes, "") from the clipboard, or (None, why not). Terminals paste text only, so a clipboard
    image is read with a local tool (Hermes does the same); it needs a display. Blocks up to 3 s a tool."""
    tried = []
    for name, argv, needs in PASTE_IMAGE_TOOLS:
        if shutil.which(argv[0]) is None or (needs and not os.environ.get(needs)):
            continue
        tried.append(name)
        try:
            proc = subprocess.run(argv, capture_output=True, timeout=3)
        except (OSError, subprocess.SubprocessError):
            continue
        if proc.returncode == 0 and proc.stdout:
            return proc.stdout, ""
    if not tried:
        return None, "no clipboard tool for images here (wl-paste, xclip or pngpaste, with a display)"
    return None, f"the clipboard holds no image ({', '.join(tried)} found none)"
