"""What code a command makes run: a shell's `-c` string or its stdin, `eval`, `source`, `su -c`, inline
interpreter code, PowerShell and cmd.exe, SQL handed to a client, programs named by options (`rg --pre`,
`sort --compress-program`, `tar -I`, `ssh -o ProxyCommand=`, pagers and browsers: `man -P`, `man -H`,
`ag --pager`) or by environment variables (`LESSOPEN`,
`GIT_PAGER`), and whether that code was downloaded or decoded on the way.
"""

from __future__ import annotations

import re

from agent.shell.argv import Kinds, placeholders, word_origin
from agent.shell.model import Command, Effects, PathEffect, Run
from agent.shell.options import OptSpec, parse_options, word_set
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
    "GIT_EXTERNAL_DIFF GIT_ASKPASS SSH_ASKPASS SUDO_ASKPASS EDITOR VISUAL PROMPT_COMMAND BROWSER "
    "SYSTEMD_PAGER BAT_PAGER DELTA_PAGER GH_PAGER AWS_PAGER PSQL_PAGER"
)


def _stdin_runs(cmd: Command, language: str) -> list[Run]:
    runs = []
    for src in cmd.stdin:
        if src.kind in ("download", "decode", "heredoc", "literal"):
            runs.append(Run(language, src.text, origin=src.kind, via="stdin"))
    return runs


def shell_runs(cmd: Command, kinds: Kinds) -> list[Run]:
    mode = shell_code(cmd.argv)
    if mode.mode == "c":
        return [Run("sh", w.text, origin=word_origin([w], kinds), via="c") for w in mode.code]
    if mode.mode == "script" and mode.script is not None:
        origin = word_origin([mode.script], kinds)
        return [Run("sh", None, origin=origin, via="script")] if origin != "literal" else []
    return _stdin_runs(cmd, "sh")


def _eval(cmd: Command, fx: Effects, kinds: Kinds) -> None:
    fx.runs.append(Run("sh", " ".join(cmd.args), origin=word_origin(cmd.argv[1:], kinds), via="eval"))


def _source(cmd: Command, fx: Effects, kinds: Kinds) -> None:
    origin = word_origin(cmd.argv[1:2], kinds)
    if origin != "literal":
        fx.runs.append(Run("sh", None, origin=origin, via="script"))


def _su(cmd: Command, fx: Effects, kinds: Kinds) -> None:
    args = cmd.args
    for i, a in enumerate(args):
        if a in ("-c", "--command") and i + 1 < len(args):
            word = cmd.argv[i + 2]
            fx.runs.append(Run("sh", word.text, origin=word_origin([word], kinds), via="c"))
        elif a.startswith("--command="):
            fx.runs.append(Run("sh", a.split("=", 1)[1], via="c"))


def _interpreter(cmd: Command, fx: Effects, kinds: Kinds) -> None:
    interp = interpreter_for(cmd.name)
    assert interp is not None
    got = interpreter_code(interp, cmd.argv)
    lang = interp.language
    if got.mode == "code":
        fx.runs.extend(Run(lang, w.text, origin=word_origin([w], kinds), via="code") for w in got.code)
    elif got.mode == "script" and got.script is not None:
        origin = word_origin([got.script], kinds)
        if origin != "literal":
            fx.runs.append(Run(lang, None, origin=origin, via="script"))
    elif got.mode == "stdin":
        fx.runs.extend(_stdin_runs(cmd, lang))
    if got.inplace:
        fx.writes.extend(PathEffect(p, "edit", cmd.name) for p in placeholders(cmd, got.files))


# ---- options that name a program -------------------------------------------------------------------------

_EXEC_OPTIONS: dict[str, tuple[OptSpec, frozenset[str]]] = {
    "rg": (
        OptSpec.of(
            "efgmAtTBCEMr",
            "pre pre-glob regexp file glob iglob max-count type type-not type-add type-clear after-context "
            "before-context context encoding max-columns replace sort sortr engine colors path-separator "
            "max-depth max-filesize threads dfa-size-limit regex-size-limit ignore-file hostname-bin",
            "search-zip no-pre",
        ),
        frozenset({"pre", "hostname-bin"}),
    ),
    # man-db: the pager (-P) and the HTML browser (-H, whose value is optional: the next word is taken as
    # the browser, which can only make the check stricter).
    "man": (
        OptSpec.of(
            "CRLmMSserEPpH",
            "config-file encoding extension locale manpath pager preprocessor prompt recode sections systems "
            "html",
        ),
        frozenset({"P", "pager", "H", "html"}),
    ),
    "ag": (
        OptSpec.of(
            "gGmpW",
            "ackmate-dir-filter color-line-number color-match color-path depth filename-pattern "
            "file-search-regex ignore ignore-dir max-count pager path-to-ignore width workers",
        ),
        frozenset({"pager"}),
    ),
    "bat": (
        OptSpec.of(
            "lHmr", "language highlight-line map-syntax line-range pager theme style wrap tabs file-name"
        ),
        frozenset({"pager"}),
    ),
    "delta": (OptSpec.of("", "pager features syntax-theme width"), frozenset({"pager"})),
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


POWERSHELL = frozenset({"powershell", "pwsh", "powershell.exe", "pwsh.exe"})
CODE_RUNNERS = {"eval": _eval, "source": _source, ".": _source, "su": _su, "runuser": _su}
EXEC_OPTION_PROGRAMS = {"zip": _zip, **dict.fromkeys(_EXEC_OPTIONS, _exec_options)}


def add_runs(cmd: Command, fx: Effects, kinds: Kinds) -> None:
    """Everything `cmd` makes run, appended to `fx.runs`."""
    _exec_env(cmd, fx)
    if not cmd.argv:
        return
    name = cmd.name
    lname = name.lower()
    if name in SHELLS:
        fx.runs.extend(shell_runs(cmd, kinds))
    elif name in CODE_RUNNERS:
        CODE_RUNNERS[name](cmd, fx, kinds)
    elif name in EXEC_OPTION_PROGRAMS:
        EXEC_OPTION_PROGRAMS[name](cmd, fx)
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
    first = word_origin(cmd.argv[:1], kinds)
    if first != "literal":  # `$(curl ...)` as the command itself
        fx.runs.append(Run("sh", None, origin=first, via="c"))


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
