"""Image files named in pasted text: what a terminal pastes when a file is dropped on it, or a path copied
from a file manager (`/home/me/shot.png`, `'/tmp/my shot.png'`, `/tmp/my\\ shot.png`, `file:///tmp/a.png`,
several separated by spaces or lines). Only a paste made of such paths, every one an existing image file,
counts: anything else is text and is inserted as text."""

from __future__ import annotations

import shlex
from pathlib import Path
from urllib.parse import unquote, urlsplit

from agent.core.user_paths import expand_user

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff"})
MAX_PATHS = 10


def _as_path(word: str, cwd: Path | None) -> Path | None:
    if word.startswith("file://"):
        parts = urlsplit(word)
        if parts.netloc not in ("", "localhost"):
            return None
        word = unquote(parts.path)
    try:
        path = expand_user(word)
    except RuntimeError:  # `~name` for a user who does not exist (`~)` in pasted shell): not a path
        return None
    if not path.is_absolute():
        if cwd is None or (not word.startswith(("./", "../")) and "/" not in word):
            return None
        path = cwd / path
    if path.suffix.lower() not in IMAGE_SUFFIXES:
        return None
    try:
        return path if path.is_file() else None
    except OSError:
        return None


def image_paths(text: str, cwd: Path | None = None) -> list[Path] | None:
    """The image files `text` consists of, or None when it is anything else (a sentence, a missing file)."""
    text = text.strip()
    if not text or len(text) > 8192:
        return None
    try:
        words = shlex.split(text.replace("\r\n", "\n"), posix=True)
    except ValueError:
        return None
    if not words or len(words) > MAX_PATHS:
        return None
    paths = [_as_path(w, cwd) for w in words]
    if any(p is None for p in paths):
        whole = _as_path(text, cwd)  # one unquoted path with spaces in it
        return [whole] if whole is not None else None
    return [p for p in paths if p is not None]
