"""Where Hermes' home is (`$HERMES_HOME`, else `~/.hermes`), in a module light enough for the command line
to ask before anything heavy is imported (the startup snapshot lives under it, `hermes_tui.startup_snapshot`).

Profiles, as Hermes has them: `-p NAME` (or the sticky `active_profile` file Hermes' `hermes profile use`
writes in the root home) makes `<root>/profiles/NAME` the home; `default` is the root itself. A
`HERMES_HOME` that already points into `profiles/` is taken as it is, as Hermes takes it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from agent.core.bounded_files import read_text
from agent.core.user_paths import expand_user

__all__ = ["ProfileError", "hermes_home", "hermes_root", "profile_home"]

_PROFILE_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


class ProfileError(ValueError):
    """A profile that cannot be used, said in one line."""


def hermes_home() -> Path:
    return expand_user(os.environ.get("HERMES_HOME") or Path.home() / ".hermes")


def hermes_root(env: Mapping[str, str]) -> Path:
    """The home profiles live under: `HERMES_HOME` (the one above it when it is a profile), else
    `~/.hermes`."""
    home = env.get("HERMES_HOME", "").strip()
    if not home:
        return Path.home() / ".hermes"
    path = expand_user(home)
    return path.parent.parent if path.parent.name == "profiles" else path


def profile_home(name: str | None, env: Mapping[str, str]) -> Path | None:
    """The home a profile selects: `name` (`-p NAME`), else the sticky `active_profile`; None when no
    profile applies (`HERMES_HOME`, or the default home, as it is). Raises `ProfileError` for a name that
    is not a profile name or a profile that does not exist."""
    root = hermes_root(env)
    source = "-p"
    if name is None:
        home = env.get("HERMES_HOME", "").strip()
        if home and expand_user(home).parent.name == "profiles":
            return None
        try:
            name = read_text(root / "active_profile", limit=4096, errors="strict").strip()
        except (OSError, UnicodeDecodeError):
            return None
        source = f"{root / 'active_profile'}"
        if not name:
            return None
    canon = name.strip().lower()
    if canon == "default":
        return root if source == "-p" else None
    if not _PROFILE_NAME.match(canon):
        allowed = "lowercase letters, digits, '-' and '_', up to 64"
        raise ProfileError(f"{source}: invalid profile name {name!r} ({allowed})")
    path = root / "profiles" / canon
    if not path.is_dir():
        raise ProfileError(f"{source}: profile '{canon}' does not exist ({path}); create it with Hermes")
    return path
