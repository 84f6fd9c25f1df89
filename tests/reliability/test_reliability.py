"""The short reliability run (the long one: `python benchmarks/reliability.py`): a few trials of every
fault kind of `tests/reliability/campaign.py`, each held to the same invariants."""

from __future__ import annotations

import random

import pytest

from tests.reliability import campaign, orphans

pytestmark = [pytest.mark.reliability, pytest.mark.slow]


def _held(trial: campaign.Trial) -> None:
    assert not trial.failures, trial.failures
    assert trial.messages_lost == 0
    assert trial.text_lost_s <= 1.0 + 0.25  # one checkpoint interval, plus the last delta's own spacing


@pytest.mark.parametrize("api", campaign.APIS)
@pytest.mark.parametrize("kind", ["kill9_stream", "kill9_tool"])
def test_kill_9(kind: str, api: str) -> None:
    rng = random.Random(f"{kind}-{api}")
    for _ in range(2):
        _held(campaign.kill9_trial(kind, rng, api))


@pytest.mark.parametrize("api", campaign.APIS)
@pytest.mark.parametrize("fault", sorted(campaign.PROVIDER_FAULTS))
def test_provider_fault_headless(fault: str, api: str) -> None:
    _held(campaign.provider_trial(fault, api))


def test_second_writer_is_refused() -> None:
    _held(campaign.two_writers_trial())


@pytest.mark.parametrize("fault", sorted(campaign.STORAGE_FAULTS))
def test_storage_fault_headless(fault: str) -> None:
    _held(campaign.storage_trial(fault))


def test_fuzzed_prompt_and_tool_output() -> None:
    rng = random.Random(20)
    for _ in range(5):
        _held(campaign.fuzz_trial(rng))


@pytest.mark.parametrize("fault", orphans.FAULTS)
def test_nothing_left_running_after_headless(fault: str) -> None:
    """`-z` mid-turn with a background sleep and an HTTP server: nothing it started outlives it."""
    _held(orphans.headless_trial(fault))


@pytest.mark.xdist_group("tmux")
@pytest.mark.parametrize("fault", orphans.FAULTS)
def test_nothing_left_running_after_tui(fault: str) -> None:
    """The TUI with a background sleep and an HTTP server, at rest: killed, terminated, its terminal
    closed, interrupted: nothing it started outlives it (and the terminal is restored)."""
    _held(orphans.tui_trial(fault))


@pytest.mark.xdist_group("tmux")
def test_nothing_left_running_after_tui_killed_mid_turn() -> None:
    _held(orphans.tui_trial("kill9", during_turn=True))


@pytest.mark.xdist_group("tmux")
@pytest.mark.parametrize("fault", ["kill9", "sighup"])
@pytest.mark.parametrize("target", ["z", "tui"])
def test_no_mcp_server_outlives_the_app(target: str, fault: str) -> None:
    """A stdio server with a child of its own that ignores EOF, and a real one: gone with the app."""
    _held(orphans.mcp_trial(target, fault))


def test_a_killed_subagent_leaves_nothing_and_continue_finds_the_users_session() -> None:
    _held(orphans.subagent_trial())


@pytest.mark.parametrize("kind", ["browser", "script"])
def test_kill_9_leaves_no_browser_and_no_script(kind: str) -> None:
    """kill -9 of `-z` while its browser waits on a page, or while an execute_code script runs: the
    reaper stops the driver, Chromium, the script and what the script started."""
    if kind == "browser":
        from agent.browser.chromium import unavailable_reason
        from agent.config.settings import Settings

        if (why := unavailable_reason(Settings())) is not None:
            pytest.skip(why)
    _held(orphans.tool_child_trial(kind))


def test_no_mcp_server_outlives_an_app_killed_around_its_spawn() -> None:
    """kill -9 before, during and just after a stdio server's spawn (before the manager registered it
    too): the server and its child never outlive the app."""
    _held(orphans.mcp_spawn_trial(random.Random("mcp-spawn")))
