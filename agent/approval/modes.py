"""Permission modes: the one policy of which tool calls run, ask or are refused in `plan`, `ask`, `default`
and `yolo`.

A tool call is one `Access`: it reads, edits a file, runs a command, acts on something else (a click in the
browser, an MCP tool not marked read-only, memory, a scheduled job, a script), or delegates (the children
inherit the mode, so a subagent in plan mode reads too). Then per mode:

* `plan`: reads and delegations run; everything else is refused without a question, with a result that
  says plan mode (the model is told on the wire that it should present a plan,
  `agent.core.permission_mode.PLAN_NOTE`).
* `ask`: every file edit asks (the dialog shows its diff), every command that is not read-only asks
  (`is_read_only_command`), every other action asks; reads run.
* `default`: the approval gate as always (edits inside the workspace and known-safe commands run; risky
  ones ask).
* `yolo`: nothing asks; hard blocks and the user's deny rules stay.

The executor asks `ApprovalGate.review_mode` before every call (built-in tools, a subagent's, an
`execute_code` script's inner calls, MCP tools, the browser); the file and command tools' own reviews
(`review_write`, `review_command`) apply the mode again, so a call classified wrongly still cannot write
in plan mode. A tool nobody lists here is an action unless it declares itself read-only
(`Tool.read_only`: an MCP tool the server marks `readOnlyHint`): unknown means refused in plan.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum, StrEnum
from typing import Any

from agent.core.permission_mode import PermissionMode
from agent.shell import Redirect, analyze, git_subcommand


class Access(StrEnum):
    READ = "read"
    EDIT = "edit"
    COMMAND = "command"
    ACT = "act"
    DELEGATE = "delegate"


_READS = frozenset(
    {
        "read_file",
        "search_files",
        "web_search",
        "web_extract",
        "session_search",
        "todo",
        "clarify",
        "vision_analyze",
        "skills_list",
        "skill_view",
        "browser_navigate",
        "browser_snapshot",
        "browser_scroll",
        "browser_back",
        "browser_get_images",
        "browser_vision",
    }
)
_EDITS = frozenset({"write_file", "patch", "skill_manage"})
_COMMANDS = frozenset({"terminal"})  # `execute_code` is an action: no review of its own asks for it
_READ_ACTIONS = {
    "process": frozenset({"list", "poll", "log", "wait"}),
    "cronjob": frozenset({"list"}),
}


def access_of(tool_name: str, arguments: Mapping[str, Any], *, read_only: bool = False) -> Access:
    """What a call of `tool_name` with `arguments` does. `read_only`: the tool says it only reads."""
    if tool_name in _READS:
        return Access.READ
    if tool_name in _EDITS:
        return Access.EDIT
    if tool_name in _COMMANDS:
        return Access.COMMAND
    if tool_name == "delegate_task":
        return Access.DELEGATE
    if tool_name == "browser_console":
        return Access.ACT if arguments.get("expression") else Access.READ
    reads = _READ_ACTIONS.get(tool_name)
    if reads is not None:
        return Access.READ if str(arguments.get("action", "")) in reads else Access.ACT
    return Access.READ if read_only else Access.ACT


class Rule(Enum):
    RUN = "run"  # nothing asks for the mode's sake (the tool's own review still applies)
    ASK = "ask"  # the user is asked first
    REFUSE = "refuse"  # refused without a question


def rule_for(mode: PermissionMode, access: Access) -> Rule:
    if access in (Access.READ, Access.DELEGATE) or mode in (PermissionMode.DEFAULT, PermissionMode.YOLO):
        return Rule.RUN
    if mode is PermissionMode.PLAN:
        return Rule.REFUSE
    # ask: edits and commands ask in their own review (with the diff, unless read-only); the rest here
    return Rule.RUN if access in (Access.EDIT, Access.COMMAND) else Rule.ASK


def plan_refusal(what: str) -> str:
    """The result a call refused by plan mode gets: the model learns why and what to do instead."""
    return (
        f"REFUSED (plan mode): {what} is not allowed while the session is in plan mode, where only tools "
        "that read run. Do NOT retry it or try another way to change anything. Keep investigating with "
        "read-only tools, then present your plan to the user; they will switch modes to let you carry it out."
    )


# ---- read-only commands -----------------------------------------------------------------------------------

_READ_PROGRAMS = frozenset(
    {
        "ls", "cat", "head", "tail", "less", "more", "wc", "grep", "egrep", "fgrep", "rg", "ag", "find",
        "fd", "tree", "pwd", "echo", "printf", "which", "whereis", "type", "file", "stat", "du", "df",
        "whoami", "id", "date", "uname", "hostname", "env", "printenv", "diff", "cmp", "sort", "uniq", "cut",
        "tr", "nl", "column", "jq", "basename", "dirname", "realpath", "readlink", "true", "false", "test",
        "[", "sha256sum", "sha1sum", "md5sum", "cksum", "ps", "uptime", "free", "lsof", "history", "cd",
    }
)  # fmt: skip
_READ_GIT = frozenset(
    {
        "status", "log", "diff", "show", "blame", "grep", "ls-files", "ls-tree", "rev-parse", "describe",
        "shortlog", "reflog", "cat-file", "whatchanged", "remote", "branch", "tag", "config",
    }
)  # fmt: skip
_WRITING_OPTIONS = {
    # options that make an otherwise reading program write or run something
    "find": ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprintf", "-fls"),
    "sort": ("-o", "--output"),
    "rg": ("--pre",),
}
_GIT_WRITING_ARGS = {"branch": 1, "tag": 1, "remote": 2, "config": 2}
"""`git branch x` creates, `git tag x` tags, `git remote add`, `git config k v` writes: those read only with
at most this many words after the subcommand that are not options (`git branch`, `git remote -v`)."""


def is_read_only_command(command: str) -> bool:
    """True when every simple command in `command` (pipelines, `&&`, `$(...)`, `sh -c` included) is a
    known reading program with no option that writes or runs code, no output redirect to a file, and
    nothing it changes by the shell model's reading. Unknown means not read-only: ask mode asks."""
    if not command.strip():
        return False
    try:
        analysis = analyze(command)
    except Exception:
        return False
    if not analysis.commands:
        return False
    for cmd in analysis.commands:
        if cmd.privileged or cmd.via in ("xargs", "find", "option", "env", "code"):
            return False
        fx = cmd.effects
        if fx.changes_files or fx.git or fx.runs:
            return False
        if any(_writes(r) for r in cmd.redirects):
            return False
        if not _reads(cmd.name, cmd.args):
            return False
    return True


def programs_of(command: str) -> str:
    """The programs a command runs, sorted and comma-joined (`git,npm`): what an ask-mode "this session"
    answer covers."""
    try:
        names = {cmd.name for cmd in analyze(command).commands if cmd.name}
    except Exception:
        return command.strip()
    return ",".join(sorted(names)) or command.strip()


def _writes(redirect: Redirect) -> bool:
    """An output redirect to a file (`> /dev/null` and fd duplications like `2>&1` write nothing)."""
    if redirect.op in ("<", "<<", "<<-", "<<<", "<&", ">&"):
        return False
    target = redirect.target.text if redirect.target is not None else ""
    return target != "/dev/null"


def _reads(name: str, args: list[str]) -> bool:
    if name == "git":
        sub, rest, configs = git_subcommand(args)
        if configs or sub not in _READ_GIT:
            return False
        words = [a for a in rest if not a.startswith("-")]
        limit = _GIT_WRITING_ARGS.get(sub)
        if limit is not None and len(words) >= limit:
            return False
        return not (sub == "branch" and any(a in ("-d", "-D", "-m", "-M", "-c", "-C") for a in rest))
    if name not in _READ_PROGRAMS:
        return False
    bad = _WRITING_OPTIONS.get(name, ())
    return not any(a == b or a.startswith(b + "=") for a in args for b in bad)
