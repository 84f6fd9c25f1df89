"""Which hook commands the user agreed to run: `$HERMES_HOME/tui/hooks_allowlist.json`, ours (Hermes'
`shell-hooks-allowlist.json` is never written). An entry is (event, command, source): the same command
from another file, or for another event, is asked about again.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from agent.hooks.spec import HookSpec

__all__ = ["ALLOWLIST_NAME", "Consent"]

ALLOWLIST_NAME = "hooks_allowlist.json"


def _key(spec: HookSpec) -> tuple[str, str, str]:
    return (spec.event, spec.command, spec.source)


class Consent:
    """The allowlist file plus this session's answers (`allowed`/`refused` for once and "no")."""

    def __init__(self, hermes_home: Path) -> None:
        self.path = Path(hermes_home) / "tui" / ALLOWLIST_NAME
        self._lock = threading.Lock()
        self._session: dict[tuple[str, str, str], bool] = {}

    def decided(self, spec: HookSpec) -> bool | None:
        """True: may run; False: refused in this session; None: not asked yet."""
        with self._lock:
            if _key(spec) in self._session:
                return self._session[_key(spec)]
        return True if _key(spec) in self._recorded() else None

    def for_session(self, spec: HookSpec, allowed: bool) -> None:
        with self._lock:
            self._session[_key(spec)] = allowed

    def remember(self, spec: HookSpec) -> str | None:
        """Record the approval for later sessions too; the one-line reason when the file cannot be written
        (the approval then holds for this session only)."""
        self.for_session(spec, True)
        with self._lock:
            entries = [
                e for e in self._load() if (e.get("event"), e.get("command"), e.get("source")) != _key(spec)
            ]
            entries.append(
                {
                    "event": spec.event,
                    "command": spec.command,
                    "source": spec.source,
                    "approved_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                }
            )
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(prefix=self.path.name, dir=self.path.parent)
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump({"approvals": entries}, fh, indent=2)
                os.replace(tmp, self.path)
            except OSError as exc:
                return f"could not save the hook approval to {self.path} ({exc.strerror or exc})"
        return None

    def _recorded(self) -> set[tuple[str, str, str]]:
        with self._lock:
            return {
                (str(e.get("event")), str(e.get("command")), str(e.get("source", ""))) for e in self._load()
            }

    def _load(self) -> list[dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        approvals = data.get("approvals") if isinstance(data, dict) else None
        return [e for e in approvals if isinstance(e, dict)] if isinstance(approvals, list) else []
