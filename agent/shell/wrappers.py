"""One table of the programs that run other programs, and how to find the program they run.

* Wrappers run their operands as a command: `sudo -u x rm -rf y` runs `rm -rf y`. `unwrap` peels them off
  (with their own options, so `sudo -u root` or `nice -n 10` never hide what follows), along with variable
  assignments, shell keywords and globbed command names (`/bin/r?`).
* Shells run a string (`-c`, found through bundled options such as `-lc` or `-lO extglob -c`), a script,
  or their stdin: `shell_code`.
* Interpreters run inline code (`python -c`, `node --eval=`, `perl -p -i -e`), a script, a module, or
  their stdin: `interpreter_code`.
* PowerShell and cmd.exe run the rest of their arguments as a command, with or without `-Command`.
"""

from __future__ import annotations

import base64
import binascii
import fnmatch
import functools
import posixpath
import re
from dataclasses import dataclass, field
from typing import TypedDict, Unpack

from agent.shell.lexer import Word, words_of
from agent.shell.options import OptSpec, parse_options, resolve_long, word_set

_ASSIGN_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
KEYWORDS = frozenset(
    {"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "fi", "done", "esac", "coproc"}
)
PRIVILEGED = frozenset({"sudo", "doas", "pkexec", "run0", "su", "runuser", "sudoedit"})
# command names worth resolving a globbed command word (`/bin/r?`) to
DANGEROUS_NAMES = sorted(
    word_set(
        "rm dd mkfs shred shutdown reboot poweroff halt kill killall pkill chmod chown sudo bash sh find git"
    )
)


def is_assignment(text: str) -> bool:
    return bool(_ASSIGN_RE.match(text))


@dataclass(frozen=True)
class Wrapper:
    """spec: the wrapper's own options. positionals: operands it reads before the command (timeout's
    duration, taskset's mask). code_opts: options whose value is a shell command (flock -c)."""

    spec: OptSpec = field(default_factory=lambda: OptSpec(permute=False))
    positionals: int = 0
    code_opts: frozenset[str] = frozenset()
    no_command: frozenset[str] = frozenset()  # options after which nothing is run (command -v, chrt -p)


class _WrapperFields(TypedDict, total=False):
    positionals: int
    code_opts: frozenset[str]
    no_command: frozenset[str]


def _w(
    short_arg: str = "", long_arg: str = "", long_flags: str = "", **kw: Unpack[_WrapperFields]
) -> Wrapper:
    return Wrapper(OptSpec.of(short_arg, long_arg, long_flags, permute=False), **kw)


WRAPPERS: dict[str, Wrapper] = {
    "command": _w(no_command=frozenset({"v", "V"})),
    "builtin": _w(),
    "exec": _w("a"),
    "nohup": _w(),
    "noglob": _w(),
    "nocorrect": _w(),
    "time": _w("fo", "format output", "portability verbose append quiet"),
    "nice": _w("n", "adjustment"),
    "ionice": _w("cnp", "class classdata pid pgid uid", "ignore help version"),
    "setsid": _w("", "", "ctty fork wait"),
    "stdbuf": _w("ioe", "input output error"),
    "timeout": _w("sk", "signal kill-after", "foreground preserve-status verbose", positionals=1),
    "env": _w("uCS", "unset chdir split-string", "ignore-environment null debug"),
    "chrt": _w(
        "TPD",
        "sched-runtime sched-period sched-deadline",
        positionals=1,
        no_command=frozenset({"p", "pid", "m", "max"}),
    ),
    "taskset": _w("", "", "all-tasks cpu-list", positionals=1, no_command=frozenset({"p", "pid"})),
    "sudo": _w(
        "ugpCDrtTUhR",
        "user group host prompt close-from chdir role type command-timeout other-user chroot",
        "askpass background bell edit help login list non-interactive preserve-env preserve-groups "
        "remove-timestamp reset-timestamp set-home shell stdin validate version",
    ),
    "doas": _w("uC", "", "", no_command=frozenset({"L"})),
    "pkexec": _w("", "user", "disable-internal-agent keep-cwd help version"),
    "run0": _w("uDg", "user group chdir description slice unit property", "no-ask-password"),
    "xargs": _w(
        "adEILnPs",
        "arg-file delimiter eof replace max-lines max-args max-procs max-chars process-slot-var",
        "null interactive no-run-if-empty exit open-tty verbose show-limits",
    ),
    "busybox": _w(),
    "watch": _w("nqd", "interval differences", "exec no-title beep errexit chgexit color precise"),
    "unbuffer": _w(),
    "chronic": _w(),
    "nocache": _w(),
    "torsocks": _w(),
    "proxychains": _w("f"),
    "proxychains4": _w("f"),
    "caffeinate": _w("tw"),
    "ltrace": _w("oenpsuAaDlL"),
    "strace": _w("oepsuEIabPX"),
    "flock": _w(
        "wEc",
        "timeout conflict-exit-code command",
        "shared exclusive unlock nonblock close",
        positionals=1,
        code_opts=frozenset({"c", "command"}),
    ),
    "chroot": _w("", "userspec groups", "skip-chdir", positionals=1),
    "systemd-run": _w(
        "pMEu", "property machine setenv unit description slice uid gid", "user scope pty wait collect quiet"
    ),
    "firejail": _w(),
    "catchsegv": _w(),
}


@dataclass
class Unwrapped:
    argv: list[Word]
    privileged: bool = False
    sudo_stdin: bool = False  # sudo -S / --stdin: the password is read from stdin
    via: str = ""  # "xargs" when xargs runs it with arguments from its input
    env: list[tuple[str, Word]] = field(default_factory=list)  # assignments in effect for the command
    code: list[Word] = field(default_factory=list)  # shell code a wrapper runs (flock -c, watch)
    wrappers: list[str] = field(default_factory=list)


def _glob_head(words: list[Word]) -> list[Word]:
    if words and not words[0].quoted:
        base = posixpath.basename(words[0].text)
        if any(ch in base for ch in "*?["):
            for cand in DANGEROUS_NAMES:
                if fnmatch.fnmatchcase(cand, base):
                    return [Word(cand, words[0].subs, words[0].procs), *words[1:]]
    return words


def _sudo_reads_stdin(args: list[Word], end: int) -> bool:
    for w in args[:end]:
        t = w.text
        if t.startswith("--"):
            if "stdin" in resolve_long(t[2:].split("=", 1)[0], WRAPPERS["sudo"].spec.long_flags):
                return True
        elif t.startswith("-"):
            for ch in t[1:]:
                if ch == "S":
                    return True
                if ch in WRAPPERS["sudo"].spec.short_arg:
                    break
    return False


def _env_split(rest: list[Word], depth: int) -> list[Word]:
    """env -S 'cmd args' splits its argument into words."""
    out: list[Word] = []
    i = 0
    while i < len(rest):
        t = rest[i].text
        if t in ("-S", "--split-string") and i + 1 < len(rest):
            out.extend(words_of(rest[i + 1].text, depth + 1))
            i += 2
            continue
        if t.startswith("-S") and len(t) > 2:
            out.extend(words_of(t[2:], depth + 1))
        elif t.startswith("--split-string="):
            out.extend(words_of(t.split("=", 1)[1], depth + 1))
        elif t != "-":
            out.append(rest[i])
        i += 1
    return out


def unwrap(words: list[Word], depth: int = 0) -> Unwrapped:
    """The command that really runs, with what the wrappers around it said."""
    words = list(words)
    out = Unwrapped([])
    for _ in range(32):
        while words and is_assignment(words[0].text):
            name, _, value = words[0].text.partition("=")
            out.env.append((name.rstrip("+"), Word(value, words[0].subs, words[0].procs, words[0].quoted)))
            words = words[1:]
        if not words:
            break
        if words[0].text in KEYWORDS:
            words = words[1:]
            continue
        name = posixpath.basename(words[0].text)
        wrapper = WRAPPERS.get(name)
        if wrapper is None:
            break
        out.wrappers.append(name)
        rest = words[1:]
        if name == "env":
            rest = _env_split(rest, depth)
        texts = [w.text for w in rest]
        opts = parse_options(texts, wrapper.spec)
        if name in PRIVILEGED:
            out.privileged = True
            out.sudo_stdin = out.sudo_stdin or (name == "sudo" and _sudo_reads_stdin(rest, opts.end))
        if name == "xargs":
            out.via = "xargs"
        if opts.has(*wrapper.no_command):
            return Unwrapped([], out.privileged, out.sudo_stdin, out.via, out.env, [], out.wrappers)
        for opt in wrapper.code_opts:
            shell_code = opts.value(opt)
            if shell_code is not None:
                out.code.append(Word(shell_code))
        if out.code:  # flock -c 'cmd' LOCKFILE: the code is what runs
            return Unwrapped([], out.privileged, out.sudo_stdin, out.via, out.env, out.code, out.wrappers)
        i = opts.end + wrapper.positionals
        if name == "flock" and i < len(rest) and texts[i] in ("-c", "--command") and i + 1 < len(rest):
            out.code.append(rest[i + 1])  # flock LOCKFILE -c 'cmd'
            return Unwrapped([], out.privileged, out.sudo_stdin, out.via, out.env, out.code, out.wrappers)
        if name == "watch" and not opts.has("x", "exec"):
            out.code.append(Word(" ".join(texts[i:])))  # watch runs its arguments through `sh -c`
            return Unwrapped([], out.privileged, out.sudo_stdin, out.via, out.env, out.code, out.wrappers)
        words = rest[i:]
    out.argv = _glob_head(words)
    return out


# ---- shells ----------------------------------------------------------------------------------------------

SHELLS = word_set("sh bash zsh dash ksh mksh ash fish csh tcsh rbash yash posh lksh oksh pdksh")
_SHELL_ARG_CHARS = "oO"  # bash/zsh/ksh: -o opt, -O shopt (+o, +O too), each takes the next word
_SHELL_LONG_ARG = frozenset({"rcfile", "init-file", "init-command", "command", "debug-output", "profile"})
_SHELL_LONG = _SHELL_LONG_ARG | word_set(
    "login norc noprofile posix restricted verbose version help debugger dump-strings noediting interactive "
    "no-execute print-rusage-self features private"
)


@dataclass
class ShellCode:
    mode: str  # "c" (a command string), "script", "stdin"
    code: list[Word] = field(default_factory=list)  # the command string(s): `-c`, fish `-C`
    script: Word | None = None


def shell_code(argv: list[Word]) -> ShellCode:
    """How a shell invoked as `argv` gets its commands. Options are read the way bash does: each `o`/`O` in
    a bundle takes the next word, so `-lO extglob -lc 'cmd'` still finds the command string."""
    args = argv[1:]
    has_c = has_s = False
    code: list[Word] = []
    i = 0
    while i < len(args):
        t = args[i].text
        if t == "--":
            i += 1
            break
        if t == "-":
            return ShellCode("stdin")
        if t.startswith("--"):
            name, eq, val = t[2:].partition("=")
            names = resolve_long(name, _SHELL_LONG)
            if names & {"command", "init-command"}:  # fish -c / -C as long options
                word = Word(val) if eq else (args[i + 1] if i + 1 < len(args) else Word(""))
                code.append(word)
                has_c = has_c or "command" in names
                i += 1 if eq else 2
                continue
            i += 2 if (names & _SHELL_LONG_ARG and not eq) else 1
            continue
        if t[:1] in "-+" and len(t) > 1:
            i += 1
            for ch in t[1:]:
                if ch in _SHELL_ARG_CHARS:
                    i += 1
                elif ch == "C" and argv[0].text.endswith("fish") and i < len(args):
                    code.append(args[i])  # fish -C init-command
                    i += 1
                elif t[0] == "-" and ch == "c":
                    has_c = True
                elif t[0] == "-" and ch == "s":
                    has_s = True
            continue
        break
    rest = args[i:]
    if has_c:
        return ShellCode("c", code + rest[:1])
    if code:
        return ShellCode("c", code)
    if has_s or not rest:
        return ShellCode("stdin")
    return ShellCode("script", script=rest[0])


# ---- interpreters ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Interpreter:
    """How an interpreter takes code. code: short options whose argument is code (attached or next word);
    code_long: long ones (`--eval=CODE` too). arg / arg_long: options taking a non-code argument. module:
    a short option after which a module runs (python -m). inplace: perl/ruby -i[suffix]. program_operand:
    awk's first operand is the program. subcommand: `deno eval CODE`."""

    language: str
    code: str = ""
    code_long: frozenset[str] = frozenset()
    arg: str = ""
    arg_long: frozenset[str] = frozenset()
    module: str = ""
    inplace: str = ""
    program_operand: bool = False
    subcommand: str = ""


def _i(
    language: str,
    code: str = "",
    code_long: str = "",
    arg: str = "",
    arg_long: str = "",
    *,
    module: str = "",
    inplace: str = "",
    program_operand: bool = False,
    subcommand: str = "",
) -> Interpreter:
    return Interpreter(
        language,
        code,
        frozenset(code_long.split()),
        arg,
        frozenset(arg_long.split()),
        module=module,
        inplace=inplace,
        program_operand=program_operand,
        subcommand=subcommand,
    )


_PYTHON = _i("python", "c", "", "WXQ", "check-hash-based-pycs", module="m")
_PERL = _i("perl", "eE", "", "IMmxCFdl0D", inplace="i")
_RUBY = _i("ruby", "e", "", "rICEFxW", inplace="i")
_NODE = _i(
    "node", "ep", "eval print", "rC", "require import input-type loader conditions experimental-loader"
)
_AWK = _i("awk", "", "", "Fvf", "field-separator assign file", program_operand=True)
INTERPRETERS: list[tuple[re.Pattern[str], Interpreter]] = [
    (re.compile(r"^(python|pypy)[0-9.]*$"), _PYTHON),
    (re.compile(r"^perl[0-9.]*$"), _PERL),
    (re.compile(r"^ruby[0-9.]*$"), _RUBY),
    (re.compile(r"^(node|nodejs|bun)$"), _NODE),
    (re.compile(r"^deno$"), _i("node", subcommand="eval")),
    (re.compile(r"^php[0-9.]*$"), _i("php", "rBRE", "", "cdfzt")),
    (re.compile(r"^(lua|luajit)[0-9.]*$"), _i("lua", "e", "", "l")),
    (re.compile(r"^(Rscript|R)$"), _i("r", "e", "", "", "file")),
    (re.compile(r"^(awk|gawk|mawk|nawk)$"), _AWK),
    (re.compile(r"^osascript$"), _i("applescript", "e", "", "l")),
]


@functools.lru_cache(maxsize=256)
def interpreter_for(name: str) -> Interpreter | None:
    for pattern, interp in INTERPRETERS:
        if pattern.match(name):
            return interp
    return None


@dataclass
class InterpreterCode:
    mode: str  # "code", "script", "module", "stdin"
    code: list[Word] = field(default_factory=list)
    script: Word | None = None
    inplace: bool = False
    files: list[str] = field(default_factory=list)  # operands after the code (perl -i edits them)


def interpreter_code(interp: Interpreter, argv: list[Word]) -> InterpreterCode:
    args = argv[1:]
    out = InterpreterCode("stdin")
    i = 0
    if interp.subcommand:
        if args and args[0].text == interp.subcommand and len(args) > 1:
            return InterpreterCode("code", [args[1]])
        return InterpreterCode("script", script=args[0] if args else None)
    while i < len(args):
        t = args[i].text
        if t == "--":
            i += 1
            break
        if t == "-":
            out.files = [w.text for w in args[i + 1 :]]
            return out
        if t.startswith("--") and len(t) > 2:
            name, eq, val = t[2:].partition("=")
            names = resolve_long(name, interp.code_long | interp.arg_long)
            if names & interp.code_long:
                out.code.append(Word(val) if eq else (args[i + 1] if i + 1 < len(args) else Word("")))
                i += 1 if eq else 2
                continue
            i += 2 if (names & interp.arg_long and not eq) else 1
            continue
        if t.startswith("-") and len(t) > 1:
            body = t[1:]
            i += 1
            for k, ch in enumerate(body):
                rest = body[k + 1 :]
                if ch in interp.code:
                    if rest:
                        out.code.append(Word(rest))
                    elif i < len(args):
                        out.code.append(args[i])
                        i += 1
                    break
                if ch in interp.module:
                    return InterpreterCode("module", script=args[i] if i < len(args) else None)
                if ch in interp.inplace:
                    out.inplace = True
                    break
                if ch in interp.arg:
                    if not rest:
                        i += 1
                    break
            continue
        break
    operands = args[i:]
    if out.code:
        out.mode = "code"
        out.files = [w.text for w in operands]
    elif interp.program_operand and operands:
        out.mode = "code"
        out.code = [operands[0]]
        out.files = [w.text for w in operands[1:]]
    elif operands:
        out.mode = "script"
        out.script = operands[0]
        out.files = [w.text for w in operands[1:]]
    return out


# ---- PowerShell and cmd.exe ------------------------------------------------------------------------------

_PWSH_ARG = word_set(
    "executionpolicy file windowstyle inputformat outputformat configurationname workingdirectory version "
    "settingsfile custompipename"
)
_PWSH_FLAGS = word_set("noprofile nologo noexit noninteractive mta sta login interactive nologo help")
_PWSH_ALL = _PWSH_ARG | _PWSH_FLAGS | {"command", "encodedcommand", "commandwithargs"}


@dataclass
class PowerShellCode:
    code: str | None
    encoded: bool = False


def _decode_utf16(b64: str) -> str | None:
    try:
        raw = base64.b64decode(b64 + "===", validate=False)
    except (binascii.Error, ValueError):
        return None
    text = raw.decode("utf-16-le", "replace") if len(raw) % 2 == 0 else raw.decode("utf-8", "replace")
    return text or None


def powershell_code(argv: list[Word]) -> PowerShellCode:
    """PowerShell runs `-Command` (any unambiguous prefix, case-insensitive), `-EncodedCommand` (base64
    UTF-16) or, without either, its remaining arguments as a command (conservative: pwsh would take a
    script path there, Windows PowerShell a command)."""
    args = [w.text for w in argv[1:]]
    i = 0
    while i < len(args):
        t = args[i]
        if t[:1] not in "-/" or len(t) < 2:
            break
        names = resolve_long(t[1:].lower(), _PWSH_ALL)
        if names & {"encodedcommand"} or t.lower() in ("-e", "-ec", "-enc"):
            value = args[i + 1] if i + 1 < len(args) else ""
            return PowerShellCode(_decode_utf16(value), encoded=True)
        if names & {"command", "commandwithargs"}:
            return PowerShellCode(" ".join(args[i + 1 :]) or None)
        if "file" in names and len(names) == 1:
            return PowerShellCode(None)
        i += 2 if (names & _PWSH_ARG and len(names) == 1) else 1
    return PowerShellCode(" ".join(args[i:]) or None)


def cmd_exe_code(argv: list[Word]) -> str | None:
    """cmd.exe /c or /k runs the rest of the line."""
    args = [w.text for w in argv[1:]]
    for i, a in enumerate(args):
        if a.lower() in ("/c", "/k", "/r"):
            return " ".join(args[i + 1 :]) or None
    return None
