"""Paths as a command writes them, made comparable without touching the file system.

`~`, `~/x`, `$HOME` and `${HOME}` all stand for the home directory; `$HERMES_HOME` for Hermes' home. They
are folded into fixed markers so `~/../x` normalizes and a classifier can tell "the home directory itself"
from "something under it" without knowing where either really is.
"""

from __future__ import annotations

import posixpath
import re

HOME = "/home/\x02home"  # stands for ~ and $HOME
HERMES_HOME = "/\x02hermes-home"  # stands for $HERMES_HOME

_HOME_USER_RE = re.compile(r"^~([A-Za-z0-9_.-]+)(/.*)?$")


def expand_markers(path: str) -> str:
    """`~`, `$HOME`, `${HOME}` -> HOME; `$HERMES_HOME`, `${HERMES_HOME}` -> HERMES_HOME; `~bob` -> its
    home."""
    for prefix, mark in (("${HERMES_HOME}", HERMES_HOME), ("$HERMES_HOME", HERMES_HOME),
                         ("${HOME}", HOME), ("$HOME", HOME)):  # fmt: skip
        if path == prefix or path.startswith(prefix + "/"):
            return mark + path[len(prefix) :]
    if path == "~" or path.startswith("~/"):
        return HOME + path[1:]
    m = _HOME_USER_RE.match(path)
    if m:
        return ("/root" if m.group(1) == "root" else "/home/" + m.group(1)) + (m.group(2) or "")
    return path


def normalize(path: str) -> str | None:
    """An absolute, normalized form of `path` (markers expanded), or None for a relative path."""
    p = expand_markers(path.strip())
    if not p.startswith("/"):
        return None
    return posixpath.normpath(re.sub(r"/+", "/", p))


def join_cwd(cwd: str | None, path: str) -> str:
    """`path` as seen from where the script started, given the `cd` hint of the command using it."""
    if not path or not cwd or path.startswith(("/", "~", "$")):
        return path
    return posixpath.join(cwd, path)
