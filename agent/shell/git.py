"""What a git command does: work-tree changes (reset, clean, checkout, restore, stash, rm, mv), history
rewritten (reset --hard, push --force, branch -D, rebase), and the programs git is told to run (`-c
core.pager=`, `-c alias.x='!cmd'`, `rebase --exec`, `bisect run`). Options are read like git reads them,
abbreviations included (`reset --har` is `--hard`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.shell.argv import operand_values
from agent.shell.model import Command, Copy, Effects, PathEffect, Run
from agent.shell.options import OptSpec, parse_options

_GIT_EXEC_CONFIG = re.compile(
    r"^(core\.(pager|editor|sshcommand|fsmonitor|askpass|gitproxy)|diff\.external|diff\..+\.(textconv|command)|"
    r"merge\..+\.driver|filter\..+\.(clean|smudge|process)|sequence\.editor|gpg(\..+)?\.program|"
    r"credential(\..+)?\.helper|pager\..+|alias\..+|uploadpack\.packobjectshook|man\..+\.cmd|browser\..+\.cmd)$",
    re.I,
)

_GIT_GLOBAL_ARG = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path"}
)
_GIT_RESET = OptSpec.of(
    "",
    "pathspec-from-file",
    "soft mixed hard merge keep quiet no-quiet patch intent-to-add refresh no-refresh recurse-submodules "
    "no-recurse-submodules pathspec-file-nul",
)
_GIT_PUSH = OptSpec.of(
    "o",
    "repo receive-pack exec push-option",
    "force force-with-lease force-if-includes mirror delete all branches tags follow-tags atomic dry-run "
    "porcelain prune verbose quiet progress no-verify verify set-upstream thin no-thin signed no-signed ipv4 "
    "ipv6 no-force-with-lease no-force-if-includes recurse-submodules no-recurse-submodules",
)
_GIT_CLEAN = OptSpec.of("e", "exclude", "force dry-run interactive quiet")
_GIT_BRANCH = OptSpec.of(
    "u",
    "set-upstream-to sort merged no-merged contains no-contains points-at format abbrev column color track",
    "delete create-reflog force move copy no-color list verbose quiet no-abbrev no-column remotes all "
    "ignore-case unset-upstream edit-description no-track recurse-submodules show-current omit-empty",
)
_GIT_REBASE = OptSpec.of("xsX", "exec strategy strategy-option onto", "")
_GIT_RM = OptSpec.of("", "pathspec-from-file", "cached force recursive quiet dry-run")


def git_subcommand(args: list[str]) -> tuple[str, list[str], list[str]]:
    """(subcommand, its arguments, `-c key=value` settings) after git's global options."""
    configs: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in _GIT_GLOBAL_ARG:
            if a == "-c" and i + 1 < len(args):
                configs.append(args[i + 1])
            i += 2
            continue
        if a.startswith("-c") and len(a) > 2:
            configs.append(a[2:])
        if a.startswith("-"):
            i += 1
            continue
        return a, args[i + 1 :], configs
    return "", [], configs


def git_effects(cmd: Command, fx: Effects) -> None:
    sub, rest, configs = git_subcommand(cmd.args)
    _config_runs(configs, fx)
    handler = _SUBCOMMANDS.get(sub)
    if handler is not None:
        handler(sub, rest, fx, cmd)


def _config_runs(configs: list[str], fx: Effects) -> None:
    """Programs a `-c key=value` setting makes git run (a pager, an editor, a `!` alias...)."""
    for setting in configs:
        key, _, value = setting.partition("=")
        if _GIT_EXEC_CONFIG.match(key) and value:
            if key.lower().startswith(("alias.", "credential")) and not value.startswith("!"):
                continue
            fx.runs.append(Run("sh", value.lstrip("!"), via="option"))


def _git_reset(sub: str, rest: list[str], fx: Effects, cmd: Command) -> None:
    fx.git.add("reset")
    if parse_options(rest, _GIT_RESET).has("hard"):
        fx.git.add("reset_hard")


def _git_push(sub: str, rest: list[str], fx: Effects, cmd: Command) -> None:
    opts = parse_options(rest, _GIT_PUSH)
    ops = operand_values(rest, opts)
    forced_ref = any(o.startswith("+") and len(o) > 1 for o in ops[1:])  # `+main`: force this one ref
    if forced_ref or opts.has("f", "force", "force-with-lease", "force-if-includes", "mirror"):
        fx.git.add("force_push")


def _git_clean(sub: str, rest: list[str], fx: Effects, cmd: Command) -> None:
    opts = parse_options(rest, _GIT_CLEAN)
    if opts.has("f", "force") and not opts.has("n", "dry-run"):
        fx.git.add("clean")
        fx.deletes.append(PathEffect("", "delete", "git", recursive=opts.has("d")))


def _git_branch(sub: str, rest: list[str], fx: Effects, cmd: Command) -> None:
    opts = parse_options(rest, _GIT_BRANCH)
    if opts.has("D") or (opts.has("d", "delete") and opts.has("f", "force")):
        fx.git.add("branch_delete")


def _git_stash(sub: str, rest: list[str], fx: Effects, cmd: Command) -> None:
    if not rest or rest[0] not in ("list", "show", "create"):
        fx.git.add("stash")


def _git_switch(sub: str, rest: list[str], fx: Effects, cmd: Command) -> None:
    if any(a in ("-f", "--force", "--discard-changes") for a in rest):
        fx.git.add("switch_force")


def _git_rm(sub: str, rest: list[str], fx: Effects, cmd: Command) -> None:
    opts = parse_options(rest, _GIT_RM)
    fx.git.add("rm")
    if not opts.has("cached", "n", "dry-run"):
        recursive = opts.has("r")
        fx.deletes.extend(PathEffect(p, "delete", "git", recursive) for p in operand_values(rest, opts))


def _git_mv(sub: str, rest: list[str], fx: Effects, cmd: Command) -> None:
    ops = [a for a in rest if not a.startswith("-")]
    fx.git.add("mv")
    if len(ops) >= 2:
        fx.copies.append(Copy(tuple(ops[:-1]), ops[-1], "git", None, move=True))


def _git_rebase(sub: str, rest: list[str], fx: Effects, cmd: Command) -> None:
    opts = parse_options(rest, _GIT_REBASE)
    fx.git.add("rebase")
    fx.runs.extend(Run("sh", c, via="option") for c in opts.all_values("x", "exec"))


def _git_bisect(sub: str, rest: list[str], fx: Effects, cmd: Command) -> None:
    if rest[:1] == ["run"] and len(cmd.argv) > 3:
        fx.runs.append(Run("argv", argv=tuple(cmd.argv[cmd.args.index("run") + 2 :]), via="option"))


def _git_submodule(sub: str, rest: list[str], fx: Effects, cmd: Command) -> None:
    if rest[:1] == ["foreach"]:
        fx.runs.append(Run("sh", " ".join(a for a in rest[1:] if a not in ("--recursive", "-q", "--quiet"))))


def _git_checkout(sub: str, rest: list[str], fx: Effects, cmd: Command) -> None:
    """`checkout`/`restore`: the paths they overwrite (a new branch overwrites nothing)."""
    if "--" in rest:
        paths = rest[rest.index("--") + 1 :]
        fx.writes.extend(PathEffect(p, "edit", "git") for p in paths)
    elif sub == "checkout" and any(a in ("-b", "-B", "--orphan") for a in rest):
        return
    elif sub == "restore":
        ops = operand_values(rest, parse_options(rest, OptSpec.of("s", "source")))
        fx.writes.extend(PathEffect(p, "edit", "git") for p in ops)
    else:
        fx.writes.extend(PathEffect(p, "maybe", "git") for p in rest if not p.startswith("-"))
    fx.git.add(sub)


_SUBCOMMANDS: dict[str, Callable[[str, list[str], Effects, Command], None]] = {
    "reset": _git_reset,
    "push": _git_push,
    "clean": _git_clean,
    "branch": _git_branch,
    "checkout": _git_checkout,
    "restore": _git_checkout,
    "stash": _git_stash,
    "switch": _git_switch,
    "rm": _git_rm,
    "mv": _git_mv,
    "rebase": _git_rebase,
    "bisect": _git_bisect,
    "submodule": _git_submodule,
}
"""What each git subcommand does that a review must know; the others change nothing it checks."""
