"""Rotating through several keys of one provider when a key is refused, as Hermes' credential pool does.

The keys come from `agent.config.credential_pool` (Hermes' `auth.json` pool, the run's own key first).
What a failure does, as Hermes' `recover_with_credential_pool` decides from the classified reason:

- billing (402, "out of credits"): the key rests and the next one is tried at once;
- auth (401, 403): the same (an API key has no token to refresh); a 403 from Anthropic's own API is an
  entitlement refusal (Hermes), which another key of the same account does not fix: no rotation;
- rate limit (429): the first one on a key is an ordinary retry with backoff on the same key; a second in
  a row on it (or one that says "usage limit", or no ordinary retry left) rests the key and moves on.

A rest lasts Hermes' cooldown for the status (`cooldown_for`: 5 min after a 401, an hour otherwise).
Moving to the next key retries the call at once and is not counted as one of the call's retries (Hermes
`continue`s before its retry counter). When every key rests, the failure takes its usual path (backoff,
or the error line), and the line says how many keys were tried. Each call starts on the first key that is
not resting (Hermes' `fill_first`), so a key is used again as soon as its rest is over.

Keys are named by position only ("key 2 of 3"): no key, prefix or label reaches a notice. The clock is
the wall clock (Hermes' deadlines in `auth.json` are epoch seconds) and injectable (`clock`) for tests.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from agent.config.credential_pool import PoolKey, cooldown_for, pool_keys
from agent.config.settings import Settings
from agent.core import providers
from agent.core.errors import ClassifiedError

__all__ = ["KeyPool", "KeyTurn"]

_ROTATING = {"billing": 402, "auth": 401, "rate_limit": 429}
"""Reasons that are the key's own, with the status a cooldown assumes when the error carried none."""
_WORDS = {"billing": "out of credits", "auth": "refused", "rate_limit": "rate-limited"}


@dataclass(frozen=True)
class KeyTurn:
    """What the loop does after a failure: with `key`, retry at once with it (saying `notice`); else add
    `note` (may be "") to the error's hint and go on as usual."""

    key: str | None = None
    notice: str = ""
    note: str = ""


class KeyPool:
    """The session's keys for its primary provider, which one is in use, and which rest until when."""

    def __init__(
        self, keys: list[PoolKey], *, clock: Callable[[], float] = time.time, keep_on_403: bool = False
    ) -> None:
        """`keep_on_403`: Anthropic's own API, whose 403 is an entitlement refusal (see above)."""
        self.keep_on_403 = keep_on_403
        self._keys = [k.key for k in keys]
        self._until = [k.cooling_until for k in keys]
        self.clock = clock
        self._current = 0
        self._retried_429 = False
        self._current = self._first_available() or 0

    @classmethod
    def for_settings(cls, settings: Settings) -> KeyPool | None:
        """The pool for `settings`' provider, or None when it has fewer than two keys (one key: no pool,
        behaviour as before) or the provider signs in with a cloud's credentials instead of a key."""
        spec = providers.lookup(settings.provider)
        if spec is not None and spec.platform:
            return None
        primary = settings.api_key.get_secret_value() if settings.api_key else None
        keys = pool_keys(settings.hermes_home, settings.provider, settings.effective_base_url, primary)
        if len(keys) < 2:
            return None
        return cls(keys, keep_on_403=settings.provider == "anthropic" and settings.api_mode == "anthropic")

    def __len__(self) -> int:
        return len(self._keys)

    @property
    def current_key(self) -> str:
        return self._keys[self._current]

    @property
    def position(self) -> int:
        """1-based position of the key in use (what notices call it)."""
        return self._current + 1

    def resting(self, index: int) -> bool:
        return self.clock() < self._until[index]

    def _first_available(self) -> int | None:
        return next((i for i in range(len(self._keys)) if not self.resting(i)), None)

    def begin_call(self) -> str | None:
        """At the start of a model call: the first key not resting becomes the one in use; returns it when
        that is a change (the transport must switch), else None."""
        self._retried_429 = False
        first = self._first_available()
        if first is None or first == self._current:
            return None
        self._current = first
        return self.current_key

    def after_failure(self, classified: ClassifiedError, *, retry_left: bool) -> KeyTurn:
        """What a failed call means for the key in use (module docstring)."""
        reason = classified.reason
        if reason not in _ROTATING:
            return KeyTurn()
        if reason == "auth" and classified.status_code == 403 and self.keep_on_403:
            return KeyTurn()
        if reason == "rate_limit" and not self.resting(self._current):
            usage_limit = "usage limit" in classified.message.lower()
            if not self._retried_429 and not usage_limit and retry_left:
                self._retried_429 = True
                return KeyTurn()
        failed = self._current
        status = classified.status_code or _ROTATING[reason]
        self._until[failed] = max(self._until[failed], self.clock() + cooldown_for(status))
        self._retried_429 = False
        nxt = self._first_available()
        n = len(self._keys)
        if nxt is None:
            return KeyTurn(note=f"All {n} keys of the credential pool were tried; each rests before reuse.")
        self._current = nxt
        minutes = cooldown_for(status) / 60
        notice = (
            f"Key {failed + 1} of {n} was {_WORDS[reason]} ({status}); it rests {minutes:.0f} min. "
            f"Retrying with key {nxt + 1}."
        )
        return KeyTurn(key=self.current_key, notice=notice)
