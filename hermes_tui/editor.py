"""Edit the prompt in $VISUAL / $EDITOR (Ctrl+G), the way shells and git do."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

    from widgets.prompt.input import PromptInput


def editor_command() -> list[str] | None:
    for var in ("VISUAL", "EDITOR"):
        value = os.environ.get(var, "").strip()
        if value:
            return shlex.split(value)
    for fallback in ("nano", "vim", "vi"):
        if shutil.which(fallback):
            return [fallback]
    return None


def edit_text(text: str) -> str | None:
    """Run the editor on a temp file holding `text`; the edited text, or None when it failed."""
    command = editor_command()
    if command is None:
        return None
    with tempfile.TemporaryDirectory(prefix="hermes-prompt-") as tmp:
        path = Path(tmp) / "prompt.md"
        # A text file ends in a newline: without one, a line the editor appends (`echo x >>`, or an
        # editor that adds lines at the end) joins the prompt's last line.
        path.write_text(text if not text or text.endswith("\n") else text + "\n", encoding="utf-8")
        try:
            proc = subprocess.run([*command, str(path)], check=False)
        except OSError:
            return None
        if proc.returncode != 0:
            return None
        edited = path.read_text(encoding="utf-8", errors="replace")
    # The newline we added (and the one editors add on save) is not part of the prompt.
    return edited[:-1] if edited.endswith("\n") and not text.endswith("\n") else edited


def edit_prompt(app: App[Any], prompt: PromptInput) -> None:
    """Ctrl+G: the prompt's text (every paste in full) in the editor, the app suspended meanwhile; what
    was saved replaces it (big pastes folded back into tokens)."""
    from textual.app import SuspendNotSupported

    try:
        with app.suspend():
            edited = edit_text(prompt.full_text)
    except SuspendNotSupported:
        app.notify("This terminal cannot hand over to an editor.", severity="warning")
        return
    if edited is None:
        app.notify("No editor ran (set $EDITOR), or it failed: the prompt is unchanged.", severity="warning")
        return
    prompt.set_text(prompt.pastes.collapse(edited))
    prompt.focus()
