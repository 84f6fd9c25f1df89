"""`hermes-tui doctor`: say what is wrong with HERMES_HOME, its config files and the session store, and
rebuild a damaged store after backing it up (`agent.store.recovery`).

Exit 0 when everything is usable (or was recovered), 1 when something still needs the user.
"""

from __future__ import annotations

import sys
from typing import TextIO

from agent.api import LoadedSettings

__all__ = ["run_doctor", "textual_status_line"]


def textual_status_line() -> str:
    """Which of the Textual workarounds are active (all, or none on an unverified Textual or Rich)."""
    from hermes_tui import textual_compat

    # Eagerly: the fixes for our widget classes are otherwise applied as the app imports them.
    return textual_compat.install(eager=True).line()


def run_doctor(loaded: LoadedSettings, out: TextIO | None = None) -> int:
    out = out if out is not None else sys.stdout  # the stdout of the moment, not of import time
    from agent.api import StoreError, check_store, open_store, recover_store

    settings = loaded.settings
    home = settings.hermes_home
    print(f"HERMES_HOME: {home}", file=out)
    print(textual_status_line(), file=out)
    if home.exists() and not home.is_dir():
        print(f"  problem: {home} is a file, not a folder: set HERMES_HOME to a folder", file=out)
        return 1
    for problem in loaded.problems:
        print(f"  config: {problem}", file=out)
    code = _environment(loaded, out)
    from agent.api import environment_problem, sandbox_status

    if cannot := environment_problem(settings, loaded.problems):
        print(f"sandbox: {cannot}", file=out)
        code = 1  # no session would start
    else:
        print(f"sandbox: {sandbox_status(settings)[1]}", file=out)
    db = settings.state_db
    health = check_store(db)
    if not db.is_file():
        print(f"session store: {db} (not created yet)", file=out)
    elif health.ok:
        print(f"session store: {db}: ok ({health.sessions} sessions, {health.messages} messages)", file=out)
    else:
        print(f"session store: {db} is damaged ({health.problem})", file=out)
        try:
            report = recover_store(db)
        except StoreError as exc:
            print(f"  not recovered: {exc.user_line()}", file=out)
            return 1
        print(f"  backed up to {report.backup}", file=out)
        print(
            f"  recovered {report.sessions} sessions and {report.messages} messages ({report.source})",
            file=out,
        )
    try:
        store = open_store(db)
    except StoreError as exc:
        print(f"  cannot be opened: {exc.user_line()}", file=out)
        return 1
    if store.read_only:
        print(f"  read-only: {store.read_only}", file=out)
        code = 1
    store.close()
    return code


def _environment(loaded: LoadedSettings, out: TextIO) -> int:
    """Where the tools run; a backend other than local is opened for real (a container started, a
    connection made) and closed again: 1 with its one line when it cannot be used."""
    from agent.api import EnvironmentUnavailable, open_environment

    settings = loaded.settings
    terminal = settings.terminal
    print(f"tools run: {terminal.describe()}", file=out)
    if terminal.is_local:
        return 0
    try:
        environment = open_environment(settings)
    except EnvironmentUnavailable as exc:
        print(f"  problem: {exc}", file=out)
        return 1
    try:
        print(f"  ok: commands run there, working directory {environment.cwd}", file=out)
    finally:
        environment.close()
    return 0
