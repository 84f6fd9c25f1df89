"""Small readers of a command's arguments shared by the effect tables (files, git, code runners)."""

from __future__ import annotations

from collections.abc import Callable

from agent.shell.lexer import Word
from agent.shell.model import Command
from agent.shell.options import Options, OptSpec, parse_options

Kinds = Callable[[str], frozenset[str]]  # what a substitution's command outputs: {"download"}, {"decode"}


def opts_of(cmd: Command, spec: OptSpec) -> tuple[list[str], Options]:
    args = cmd.args
    return args, parse_options(args, spec)


def operand_values(args: list[str], opts: Options) -> list[str]:
    return [args[i] for i in opts.operands]


def placeholders(cmd: Command, paths: list[str]) -> list[str]:
    """find -exec rm {}: `{}` is each start point (everything under it)."""
    if not cmd.roots:
        return paths
    out: list[str] = []
    for p in paths:
        out.extend([p.replace("{}", r) for r in cmd.roots] if "{}" in p else [p])
    return out


def word_origin(words: list[Word], kinds: Callable[[str], frozenset[str]]) -> str:
    """Where code in these words comes from: a substitution that downloads or decodes, else the words."""
    found: set[str] = set()
    for w in words:
        for inner in w.subs + w.procs:
            found |= kinds(inner)
    return "download" if "download" in found else "decode" if "decode" in found else "literal"
