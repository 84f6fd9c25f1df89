"""The effects model: for one unwrapped command, the files it writes and deletes, the copies it makes, what
it does to git, and the code or programs it makes run (a shell's `-c`, inline interpreter code, `find
-exec`, `rg --pre`, `git -c core.pager=`, `LESSOPEN`, ...). One table, keyed by program name, read by both
the approval gate and the checkpoint planner, so whatever one sees the other sees.

Pure: paths are returned as written (`~/x`, `$HOME/x`, `build`), never resolved.
"""

from __future__ import annotations

from collections.abc import Callable

from agent.shell.argv import Kinds, operand_values, opts_of, placeholders
from agent.shell.git import git_effects
from agent.shell.model import Command, Copy, Effects, PathEffect, Run
from agent.shell.options import OptSpec
from agent.shell.runs import add_runs

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
    args, opts = opts_of(cmd, _RM)
    recursive = opts.has("r", "R", "recursive") or any(a.lower() == "/s" for a in args)
    force = opts.has("f", "force")
    named = [p for p in operand_values(args, opts) if p.lower() not in ("/s", "/q")]
    paths = placeholders(cmd, named) or [""]
    fx.deletes.extend(PathEffect(p, "delete", "rm", recursive, force) for p in paths)


def _unlink(cmd: Command, fx: Effects) -> None:
    if any(a.lower() == "/s" or a.lower().startswith("-rec") for a in cmd.args):
        _windows_delete(cmd, fx)
        return
    args, opts = opts_of(cmd, OptSpec.of(long_flags="ignore-fail-on-non-empty parents verbose"))
    paths = placeholders(cmd, operand_values(args, opts)) or [""]
    fx.deletes.extend(PathEffect(p, "delete", cmd.name) for p in paths)


def _windows_delete(cmd: Command, fx: Effects) -> None:
    lowered = [a.lower() for a in cmd.args]
    recursive = any(a == "/s" or a.startswith("-rec") for a in lowered)
    force = any(a in ("/f", "/q") or a.startswith("-fo") for a in lowered)
    paths = [a for a in cmd.args if not a.startswith(("-", "/"))] or [""]
    fx.deletes.extend(PathEffect(p, "delete", "windows", recursive, force) for p in paths)


def _shred(cmd: Command, fx: Effects) -> None:
    spec = OptSpec.of("ns", "iterations size random-source", "force remove exact verbose zero")
    args, opts = opts_of(cmd, spec)
    paths = placeholders(cmd, operand_values(args, opts)) or [""]
    fx.writes.extend(PathEffect(p, "destroy", "shred") for p in paths)
    if opts.has("u", "remove"):
        fx.deletes.extend(PathEffect(p, "delete", "shred") for p in paths)


def _create(cmd: Command, fx: Effects) -> None:
    """touch / mkdir: the paths they create (or touch); nothing of a file's contents changes."""
    spec = OptSpec.of("dmrt", "date mode reference context", "no-create no-dereference parents verbose")
    args, opts = opts_of(cmd, spec)
    fx.writes.extend(PathEffect(p, "create", cmd.name) for p in placeholders(cmd, operand_values(args, opts)))


def _truncate(cmd: Command, fx: Effects) -> None:
    args, opts = opts_of(cmd, OptSpec.of("sr", "size reference", "no-create io-blocks"))
    paths = placeholders(cmd, operand_values(args, opts))
    fx.writes.extend(PathEffect(p, "truncate", "truncate") for p in paths)


def _dd(cmd: Command, fx: Effects) -> None:
    for a in cmd.args:
        if a.startswith("of="):
            fx.writes.append(PathEffect(a[3:], "overwrite", "dd"))


def _tee(cmd: Command, fx: Effects) -> None:
    args, opts = opts_of(cmd, OptSpec.of("", "output-error", "append ignore-interrupts"))
    kind = "append" if opts.has("a", "append") else "overwrite"
    fx.writes.extend(PathEffect(p, kind, "tee") for p in operand_values(args, opts))


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
    args, opts = opts_of(cmd, _COPY_SPECS[name])
    if name == "install" and opts.has("d", "directory"):
        return
    ops = placeholders(cmd, operand_values(args, opts))
    target = opts.value("t", "target-directory")
    force = name != "ln" or opts.has("f", "force")
    is_dir: bool | None  # None: unknown (the destination's kind decides at run time)
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
    args, opts = opts_of(cmd, _RSYNC)
    for program in opts.all_values("e", "rsh"):
        fx.runs.append(Run("sh", program, via="option"))
    ops = operand_values(args, opts)
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
    _, opts = opts_of(cmd, _CURL)
    fx.writes.extend(PathEffect(p, "overwrite", "curl") for p in opts.all_values("o", "output") if p != "-")


def _wget(cmd: Command, fx: Effects) -> None:
    _, opts = opts_of(cmd, _WGET)
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
    _, opts = opts_of(cmd, spec)
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
        fx.writes.extend(PathEffect(p, "edit", "sed") for p in placeholders(cmd, files))


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


# ---- the table -------------------------------------------------------------------------------------------

Handler = Callable[[Command, Effects], None]
PROGRAMS: dict[str, Handler] = {
    "rm": _rm,
    "rmdir": _unlink,
    "unlink": _unlink,
    "shred": _shred,
    "truncate": _truncate,
    "touch": _create,
    "mkdir": _create,
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
    "git": git_effects,
}
WINDOWS_DELETE = frozenset({"remove-item", "ri", "del", "erase", "rd"})


def effects_of(cmd: Command, kinds: Kinds) -> Effects:
    """What `cmd` does. `kinds(text)` says whether a substitution's command downloads or decodes."""
    fx = Effects()
    _redirects(cmd, fx)
    handler = PROGRAMS.get(cmd.name)
    if handler is not None:
        handler(cmd, fx)
    elif cmd.name.lower() in WINDOWS_DELETE:
        _windows_delete(cmd, fx)
    add_runs(cmd, fx, kinds)
    return fx
