"""Command-line options the way GNU getopt reads them: bundled short flags, options that take an argument
(attached or as the next word), `--` and unambiguous long-option prefixes (`--recur` is `--recursive`,
`git reset --har` is `--hard`). Reading options like the program does is what keeps a payload from hiding
behind `-lO extglob -lc` or an abbreviation.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of `text`: tables of names read better as one string."""
    return frozenset(text.split())


@dataclass(frozen=True)
class OptSpec:
    """short_arg: short options that take an argument; long_arg / long_flags: long options (no `--`) that
    take / do not take one (together: every long option the program knows, for prefix resolution).
    permute: options may follow operands (GNU); otherwise the first operand ends the options (POSIX, and
    every wrapper: `sudo rm -rf x` must not read `-rf` as sudo's)."""

    short_arg: str = ""
    long_arg: frozenset[str] = frozenset()
    long_flags: frozenset[str] = frozenset()
    permute: bool = True

    @staticmethod
    def of(short_arg: str = "", long_arg: str = "", long_flags: str = "", permute: bool = True) -> OptSpec:
        return OptSpec(short_arg, word_set(long_arg), word_set(long_flags), permute)


@dataclass
class Options:
    shorts: set[str] = field(default_factory=set)  # short flags seen (one character each)
    longs: set[str] = field(default_factory=set)  # long names seen, resolved (every candidate if ambiguous)
    values: list[tuple[str, str]] = field(default_factory=list)  # (option, value): "-o" / "output"
    operands: list[int] = field(default_factory=list)  # indexes into the argument list
    end: int = 0  # index of the first argument not read as an option (non-permuting specs)

    def has(self, *names: str) -> bool:
        return any((n in self.shorts) if len(n) == 1 else (n in self.longs) for n in names)

    def value(self, *names: str) -> str | None:
        for opt, val in self.values:
            if opt in names:
                return val
        return None

    def all_values(self, *names: str) -> list[str]:
        return [val for opt, val in self.values if opt in names]


def resolve_long(name: str, known: Iterable[str]) -> set[str]:
    """The long options `--name` may stand for: itself when known exactly, else every known option it is a
    prefix of (getopt accepts a unique prefix; an ambiguous one fails, so reporting all is conservative)."""
    known = set(known)
    if not name:
        return set()
    if name in known:
        return {name}
    matches = {k for k in known if k.startswith(name)}
    return matches or {name}


def parse_options(args: list[str], spec: OptSpec) -> Options:
    """Read `args` (without the program name) against `spec`."""
    out = Options()
    known = spec.long_arg | spec.long_flags
    i = 0
    n = len(args)
    while i < n:
        a = args[i]
        if a == "--":
            out.operands.extend(range(i + 1, n))
            out.end = i + 1
            return out
        if a.startswith("--") and len(a) > 2:
            name, eq, val = a[2:].partition("=")
            names = resolve_long(name, known)
            out.longs |= names
            takes = bool(names & spec.long_arg) and len(names) == 1
            if takes and not eq:
                val = args[i + 1] if i + 1 < n else ""
                i += 1
            if takes or eq:
                for nm in names:
                    out.values.append((nm, val))
            i += 1
            continue
        if a.startswith("-") and len(a) > 1:
            body = a[1:]
            for k, ch in enumerate(body):
                out.shorts.add(ch)
                if ch in spec.short_arg:
                    rest = body[k + 1 :]
                    if not rest:
                        rest = args[i + 1] if i + 1 < n else ""
                        i += 1
                    out.values.append((ch, rest))
                    break
            i += 1
            continue
        if not spec.permute:
            out.end = i
            return out
        out.operands.append(i)
        i += 1
    out.end = n
    return out


def operands(args: list[str], spec: OptSpec) -> list[str]:
    return [args[i] for i in parse_options(args, spec).operands]
