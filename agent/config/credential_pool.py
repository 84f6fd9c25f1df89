"""Several API keys for one provider: the keys of Hermes' credential pool, read from its `auth.json`.

What was read of Hermes (0.19.0): `agent/credential_pool.py` (`PooledCredential`, `load_pool`,
`_exhausted_ttl`, `_available_entries`), `hermes_cli/auth.py` (`read_credential_pool`) and
`agent/agent_runtime_helpers.py` (`recover_with_credential_pool`). Hermes keeps the pool in
`<HERMES_HOME>/auth.json` under `credential_pool`, one list of entries per provider name:

    {"version": 1, "providers": {...},
     "credential_pool": {"openrouter": [
        {"id": "a1b2c3", "label": "work", "auth_type": "api_key", "priority": 0, "source": "manual",
         "access_token": "sk-or-...", "base_url": "https://openrouter.ai/api/v1",
         "last_status": "exhausted", "last_status_at": 1764770000.0, "last_error_code": 429,
         "last_error_reset_at": null}, ...]}}

`hermes auth add <provider>` writes those entries; the provider's key variable (`OPENROUTER_API_KEY`...)
is seeded into the same list as one more entry (`source: env:VAR`). Hermes has no spelling of several keys
in one variable: several keys means several entries. A profile without entries for the provider reads the
root home's `auth.json` (Hermes' read-only global fallback).

What is taken here, and why:

- entries with `auth_type: api_key` and a key (`access_token`); OAuth entries need Hermes' token refresh,
  which this app does not do, so they are left to Hermes;
- only entries whose `base_url` is empty or the URL this app calls: a key is never sent to a host it was
  not stored for (a proxy configured here does not receive the pool's keys);
- `dead` entries (a revoked token) are skipped; an `exhausted` entry still within its cooldown starts
  cooling down here too, until Hermes' own deadline (`last_error_reset_at`, else `last_status_at` plus
  the cooldown for its status);
- order: the key this run was given (flag, environment, `.env`) first, so a single key behaves as before,
  then the pool's by `priority` (Hermes' default `fill_first`); a key listed twice counts once.

The file is only read: cooldowns live in memory for the session (`agent.session.key_pool`), never written
back to Hermes' `auth.json`, whose writers take Hermes' own lock. Every key read is registered with the
redactor (`agent.core.secrets`) before anything else sees it.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from agent.core.bounded_files import MAX_CONFIG_BYTES, read_text
from agent.core.secrets import SECRETS

__all__ = [
    "COOLDOWN_401",
    "COOLDOWN_429",
    "COOLDOWN_DEFAULT",
    "PoolEntry",
    "PoolKey",
    "cooldown_for",
    "pool_keys",
    "read_pool_entries",
]

log = logging.getLogger(__name__)

# Hermes' EXHAUSTED_TTL_*: a transient 401 cools down briefly, a rate limit or billing failure for an hour.
COOLDOWN_401 = 5 * 60.0
COOLDOWN_429 = 60 * 60.0
COOLDOWN_DEFAULT = 60 * 60.0


def cooldown_for(status: int | None) -> float:
    """Seconds a key rests after failing with `status` (Hermes' `_exhausted_ttl`)."""
    if status == 401:
        return COOLDOWN_401
    if status == 429:
        return COOLDOWN_429
    return COOLDOWN_DEFAULT


class PoolEntry(BaseModel):
    """One `credential_pool` entry, as Hermes writes it (other fields ignored)."""

    model_config = ConfigDict(extra="ignore")

    auth_type: str = "api_key"
    priority: int = 0
    access_token: str = ""
    base_url: str | None = None
    last_status: str | None = None
    last_status_at: float | None = None
    last_error_code: int | None = None
    last_error_reset_at: float | None = None


@dataclass(frozen=True)
class PoolKey:
    """One key of the pool, and until when (wall-clock seconds) it already rests."""

    key: str
    cooling_until: float = 0.0


def _same_url(a: str | None, b: str | None) -> bool:
    return (a or "").strip().rstrip("/").lower() == (b or "").strip().rstrip("/").lower()


def _auth_files(home: Path) -> list[Path]:
    """The profile's `auth.json`, then the root home's when `home` is a profile (Hermes' fallback)."""
    files = [home / "auth.json"]
    if home.parent.name == "profiles":
        files.append(home.parent.parent / "auth.json")
    return files


def read_pool_entries(home: Path, provider: str) -> list[PoolEntry]:
    """The provider's pool entries in `home`'s `auth.json` (the root's when the profile has none), by
    priority; [] when there is no file, no pool or it is unreadable (said once in the log, never a key)."""
    for path in _auth_files(home):
        try:
            data = json.loads(read_text(path, limit=MAX_CONFIG_BYTES))
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as exc:
            log.warning("credential pool: %s is not readable JSON (%s)", path, type(exc).__name__)
            continue
        pool = data.get("credential_pool") if isinstance(data, dict) else None
        raw = pool.get(provider) if isinstance(pool, dict) else None
        if not isinstance(raw, list) or not raw:
            continue
        entries: list[PoolEntry] = []
        for item in raw:
            if not isinstance(item, dict):
                continue
            try:
                entries.append(PoolEntry.model_validate(item))
            except ValidationError:
                log.warning("credential pool: an entry for %s in %s is malformed; skipped", provider, path)
        return sorted(entries, key=lambda e: e.priority)
    return []


def _rests_until(entry: PoolEntry) -> float:
    if entry.last_status != "exhausted":
        return 0.0
    if entry.last_error_reset_at is not None:
        reset = entry.last_error_reset_at
        return reset / 1000.0 if reset > 1_000_000_000_000 else reset  # Hermes accepts milliseconds too
    if entry.last_status_at:
        return entry.last_status_at + cooldown_for(entry.last_error_code)
    return 0.0


def pool_keys(home: Path, provider: str, base_url: str | None, primary: str | None) -> list[PoolKey]:
    """The keys to rotate through for `provider` at `base_url`: `primary` (the run's own key) first, then
    the pool's usable entries (module docstring). Fewer than two means no rotation. All are registered
    with the redactor."""
    keys: list[PoolKey] = []
    seen: set[str] = set()
    if primary:
        keys.append(PoolKey(primary))
        seen.add(primary)
    if not provider or provider == "custom":  # Hermes keys a custom endpoint's pool `custom:<name>`
        return keys
    for entry in read_pool_entries(home, provider):
        token = entry.access_token.strip()
        if entry.auth_type != "api_key" or not token or token in seen or entry.last_status == "dead":
            continue
        if entry.base_url and not _same_url(entry.base_url, base_url):
            continue
        seen.add(token)
        keys.append(PoolKey(token, _rests_until(entry)))
    SECRETS.add(*(k.key for k in keys))
    return keys
