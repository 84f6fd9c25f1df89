"""Which plugin code was running when a process ended, and the plugins that ended one.

A plugin may end the whole process itself (`os._exit`, a crash in C code): nothing of ours runs after it.
So before calling into a plugin a marker is written (`$HERMES_HOME/tui/plugin_calls/<pid>-<n>.json`: the
plugin, what was called, its source) and removed when the call returns. A marker of a process that is
gone is what that plugin did: the next start moves it to the quarantine (`tui/plugin_quarantine.json`),
and a quarantined plugin is not loaded, with one line saying why, until its files change (edited or
updated: it may be fixed) or the user removes the entry.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Ended", "InFlight", "Quarantine", "fingerprint"]


@dataclass(frozen=True)
class Ended:
    """A plugin that was running when its process ended."""

    plugin: str
    what: str
    source: str
    when: float


def fingerprint(source: str) -> str:
    """What changes when a plugin's code changes: its file's (or package's `__init__.py`'s) size and time;
    an entry point's is its reference."""
    path = Path(source.split(" (")[0])
    if path.is_dir():
        path = path / "__init__.py"
    try:
        stat = path.stat()
    except OSError:
        return source
    return f"{stat.st_size}:{stat.st_mtime_ns}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: alive
    return True


class InFlight:
    """The markers of one process's plugin calls in progress."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._seq = itertools.count()
        self._sources: dict[str, str] = {}
        self._lock = threading.Lock()
        self._made = False

    def know(self, plugin: str, source: str) -> None:
        """Where `plugin` comes from (named in its markers, for the quarantine's fingerprint)."""
        self._sources[plugin] = source

    def enter(self, plugin: str, what: str) -> Path | None:
        path = self.directory / f"{os.getpid()}-{next(self._seq)}.json"
        record = {
            "plugin": plugin,
            "what": what,
            "source": self._sources.get(plugin, ""),
            "when": time.time(),
        }
        try:
            with self._lock:
                if not self._made:
                    self.directory.mkdir(parents=True, exist_ok=True)
                    self._made = True
            path.write_text(json.dumps(record), encoding="utf-8")
        except OSError:
            return None  # a read-only home: the call still runs, only the report of a crash is lost
        return path

    def leave(self, marker: Path | None) -> None:
        if marker is not None:
            with contextlib.suppress(OSError):
                marker.unlink(missing_ok=True)

    def take_ended(self) -> list[Ended]:
        """The markers of processes that are gone (removed as they are read). Ours are never touched: a
        second agent of this process (a subagent) must not take the first one's calls in progress."""
        ended: list[Ended] = []
        try:
            entries = sorted(self.directory.glob("*.json"))
        except OSError:
            return ended
        for entry in entries:
            try:
                pid = int(entry.name.split("-", 1)[0])
            except ValueError:
                continue
            if pid == os.getpid() or _alive(pid):
                continue
            try:
                data = json.loads(entry.read_text(encoding="utf-8"))
                entry.unlink(missing_ok=True)
            except (OSError, ValueError):
                continue
            if isinstance(data, dict) and isinstance(data.get("plugin"), str):
                ended.append(
                    Ended(
                        data["plugin"],
                        str(data.get("what", "")),
                        str(data.get("source", "")),
                        float(data.get("when") or 0),
                    )
                )
        return ended


class Quarantine:
    """Plugins that ended the app, kept out until their files change (`tui/plugin_quarantine.json`)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> dict[str, dict[str, object]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, dict[str, object]]) -> None:
        try:
            if data:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
                os.replace(tmp, self.path)
            else:
                self.path.unlink(missing_ok=True)
        except OSError:
            pass

    def add(self, ended: list[Ended]) -> None:
        if not ended:
            return
        data = self._read()
        for item in ended:
            data[item.plugin] = {
                "what": item.what,
                "source": item.source,
                "fingerprint": fingerprint(item.source) if item.source else "",
                "when": item.when,
            }
        self._write(data)

    def reason(self, plugin: str, source: str) -> str | None:
        """Why `plugin` stays off (one line), or None: never quarantined, or changed since (then released)."""
        data = self._read()
        entry = data.get(plugin)
        if not isinstance(entry, dict):
            return None
        if entry.get("fingerprint") and entry.get("fingerprint") != fingerprint(source):
            del data[plugin]
            self._write(data)
            return None
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(float(str(entry.get("when") or 0))))
        return (
            f"it ended the app ({entry.get('what') or 'plugin code'} running, {when}): disabled until its "
            f"files change (or remove it from {self.path})"
        )
