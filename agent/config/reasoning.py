"""The reasoning setting as Hermes 0.19 reads it: `agent.reasoning_effort`, per-model
`agent.reasoning_overrides`, and the level chosen for one run (`--reasoning`, `/reasoning`).

Why its own module: the configuration validates the words, the loop resolves the level for whichever model a
call goes to (a fallback or a switched model gets its own override), and each transport turns the result
into its protocol's form (`agent.transports.reasoning`). All three read the one `Reasoning` value made here.

Hermes' rules kept exactly: `none` / `false` / `disabled` (and YAML's `false`, `off`, `no`) turn thinking
off; an empty value (or YAML's `true`) means "the provider's default"; a per-model override wins over the
global value and is matched with spelling tolerance (`claude-opus-4.6`, `claude-opus-4-6` and
`anthropic/claude-opus-4.6` are one model).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "ALLOWED_TEXT",
    "EFFORTS",
    "Reasoning",
    "model_variants",
    "normalize_level",
    "parse_level",
    "resolve_reasoning",
]

EFFORTS = ("minimal", "low", "medium", "high", "xhigh", "max", "ultra")
"""Hermes' effort levels, weakest first."""
_OFF = frozenset({"none", "false", "disabled"})
ALLOWED_TEXT = "one of none | " + " | ".join(EFFORTS)
"""What a problem line says is allowed."""


@dataclass(frozen=True)
class Reasoning:
    """What the user asked for: thinking off, or on at an effort level."""

    enabled: bool
    effort: str | None = None

    @property
    def label(self) -> str:
        """The level as the user wrote it (`none` when off)."""
        return (self.effort or "medium") if self.enabled else "none"

    def as_hermes_dict(self) -> dict[str, object]:
        """Hermes' `reasoning_config` dict, which OpenRouter and the Nous portal take as is."""
        if not self.enabled:
            return {"enabled": False}
        return {"enabled": True, "effort": self.effort or "medium"}


def normalize_level(value: object) -> str | None:
    """A config value as one of `""` (unset), `none` or an effort level; None when it is not a level.

    YAML hands `reasoning_effort: off` over as False (thinking off) and `on` as True (the default)."""
    if value is False:
        return "none"
    if value is None or value is True:
        return ""
    if isinstance(value, (int, float)):
        return None
    text = str(value).strip().lower()
    if not text:
        return ""
    if text in _OFF:
        return "none"
    return text if text in EFFORTS else None


def parse_level(level: str) -> Reasoning | None:
    """A normalized level as a `Reasoning`; None for unset (or not a level)."""
    normalized = normalize_level(level)
    if not normalized:
        return None
    if normalized == "none":
        return Reasoning(enabled=False)
    return Reasoning(enabled=True, effort=normalized)


_KNOWN_PROVIDERS = (
    "anthropic",
    "openai",
    "google",
    "openrouter",
    "groq",
    "mistral",
    "xai",
    "cohere",
    "perplexity",
    "together",
    "fireworks",
    "deepseek",
)
_KNOWN_AGGREGATORS = ("openrouter", "opencode", "fireworks", "groq", "together")


def model_variants(model: str) -> list[str]:
    """The spellings an override key may use for `model`, the exact one first (Hermes' order): dots and
    dashes swapped (whole string, and only between version digits), the provider prefix dropped, the
    aggregator prefix dropped, and known providers and aggregators put in front."""
    seen: dict[str, None] = {}

    def add(variant: str) -> None:
        if variant:
            seen.setdefault(variant, None)

    def dash_to_dot(text: str) -> str:
        return re.sub(r"(\d)-(\d)", r"\1.\2", text)

    def dot_to_dash(text: str) -> str:
        return re.sub(r"(\d)\.(\d)", r"\1-\2", text)

    def with_derivatives(text: str) -> None:
        add(text)
        dashed, dotted = text.replace(".", "-"), text.replace("-", ".")
        add(dashed)
        add(dotted)
        for form in (dash_to_dot(text), dot_to_dash(text), dash_to_dot(dashed), dot_to_dash(dotted)):
            add(form)

    with_derivatives(model)
    parts = model.split("/")
    if len(parts) >= 2:
        with_derivatives(parts[-1])
    if len(parts) >= 3:
        with_derivatives("/".join(parts[1:]))
    for bare in [v for v in seen if "/" not in v]:
        for provider in _KNOWN_PROVIDERS:
            add(f"{provider}/{bare}")
    for single in [v for v in seen if v.count("/") == 1]:
        for aggregator in _KNOWN_AGGREGATORS:
            add(f"{aggregator}/{single}")
    return list(seen)


def resolve_reasoning(
    *, chosen: str, overrides: Mapping[str, str], effort: str, model: str
) -> Reasoning | None:
    """The reasoning for a call to `model`: the run's choice (`--reasoning`, `/reasoning`), else the
    model's override (any spelling), else the global `agent.reasoning_effort`; None = the provider's
    default (nothing is sent for it)."""
    if chosen:
        return parse_level(chosen)
    if overrides and model:
        for variant in model_variants(model):
            if variant in overrides:
                found = parse_level(overrides[variant])
                if found is not None:
                    return found
    return parse_level(effort)
