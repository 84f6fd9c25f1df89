"""The effects model: for one unwrapped command, the files it writes and deletes, the copies it makes, what
it does to git, and the code or programs it makes run (a shell's `-c`, inline interpreter code, `find
-exec`, `rg --pre`, `git -c core.pager=`, `LESSOPEN`, ...). One table, keyed by program name, read by both
the approval gate and the checkpoint planner, so whatever one sees the other sees.

Pure: paths are returned as written (`~/x`, `$HOME/x`, `build`), never resolved.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.shell.lexer import Word
from agent.shell.model import Command, Copy, Effects, PathEffect, Run
from agent.shell.options import Options, OptSpec, parse_options, word_set
from agent.shell.wrappers import (
    SHELLS,
    cmd_exe_code,
    interpreter_code,
    interpreter_for,
    powershell_code,
    shell_code,
)

DOWNLOADERS = frozenset(
    {"curl", "wget", "fetch", "http", "https", "httpie", "xh", "aria2c", "lwp-request", "GET", "nc", "ncat"}
)
SQL_CLIENTS = word_set(
    "psql mysql mariadb sqlite3 sqlite duckdb clickhouse-client sqlcmd pgcli mycli litecli usql cockroach "
    "snowsql"
)
# environment variables whose value is a program the command (or its children) will run
EXEC_ENV = word_set(
    "LESSOPEN LESSCLOSE PAGER MANPAGER GIT_PAGER GIT_EDITOR GIT_SEQUENCE_EDITOR GIT_SSH_COMMAND GIT_SSH "
    "GIT_EXTERNAL_DIFF GIT_ASKPASS SSH_ASKPASS SUDO_ASKPASS EDITOR VISUAL PROMPT_COMMAND BROWSER"
)
_GIT_EXEC_CONFIG = re.compile(
    r"^(core\.(pager|editor|sshcommand|fsmonitor|askpass|gitproxy)|diff\.external|diff\..+\.(textconv|command)|"
    r"merge\..+\.driver|filter\..+\.(clean|smudge|process)|sequence\.editor|gpg(\..+)?\.program|"
    r"credential(\..+)?\.helper|pager\..+|alias\..+|uploadpack\.packobjectshook|man\..+\.cmd|browser\..+\.cmd)$",
    re.I,
)

Handler = Callable[[Command, Effects], None]


def _opts(cmd: Command, spec: OptSpec) -> tuple[list[str], Options]:
    args = cmd.args
    return args, parse_options(args, spec)


def _operands(args: list[str], opts: Options) -> list[str]:
    return [args[i] for i in opts.operands]


def _placeholders(cmd: Command, paths: list[str]) -> list[str]:
    """find -exec rm {}: `{}` is each start point (everything under it)."""
    if not cmd.roots:
        return paths
    out: list[str] = []
    for p in paths:
        out.extend([p.replace("{}", r) for r in cmd.roots] if "{}" in p else [p])
    return out


def _word_origin(words: list[Word], kinds: Callable[[str], frozenset[str]]) -> str:
    """Where code in these words comes from: a substitution that downloads or decodes, else the words."""
    found: set[str] = set()
    for w in words:
        for inner in w.subs + w.procs:
            found |= kinds(inner)
    return "download" if "download" in found else "decode" if "decode" in found else "literal"


# ---- redirections ----------------------------------------------------------------------------------------


def _redirects(cmd: Command, fx: Effects) -> None:
    for r in cmd.redirects:
        if r.target is None:
            continue
        t = r.target.text
        if r.op in (">>", "&>>"):
            fx.writes.append(PathEffect(t, "append", "redirect"))
        elif r.op in (">", ">|", "&>", "<>") or (r.op == ">&" and not (t.isdigit() or t == "-")):
            fx.writes.append(PathEffect(t, "overwrite", "redirect"))


# ---- deletes ---------------------------------------------------------------------------------------------

_RM = OptSpec.of(
    long_flags="force interactive one-file-system no-preserve-root preserve-root recursive dir verbose help "
    "version"
)


def _rm(cmd: Command, fx: Effects) -> None:
    args, opts = _opts(cmd, _RM)
    recursive = opts.has("r", "R", "recursive") or any(a.lower() == "/s" for a in args)
    force = opts.has("f", "force")
    paths = _placeholders(cmd, [p for p in _operands(args, opts) if p.lower() not in ("/s", "/q")]) or [""]
    fx.deletes.extend(PathEffect(p, "delete", "rm", recursive, force) for p in paths)


def _unlink(cmd: Command, fx: Effects) -> None:
    if any(a.lower() == "/s" or a.lower().startswith("-rec") for a in cmd.args):
        _windows_delete(cmd, fx)
        return
    args, opts = _opts(cmd, OptSpec.of(long_flags="ignore-fail-on-non-empty parents verbose"))
    paths = _placeholders(cmd, _operands(args, opts)) or [""]
    fx.deletes.extend(PathEffect(p, "delete", cmd.name) for p in paths)


def _windows_delete(cmd: Command, fx: Effects) -> None:
    lowered = [a.lower() for a in cmd.args]
    recursive = any(a == "/s" or a.startswith("-rec") for a in lowered)
    force = any(a in ("/f", "/q") or a.startswith("-fo") for a in lowered)
    paths = [a for a in cmd.args if not a.startswith(("-", "/"))] or [""]
    fx.deletes.extend(PathEffect(p, "delete", "windows", recursive, force) for p in paths)


def _shred(cmd: Command, fx: Effects) -> None:
    spec = OptSpec.of("ns", "iterations size random-source", "force remove exact verbose zero")
    args, opts = _opts(cmd, spec)
    paths = _placeholders(cmd, _operands(args, opts)) or [""]
    fx.writes.extend(PathEffect(p, "destroy", "shred") for p in paths)
    if opts.has("u", "remove"):
        fx.deletes.extend(PathEffect(p, "delete", "shred") for p in paths)


def _truncate(cmd: Command, fx: Effects) -> None:
    args, opts = _opts(cmd, OptSpec.of("sr", "size reference", "no-create io-blocks"))
    fx.writes.extend(PathEffect(p, "truncate", "truncate") for p in _placeholders(cmd, _operands(args, opts)))


def _dd(cmd: Command, fx: Effects) -> None:
    for a in cmd.args:
        if a.startswith("of="):
            fx.writes.append(PathEffect(a[3:], "overwrite", "dd"))


def _tee(cmd: Command, fx: Effects) -> None:
    args, opts = _opts(cmd, OptSpec.of("", "output-error", "append ignore-interrupts"))
    kind = "append" if opts.has("a", "append") else "overwrite"
    fx.writes.extend(PathEffect(p, kind, "tee") for p in _operands(args, opts))


# ---- copies ----------------------------------------------------------------------------------------------

_COPY_SPECS = {
    "cp": OptSpec.of(
        "St",
        "suffix target-directory reflink sparse preserve no-preserve context backup",
        "archive attributes-only copy-contents dereference force interactive link no-dereference no-clobber "
        "no-target-directory one-file-system parents recursive remove-destination strip-trailing-slashes "
        "symbolic-link update verbose keep-directory-symlink debug",
    ),
    "mv": OptSpec.of(
        "St",
        "suffix target-directory backup",
        "force interactive no-clobber no-copy strip-trailing-slashes no-target-directory update verbose "
        "exchange",
    ),
    "install": OptSpec.of(
        "SmogtC",
        "suffix mode owner group target-directory strip-program context backup",
        "compare directory no-target-directory preserve-timestamps strip verbose preserve-context",
    ),
    "ln": OptSpec.of(
        "St",
        "suffix target-directory backup",
        "force interactive logical no-dereference physical relative symbolic no-target-directory verbose",
    ),
}
_DIR_WORDS = ("", ".", "..", "~", "$HOME", "${HOME}")


def _copy(cmd: Command, fx: Effects) -> None:
    name = cmd.name
    args, opts = _opts(cmd, _COPY_SPECS[name])
    if name == "install" and opts.has("d", "directory"):
        return
    ops = _placeholders(cmd, _operands(args, opts))
    target = opts.value("t", "target-directory")
    force = name != "ln" or opts.has("f", "force")
    if target is not None:
        sources, dest, is_dir = ops, target, True
    elif len(ops) >= 2:
        sources, dest = ops[:-1], ops[-1]
        no_dir = opts.has("T", "no-target-directory")
        is_dir = False if no_dir else (True if dest.endswith("/") or dest in _DIR_WORDS else None)
    elif len(ops) == 1 and name == "ln":
        sources, dest, is_dir = ops, ".", True  # `ln -s target` makes ./basename(target)
    else:
        return
    fx.copies.append(Copy(tuple(sources), dest, name, is_dir, move=name == "mv", force=force))


_RSYNC = OptSpec.of(
    "efTBM",
    "rsh filter exclude include exclude-from include-from files-from temp-dir block-size chmod log-file "
    "partial-dir backup-dir suffix compare-dest copy-dest link-dest rsync-path password-file port out-format "
    "timeout contimeout bwlimit max-size min-size info debug remote-option chown usermap groupmap",
    "delete delete-before delete-during delete-delay delete-after delete-excluded remove-source-files "
    "archive recursive verbose quiet dry-run",
)


def _rsync(cmd: Command, fx: Effects) -> None:
    args, opts = _opts(cmd, _RSYNC)
    for program in opts.all_values("e", "rsh"):
        fx.runs.append(Run("sh", program, via="option"))
    ops = _operands(args, opts)
    if len(ops) < 2 or ":" in ops[-1] or opts.has("n", "dry-run"):
        return
    dest = ops[-1]
    fx.copies.append(Copy(tuple(ops[:-1]), dest, "rsync", True))
    if any(n.startswith("delete") for n in opts.longs):
        fx.deletes.append(PathEffect(dest, "delete", "rsync", recursive=True))
    if opts.has("remove-source-files"):
        fx.deletes.extend(PathEffect(s, "delete", "rsync") for s in ops[:-1] if ":" not in s)


# ---- downloads and other writers -------------------------------------------------------------------------

_CURL = OptSpec.of("AbcdDeEFHKmorTuUwxXyYzCPQt", "output output-dir config data header user-agent url", "")
_WGET = OptSpec.of("oaOPetTwlUiBDQARIX", "output-document output-file append-output directory-prefix", "")


def _curl(cmd: Command, fx: Effects) -> None:
    _, opts = _opts(cmd, _CURL)
    fx.writes.extend(PathEffect(p, "overwrite", "curl") for p in opts.all_values("o", "output") if p != "-")


def _wget(cmd: Command, fx: Effects) -> None:
    _, opts = _opts(cmd, _WGET)
    for p in opts.all_values("O", "output-document", "o", "output-file"):
        if p and p != "-":
            fx.writes.append(PathEffect(p, "overwrite", "wget"))


def _sort(cmd: Command, fx: Effects) -> None:
    spec = OptSpec.of(
        "kotSTy",
        "key output field-separator buffer-size temporary-directory compress-program batch-size files0-from "
        "parallel random-source sort",
        "check dictionary-order general-numeric-sort human-numeric-sort ignore-case ignore-leading-blanks "
        "ignore-nonprinting merge month-sort numeric-sort random-sort reverse stable unique version-sort "
        "zero-terminated debug",
    )
    _, opts = _opts(cmd, spec)
    fx.writes.extend(PathEffect(p, "overwrite", "sort") for p in opts.all_values("o", "output"))
    for program in opts.all_values("compress-program"):
        fx.runs.append(Run("sh", program, via="option"))


def _sed(cmd: Command, fx: Effects) -> None:
    """sed -i[SUFFIX] edits its files in place; the first operand is the script unless -e/-f gave one."""
    args = cmd.args
    in_place = script_given = False
    ops: list[str] = []
    long_names = ("in-place", "expression", "file", "line-length", "null-data", "separate", "regexp-extended")
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            ops += args[i + 1 :]
            break
        if a.startswith("--") and len(a) > 2:
            name = a[2:].split("=", 1)[0]
            matches = {n for n in long_names if n.startswith(name)}
            in_place = in_place or "in-place" in matches
            if matches & {"expression", "file"}:
                script_given = True
                i += 0 if "=" in a else 1
            elif matches == {"line-length"} and "=" not in a:
                i += 1
            i += 1
            continue
        if a.startswith("-") and len(a) > 1:
            body = a[1:]
            for k, ch in enumerate(body):
                if ch == "i":
                    in_place = True
                    break
                if ch in "ef":
                    script_given = True
                    i += 1 if k == len(body) - 1 else 0
                    break
                if ch == "l":
                    i += 1 if k == len(body) - 1 else 0
                    break
            i += 1
            continue
        ops.append(a)
        i += 1
    if in_place:
        files = ops if script_given else ops[1:]
        fx.writes.extend(PathEffect(p, "edit", "sed") for p in _placeholders(cmd, files))


def _find(cmd: Command, fx: Effects) -> None:
    args = cmd.args
    i = 0
    while i < len(args) and args[i] in ("-H", "-L", "-P"):
        i += 1
    roots: list[str] = []
    while i < len(args) and not args[i].startswith(("-", "(", "!")):
        roots.append(args[i])
        i += 1
    roots = roots or ["."]
    j = i
    while j < len(args):
        a = args[j]
        if a == "-delete":
            fx.deletes.extend(PathEffect(r, "delete", "find", recursive=True) for r in roots)
        elif a in ("-fprint", "-fprint0", "-fprintf", "-fls") and j + 1 < len(args):
            fx.writes.append(PathEffect(args[j + 1], "overwrite", "find"))
        elif a in ("-exec", "-execdir", "-ok", "-okdir"):
            end = j + 1
            while end < len(args) and args[end] not in (";", "+"):
                end += 1
            sub = cmd.argv[j + 2 : end + 1]
            if sub:
                fx.runs.append(Run("argv", argv=tuple(sub), via="find", roots=tuple(roots)))
            j = end
        j += 1


# ---- git -------------------------------------------------------------------------------------------------

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


def _git(cmd: Command, fx: Effects) -> None:
    sub, rest, configs = git_subcommand(cmd.args)
    for setting in configs:
        key, _, value = setting.partition("=")
        if _GIT_EXEC_CONFIG.match(key) and value:
            if key.lower().startswith(("alias.", "credential")) and not value.startswith("!"):
                continue
            fx.runs.append(Run("sh", value.lstrip("!"), via="option"))
    if sub == "reset":
        opts = parse_options(rest, _GIT_RESET)
        fx.git.add("reset")
        if opts.has("hard"):
            fx.git.add("reset_hard")
    elif sub == "push":
        opts = parse_options(rest, _GIT_PUSH)
        ops = _operands(rest, opts)
        if opts.has("f", "force", "force-with-lease", "force-if-includes", "mirror") or any(
            o.startswith("+") and len(o) > 1 for o in ops[1:]
        ):
            fx.git.add("force_push")
    elif sub == "clean":
        opts = parse_options(rest, _GIT_CLEAN)
        if opts.has("f", "force") and not opts.has("n", "dry-run"):
            fx.git.add("clean")
            fx.deletes.append(PathEffect("", "delete", "git", recursive=opts.has("d")))
    elif sub == "branch":
        opts = parse_options(rest, _GIT_BRANCH)
        if opts.has("D") or (opts.has("d", "delete") and opts.has("f", "force")):
            fx.git.add("branch_delete")
    elif sub in ("checkout", "restore"):
        _git_checkout(sub, rest, fx)
    elif sub == "stash":
        if not rest or rest[0] not in ("list", "show", "create"):
            fx.git.add("stash")
    elif sub == "switch":
        if any(a in ("-f", "--force", "--discard-changes") for a in rest):
            fx.git.add("switch_force")
    elif sub == "rm":
        opts = parse_options(
            rest, OptSpec.of("", "pathspec-from-file", "cached force recursive quiet dry-run")
        )
        fx.git.add("rm")
        if not opts.has("cached", "n", "dry-run"):
            recursive = opts.has("r")
            fx.deletes.extend(PathEffect(p, "delete", "git", recursive) for p in _operands(rest, opts))
    elif sub == "mv":
        ops = [a for a in rest if not a.startswith("-")]
        fx.git.add("mv")
        if len(ops) >= 2:
            fx.copies.append(Copy(tuple(ops[:-1]), ops[-1], "git", None, move=True))
    elif sub == "rebase":
        opts = parse_options(rest, _GIT_REBASE)
        fx.git.add("rebase")
        fx.runs.extend(Run("sh", c, via="option") for c in opts.all_values("x", "exec"))
    elif sub == "bisect" and rest[:1] == ["run"] and len(cmd.argv) > 3:
        fx.runs.append(Run("argv", argv=tuple(cmd.argv[cmd.args.index("run") + 2 :]), via="option"))
    elif sub == "submodule" and rest[:1] == ["foreach"]:
        fx.runs.append(Run("sh", " ".join(a for a in rest[1:] if a not in ("--recursive", "-q", "--quiet"))))


def _git_checkout(sub: str, rest: list[str], fx: Effects) -> None:
    if "--" in rest:
        paths = rest[rest.index("--") + 1 :]
        fx.writes.extend(PathEffect(p, "edit", "git") for p in paths)
    elif sub == "checkout" and any(a in ("-b", "-B", "--orphan") for a in rest):
        return
    elif sub == "restore":
        ops = _operands(rest, parse_options(rest, OptSpec.of("s", "source")))
        fx.writes.extend(PathEffect(p, "edit", "git") for p in ops)
    else:
        fx.writes.extend(PathEffect(p, "maybe", "git") for p in rest if not p.startswith("-"))
    fx.git.add(sub)


# ---- programs that run other code ------------------------------------------------------------------------


def _stdin_runs(cmd: Command, language: str) -> list[Run]:
    runs = []
    for src in cmd.stdin:
        if src.kind in ("download", "decode", "heredoc", "literal"):
            runs.append(Run(language, src.text, origin=src.kind, via="stdin"))
    return runs


def shell_runs(cmd: Command, kinds: Callable[[str], frozenset[str]]) -> list[Run]:
    mode = shell_code(cmd.argv)
    if mode.mode == "c":
        return [Run("sh", w.text, origin=_word_origin([w], kinds), via="c") for w in mode.code]
    if mode.mode == "script" and mode.script is not None:
        origin = _word_origin([mode.script], kinds)
        return [Run("sh", None, origin=origin, via="script")] if origin != "literal" else []
    return _stdin_runs(cmd, "sh")


def _eval(cmd: Command, fx: Effects, kinds: Callable[[str], frozenset[str]]) -> None:
    fx.runs.append(Run("sh", " ".join(cmd.args), origin=_word_origin(cmd.argv[1:], kinds), via="eval"))


def _source(cmd: Command, fx: Effects, kinds: Callable[[str], frozenset[str]]) -> None:
    origin = _word_origin(cmd.argv[1:2], kinds)
    if origin != "literal":
        fx.runs.append(Run("sh", None, origin=origin, via="script"))


def _su(cmd: Command, fx: Effects, kinds: Callable[[str], frozenset[str]]) -> None:
    args = cmd.args
    for i, a in enumerate(args):
        if a in ("-c", "--command") and i + 1 < len(args):
            word = cmd.argv[i + 2]
            fx.runs.append(Run("sh", word.text, origin=_word_origin([word], kinds), via="c"))
        elif a.startswith("--command="):
            fx.runs.append(Run("sh", a.split("=", 1)[1], via="c"))


def _interpreter(cmd: Command, fx: Effects, kinds: Callable[[str], frozenset[str]]) -> None:
    interp = interpreter_for(cmd.name)
    assert interp is not None
    got = interpreter_code(interp, cmd.argv)
    lang = interp.language
    if got.mode == "code":
        fx.runs.extend(Run(lang, w.text, origin=_word_origin([w], kinds), via="code") for w in got.code)
    elif got.mode == "script" and got.script is not None:
        origin = _word_origin([got.script], kinds)
        if origin != "literal":
            fx.runs.append(Run(lang, None, origin=origin, via="script"))
    elif got.mode == "stdin":
        fx.runs.extend(_stdin_runs(cmd, lang))
    if got.inplace:
        fx.writes.extend(PathEffect(p, "edit", cmd.name) for p in _placeholders(cmd, got.files))


# ---- options that name a program -------------------------------------------------------------------------

_EXEC_OPTIONS: dict[str, tuple[OptSpec, frozenset[str]]] = {
    "rg": (
        OptSpec.of(
            "efgmAtTBCEMr",
            "pre pre-glob regexp file glob iglob max-count type type-not type-add type-clear after-context "
            "before-context context encoding max-columns replace sort sortr engine colors path-separator "
            "max-depth max-filesize threads dfa-size-limit regex-size-limit ignore-file",
            "search-zip no-pre",
        ),
        frozenset({"pre"}),
    ),
    "tar": (
        OptSpec.of(
            "fIFCbgHKLNTVX",
            "file use-compress-program to-command checkpoint-action info-script new-volume-script "
            "rsh-command rmt-command directory exclude files-from",
            "create extract list",
        ),
        frozenset(
            {
                "I",
                "use-compress-program",
                "to-command",
                "info-script",
                "F",
                "new-volume-script",
                "rsh-command",
                "rmt-command",
            }
        ),
    ),
    "ssh": (OptSpec.of("oBbcDEeFIiJLlmOpQRSWw", "", ""), frozenset()),
    "scp": (OptSpec.of("ScDFiJlOoPX", "", ""), frozenset({"S"})),
    "sftp": (OptSpec.of("BbcDFiJlOoPRSs", "", ""), frozenset({"S"})),
}
_SSH_EXEC_CONFIG = re.compile(r"^(proxycommand|localcommand|knownhostscommand)\s*=?\s*(.*)$", re.I | re.S)


def _exec_options(cmd: Command, fx: Effects) -> None:
    spec, names = _EXEC_OPTIONS[cmd.name]
    opts = parse_options(cmd.args, spec)
    for opt, value in opts.values:
        if opt in names:
            fx.runs.append(Run("sh", value, via="option"))
        elif opt == "checkpoint-action" and value.startswith("exec="):
            fx.runs.append(Run("sh", value[5:], via="option"))
        elif opt == "o" and cmd.name in ("ssh", "scp", "sftp"):
            m = _SSH_EXEC_CONFIG.match(value)
            if m and m.group(2).strip():
                fx.runs.append(Run("sh", m.group(2), via="option"))


def _zip(cmd: Command, fx: Effects) -> None:
    """zip -TT CMD / --unzip-command=CMD tests the archive with CMD."""
    args = cmd.args
    for i, a in enumerate(args):
        if a == "-TT" or (a.startswith("--unz") and "unzip-command".startswith(a[2:].split("=", 1)[0])):
            value = a.split("=", 1)[1] if "=" in a else (args[i + 1] if i + 1 < len(args) else "")
            fx.runs.append(Run("sh", value, via="option"))


def _exec_env(cmd: Command, fx: Effects) -> None:
    for name, word in cmd.env:
        if name in EXEC_ENV and word.text.strip():
            program = word.text.lstrip("|-").replace("%s", "FILE")
            fx.runs.append(Run("sh", program, via="env"))


def _sql(cmd: Command, fx: Effects) -> None:
    """SQL run through a client, also behind `docker exec db psql ...`, or a command that *is* SQL."""
    texts = [w.text for w in cmd.argv]
    for i, t in enumerate(texts):
        if t.rsplit("/", 1)[-1] in SQL_CLIENTS:
            fx.runs.append(Run("sql", " ".join(texts[i + 1 :]), via="args"))
            fx.runs.extend(_stdin_runs(cmd, "sql"))
            return
    lname = cmd.name.lower()
    if lname in ("drop", "delete") or (lname == "truncate" and not any(a.startswith("-") for a in cmd.args)):
        fx.runs.append(Run("sql", " ".join(texts), via="args"))


# ---- the table -------------------------------------------------------------------------------------------

PROGRAMS: dict[str, Handler] = {
    "rm": _rm,
    "rmdir": _unlink,
    "unlink": _unlink,
    "shred": _shred,
    "truncate": _truncate,
    "dd": _dd,
    "tee": _tee,
    "cp": _copy,
    "mv": _copy,
    "install": _copy,
    "ln": _copy,
    "rsync": _rsync,
    "curl": _curl,
    "wget": _wget,
    "sort": _sort,
    "sed": _sed,
    "gsed": _sed,
    "find": _find,
    "git": _git,
    "zip": _zip,
    **dict.fromkeys(_EXEC_OPTIONS, _exec_options),
}
WINDOWS_DELETE = frozenset({"remove-item", "ri", "del", "erase", "rd"})
POWERSHELL = frozenset({"powershell", "pwsh", "powershell.exe", "pwsh.exe"})
CODE_RUNNERS: dict[str, Callable[[Command, Effects, Callable[[str], frozenset[str]]], None]] = {
    "eval": _eval,
    "source": _source,
    ".": _source,
    "su": _su,
    "runuser": _su,
}


def effects_of(cmd: Command, kinds: Callable[[str], frozenset[str]]) -> Effects:
    """What `cmd` does. `kinds(text)` says whether a substitution's command downloads or decodes."""
    fx = Effects()
    _redirects(cmd, fx)
    _exec_env(cmd, fx)
    if not cmd.argv:
        return fx
    name = cmd.name
    lname = name.lower()
    handler = PROGRAMS.get(name)
    if handler is not None:
        handler(cmd, fx)
    elif lname in WINDOWS_DELETE:
        _windows_delete(cmd, fx)
    elif name in SHELLS:
        fx.runs.extend(shell_runs(cmd, kinds))
    elif name in CODE_RUNNERS:
        CODE_RUNNERS[name](cmd, fx, kinds)
    elif lname in POWERSHELL:
        got = powershell_code(cmd.argv)
        if got.encoded or got.code:
            fx.runs.append(Run("sh", got.code, origin="decode" if got.encoded else "literal", via="c"))
    elif lname in ("cmd", "cmd.exe"):
        code = cmd_exe_code(cmd.argv)
        if code:
            fx.runs.append(Run("sh", code, via="c"))
    elif interpreter_for(name) is not None:
        _interpreter(cmd, fx, kinds)
    _sql(cmd, fx)
    first = _word_origin(cmd.argv[:1], kinds)
    if first != "literal":  # `$(curl ...)` as the command itself
        fx.runs.append(Run("sh", None, origin=first, via="c"))
    return fx


def is_decoder(cmd: Command) -> bool:
    name, args = cmd.name, cmd.args
    if name in ("base64", "base32", "basenc"):
        return any(a in ("-d", "--decode", "-D") or re.fullmatch(r"-[a-zA-Z]*d[a-zA-Z]*", a) for a in args)
    if name == "xxd":
        return any(re.fullmatch(r"-[a-z]*r[a-z]*", a) for a in args) or "-revert" in args
    if name == "openssl":
        return bool(args) and (args[0] in ("base64", "enc") and "-d" in args)
    if name in ("uudecode", "gunzip", "zcat", "bzcat", "xzcat", "rev", "tr", "unzstd", "zstdcat"):
        return True
    if name in ("gzip", "bzip2", "xz", "zstd"):
        return bool(re.search(r"(^|\s)(-[a-z]*d[a-z]*|--decompress)\b", " ".join(args)))
    return False
