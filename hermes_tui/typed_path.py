"""The file a path the user typed means (`/export PATH`, `/image FILE`, the export dialog).

`~` is expanded (`agent.core.user_paths.expand_user`: a `~name` naming no user stays as typed);
a relative path is taken from the session's directory. What the file system says about the result (a name
too long, a component that is a file) is for the caller to report: every check on a typed path catches
`OSError`, since `Path.exists` and `Path.is_file` raise for a name too long.
"""

from __future__ import annotations

from pathlib import Path

from agent.api import expand_user

__all__ = ["typed_path"]


def typed_path(typed: str | Path, base_dir: Path | None = None) -> Path:
    path = expand_user(typed.strip() if isinstance(typed, str) else typed)
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    return path
