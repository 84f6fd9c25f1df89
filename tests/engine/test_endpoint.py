"""What one endpoint needs on the wire: its stale-stream timeout, prompt-cache markers, reasoning echo."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr

from agent.config.settings import Settings, load_settings
from agent.transports.base import ModelRequest
from agent.transports.cache_control import mark_envelope
from agent.transports.endpoint import Endpoint, stale_timeout_for_context
from agent.transports.factory import make_transport
from scripted import ScriptedServer
from tests.engine.helpers import make_agent


@pytest.mark.parametrize(
    ("base_url", "local"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://192.168.1.20:8000/v1", True),
        ("http://10.0.0.5/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://gpu-box.local:8000/v1", True),
        ("http://ollama:11434/v1", True),  # a container name
        ("http://100.101.102.103/v1", True),  # Tailscale
        ("https://api.example.com/v1", False),  # a hosted service: any public name
        ("https://llm.example.org/api/v1", False),
        ("http://8.8.8.8/v1", False),
        ("", False),
    ],
)
def test_local_endpoints_are_recognised(base_url: str, local: bool) -> None:
    assert Endpoint("custom", base_url, "m").is_local is local


def _settings(tmp_path: Path, **values: object) -> Settings:
    return Settings(api_key=SecretStr("k"), hermes_home=tmp_path, cwd=tmp_path, **values)  # type: ignore[arg-type]


def test_a_loopback_base_url_gets_the_longer_stale_timeout(tmp_path: Path) -> None:
    local = make_transport(
        _settings(tmp_path, provider="custom", base_url="http://127.0.0.1:8080/v1", model="m")
    )
    remote = make_transport(_settings(tmp_path, provider="openai", model="gpt-4o"))
    assert local.stale_timeout == 900.0  # type: ignore[attr-defined]
    assert remote.stale_timeout == 180.0  # type: ignore[attr-defined]


def test_a_stale_timeout_the_user_set_is_kept_for_a_local_endpoint(tmp_path: Path) -> None:
    (tmp_path / "tui").mkdir()
    (tmp_path / "tui" / "config.yaml").write_text("stale_timeout: 45\nbase_url: http://127.0.0.1:9/v1\n")
    loaded = load_settings(env={"HERMES_HOME": str(tmp_path), "OPENAI_API_KEY": "k"})
    assert make_transport(loaded.settings).stale_timeout == 45.0  # type: ignore[attr-defined]


def test_hermes_local_stale_timeout_key_is_read(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("agent:\n  local_stream_stale_timeout: 1200\n")
    loaded = load_settings(env={"HERMES_HOME": str(tmp_path), "OPENAI_BASE_URL": "http://localhost:1/v1"})
    assert loaded.settings.local_stale_timeout == 1200
    assert make_transport(loaded.settings).stale_timeout == 1200.0  # type: ignore[attr-defined]


def test_large_requests_wait_longer_for_their_first_token() -> None:
    assert stale_timeout_for_context(180.0, 10_000) == 180.0
    assert stale_timeout_for_context(180.0, 60_000) == 240.0
    assert stale_timeout_for_context(180.0, 150_000) == 300.0
    assert stale_timeout_for_context(900.0, 150_000) == 900.0
    transport = make_transport(_settings(tmp_path=Path("/nonexistent"), provider="openai", model="gpt-4o"))
    big = ModelRequest(messages=[{"role": "user", "content": "x" * 480_000}], tools=[])
    assert transport.stale_timeout_for(big) == 300.0  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------- prompt caching


def _messages() -> list[dict[str, object]]:
    return [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1"}]},
        {"role": "tool", "content": "result", "tool_call_id": "c1"},
        {"role": "assistant", "content": "two"},
        {"role": "user", "content": "three"},
    ]


def _marked(messages: list[dict[str, object]]) -> list[int]:
    return [
        i
        for i, m in enumerate(messages)
        if isinstance(m["content"], list) and any("cache_control" in part for part in m["content"])
    ]


def test_envelope_marks_the_system_prompt_and_the_last_three_messages_with_text() -> None:
    messages = _messages()
    marked = mark_envelope(messages)
    assert _marked(marked) == [0, 3, 4, 5]  # the tool-calls-only assistant turn wastes no breakpoint
    assert marked[5]["content"] == [{"type": "text", "text": "three", "cache_control": {"type": "ephemeral"}}]
    assert messages == _messages(), "the request's own messages are not changed"


@pytest.mark.parametrize(
    ("provider", "model", "caches"),
    [
        ("openrouter", "anthropic/claude-sonnet-4", True),
        ("openrouter", "moonshotai/kimi-k2", True),
        ("openrouter", "openai/gpt-4o", False),
        ("deepseek", "claude-sonnet-4", False),  # only gateways that honour the markers
    ],
)
def test_claude_through_openrouter_gets_cache_markers(
    tmp_path: Path, provider: str, model: str, caches: bool
) -> None:
    transport = make_transport(_settings(tmp_path, provider=provider, model=model))
    kwargs = transport.build_kwargs(ModelRequest(messages=_messages(), tools=[]))  # type: ignore[attr-defined]
    assert bool(_marked(kwargs["messages"])) is caches


def test_cache_markers_reach_the_wire_through_the_sdk(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer({"name": "t", "calls": [{"text": "cached"}]}) as server:
        agent, _store, _ui = make_agent(
            server, hermes_home, tmp_path, provider="openrouter", model="anthropic/claude-sonnet-4"
        )
        assert agent.run_conversation("hi").final_text == "cached"
        body = server.requests[0].body
    assert body["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][-1]["content"][0]["cache_control"] == {"type": "ephemeral"}


# --------------------------------------------------------------------------------------- reasoning echo
# The rules are keyed by provider and host, so the cases name real hosts: as data, never connected to.


@pytest.mark.parametrize(
    ("provider", "base_url", "model", "echo"),
    [
        ("deepseek", "https://api.deepseek.com/v1", "deepseek-reasoner", True),
        ("custom", "http://127.0.0.1:8000/v1", "deepseek-r1-distill", True),
        ("kimi-coding", "https://api.kimi.com/coding/v1", "kimi-for-coding", True),
        ("custom", "https://api.moonshot.ai/v1", "kimi-k2", True),
        ("xiaomi", "https://api.xiaomimimo.com/v1", "mimo-v2", True),
        ("openai", "https://api.openai.com/v1", "gpt-4o", False),
        ("custom", "https://api.mistral.ai/v1", "mistral-large", False),
        ("openrouter", "https://openrouter.ai/api/v1", "anthropic/claude-sonnet-4", False),
    ],
)
def test_reasoning_echo_only_where_the_provider_requires_it(
    provider: str, base_url: str, model: str, echo: bool
) -> None:
    assert Endpoint(provider, base_url, model).needs_reasoning_echo is echo
