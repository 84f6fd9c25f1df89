"""What the approval gate asks about when commands run in the OS sandbox (`agent.environments.sandbox`).

Inside the sandbox a command cannot change anything outside the workspace (and the temp dir), nor see the
host's processes, nor reach the network (unless allowed). So:

* A command the gate would ask about only because of what it could do to the rest of the machine
  (`CONTAINED_KEYS`: sudo, writes under /etc or /usr, killing processes, code the analyser cannot read,
  ...) runs in the sandbox without a dialog: at worst it fails there, and its failure names the sandbox.
* A command that needs to leave the sandbox (`escapes`: it writes a path outside the writable roots, or
  reaches the network when the sandbox has none) asks, and the dialog says why (`sandbox_write`,
  `sandbox_network`); approved, it runs outside the sandbox for that one call.
* What the gate asks about for the workspace's own sake (a recursive delete, `git reset --hard`, a `.env`
  written) still asks, and runs inside the sandbox once approved. Hard blocks stay hard.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Protocol

from agent.approval.reasons import Match
from agent.shell import HOME, Analysis, expand_markers, join_cwd
from agent.shell.network import reaches_network
from agent.shell.options import word_set

SANDBOX_KEYS = frozenset({"sandbox_write", "sandbox_network"})
"""The keys of a sandbox escape: approving one runs the command outside the sandbox."""

CONTAINED_KEYS: frozenset[str] = word_set("""
    sudo service_stop kill_force kill_by_name system_config_write system_path_write ssh_write shell_rc_write
    credentials_write hermes_config_write chown_root world_writable dd decoded_exec heredoc_exec option_exec
    chmod_exec unparsed write_outside_cwd
    """)
"""Keys the gate asks about only for what they could do outside the workspace: the sandbox contains them.
A write they make outside it is an escape of its own (`escapes`), which asks."""


class SandboxBounds(Protocol):
    """What the gate needs to know of the session's sandbox (`agent.environments.sandbox.Sandbox`)."""

    @property
    def network(self) -> bool: ...

    @property
    def label(self) -> str: ...

    def allows_write(self, path: Path | str, cwd: Path | str | None = None) -> bool: ...


def _landed(path: str, cmd_cwd: str | None, cwd: Path) -> str | None:
    """Where a written path lands, absolute; None when it cannot be known (`cd $X` before it, `$VAR/x`)."""
    if not path:
        return None
    joined = join_cwd(cmd_cwd, path)
    if cmd_cwd is None and not joined.startswith(("/", "~", "$")):
        return None
    raw = expand_markers(joined)
    if raw.startswith(HOME):
        raw = os.path.expanduser("~") + raw[len(HOME) :]
    if raw.startswith("$") or "\x02" in raw:
        return None  # an unknown variable, or $HERMES_HOME: the sandbox still bounds it
    return posixpath.normpath(raw if raw.startswith("/") else os.path.join(str(cwd), raw))


def _written(analysis: Analysis) -> list[tuple[str, str | None]]:
    """(path as written, the command's cd hint) for every path the commands write, delete or copy to."""
    out: list[tuple[str, str | None]] = []
    for cmd in analysis.commands:
        fx = cmd.effects
        out += [(e.path, cmd.cwd) for e in (*fx.writes, *fx.deletes) if e.kind != "maybe"]
        for copy in fx.copies:
            out.append((copy.dest, cmd.cwd))
            if copy.move:
                out += [(s, cmd.cwd) for s in copy.sources]
    return out


def escapes(analysis: Analysis, sandbox: SandboxBounds, cwd: Path) -> list[Match]:
    """Why this command needs to leave the sandbox ([] when it can run inside it)."""
    found: list[Match] = []
    outside = [
        p
        for p in dict.fromkeys(_landed(path, hint, cwd) for path, hint in _written(analysis))
        if p is not None and not sandbox.allows_write(p, cwd)
    ]
    if outside:
        shown = ", ".join(outside[:3]) + (f" and {len(outside) - 3} more" if len(outside) > 3 else "")
        found.append(Match("sandbox_write", f"writes outside the {sandbox.label}: {shown}"))
    if not sandbox.network:
        names = [cmd.name for cmd in analysis.commands if reaches_network(cmd)]
        if names:
            shown = ", ".join(dict.fromkeys(names))
            why = f"uses the network ({shown}): the {sandbox.label} has none"
            found.append(Match("sandbox_network", why))
    return found


OUTSIDE_NOTE = "approving runs it outside the sandbox, for this call only"
"""Added to the reasons of a sandbox escape: what saying yes means."""
