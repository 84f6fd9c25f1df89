"""Several keys for one provider (Hermes' credential pool in `auth.json`): reading the pool, rotating on a
key's own failures through the real SDKs against the scripted server's `key_faults`, cooldowns on an
injected clock, and no key text anywhere the user or the disk sees."""

from __future__ import annotations

import json
import logging
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

import agent.session.session as session_mod
from agent.config.credential_pool import COOLDOWN_401, COOLDOWN_429, PoolKey, pool_keys
from agent.core.errors import ClassifiedError
from agent.core.events import StatusNotice
from agent.core.secrets import SECRETS
from agent.session.key_pool import KeyPool, KeyTurn
from scripted import ScriptedServer
from scripted.routes import request_key
from tests.engine.helpers import API_PARAMS, error_lines, make_agent

KEY_A = "pool-key-alpha-0123456789"
KEY_B = "pool-key-bravo-0123456789"
KEY_C = "pool-key-charlie-012345678"
ALL_KEYS = (KEY_A, KEY_B, KEY_C)


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    asked: list[float] = []

    def short_wait(self: session_mod.Session, delay: float) -> bool:
        asked.append(delay)
        return self.interrupt_event.wait(min(delay, 0.05))

    monkeypatch.setattr(session_mod.Session, "backoff_wait", short_wait)
    return asked


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def write_pool(home: Path, provider: str, entries: list[dict[str, Any]]) -> None:
    """An `auth.json` as Hermes writes it (`hermes auth add`)."""
    data = {"version": 1, "providers": {}, "credential_pool": {provider: entries}}
    (home / "auth.json").write_text(json.dumps(data))


def entry(key: str, priority: int, base_url: str | None = None, **more: Any) -> dict[str, Any]:
    return {
        "id": f"id{priority}",
        "label": f"label-{priority}",
        "auth_type": "api_key",
        "priority": priority,
        "source": "manual",
        "access_token": key,
        "base_url": base_url,
        **more,
    }


def endpoint(server: ScriptedServer, api: str) -> tuple[str, str, dict[str, Any]]:
    """(provider, base URL, make_agent keywords) for one wire API of the scripted server."""
    if api == "anthropic":
        return "anthropic", server.anthropic_base_url, {"api": "anthropic", "model": "claude-test"}
    return "openai", server.openai_base_url, {"provider": "openai"}


def sent_keys(server: ScriptedServer) -> list[str]:
    return [request_key(r.headers) for r in server.requests]


def pooled_agent(
    server: ScriptedServer, home: Path, cwd: Path, api: str, *pool: str, **overrides: Any
) -> tuple[session_mod.Session, Any, Any]:
    provider, url, keywords = endpoint(server, api)
    write_pool(home, provider, [entry(k, i, url) for i, k in enumerate(pool)])
    return make_agent(server, home, cwd, api_key=KEY_A, **keywords, **overrides)


# ---------------------------------------------------------------- reading Hermes' format


def test_pool_read_in_hermes_order_with_what_cannot_be_used_left_out(hermes_home: Path) -> None:
    url = "https://api.example.test/v1"
    fresh = f"pool-fresh-{uuid.uuid4().hex}"  # never registered before this test
    now = time.time()
    write_pool(
        hermes_home,
        "openrouter",
        [
            entry(fresh, 2, url),
            entry(KEY_B, 1, url + "/"),  # the same URL
            entry(KEY_A, 0, url),  # the run's own key again: counted once
            entry("pool-oauth-token-0123456789", 3, url, auth_type="oauth"),
            entry("pool-dead-key-0123456789", 4, url, last_status="dead"),
            entry("pool-elsewhere-0123456789", 5, "https://other.example.test/v1"),
            entry(
                "pool-resting-0123456789",
                6,
                None,
                last_status="exhausted",
                last_status_at=now - 60,
                last_error_code=429,
            ),
            {"priority": "not a number", "access_token": "pool-malformed-0123456789"},
        ],
    )
    assert fresh not in SECRETS.values
    keys = pool_keys(hermes_home, "openrouter", url, KEY_A)
    assert [k.key for k in keys] == [KEY_A, KEY_B, fresh, "pool-resting-0123456789"]
    assert keys[3].cooling_until == pytest.approx(now - 60 + COOLDOWN_429)
    assert keys[0].cooling_until == keys[1].cooling_until == 0.0
    assert all(k.key in SECRETS.values for k in keys)  # masked wherever text leaves the engine


def test_a_profile_without_a_pool_reads_the_root_homes(tmp_path: Path) -> None:
    root = tmp_path / "root"
    profile = root / "profiles" / "work"
    profile.mkdir(parents=True)
    write_pool(root, "anthropic", [entry(KEY_B, 0)])
    assert [k.key for k in pool_keys(profile, "anthropic", None, KEY_A)] == [KEY_A, KEY_B]
    write_pool(profile, "anthropic", [entry(KEY_C, 0)])  # the profile's own pool wins
    assert [k.key for k in pool_keys(profile, "anthropic", None, KEY_A)] == [KEY_A, KEY_C]


def test_one_key_is_no_pool(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer(
        {"name": "t", "key_faults": {KEY_A: {"status": 401}}, "fallback": {"text": "x"}}
    ) as server:
        write_pool(hermes_home, "openai", [entry(KEY_A, 0, server.openai_base_url)])
        agent, _store, ui = make_agent(server, hermes_home, tmp_path, api_key=KEY_A, provider="openai")
        assert agent.key_pool is None
        result = agent.run_conversation("hi")
        assert sent_keys(server) == [KEY_A]  # as without a pool: one request, the error
    assert result.exit_reason == "error:auth"
    assert "API key was rejected" in error_lines(ui)[0]


# ---------------------------------------------------------------- rotation through the SDKs


@pytest.mark.parametrize("api", API_PARAMS)
def test_rate_limited_key_moves_to_the_next(
    hermes_home: Path, tmp_path: Path, api: str, fast_backoff: list[float]
) -> None:
    scenario = {
        "name": "t",
        "key_faults": {KEY_A: {"status": 429, "message": "Rate limit reached"}},
        "calls": [{"text": "answered with B"}],
    }
    with ScriptedServer(scenario) as server:
        agent, _store, ui = pooled_agent(server, hermes_home, tmp_path, api, KEY_B, max_retries=3)
        result = agent.run_conversation("hi")
        # Hermes: the first 429 is an ordinary retry on the same key, the second rotates.
        assert sent_keys(server) == [KEY_A, KEY_A, KEY_B]
        assert server.requests[-1].call_index == 0
    assert result.exit_reason == "completed" and result.final_text == "answered with B"
    notices = [e.text for e in ui.of_type(StatusNotice)]
    assert sum("attempt 1 of 3" in n for n in notices) == 1 and len(fast_backoff) == 1
    assert any("Key 1 of 2 was rate-limited" in n and "Retrying with key 2" in n for n in notices)


@pytest.mark.parametrize("api", API_PARAMS)
@pytest.mark.parametrize("status", [401, 402])
def test_refused_or_unpaid_key_moves_on_at_once(
    hermes_home: Path, tmp_path: Path, api: str, status: int, fast_backoff: list[float]
) -> None:
    scenario = {"name": "t", "key_faults": {KEY_A: {"status": status}}, "calls": [{"text": "fine"}]}
    with ScriptedServer(scenario) as server:
        agent, _store, _ui = pooled_agent(server, hermes_home, tmp_path, api, KEY_B, max_retries=0)
        result = agent.run_conversation("hi")
        assert sent_keys(server) == [KEY_A, KEY_B]
    assert result.exit_reason == "completed" and fast_backoff == []  # not one of the call's retries


@pytest.mark.parametrize("api", API_PARAMS)
def test_every_key_refused_one_clear_line_without_key_text(
    hermes_home: Path, tmp_path: Path, api: str, caplog: pytest.LogCaptureFixture
) -> None:
    faults = {k: {"status": 401, "message": f"Incorrect API key provided: {k}"} for k in ALL_KEYS}
    scenario = {"name": "t", "key_faults": faults, "fallback": {"text": "never"}}
    caplog.set_level(logging.DEBUG)
    with ScriptedServer(scenario) as server:
        agent, store, ui = pooled_agent(server, hermes_home, tmp_path, api, KEY_B, KEY_C, max_retries=2)
        result = agent.run_conversation("hi")
        assert sent_keys(server) == [KEY_A, KEY_B, KEY_C]  # each once, then the error
        agent.close()
    assert result.exit_reason == "error:auth"
    lines = error_lines(ui)
    assert len(lines) == 1 and "All 3 keys of the credential pool were tried" in lines[0]
    rows = []
    with sqlite3.connect(hermes_home / "tui" / "state.db") as db:
        for (table,) in db.execute("select name from sqlite_master where type='table'"):
            rows += [repr(r) for r in db.execute(f'select * from "{table}"')]
    seen = "\n".join([repr(ui.events), repr(result), caplog.text, *rows])
    for key in ALL_KEYS:
        assert key not in seen and key[:12] not in seen
    store.close()


def test_a_resting_key_is_skipped_until_its_cooldown_is_over(hermes_home: Path, tmp_path: Path) -> None:
    scenario = {"name": "t", "key_faults": {KEY_A: {"status": 401}}, "fallback": {"text": "ok"}}
    clock = Clock()
    with ScriptedServer(scenario) as server:
        agent, _store, _ui = pooled_agent(server, hermes_home, tmp_path, "openai", KEY_B)
        assert agent.key_pool is not None
        agent.key_pool.clock = clock
        assert agent.run_conversation("one").exit_reason == "completed"
        assert sent_keys(server) == [KEY_A, KEY_B]
        clock.now += COOLDOWN_401 - 1  # still resting: B only
        assert agent.run_conversation("two").exit_reason == "completed"
        assert sent_keys(server)[2:] == [KEY_B]
        clock.now += 2  # over: A is first again (and refused again)
        assert agent.run_conversation("three").exit_reason == "completed"
        assert sent_keys(server)[3:] == [KEY_A, KEY_B]


def test_a_key_hermes_left_resting_is_not_sent(hermes_home: Path, tmp_path: Path) -> None:
    scenario = {"name": "t", "key_faults": {KEY_A: {"status": 401}}, "fallback": {"text": "x"}}
    with ScriptedServer(scenario) as server:
        url = server.openai_base_url
        resting = entry(
            KEY_B, 0, url, last_status="exhausted", last_status_at=time.time() - 10, last_error_code=402
        )
        write_pool(hermes_home, "openai", [resting])
        agent, _store, ui = make_agent(server, hermes_home, tmp_path, api_key=KEY_A, provider="openai")
        result = agent.run_conversation("hi")
        assert sent_keys(server) == [KEY_A]
    assert result.exit_reason == "error:auth"
    assert "All 2 keys" in error_lines(ui)[0]


def test_anthropic_403_is_an_entitlement_and_keeps_the_key() -> None:
    forbidden = ClassifiedError("auth", "forbidden", False, "refused", status_code=403)
    anthropic = KeyPool([PoolKey(KEY_A), PoolKey(KEY_B)], keep_on_403=True)
    assert anthropic.after_failure(forbidden, retry_left=False).key is None
    assert anthropic.current_key == KEY_A
    other = KeyPool([PoolKey(KEY_A), PoolKey(KEY_B)])
    assert other.after_failure(forbidden, retry_left=False).key == KEY_B


def test_pool_for_anthropic_settings_keeps_its_key_on_403(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer({"name": "t"}) as server:
        write_pool(hermes_home, "anthropic", [entry(KEY_B, 0, server.anthropic_base_url)])
        agent, _store, _ui = make_agent(
            server, hermes_home, tmp_path, api_key=KEY_A, api="anthropic", model="claude-test"
        )
        assert agent.key_pool is not None and agent.key_pool.keep_on_403
        assert len(agent.key_pool) == 2


@pytest.mark.parametrize(
    ("message", "retry_left"), [("Rate limit reached", False), ("Weekly usage limit reached", True)]
)
def test_a_429_rotates_at_once_without_a_retry_left_or_on_a_usage_limit(
    message: str, retry_left: bool
) -> None:
    pool = KeyPool([PoolKey(KEY_A), PoolKey(KEY_B)])
    limited = ClassifiedError("rate_limit", message, True, "Rate limited", status_code=429)
    turn = pool.after_failure(limited, retry_left=retry_left)
    assert turn.key == KEY_B and "Key 1 of 2 was rate-limited (429); it rests 60 min" in turn.notice
    assert KEY_A not in turn.notice and KEY_B not in turn.notice


def test_a_first_429_with_a_retry_left_stays_on_the_key() -> None:
    pool = KeyPool([PoolKey(KEY_A), PoolKey(KEY_B)])
    limited = ClassifiedError("rate_limit", "Rate limit reached", True, "Rate limited", status_code=429)
    assert pool.after_failure(limited, retry_left=True) == KeyTurn()
    assert pool.after_failure(limited, retry_left=True).key == KEY_B


def test_every_key_rate_limited_the_backoff_notice_counts_the_keys(
    hermes_home: Path, tmp_path: Path, fast_backoff: list[float]
) -> None:
    faults = {k: {"status": 429, "message": f"Rate limit reached for {k}"} for k in (KEY_A, KEY_B)}
    with ScriptedServer({"name": "t", "key_faults": faults, "fallback": {"text": "never"}}) as server:
        agent, _store, ui = pooled_agent(server, hermes_home, tmp_path, "openai", KEY_B, max_retries=3)
        result = agent.run_conversation("hi")
        # A: retry, then rests; B: retry, then rests; then the call's last retry, on B, and the error.
        assert sent_keys(server) == [KEY_A, KEY_A, KEY_B, KEY_B, KEY_B]
    assert result.exit_reason == "error:rate_limit"
    notices = [e.text for e in ui.of_type(StatusNotice)]
    assert any("All 2 keys of the credential pool were tried" in n and "attempt 3 of 3" in n for n in notices)
    assert "All 2 keys" in error_lines(ui)[-1]
    assert not any(k in repr(ui.events) for k in (KEY_A, KEY_B))


def test_switching_provider_takes_that_providers_pool(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer({"name": "t"}) as server:
        agent, _store, _ui = pooled_agent(server, hermes_home, tmp_path, "openai", KEY_B)
        assert agent.key_pool is not None
        agent.switch_model("claude-test", provider="anthropic", base_url=server.anthropic_base_url)
        assert agent.key_pool is None  # no anthropic pool in auth.json
        agent.switch_model("scripted", provider="openai", base_url=server.openai_base_url)
        assert agent.key_pool is not None and len(agent.key_pool) == 2
