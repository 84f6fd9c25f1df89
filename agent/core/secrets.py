"""Secrets masked wherever text leaves the engine: the one redactor (issue 33 item 7).

Two halves, as Hermes' `agent/redact.py` does it and more:

- **Known values**: every secret the app was given (the provider key, the web backends' keys, MCP servers'
  `env` values with secret-looking names and their `headers` values, `.env` and environment variables
  whose names look like secrets) is registered once when the configuration is read (`SECRETS.add`), and
  any occurrence of one is replaced, whatever its shape. A web backend's error that quotes the key, or an
  MCP server that prints its environment, then reaches nobody.
- **Shapes**: credential-looking substrings (vendor prefixes such as `sk-`, `tvly-`, `ghp_`; `Bearer`
  tokens; `api_key=...`-style assignments with a long value) are masked even when the app never saw them.

What goes through it: every tool result and its streamed output (`agent.toolkit.executor`), the error
lines of a turn (`ClassifiedError.user_line`), the trajectory file, exports, MCP status lines and the log
(`redact_logs` filters the handlers). A value shorter than `MIN_SECRET_LENGTH` is never registered:
masking `demo` or `1234` everywhere would mangle ordinary text.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "SECRETS",
    "SecretRegistry",
    "looks_secret_name",
    "redact",
    "redact_data",
    "redact_logs",
]

REDACTED = "[REDACTED]"
MIN_SECRET_LENGTH = 8

_SECRET_NAME = re.compile(
    r"(?i)(api[_-]?key|apikey|token|secret|password|passwd|credential|private[_-]?key|access[_-]?key|"
    r"authorization|auth[_-]?key|x-api-key)"
)

_KEY_NAMES = (
    r"api[_-]?key|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|id[_-]?token|bearer[_-]?token|"
    r"token|secret|client[_-]?secret|password|passwd|x-api-key"
)
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    # Anthropic first (it is also an `sk-` key), then OpenAI/OpenRouter/DeepSeek-style `sk-...` keys.
    (re.compile(r"(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_\-]{8,}"), "sk-ant-" + REDACTED),
    (re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_\-]{16,}"), "sk-" + REDACTED),
    # Authorization headers.
    (re.compile(r"(?i)\b(bearer)(\s+)(?=[A-Za-z._~+/=\-]*\d)[A-Za-z0-9._~+/=\-]{8,}"), r"\1\2" + REDACTED),
    # Other well-known token shapes, web backends' included (Hermes' prefix table).
    (re.compile(r"\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}\b"), r"\1_" + REDACTED),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}\b"), "github_pat_" + REDACTED),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}\b"), "xox-" + REDACTED),
    (re.compile(r"\bAKIA[0-9A-Z]{16}\b"), "AKIA" + REDACTED),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"), "AIza" + REDACTED),
    (re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"), "hf_" + REDACTED),
    (re.compile(r"(?<![A-Za-z0-9_-])(tvly|pplx|gsk|xai)-[A-Za-z0-9_\-]{16,}"), r"\1-" + REDACTED),
    (re.compile(r"(?<![A-Za-z0-9_-])exa_[A-Za-z0-9]{16,}"), "exa_" + REDACTED),
    (re.compile(r"(?<![A-Za-z0-9_-])fc-[A-Za-z0-9]{20,}"), "fc-" + REDACTED),
    # key=value / key: value / "key": "value" with a long, secret-looking value.
    (
        re.compile(
            r"(?i)(?<![A-Za-z0-9_\-])([A-Za-z0-9_\-]*?(?:" + _KEY_NAMES + r"))(\\?[\"']?\s*[:=]\s*\\?[\"']?)"
            r"([A-Za-z0-9_\-+/.=~]{16,})"
        ),
        r"\1\2" + REDACTED,
    ),
]


def looks_secret_name(name: str) -> bool:
    """True for a variable or header name that holds a secret (`OPENAI_API_KEY`, `GITHUB_TOKEN`,
    `Authorization`, `x-api-key`), as Hermes' redactor decides from the name."""
    return bool(_SECRET_NAME.search(name))


class SecretRegistry:
    """The secret values this process knows, longest first (a key containing another is masked whole)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: tuple[str, ...] = ()

    def add(self, *values: str | None) -> None:
        """Register values (None, blanks and values under MIN_SECRET_LENGTH are ignored); a `Bearer X`
        header registers X too."""
        found = set(self._values)
        for value in values:
            if not isinstance(value, str):
                continue
            value = value.strip()
            parts = [value]
            scheme, _, credential = value.partition(" ")
            if credential and scheme.lower() in ("bearer", "basic", "token"):
                parts.append(credential.strip())
            found.update(p for p in parts if len(p) >= MIN_SECRET_LENGTH and not p.isdigit())
        with self._lock:
            self._values = tuple(sorted(found, key=len, reverse=True))

    def add_environment(self, env: Mapping[str, str]) -> None:
        """Every value of `env` whose name looks like a secret's (the environment, a `.env` file, an MCP
        server's `env`)."""
        self.add(*(value for name, value in env.items() if looks_secret_name(name)))

    @property
    def values(self) -> tuple[str, ...]:
        return self._values

    def clear(self) -> None:
        with self._lock:
            self._values = ()

    def redact(self, text: str, extra: Iterable[str] = ()) -> str:
        """`text` with every known value (and every value in `extra`) and every credential shape masked."""
        if not text or not isinstance(text, str):
            return text
        for secret in (*self._values, *extra):
            if secret and len(secret) >= MIN_SECRET_LENGTH and secret in text:
                text = text.replace(secret, REDACTED)
        for pattern, replacement in _PATTERNS:
            text = pattern.sub(replacement, text)
        return text

    def redact_data(self, value: Any, depth: int = 0) -> Any:
        """A copy of JSON-like data (dicts, lists, strings) with every string redacted."""
        if isinstance(value, str):
            return self.redact(value)
        if depth > 32:
            return value
        if isinstance(value, dict):
            return {k: self.redact_data(v, depth + 1) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self.redact_data(v, depth + 1) for v in value)
        return value


SECRETS = SecretRegistry()
"""The process's registry: filled when the configuration is read, used by every sink."""


def redact(text: str, extra: Iterable[str] = ()) -> str:
    """`text` with every secret the process knows (and every credential shape) masked."""
    return SECRETS.redact(text, extra)


def redact_data(value: Any) -> Any:
    """A copy of JSON-like data with every string in it redacted (a JSON export, a tool's data)."""
    return SECRETS.redact_data(value)


class _RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:
            return True
        cleaned = SECRETS.redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = SECRETS.redact(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return True


_FILTER = _RedactingFilter()


def redact_logs() -> None:
    """Mask secrets in whatever the log handlers write: the root logger's handlers and Python's last-resort
    handler (what prints a warning when nothing else is configured). Idempotent."""
    handlers = [*logging.getLogger().handlers, logging.lastResort]
    for handler in handlers:
        if handler is not None and _FILTER not in handler.filters:
            handler.addFilter(_FILTER)
