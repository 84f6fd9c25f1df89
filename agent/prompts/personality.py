"""Personalities and the ephemeral system prompt: appended to the system message on the wire only.

Hermes' `agent.system_prompt` (or `HERMES_EPHEMERAL_SYSTEM_PROMPT`) sets it; `/personality NAME|TEXT` replaces
it for the rest of the run. It is never stored with the session and never changes the stored base prompt,
so the base prompt stays a stable cache prefix and a resumed session is what it was. The built-in names are
Hermes' own; the texts are ours. `agent.personalities` in config.yaml adds or replaces entries.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from agent.config.settings import PersonalitySpec

CLEAR_NAMES = frozenset({"none", "default", "neutral", "off", "clear"})

BUILTIN_PERSONALITIES: dict[str, str] = {
    "helpful": "Be a warm, helpful assistant: friendly, patient, and glad to explain.",
    "concise": "Be concise: answer in as few words as the question allows, with no preamble and no recap.",
    "technical": "Be a precise technical expert: exact terms, concrete details, edge cases and trade-offs.",
    "creative": "Be inventive: offer unexpected angles and a few original options before settling on one.",
    "teacher": "Teach as you go: explain step by step with small examples and build up from the basics.",
    "kawaii": "Be a bubbly, sparkly assistant ✨ with cute kaomoji like (◕‿◕) and ☆ and plenty of cheer~",
    "catgirl": "Speak as a playful catgirl helper, nya~ curious and a little mischievous, with (=^･ω･^=).",
    "pirate": "Talk like an old pirate captain: nautical slang, 'arr' and 'matey', every bug a treasure.",
    "shakespeare": "Answer like an Elizabethan playwright: thee and thou, flourishes, a couplet or two.",
    "surfer": "Be a laid-back surfer: easy slang like 'dude' and 'gnarly', and everything stays chill.",
    "noir": "Narrate like a hard-boiled detective on a rainy night: terse, moody, every bug a case.",
    "uwu": "Tawk in a soft, shy, supew cute uwu stywe, with >w< and OwO scattewed awound.",
    "philosopher": "Be a reflective philosopher: consider the why behind each question as well as the how.",
    "hype": "Be an over-the-top hype coach: MAXIMUM enthusiasm, every task is about to be LEGENDARY.",
}


def spec_text(value: str | PersonalitySpec) -> str:
    """A personality's prompt: a plain string, or Hermes' dict form (system_prompt, then tone and style)."""
    if isinstance(value, str):
        return value.strip()
    parts = [value.system_prompt.strip()]
    if value.tone.strip():
        parts.append(f"Tone: {value.tone.strip()}")
    if value.style.strip():
        parts.append(f"Style: {value.style.strip()}")
    return "\n".join(p for p in parts if p)


def personalities(configured: Mapping[str, str | PersonalitySpec]) -> dict[str, str]:
    """Built-in personalities, then the configured ones (a configured name replaces a built-in)."""
    table = dict(BUILTIN_PERSONALITIES)
    for name, value in configured.items():
        text = spec_text(value)
        if text:
            table[str(name).strip().lower()] = text
    return table


@dataclass(frozen=True)
class PersonalityChoice:
    name: str | None  # a known personality's name, "none" when cleared, None for free text
    text: str  # the ephemeral prompt ("" when cleared)


def choose(argument: str, table: Mapping[str, str]) -> PersonalityChoice:
    """`/personality ARG`: a known name, one of the clearing words, or free text used as it is."""
    stripped = argument.strip()
    key = stripped.lower()
    if key in CLEAR_NAMES:
        return PersonalityChoice("none", "")
    if key in table:
        return PersonalityChoice(key, table[key])
    return PersonalityChoice(None, stripped)


def current_name(text: str, table: Mapping[str, str]) -> str | None:
    """Which named personality the active ephemeral prompt is, if any."""
    if not text.strip():
        return "none"
    return next((name for name, value in table.items() if value == text.strip()), None)


def listing(table: Mapping[str, str], active: str) -> str:
    """`/personality` with no argument: every name with the start of its text, the active one marked."""
    now = current_name(active, table)
    lines = ["Personalities (/personality NAME, /personality TEXT for your own, /personality none to clear):"]
    lines.append(f"{'*' if now == 'none' else ' '} none         no personality")
    for name, text in table.items():
        preview = text if len(text) <= 70 else text[:69] + "…"
        lines.append(f"{'*' if now == name else ' '} {name:<12} {preview}")
    if now is None:
        preview = active.strip() if len(active.strip()) <= 70 else active.strip()[:69] + "…"
        lines.append(f"* (custom)     {preview}")
    return "\n".join(lines)


def with_ephemeral(system_prompt: str, ephemeral: str) -> str:
    """The system message on the wire: the stored prompt, then the ephemeral prompt when there is one."""
    ephemeral = ephemeral.strip()
    if not ephemeral:
        return system_prompt
    return f"{system_prompt.rstrip()}\n\n{ephemeral}"
