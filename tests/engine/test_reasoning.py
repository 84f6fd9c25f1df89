"""The reasoning setting: read as Hermes 0.19 reads it, and sent in each protocol's own form (checked on the
wire, in the request bodies the scripted server received)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.config.reasoning import Reasoning, model_variants, resolve_reasoning
from agent.config.settings import load_settings
from agent.transports.reasoning import reasoning_shown, reasoning_unsent
from scripted import ScriptedServer
from tests.engine.helpers import make_agent

ALLOWED = "one of none | minimal | low | medium | high | xhigh | max | ultra"


def _load(home: Path, config: str, **flags: Any):
    (home / "config.yaml").write_text(config)
    return load_settings({"hermes_home": str(home), **flags}, env={})


def test_effort_and_overrides_as_hermes_reads_them(tmp_path: Path) -> None:
    config = (
        "model: {default: anthropic/claude-opus-4.6, provider: openrouter}\n"
        "agent:\n  reasoning_effort: low\n  reasoning_overrides:\n    claude-opus-4-6: xhigh\n"
    )
    loaded = _load(tmp_path, config)
    assert loaded.problems == []
    # The override's key is another spelling of the model (dashes, no provider prefix): it wins.
    assert loaded.settings.reasoning_for() == Reasoning(True, "xhigh")
    assert loaded.settings.reasoning_for("gpt-5") == Reasoning(True, "low")  # the global value
    assert loaded.settings.reasoning_label == "xhigh"
    # The command line wins over both.
    assert _load(tmp_path, config, reasoning_choice="none").settings.reasoning_for() == Reasoning(False)
    # YAML's `off` is False: thinking off, never "the default".
    off = _load(tmp_path, "agent: {reasoning_effort: off}\n").settings
    assert off.reasoning_for() == Reasoning(False) and off.reasoning_label == "none"
    unset = _load(tmp_path, "agent: {reasoning_effort: ''}\n").settings
    assert unset.reasoning_for() is None and unset.reasoning_label == ""
    assert _load(tmp_path, "agent: {reasoning_effort: ' High '}\n").settings.reasoning_effort == "high"


def test_unknown_values_give_one_line_with_file_key_and_allowed_values(tmp_path: Path) -> None:
    config = "agent:\n  reasoning_effort: hgih\n  reasoning_overrides:\n    gpt-5: turbo\n    o3: high\n"
    loaded = _load(tmp_path, config)
    lines = [str(p) for p in loaded.problems]
    path = tmp_path / "config.yaml"
    assert lines == [
        f"{path}: agent.reasoning_effort = 'hgih': expected {ALLOWED}",
        f"{path}: agent.reasoning_overrides.gpt-5 = 'turbo': expected {ALLOWED}",
    ]
    # The good override stays; the bad value falls back to the provider's default.
    assert loaded.settings.reasoning_overrides == {"o3": "high"}
    assert loaded.settings.reasoning_effort == ""
    flag = _load(tmp_path, "", reasoning_choice="loud")
    assert [str(p) for p in flag.problems] == [f"command line: --reasoning = 'loud': expected {ALLOWED}"]


def test_override_spellings() -> None:
    variants = model_variants("openrouter/anthropic/claude-opus-4.5")
    for spelling in ("claude-opus-4-5", "anthropic/claude-opus-4.5", "claude-opus-4.5"):
        assert spelling in variants
    assert model_variants("claude-opus-4-5")[0] == "claude-opus-4-5"  # the exact one first
    found = resolve_reasoning(
        chosen="", overrides={"anthropic/claude-opus-4.5": "max"}, effort="", model="claude-opus-4-5"
    )
    assert found == Reasoning(True, "max")


def _first_body(home: Path, cwd: Path, **overrides: Any) -> dict[str, Any]:
    with ScriptedServer({"name": "r", "calls": ["ok"]}) as server:
        agent, _store, _ui = make_agent(server, home, cwd, **overrides)
        result = agent.run_conversation("hi")
        body = server.requests[0].body
    assert result.exit_reason == "completed"
    return body


def test_openrouter_reasoning_on_the_wire(hermes_home: Path, tmp_path: Path) -> None:
    legacy = _first_body(
        hermes_home,
        tmp_path,
        provider="openrouter",
        model="anthropic/claude-sonnet-4.5",
        reasoning_effort="high",
    )
    assert legacy["reasoning"] == {"enabled": True, "effort": "high"}
    off = _first_body(
        hermes_home, tmp_path, provider="openrouter", model="openai/gpt-5", reasoning_effort="none"
    )
    assert off["reasoning"] == {"enabled": False}
    default = _first_body(hermes_home, tmp_path, provider="openrouter", model="deepseek/deepseek-r1")
    assert default["reasoning"] == {"enabled": True, "effort": "medium"}  # Hermes' default for these
    # Claude 4.6+ thinks adaptively and rejects any "off": the effort goes as `verbosity`, no `reasoning`.
    adaptive = _first_body(
        hermes_home,
        tmp_path,
        provider="openrouter",
        model="anthropic/claude-opus-4.6",
        reasoning_effort="high",
    )
    assert "reasoning" not in adaptive and adaptive["verbosity"] == "high"
    # A model family OpenRouter does not route reasoning for is never sent it.
    other = _first_body(
        hermes_home, tmp_path, provider="openrouter", model="mistralai/mistral-large", reasoning_effort="high"
    )
    assert "reasoning" not in other and "reasoning_effort" not in other and "verbosity" not in other


def test_reasoning_effort_where_the_provider_takes_it(hermes_home: Path, tmp_path: Path) -> None:
    custom = _first_body(hermes_home, tmp_path, reasoning_effort="high")  # a custom endpoint
    assert custom["reasoning_effort"] == "high" and "reasoning" not in custom
    off = _first_body(hermes_home, tmp_path, reasoning_effort="none")
    assert off["reasoning_effort"] == "none" and off["think"] is False
    unset = _first_body(hermes_home, tmp_path)
    assert not {"reasoning", "reasoning_effort", "think", "thinking", "verbosity"} & set(unset)
    deepseek = _first_body(
        hermes_home, tmp_path, provider="deepseek", model="deepseek-v4-pro", reasoning_choice="xhigh"
    )
    assert deepseek["thinking"] == {"type": "enabled"} and deepseek["reasoning_effort"] == "max"
    v3 = _first_body(
        hermes_home, tmp_path, provider="deepseek", model="deepseek-chat", reasoning_effort="high"
    )
    assert "thinking" not in v3 and "reasoning_effort" not in v3
    kimi = _first_body(
        hermes_home, tmp_path, provider="kimi-coding", model="kimi-k2", reasoning_effort="high"
    )
    assert kimi["reasoning_effort"] == "high" and "thinking" not in kimi  # never both
    # Direct OpenAI on chat completions takes none (Hermes sends GPT-5 there through Responses).
    openai = _first_body(hermes_home, tmp_path, provider="openai", model="gpt-4o", reasoning_effort="high")
    assert not {"reasoning", "reasoning_effort", "verbosity"} & set(openai)


@pytest.mark.parametrize(
    ("model", "effort", "expected"),
    [
        (
            "claude-opus-4-6",
            "high",
            {"thinking": {"type": "adaptive", "display": "summarized"}, "output_config": {"effort": "high"}},
        ),
        (
            "claude-opus-4-6",
            "xhigh",
            {"thinking": {"type": "adaptive", "display": "summarized"}, "output_config": {"effort": "max"}},
        ),
        (
            "claude-opus-4-7",
            "xhigh",
            {"thinking": {"type": "adaptive", "display": "summarized"}, "output_config": {"effort": "xhigh"}},
        ),
        (  # a model before adaptive thinking that the SDK does not warn about (Sonnet 4.5's life ended)
            "claude-opus-4-1",
            "high",
            {"thinking": {"type": "enabled", "budget_tokens": 16000}, "temperature": 1},
        ),
    ],
)
def test_anthropic_thinking_on_the_wire(
    hermes_home: Path, tmp_path: Path, model: str, effort: str, expected: dict[str, Any]
) -> None:
    body = _first_body(hermes_home, tmp_path, api="anthropic", model=model, reasoning_effort=effort)
    for key, value in expected.items():
        assert body[key] == value
    if "budget_tokens" in body["thinking"]:
        assert body["max_tokens"] >= 16000 + 4096  # raised so the answer fits after the thinking
    else:
        assert "temperature" not in body and "budget_tokens" not in body["thinking"]


def test_anthropic_sends_no_thinking_unless_asked(hermes_home: Path, tmp_path: Path) -> None:
    for overrides in (
        {},
        {"reasoning_effort": "none"},
        {"model": "claude-haiku-4-5", "reasoning_effort": "high"},
    ):
        values: dict[str, Any] = {"api": "anthropic", "model": "claude-opus-4-6", **overrides}
        body = _first_body(hermes_home, tmp_path, **values)
        assert "thinking" not in body and "output_config" not in body


def test_a_bare_base_url_gets_no_reasoning_and_the_status_claims_none(
    hermes_home: Path, tmp_path: Path
) -> None:
    """Hermes labels an unnamed endpoint `openrouter` and gates reasoning on the host, so a bare base URL
    gets no reasoning field; the status bar's label says so instead of claiming a level."""
    with ScriptedServer({"name": "r", "calls": ["ok"]}) as server:
        agent, _store, _ui = make_agent(
            server, tmp_path / "home", tmp_path, provider="", reasoning_choice="high"
        )
        assert agent.run_conversation("hi").exit_reason == "completed"
        body = server.requests[0].body
        settings = agent.settings
    assert not {"reasoning", "reasoning_effort", "think", "thinking", "verbosity"} & set(body)
    assert reasoning_shown(settings) == "" and settings.reasoning_label == "high"
    assert "--provider custom" in reasoning_unsent(settings)
    with ScriptedServer({"name": "r", "calls": ["ok"]}) as server:
        agent, _store, _ui = make_agent(
            server, tmp_path / "h2", tmp_path, provider="custom", reasoning_choice="high"
        )
        assert agent.run_conversation("hi").exit_reason == "completed"
        body = server.requests[0].body
        settings = agent.settings
    assert body["reasoning_effort"] == "high"
    assert reasoning_shown(settings) == "high" and reasoning_unsent(settings) == ""
