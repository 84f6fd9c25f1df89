"""`hermes-tui config`: the effective configuration and where each value came from, keys masked."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from agent.api import LoadedSettings


def mask(secret: str) -> str:
    if len(secret) <= 8:
        return "****"
    return f"{secret[:3]}…{secret[-4:]}"


def _hermes_history(path: Path) -> tuple[str, str]:
    """Hermes' own state.db: read-only beside ours, or why it cannot be (one line)."""
    if not path.is_file():
        return "(none)", str(path)
    from agent.api import HermesHistory, HermesHistoryError

    try:
        schema = HermesHistory(path).check()
    except HermesHistoryError as exc:
        return "not shown", str(exc)
    version = "unknown" if schema.version is None else str(schema.version)
    return f"read-only, schema {version}", str(path)


def print_config(loaded: LoadedSettings, out: TextIO | None = None) -> None:
    out = out if out is not None else sys.stdout  # the stdout of the moment, not of import time
    settings = loaded.settings
    rows: list[tuple[str, str, str]] = []
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        if name == "api_key":
            shown = mask(value.get_secret_value()) if value is not None else "(not set)"
        elif name == "terminal":  # where the tools run: the one line that says it
            shown = settings.terminal.describe()
        elif isinstance(value, list):
            shown = ", ".join(str(v) for v in value) or "[]"
        elif isinstance(value, dict):
            shown = ", ".join(str(k) for k in value) or "{}"
        else:
            shown = "(not set)" if value in (None, "") else " ".join(str(value).split())
            shown = shown if len(shown) <= 60 else shown[:59] + "…"
        rows.append((name, shown, loaded.sources.get(name, "default")))
    rows.append(("context_window (effective)", str(settings.effective_context_window), "model"))
    rows.append(("api_mode", settings.api_mode, "provider/base_url"))
    if not settings.base_url and settings.effective_base_url:
        rows.append(("base_url (effective)", settings.effective_base_url, "provider default"))
    rows.append(("hermes history", *_hermes_history(settings.hermes_home / "state.db")))
    from agent.api import sandbox_status

    rows.append(("sandbox (effective)", sandbox_status(settings, probe=False)[1], "sandbox_mode"))
    width = max(len(r[0]) for r in rows)
    vwidth = min(48, max(len(r[1]) for r in rows))
    for name, shown, source in rows:
        print(f"{name:<{width}}  {shown:<{vwidth}}  {source}", file=out)
    if settings.unsupported_provider:
        print(f"\n{settings.unsupported_provider}", file=out)
    from agent.api import unsupported_backend

    if (backend_problem := unsupported_backend(settings.terminal.backend)) is not None:
        print(f"\n{backend_problem}", file=out)
    if loaded.problems:
        print("\nProblems (defaults used instead):", file=out)
        for problem in loaded.problems:
            print(f"  {problem}", file=out)
