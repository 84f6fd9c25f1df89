"""`detect(command)`: which risky patterns a shell command contains, read through `agent.shell`.

Documented edge decisions:

* Text that is only *printed* is not flagged: `echo "rm -rf /"`, `grep -r "DROP TABLE" .` and
  `git commit -m "rm -rf /"` pass, because the parser knows it is an argument, not a command. Anything that
  feeds such text to an interpreter (`echo "rm -rf /" | sh`, `eval`, `sh -c`, heredoc to a shell) is
  analysed as code.
* `kill -1` alone and any `-1` pid (`kill -9 -1`, `kill -- -1`) are hard-blocked; `kill -1 1234` (SIGHUP to a
  pid) passes. `kill $(pgrep x)` kills by name and asks, like `pkill x`; `killall -l` / `-V` pass.
* `rm -f file` needs approval (force delete), `rm file` does not, unless the file is sensitive (`.env`, SSH,
  shell startup files, credentials, Hermes' home, system paths): deleting those asks like writing them.
  `rm -rf` of `/`, `/*`, a top-level system directory (or its `/*`), `/home`, a home directory (`~`,
  `$HOME`, `/home/<user>`, `/root`) is hard-blocked; `rm -rf` of a *sub*directory of those (`/etc/nginx`,
  `~/project`) needs approval.
* `chmod +w` / `chmod =rw` without a `who` are not flagged (the umask keeps them from reaching "other").
* SQL is checked where SQL runs: the arguments of SQL clients (`psql`, `mysql`, `sqlite3`, ... also after
  `docker exec`), text piped or heredoc'd into one, inline interpreter code, and a command that *is* SQL
  (`DROP TABLE x`).
* `cp .env .env.bak` needs approval (the destination is a `.env*` file); `.env.example/.sample/.template/
  .dist` are exempt. Reading a `.env` is never flagged.
* `dd` always needs approval (even `dd --version`); `dd of=/dev/<disk>` is hard-blocked. `mkfs` is
  hard-blocked unless it is only asked for `--help` / `--version`.
* `sudo -S` (the password through stdin: a way to guess it) is hard-blocked, as Hermes does.
* Writes into system directories (`/usr`, `/bin`, `/boot`, `/var`, `/private/var`, ... but not their
  temp dirs) need approval, like writes under `/etc`.
* If the analyser itself fails (a bug, not bad input), the command needs approval (`unparsed`): fail closed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from agent.approval.paths import PathPolicy
from agent.approval.reasons import Match
from agent.approval.rules import (
    CODE_SCRIPT_RULES,
    EFFECT_RULES,
    PATH_RULES,
    PROGRAM_RULES,
    SCRIPT_RULES,
    Collector,
    chmod_then_run,
)
from agent.shell import analyze

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Detection:
    hard_blocked: bool
    matches: list[Match]
    # The de-quoted text of every simple command seen (including ones inside `sh -c`, `$(...)`): what user
    # deny rules are matched against, besides the full command.
    segments: tuple[str, ...] = ()
    # For destructive keys: the paths (as written, relative to where the command starts) behind them;
    # "" when the command does not name them (xargs rm, git clean).
    paths: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False)

    @property
    def keys(self) -> list[str]:
        return [m.key for m in self.matches]

    @property
    def reasons(self) -> list[str]:
        return [m.reason for m in self.matches]

    @property
    def needs_approval(self) -> bool:
        return bool(self.matches) and not self.hard_blocked


def detection_of(col: Collector, segments: tuple[str, ...] = ()) -> Detection:
    hard = [m for m in col.matches.values() if m.hard]
    soft = [m for m in col.matches.values() if not m.hard]
    paths = {k: tuple(v) for k, v in col.paths.items()}
    return Detection(bool(hard), hard + soft, segments, paths)


def detect(
    command: str, *, hermes_home: Path | str | None = None, policy: PathPolicy | None = None
) -> Detection:
    """Which risky patterns `command` contains. Never raises."""
    if not command or not command.strip():
        return Detection(False, [])
    col = Collector(policy or PathPolicy.for_home(hermes_home))
    segments: tuple[str, ...] = ()
    try:
        analysis = analyze(command)
        segments = tuple(analysis.segments)
        for script in analysis.scripts:
            for script_check in SCRIPT_RULES.get(script.language, CODE_SCRIPT_RULES):
                script_check(script.text, col)
        for cmd in analysis.commands:
            for check in EFFECT_RULES:
                check(cmd, col)
            for check in PROGRAM_RULES.get(cmd.name, ()):
                check(cmd, col)
            for pattern, check in PATH_RULES:
                if cmd.argv and pattern.search(cmd.path):
                    check(cmd, col)
            chmod_then_run(cmd, col)
    except Exception:  # a bug in the analyser must not open the gate
        log.exception("approval: could not analyse command %r", command[:200])
        col.add("unparsed")
    return detection_of(col, segments)
