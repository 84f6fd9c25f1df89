"""Which paths are sensitive to write or delete, and which recursive deletes have no way back.

`PathPolicy` carries what the classification needs to know about this machine: Hermes' real home (from
the settings, so `$HERMES_HOME`, `~/.hermes` and the resolved path are all protected) and the user's home.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

from agent.shell.options import word_set
from agent.shell.paths import HERMES_HOME, HOME, expand_markers, normalize

SYSTEM_DIRS = word_set("""
    /etc /usr /bin /sbin /lib /boot /var /sys /proc /dev /opt /root /home /srv /run /snap /usr/bin /usr/sbin
    /usr/lib /usr/local /usr/share /usr/include /var/lib /System /Library /Applications /Users /private
    /private/etc /private/var
    """)
# writing anywhere under these changes the system (not a project): /opt and /srv hold applications
_SYSTEM_WRITE_ROOTS = (
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/var", "/sys", "/proc", "/snap",
    "/System", "/Library", "/private/var", "/run",
)  # fmt: skip
_TEMP_ROOTS = (
    "/var/tmp",
    "/var/folders",
    "/private/var/tmp",
    "/private/var/folders",
    "/private/tmp",
    "/run/user",
)
_SAFE_DEVICES = re.compile(
    r"^/dev/(null|zero|full|u?random|stdin|stdout|stderr|tty\w*|pts(/.*)?|fd(/.*)?|shm(/.*)?|ptmx|console|"
    r"tcp/.*|udp/.*|log|kmsg)$"
)
_ENV_EXEMPT = frozenset({"example", "sample", "template", "dist", "tmpl", "defaults", "default", "schema"})
_SHELL_RC = word_set("""
    .bashrc .bash_profile .bash_login .bash_logout .profile .zshrc .zprofile .zshenv .zlogin .zlogout .kshrc
    .cshrc .tcshrc .inputrc config.fish
    """)
_SSH_KEY_RE = re.compile(r"^id_(rsa|dsa|ecdsa|ed25519)(_sk)?([._-].*)?$")


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


@dataclass(frozen=True)
class PathPolicy:
    """hermes_homes: normalized forms of Hermes' home (as configured, resolved, and relative to ~). cwd:
    where the command runs, when known: a relative path is sensitive by where it lands (`sed -i ...
    config.yaml` run inside a custom HERMES_HOME writes its configuration)."""

    hermes_homes: tuple[str, ...] = ()
    real_home: str = ""
    cwd: str = ""

    def at(self, cwd: Path | str | None) -> PathPolicy:
        """This policy for a command run in `cwd`."""
        if cwd is None:
            return self
        return replace(self, cwd=os.path.normpath(os.path.abspath(str(cwd))))

    @classmethod
    def for_home(cls, hermes_home: Path | str | None) -> PathPolicy:
        """`hermes_home` None: the one this process uses, as Hermes resolves it at call time
        (`$HERMES_HOME`, else `~/.hermes`)."""
        real_home = _real_home()
        forms: list[str] = []
        if hermes_home is None:
            hermes_home = os.environ.get("HERMES_HOME") or "~/.hermes"
        if hermes_home:
            for p in {os.path.abspath(os.path.expanduser(str(hermes_home))), _realpath(hermes_home)}:
                forms.append(os.path.normpath(p))
                if real_home and _under(p, real_home):
                    forms.append(HOME + p[len(real_home) :])
        return cls(tuple(dict.fromkeys(forms)), real_home)


def _realpath(p: Path | str) -> str:
    try:
        return os.path.realpath(os.path.expanduser(str(p)))
    except (OSError, ValueError):
        return os.path.abspath(str(p))


def _real_home() -> str:
    try:
        home = os.path.realpath(os.path.expanduser("~"))
    except (OSError, ValueError):
        return ""
    return home if home not in ("/", "") else ""


def hard_delete_key(path: str, policy: PathPolicy) -> str | None:
    """The hard-block key for deleting `path` recursively: /, a system directory, or a home directory."""
    norm = normalize(path)
    if norm is None:
        return None
    while norm.endswith(("/*", "/.*")) or norm in ("/*", "/.*"):
        norm = norm.rsplit("/", 1)[0] or "/"
    if norm == "/":
        return "delete_root"
    if (
        norm in (HOME, "/root")
        or re.fullmatch(r"/(home|Users)/[^/]+", norm)
        or (policy.real_home and norm == policy.real_home)
    ):
        return "delete_home"
    if norm in SYSTEM_DIRS or re.fullmatch(r"/lib[^/]*", norm):
        return "delete_system_dir"
    return None


def is_block_device(path: str) -> bool:
    norm = normalize(path)
    return norm is not None and norm.startswith("/dev/") and not _SAFE_DEVICES.match(norm)


def sensitive_key(path: str, policy: PathPolicy) -> str | None:
    """The key for changing `path` (writing or deleting it), if it is a sensitive file or place."""
    if not path:
        return None
    raw = expand_markers(path.strip())
    parts = [x for x in re.split(r"/+", raw) if x]
    if not parts:
        return None
    return _sensitive_file(parts) or _sensitive_place(raw, parts, policy)


def _sensitive_file(parts: list[str]) -> str | None:
    """A file sensitive wherever it is, by its name (and its folder's): secrets, keys, shell startup."""
    base = parts[-1]
    if base == ".env" or (base.startswith(".env.") and not (_ENV_EXEMPT & set(base.lower().split(".")[2:]))):
        return "env_file_write"
    if ".ssh" in parts or base in ("authorized_keys", "authorized_keys2") or _SSH_KEY_RE.match(base):
        return "ssh_write"
    if base in _SHELL_RC:
        return "shell_rc_write"
    if (
        base in (".netrc", ".git-credentials", ".pgpass", ".pypirc", ".npmrc")
        or (".aws" in parts and base in ("credentials", "config"))
        or (".kube" in parts and base == "config")
        or (".docker" in parts and base == "config.json")
        or (".gnupg" in parts)
    ):
        return "credentials_write"
    return None


def _sensitive_place(raw: str, parts: list[str], policy: PathPolicy) -> str | None:
    """A sensitive place: Hermes' home (its configuration), /etc, the system's directories."""
    norm = normalize(raw)
    # A relative path is placed in the command's directory for this one check: inside Hermes' home it
    # changes Hermes' configuration (elsewhere a relative path stays the project's business).
    landed = norm
    if landed is None and policy.cwd and not raw.startswith(("$", HERMES_HOME)):
        landed = normalize(os.path.join(policy.cwd, raw))
    if ".hermes" in parts or raw.startswith(HERMES_HOME) or (landed and "/.hermes/" in landed + "/"):
        return "hermes_config_write"
    if landed and any(_under(landed, h) for h in policy.hermes_homes):
        return "hermes_config_write"
    if norm and (_under(norm, "/etc") or _under(norm, "/private/etc")):
        return "system_config_write"
    if (
        norm
        and any(_under(norm, r) for r in _SYSTEM_WRITE_ROOTS)
        and not any(_under(norm, t) for t in _TEMP_ROOTS)
    ):
        return "system_path_write"
    return None


def write_key(path: str, policy: PathPolicy, *, dd: bool = False) -> str | None:
    """The key for writing `path`: a block device (hard), the sysrq trigger, or a sensitive file."""
    if not path or path.isdigit() or path == "-":
        return None
    if is_block_device(path):
        return "dd_device" if dd else "device_write"
    if normalize(path) == "/proc/sysrq-trigger":
        return "shutdown"
    return sensitive_key(path, policy)
