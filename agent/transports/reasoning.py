"""The reasoning setting (`agent.config.reasoning.Reasoning`) in each protocol's own form, by Hermes 0.19's
rules (its `agent/transports/chat_completions.py`, the provider profiles, `anthropic_adapter.py`).

Why one module: which endpoint takes which field is a table of provider quirks, and a field sent where it
is not accepted is a 400. So every form is decided here, and a model or provider not listed gets nothing.

Chat completions, by provider:
- OpenRouter, for the model families it routes reasoning for: `reasoning: {enabled, effort}` in the body
  (`{enabled: true, effort: medium}` when nothing is set, as Hermes sends); Claude 4.6+ (adaptive, no "off")
  gets no `reasoning` but the effort as `verbosity`.
- The Nous portal: `reasoning` as set (the medium default when unset), nothing when off.
- DeepSeek V4 / reasoner: `thinking: {type}` and a top-level `reasoning_effort` (low|medium|high|max).
- Kimi / Moonshot: `reasoning_effort` (low|medium|high), else `thinking: {type}`, never both.
- Z.AI GLM 4.5+: `thinking: {type}` when set; GLM-5.2 also `reasoning_effort` (high|max).
- Tencent TokenHub: top-level `reasoning_effort` (low|medium|high, default high) unless off.
- A custom endpoint (vLLM, Ollama, llama.cpp...): `reasoning_effort` when set; off is
  `reasoning_effort: none` with Ollama's `think: false`.

Anthropic: adaptive thinking (`thinking: {type: adaptive, display: summarized}` + `output_config.effort`)
on Claude 4.6+ and Kimi; a `budget_tokens` budget on older models and other Anthropic-protocol models, with
`max_tokens` raised to fit it and `temperature: 1`; nothing for Haiku or when the setting is unset or off.

The Responses API: `reasoning: {effort, summary: auto}` and the encrypted reasoning items asked back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agent.config.reasoning import Reasoning
from agent.config.settings import Settings
from agent.transports.endpoint import Endpoint

__all__ = [
    "THINKING_BUDGET",
    "anthropic_fields",
    "chat_fields",
    "chat_replay",
    "chat_sends_reasoning",
    "reasoning_shown",
    "reasoning_unsent",
    "responses_fields",
    "supports_adaptive_thinking",
]

# -- chat completions -----------------------------------------------------------------------------------

_OPENROUTER_REASONING_MODELS = (
    "deepseek/",
    "anthropic/",
    "openai/",
    "x-ai/",
    "google/gemini-2",
    "google/gemma-4",
    "qwen/qwen3",
    "tencent/hy3",
    "xiaomi/",
)
"""The model families OpenRouter forwards `reasoning` for (others 400 on it upstream)."""

_LEGACY_CLAUDE = (
    "claude-3",
    "claude-opus-4-0",
    "claude-opus-4.0",
    "claude-opus-4-1",
    "claude-opus-4.1",
    "claude-sonnet-4-0",
    "claude-sonnet-4.0",
    "claude-opus-4-2025",
    "claude-sonnet-4-2025",
    "claude-opus-4-5",
    "claude-opus-4.5",
    "claude-sonnet-4-5",
    "claude-sonnet-4.5",
    "claude-haiku-4-5",
    "claude-haiku-4.5",
)
"""Claude families before adaptive thinking (budget-based thinking, and thinking can be turned off)."""
_NO_XHIGH_CLAUDE = ("claude-opus-4-6", "claude-opus-4.6", "claude-sonnet-4-6", "claude-sonnet-4.6")


def _is_claude(model: str) -> bool:
    return "claude" in model.lower()


def _is_kimi_model(model: str) -> bool:
    m = model.lower()
    return "kimi" in m or "moonshot" in m


def supports_adaptive_thinking(model: str) -> bool:
    """Claude 4.6 and later (unknown Claude models included: the modern contract), and Kimi."""
    if _is_kimi_model(model):
        return True
    if not _is_claude(model):
        return False
    m = model.lower()
    return not any(v in m for v in _LEGACY_CLAUDE)


def _openrouter_claude_mandatory(model: str) -> bool:
    """Claude through OpenRouter that thinks adaptively and rejects any form of "off"."""
    m = model.lower()
    if not _is_claude(m):
        return False
    return not any(v in m for v in _LEGACY_CLAUDE)


def _for_model(model: str, reasoning: Reasoning | None) -> Reasoning | None:
    """GPT-5.6 calls Hermes' `ultra` tier `max` on the wire."""
    if reasoning is not None and reasoning.effort == "ultra" and "gpt-5.6" in model.lower():
        return Reasoning(enabled=True, effort="max")
    return reasoning


def _deepseek_thinks(model: str) -> bool:
    m = model.strip().lower()
    return (m.startswith("deepseek-v") and not m.startswith("deepseek-v3")) or m == "deepseek-reasoner"


_GLM_VERSION = re.compile(r"^glm-(\d+)(?:\.(\d+))?")


def _glm_thinks(model: str) -> bool:
    match = _GLM_VERSION.match(model.strip().lower())
    if match is None:
        return False
    return (int(match.group(1)), int(match.group(2) or 0)) >= (4, 5)


def _is_glm_5_2(model: str) -> bool:
    m = model.strip().lower()
    return any(token in m for token in ("glm-5.2", "glm-5-2", "glm-5p2"))


@dataclass(frozen=True, slots=True)
class _Asked:
    """What one chat-completions call asks of the model's thinking, as every provider's form reads it."""

    model: str
    reasoning: Reasoning | None
    effort: str  # "" when unset or off
    off: bool


_Fields = tuple[dict[str, Any], dict[str, Any]]
"""(body fields, top-level fields)."""
_DEFAULT_HERMES_REASONING = {"enabled": True, "effort": "medium"}


def _nous(asked: _Asked) -> _Fields:
    if asked.reasoning is None:
        return {"reasoning": dict(_DEFAULT_HERMES_REASONING)}, {}
    return ({"reasoning": asked.reasoning.as_hermes_dict()} if asked.reasoning.enabled else {}), {}


def _openrouter(asked: _Asked) -> _Fields:
    if not any(asked.model.lower().startswith(prefix) for prefix in _OPENROUTER_REASONING_MODELS):
        return {}, {}
    if _openrouter_claude_mandatory(asked.model):
        return {}, ({"verbosity": asked.effort} if asked.effort else {})
    if asked.reasoning is not None:
        return {"reasoning": asked.reasoning.as_hermes_dict()}, {}
    return {"reasoning": dict(_DEFAULT_HERMES_REASONING)}, {}


def _deepseek(asked: _Asked) -> _Fields:
    if not _deepseek_thinks(asked.model):
        return {}, {}
    top: dict[str, Any] = {}
    if asked.effort in ("xhigh", "max", "ultra"):
        top["reasoning_effort"] = "max"
    elif asked.effort in ("low", "medium", "high"):
        top["reasoning_effort"] = asked.effort
    return {"thinking": {"type": "disabled" if asked.off else "enabled"}}, top


def _kimi(asked: _Asked) -> _Fields:
    if asked.off:
        return {"thinking": {"type": "disabled"}}, {}
    if asked.effort in ("low", "medium", "high"):
        return {}, {"reasoning_effort": asked.effort}
    return {"thinking": {"type": "enabled"}}, {}


def _zai(asked: _Asked) -> _Fields:
    glm_5_2 = _is_glm_5_2(asked.model)
    if not (_glm_thinks(asked.model) or glm_5_2):
        return {}, {}
    body: dict[str, Any] = {}
    top: dict[str, Any] = {}
    if asked.reasoning is not None:
        body["thinking"] = {"type": "disabled" if asked.off else "enabled"}
    if glm_5_2 and asked.effort:
        top["reasoning_effort"] = "max" if asked.effort in ("xhigh", "max", "ultra") else "high"
    return body, top


def _tokenhub(asked: _Asked) -> _Fields:
    if asked.off:
        return {}, {}
    return {}, {"reasoning_effort": asked.effort if asked.effort in ("low", "medium", "high") else "high"}


def _custom(asked: _Asked) -> _Fields:
    if asked.off:
        return {"think": False}, {"reasoning_effort": "none"}
    return {}, ({"reasoning_effort": asked.effort} if asked.effort else {})


_BY_PROVIDER = {
    "deepseek": _deepseek,
    "kimi-coding": _kimi,
    "kimi-coding-cn": _kimi,
    "zai": _zai,
    "tencent-tokenhub": _tokenhub,
    "custom": _custom,
}
"""The providers whose chat-completions endpoint takes a reasoning field of its own (the module's
docstring says which); any other gets none."""


def chat_fields(endpoint: Endpoint, reasoning: Reasoning | None) -> _Fields:
    """(body fields, top-level fields) a chat-completions request to `endpoint` carries for `reasoning`.

    Both end up in the JSON body; they are kept apart because Hermes' profiles return them apart and a
    caller may want to know which is which (the top-level ones are the OpenAI SDK's own parameters)."""
    reasoning = _for_model(endpoint.model, reasoning)
    provider = endpoint.provider.lower()
    effort = (reasoning.effort or "") if reasoning is not None and reasoning.enabled else ""
    asked = _Asked(endpoint.model, reasoning, effort, reasoning is not None and not reasoning.enabled)
    if endpoint.host.endswith("nousresearch.com") or provider == "nous":
        return _nous(asked)
    if endpoint.is_openrouter:
        return _openrouter(asked)
    form = _BY_PROVIDER.get(provider)
    return form(asked) if form is not None else ({}, {})


def chat_sends_reasoning(endpoint: Endpoint, reasoning: Reasoning) -> bool:
    """Whether a chat-completions request to `endpoint` carries `reasoning` in any form. Hermes sends none
    to an unnamed endpoint (a bare base URL: it labels it `openrouter` and gates reasoning on the host), so
    neither do we, and the status bar claims no level there."""
    body, top = chat_fields(endpoint, reasoning)
    return bool(body or top)


def reasoning_unsent(settings: Settings) -> str:
    """Why the level `settings` asks for is not sent ("" when it is, or none is set): a chat endpoint with
    no provider named (a bare base URL) gets no reasoning field, as in Hermes."""
    reasoning = settings.reasoning_for()
    if reasoning is None or not settings.base_url or settings.provider or settings.api_mode != "openai_chat":
        return ""
    if chat_sends_reasoning(Endpoint("", settings.effective_base_url or "", settings.model), reasoning):
        return ""
    return (
        f"reasoning {reasoning.label} is not sent: the endpoint has no provider named (Hermes sends none to "
        "a bare base URL); --provider custom sends it as reasoning_effort"
    )


def reasoning_shown(settings: Settings) -> str:
    """The level the status bar shows: the one asked, when a request carries it; else ""."""
    return "" if reasoning_unsent(settings) else settings.reasoning_label


def chat_replay(messages: list[dict[str, Any]], endpoint: Endpoint) -> list[dict[str, Any]]:
    """The messages with each assistant turn's kept `reasoning_details` sent back only where they are
    taken: OpenRouter's own items (`reasoning.text`, `reasoning.encrypted`, ...) to OpenRouter and the Nous
    portal, which need them for multi-turn reasoning; never Anthropic's blocks, never to a strict provider
    (an unknown field is a 400 there)."""
    takes = (
        endpoint.is_openrouter or endpoint.host.endswith("nousresearch.com") or endpoint.provider == "nous"
    )
    out = messages
    for i, msg in enumerate(messages):
        details = msg.get("reasoning_details")
        if details is None:
            continue
        if out is messages:
            out = list(messages)
        kept = [d for d in details if str(d.get("type", "")).startswith("reasoning.")] if takes else []
        copy = {k: v for k, v in msg.items() if k != "reasoning_details"}
        if kept:
            copy["reasoning_details"] = kept
        out[i] = copy
    return out


# -- Anthropic --------------------------------------------------------------------------------------------

THINKING_BUDGET = {"xhigh": 32_000, "high": 16_000, "medium": 8_000, "low": 4_000}
"""Budget-based thinking's tokens per level (other levels: 8,000)."""
_ADAPTIVE_EFFORT = {
    "ultra": "max",
    "max": "max",
    "xhigh": "xhigh",
    "high": "high",
    "medium": "medium",
    "low": "low",
    "minimal": "low",
}
_BUDGET_HEADROOM = 4_096
"""Output tokens left for the answer above a thinking budget."""


def anthropic_fields(model: str, reasoning: Reasoning | None, max_tokens: int) -> dict[str, Any]:
    """The messages-API fields for `reasoning` (to update the request with; {} = none)."""
    if reasoning is None or not reasoning.enabled or "haiku" in model.lower():
        return {}
    effort = (reasoning.effort or "medium").lower()
    if supports_adaptive_thinking(model):
        adaptive = _ADAPTIVE_EFFORT.get(effort, "medium")
        if adaptive == "xhigh" and any(v in model.lower() for v in _NO_XHIGH_CLAUDE):
            adaptive = "max"
        return {
            "thinking": {"type": "adaptive", "display": "summarized"},
            "output_config": {"effort": adaptive},
        }
    budget = THINKING_BUDGET.get(effort, 8_000)
    return {
        "thinking": {"type": "enabled", "budget_tokens": budget},
        "temperature": 1,
        "max_tokens": max(max_tokens, budget + _BUDGET_HEADROOM),
    }


# -- Responses ----------------------------------------------------------------------------------------------


def responses_fields(model: str, reasoning: Reasoning | None, *, xai: bool = False) -> dict[str, Any]:
    """The Responses-API fields for `reasoning`: effort (medium when unset) with a summary, and the
    encrypted reasoning items asked back so the next call can replay them; off: none of it."""
    if reasoning is not None and not reasoning.enabled:
        return {} if xai else {"include": []}
    effort = (reasoning.effort if reasoning is not None else None) or "medium"
    clamp = {"minimal": "low"}
    if "gpt-5.6" in model.lower():
        clamp["ultra"] = "max"
    if xai:
        clamp.update({"xhigh": "high", "max": "high", "ultra": "high"})
    effort = clamp.get(effort, effort)
    if xai:
        return {"include": ["reasoning.encrypted_content"], "reasoning": {"effort": effort}}
    return {"reasoning": {"effort": effort, "summary": "auto"}, "include": ["reasoning.encrypted_content"]}
