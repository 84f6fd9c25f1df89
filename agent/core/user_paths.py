"""`~` in a path someone typed (a flag, an environment variable, a config value, a tool's argument).

`Path.expanduser` raises `RuntimeError` for `~name` when no user has that name; a path is data, and a typo
in one must become the caller's one-line "no such file", never a traceback. So `~name` naming no user stays
as typed (a relative path that will not exist).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["expand_user"]


def expand_user(path: str | Path) -> Path:
    candidate = Path(path)
    try:
        return candidate.expanduser()
    except RuntimeError:  # `~name` with no such user (or no home at all): not a home to expand
        return candidate
