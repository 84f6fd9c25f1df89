"""Whether a command reaches the network: the downloaders, remote shells and copies, and the subcommands of
package managers and git that fetch or publish. Read by the approval gate for a sandbox without network
(`agent.approval.sandbox_bounds`): such a command would fail inside it, so it asks to run outside.

Pure, like the rest of the shell model: a table keyed by program name. A program not listed is not
thought to reach the network (the sandbox still stops it if it tries; the failure names the sandbox).
"""

from __future__ import annotations

from collections.abc import Callable

from agent.shell.git import git_subcommand
from agent.shell.model import Command
from agent.shell.options import word_set
from agent.shell.runs import DOWNLOADERS

# Every run of these reaches the network (or exists to).
_ALWAYS = DOWNLOADERS | word_set(
    "ssh scp sftp ftp telnet ping ping6 dig nslookup host whois traceroute mtr socat gh glab hub "
    "npx pnpx bunx ollama huggingface-cli"
)
_GIT_REMOTE = word_set("clone fetch pull push ls-remote remote-update archive submodule request-pull")
_PIP = word_set("install download wheel index search")
_UV = word_set("add sync lock pip tool run venv")
_JS = word_set("install i ci add update upgrade up publish dlx create exec outdated audit view info")
_APT = word_set("install update upgrade full-upgrade dist-upgrade download source build-dep")
_CARGO = word_set("install fetch update publish search add build run test check")
_GO = word_set("get install mod download")
_CONTAINERS = word_set("pull push login search run build")


def _sub(words: frozenset[str]) -> Callable[[Command], bool]:
    """The first operand (the subcommand) is one of `words`."""

    def check(cmd: Command) -> bool:
        first = next((a for a in cmd.args if not a.startswith("-")), "")
        return first in words

    return check


def _git(cmd: Command) -> bool:
    sub, _, _ = git_subcommand(cmd.args)
    return sub in _GIT_REMOTE


def _rsync(cmd: Command) -> bool:
    """`rsync host:path .` or `rsync rsync://...`: a remote side; a local copy stays local."""
    return any(":" in a and not a.startswith("-") for a in cmd.args)


def _python(cmd: Command) -> bool:
    """`python -m pip install x`."""
    args = cmd.args
    for i, a in enumerate(args[:-2]):
        if a == "-m" and args[i + 1] in ("pip", "pip3", "uv"):
            return args[i + 2] in _PIP | _UV
    return False


_PROGRAMS: dict[str, Callable[[Command], bool]] = {
    "git": _git,
    "rsync": _rsync,
    "pip": _sub(_PIP),
    "pip3": _sub(_PIP),
    "pipx": _sub(_PIP | word_set("run")),
    "uv": _sub(_UV),
    "poetry": _sub(word_set("add install update lock publish")),
    "npm": _sub(_JS),
    "pnpm": _sub(_JS),
    "yarn": lambda cmd: not cmd.args or _sub(_JS)(cmd),  # a bare `yarn` installs
    "bun": _sub(_JS),
    "apt": _sub(_APT),
    "apt-get": _sub(_APT),
    "dnf": _sub(_APT),
    "yum": _sub(_APT),
    "apk": _sub(word_set("add update upgrade fetch")),
    "brew": _sub(word_set("install update upgrade fetch tap")),
    "cargo": _sub(_CARGO),
    "go": _sub(_GO),
    "gem": _sub(word_set("install update fetch push")),
    "docker": _sub(_CONTAINERS),
    "podman": _sub(_CONTAINERS),
    "python": _python,
    "python3": _python,
}


def reaches_network(cmd: Command) -> bool:
    """Whether this simple command (unwrapped: `sudo apt-get install` is `apt-get install`) uses the
    network."""
    if cmd.name in _ALWAYS:
        return True
    check = _PROGRAMS.get(cmd.name)
    return check is not None and check(cmd)
