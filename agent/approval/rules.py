"""The gate's checks as data: what each effect, each program and each kind of script means for approval.

`detect` (agent.approval.detect) reads a command through `agent.shell`, then applies, to every command
found: every EFFECT_RULE (privilege, deletes, writes, copies, the code it runs, git effects), the
PROGRAM_RULES for its name and the PATH_RULES whose pattern matches its path; and to every script read
(the command itself, `sh -c` strings, heredocs, inline code, SQL) the SCRIPT_RULES for its language. A
check reports keys (agent.approval.reasons) and, for destructive ones, the path that triggered them.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from agent.approval.paths import PathPolicy, hard_delete_key, sensitive_key, write_key
from agent.approval.reasons import HARD_KEYS, REASONS, Match
from agent.shell import SHELLS, Command, interpreter_for, join_cwd, normalize, parse, unwrap
from agent.shell.options import OptSpec, parse_options, word_set


class Collector:
    """Keys found so far (first-seen order), the paths behind destructive ones, and chmod +x targets."""

    def __init__(self, policy: PathPolicy) -> None:
        self.policy = policy
        self.matches: dict[str, Match] = {}
        self.paths: dict[str, list[str]] = {}
        self.made_executable: dict[int, set[str]] = {}

    def add(self, key: str, path: str | None = None) -> None:
        if key not in self.matches:
            self.matches[key] = Match(key, REASONS[key], key in HARD_KEYS)
        if path is not None and path not in self.paths.setdefault(key, []):
            self.paths[key].append(path)


Check = Callable[[Command, Collector], None]
ScriptCheck = Callable[[str, Collector], None]


def _where(cmd: Command, path: str) -> str:
    return join_cwd(cmd.cwd, path)


# ---- effect rules: apply to every command ----------------------------------------------------------------

_DELETERS = frozenset({"rm", "unlink", "shred"})
_RECURSIVE_TOOLS = frozenset({"rm", "windows"})  # tools whose recursive/forced delete is flagged as such


def _privilege(cmd: Command, col: Collector) -> None:
    if cmd.privileged:
        col.add("sudo")
    if cmd.sudo_stdin:
        col.add("sudo_stdin")


def _deletes(cmd: Command, col: Collector) -> None:
    hard = [
        (k, d.path)
        for d in cmd.effects.deletes
        if d.recursive and (k := hard_delete_key(_where(cmd, d.path), col.policy))
    ]
    for key, path in hard:
        col.add(key, _where(cmd, path))
    recursive = [d for d in cmd.effects.deletes if d.recursive and d.tool in _RECURSIVE_TOOLS]
    if recursive and not hard:
        for d in recursive:
            col.add("recursive_delete", _where(cmd, d.path))
    elif not recursive:
        for d in cmd.effects.deletes:
            if d.force and d.tool in _RECURSIVE_TOOLS:
                col.add("force_delete", _where(cmd, d.path))
    for d in cmd.effects.deletes:
        if d.tool == "find":
            col.add(hard_delete_key(d.path, col.policy) or "find_delete", _where(cmd, d.path))
        sensitive = sensitive_key(_where(cmd, d.path), col.policy)
        if sensitive:
            col.add(sensitive, _where(cmd, d.path))
    if cmd.via == "xargs" and cmd.name in _DELETERS:
        col.add("xargs_rm", "")
    if cmd.via == "find" and cmd.name in _DELETERS:
        hard_root = next((k for r in cmd.roots if (k := hard_delete_key(r, col.policy))), None)
        for root in cmd.roots:
            col.add(hard_root or "find_exec_rm", _where(cmd, root))


def _writes(cmd: Command, col: Collector) -> None:
    for w in cmd.effects.writes:
        path = _where(cmd, w.path)
        key = write_key(path, col.policy, dd=w.tool == "dd")
        if key:
            col.add(key, path)


def _copies(cmd: Command, col: Collector) -> None:
    for c in cmd.effects.copies:
        dest = _where(cmd, c.dest)
        key = write_key(dest, col.policy)
        if key:
            col.add(key, dest)
        if c.dest_is_dir:
            # into a directory the files keep their names: `cp x/.env .` writes ./.env, `cp -r dots/.ssh ~`
            # writes ~/.ssh (but `cp -r ~/.ssh backup/` only makes a copy: backup/.ssh is not the user's)
            into_home = normalize(c.dest) in (normalize("~"), normalize(col.policy.real_home or "~"))
            for target in c.targets(True):
                key = write_key(_where(cmd, target), col.policy)
                if key and (into_home or key == "env_file_write"):
                    col.add(key, _where(cmd, target))
        if c.move:
            for src in c.sources:
                key = sensitive_key(_where(cmd, src), col.policy)
                if key:
                    col.add(key, _where(cmd, src))


def _runs(cmd: Command, col: Collector) -> None:
    for run in cmd.effects.runs:
        if run.origin == "download":
            col.add("remote_exec")
        elif run.origin == "decode":
            col.add("decoded_exec")
        elif run.origin == "heredoc" and run.language == "sh":
            col.add("heredoc_exec")


def _through_option(cmd: Command, col: Collector) -> None:
    """`rg --pre sh`, `sort --compress-program=sh`, `git -c core.pager='sh -c ...'`, `LESSOPEN='|rm %s'`:
    a program named in an option or variable that runs its input as code, or deletes it."""
    if cmd.via not in ("option", "env") or not cmd.argv:
        return
    name = cmd.name
    if (
        name in SHELLS
        or name in _DELETERS
        or name in ("eval", "xargs", "env", "dd", "truncate")
        or interpreter_for(name) is not None
    ):
        col.add("option_exec")


_GIT_KEYS = {
    "reset_hard": "git_reset_hard",
    "force_push": "git_force_push",
    "clean": "git_clean",
    "branch_delete": "git_branch_delete",
}


def _git(cmd: Command, col: Collector) -> None:
    for effect in sorted(cmd.effects.git):
        key = _GIT_KEYS.get(effect)
        if key:
            col.add(key, "" if key in ("git_reset_hard", "git_clean") else None)


EFFECT_RULES: tuple[Check, ...] = (_privilege, _deletes, _writes, _copies, _runs, _through_option, _git)


# ---- program rules ---------------------------------------------------------------------------------------


def _chmod_world_writable(mode: str) -> bool:
    if re.fullmatch(r"[0-7]{1,5}", mode):
        return bool(int(mode[-1]) & 2)
    for clause in mode.split(","):
        m = re.match(r"^([ugoa]*)(.*)$", clause)
        if not m:
            continue
        who, rest = m.group(1), m.group(2)
        for op, perms in re.findall(r"([-+=])([rwxXstugo]*)", rest):
            if op in "+=" and "w" in perms and ("o" in who or "a" in who):
                return True
    return False


def _chmod_adds_exec(mode: str) -> bool:
    if re.fullmatch(r"[0-7]{1,5}", mode):
        return any(int(d) & 1 for d in mode[-3:])
    return bool(re.search(r"[+=][rwXst]*x", mode))


def _exec_norm(path: str) -> str:
    return posixpath.normpath(path) if path else path


def _chmod(cmd: Command, col: Collector) -> None:
    mode: str | None = None
    files: list[str] = []
    for a in cmd.args:
        if a.startswith("--"):
            continue
        if mode is None and a.startswith("-") and len(a) > 1 and set(a[1:]) <= set("cfvR"):
            continue
        if mode is None:
            mode = a
        else:
            files.append(a)
    if mode is None:
        return
    if _chmod_world_writable(mode):
        col.add("world_writable")
    if _chmod_adds_exec(mode):
        col.made_executable.setdefault(cmd.script, set()).update(_exec_norm(f) for f in files)


_CHOWN = OptSpec.of(
    "", "from reference", "changes dereference no-dereference preserve-root no-preserve-root quiet silent "
    "recursive verbose help version",
)  # fmt: skip


def _chown(cmd: Command, col: Collector) -> None:
    args = cmd.args
    opts = parse_options(args, _CHOWN)
    owner = args[opts.operands[0]] if opts.operands else None
    if opts.has("R", "recursive") and owner and re.match(r"^(root|0)([:.]|$)", owner):
        col.add("chown_root")


def _pid_by_name(cmd: Command, index: int) -> bool:
    """`kill $(pgrep x)`: the pid is found by name."""
    for inner in cmd.argv[index].subs:
        pipes = parse(inner)
        for pipe in pipes:
            for simple in pipe.commands:
                argv = unwrap(simple.words).argv
                if argv and posixpath.basename(argv[0].text) in ("pgrep", "pidof"):
                    return True
    return False


def _kill(cmd: Command, col: Collector) -> None:
    args = cmd.args
    sig: str | None = None
    pids: list[int] = []
    end = False
    i = 0
    while i < len(args):
        a = args[i]
        if end:
            pids.append(i)
        elif a == "--":
            end = True
        elif a in ("-s", "--signal", "-n"):
            sig = args[i + 1] if i + 1 < len(args) else sig
            i += 1
        elif a.startswith("--signal="):
            sig = a.split("=", 1)[1]
        elif a in ("-l", "-L", "--list", "--table"):
            return
        elif a.startswith("-") and len(a) > 1 and sig is None and not pids:
            sig = a[1:]
        else:
            pids.append(i)
        i += 1
    texts = [args[p] for p in pids]
    if "-1" in texts or (sig == "1" and not texts):
        col.add("kill_all_processes")
        return
    if sig is not None and sig.upper().removeprefix("SIG") in ("9", "KILL"):
        col.add("kill_force")
    if any(_pid_by_name(cmd, p + 1) for p in pids):
        col.add("kill_by_name")


_KILLALL = OptSpec.of("suyoZn", "signal user younger-than older-than context ns", "exact ignore-case "
                      "process-group interactive list quiet regexp verbose version wait help")  # fmt: skip
_PKILL = OptSpec.of("dgGPstuUFn", "delimiter pgroup group parent session terminal euid uid pidfile ns nslist "
                    "signal", "full newest oldest exact inverse count echo help version")  # fmt: skip


def _kill_by_name(cmd: Command, col: Collector) -> None:
    """killall/pkill kill by name; `-l` (list signals), `-V`, `--help` alone kill nothing."""
    opts = parse_options(cmd.args, _KILLALL if cmd.name == "killall" else _PKILL)
    if not cmd.args or (not opts.operands and opts.has("l", "list", "V", "version", "help")):
        return
    col.add("kill_by_name")


def _killall5(cmd: Command, col: Collector) -> None:
    col.add("kill_all_processes")


def _dd(cmd: Command, col: Collector) -> None:
    if not any(w.tool == "dd" and write_key(_where(cmd, w.path), col.policy, dd=True) == "dd_device"
               for w in cmd.effects.writes):  # fmt: skip
        col.add("dd")


def _shred(cmd: Command, col: Collector) -> None:
    for w in cmd.effects.writes:
        col.add("shred", _where(cmd, w.path))


_HELP_ONLY = frozenset({"-h", "--help", "-V", "--version", "-?"})


def _mkfs(cmd: Command, col: Collector) -> None:
    """mkfs formats: blocked, unless all it is asked is its help or version."""
    if cmd.args and set(cmd.args) <= _HELP_ONLY:
        return
    col.add("mkfs")


def _power(cmd: Command, col: Collector) -> None:
    if cmd.args and set(cmd.args) <= _HELP_ONLY:
        return
    col.add("shutdown")


def _init(cmd: Command, col: Collector) -> None:
    if cmd.args[:1] in (["0"], ["6"]):
        col.add("shutdown")


def _loginctl(cmd: Command, col: Collector) -> None:
    if any(a in ("poweroff", "reboot", "halt") for a in cmd.args):
        col.add("shutdown")


_SERVICE_STOP_VERBS = word_set(
    "stop disable mask restart kill isolate try-restart reload-or-restart force-reload"
)


def _systemctl(cmd: Command, col: Collector) -> None:
    args = cmd.args
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-H", "-M", "--host", "--machine", "-s", "--signal", "-t", "--type") else 1
    if i >= len(args):
        return
    verb = args[i]
    if verb in ("poweroff", "reboot", "halt", "kexec", "emergency", "rescue", "soft-reboot"):
        col.add("shutdown")
    elif verb in _SERVICE_STOP_VERBS:
        col.add("service_stop")


def _service(cmd: Command, col: Collector) -> None:
    if any(a in ("stop", "restart", "force-reload", "force-stop") for a in cmd.args[1:2]):
        col.add("service_stop")


def _launchctl(cmd: Command, col: Collector) -> None:
    if cmd.args[:1] and cmd.args[0] in ("unload", "bootout", "stop", "remove", "disable", "kill"):
        col.add("service_stop")


def _init_script(cmd: Command, col: Collector) -> None:
    if cmd.args[:1] and cmd.args[0] in ("stop", "restart", "force-stop"):
        col.add("service_stop")


PROGRAM_RULES: dict[str, tuple[Check, ...]] = {
    "chmod": (_chmod,),
    "chown": (_chown,),
    "kill": (_kill,),
    "killall": (_kill_by_name,),
    "pkill": (_kill_by_name,),
    "killall5": (_killall5,),
    "dd": (_dd,),
    "shred": (_shred,),
    "mke2fs": (_mkfs,),
    "newfs": (_mkfs,),
    "shutdown": (_power,),
    "reboot": (_power,),
    "halt": (_power,),
    "poweroff": (_power,),
    "init": (_init,),
    "telinit": (_init,),
    "loginctl": (_loginctl,),
    "systemctl": (_systemctl,),
    "service": (_service,),
    "launchctl": (_launchctl,),
}
# rules for command *paths* matching a pattern (names that are a family, scripts found by location)
PATH_RULES: tuple[tuple[re.Pattern[str], Check], ...] = (
    (re.compile(r"(^|/)mkfs(\.[A-Za-z0-9_+-]+)?$"), _mkfs),
    (re.compile(r"^/etc/init\.d/"), _init_script),
)


def chmod_then_run(cmd: Command, col: Collector) -> None:
    """`chmod +x install.sh && ./install.sh`: made executable and run in the same script."""
    targets = col.made_executable.get(cmd.script)
    if not targets or cmd.name == "chmod" or not cmd.argv:
        return
    path = cmd.path
    if ("/" in path or path in targets) and _exec_norm(path) in targets:
        col.add("chmod_exec")


# ---- script rules: apply to every text the analysis read -------------------------------------------------

_FORKBOMB_BODY = re.compile(r"\(\)\{([^{}]*)\}")
_FORKBOMB_NAME = re.compile(r"([\w:.]{1,64})$")
_FORKBOMB_MISC = re.compile(
    r"%0\|%0|fork\s*while\s*fork|while\s*\(?\s*(true|1)\s*\)?\s*:?\s*(os\.)?fork\(\)|"
    r"for\s*\(\s*;\s*;\s*\)\s*fork\(\)",
    re.I,
)


def fork_bomb(text: str, col: Collector) -> None:
    compact = re.sub(r"\s+", "", text)
    for m in _FORKBOMB_BODY.finditer(compact):
        head = _FORKBOMB_NAME.search(compact, max(0, m.start() - 64), m.start())
        if head is None:
            continue
        name, body = head.group(1).removeprefix("function"), m.group(1)
        if not name:
            continue
        calls = len(re.findall(r"(?<![\w:.])" + re.escape(name) + r"(?![\w:.])", body))
        if calls >= 2 and ("&" in body or "|" in body):
            col.add("fork_bomb")
            return
    if _FORKBOMB_MISC.search(text):
        col.add("fork_bomb")


def sql(text: str, col: Collector) -> None:
    for stmt in text.split(";"):
        if re.search(r"\bdrop\s+(table|database|schema)\b", stmt, re.I):
            col.add("sql_drop")
        if re.search(r"\btruncate\s+(table\s+)?[`\"\[\w]", stmt, re.I):
            col.add("sql_truncate")
        m = re.search(r"\bdelete\s+from\s+\S+", stmt, re.I)
        if m and not re.search(r"\bwhere\b", stmt[m.end() :], re.I):
            col.add("sql_delete_all")


SCRIPT_RULES: dict[str, tuple[ScriptCheck, ...]] = {
    "sh": (fork_bomb,),
    "sql": (sql,),
}
CODE_SCRIPT_RULES: tuple[ScriptCheck, ...] = (fork_bomb, sql)  # inline code of any other language
