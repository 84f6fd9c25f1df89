"""Shared fixtures: every test gets its own HERMES_HOME; nothing touches the real home or the network.

One async style for the whole suite: a test that drives an app is `async def test_...(...)` using
`async with app.run_test() as pilot`; it runs on asyncio through AnyIO's pytest plugin in auto mode
(`anyio_mode = "auto"` in pyproject.toml), so no file repeats a marker or a backend fixture. Snapshot
tests stay plain functions: `snap_compare` runs its own loop.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_tui import textual_compat
from tests import pilot_pace, warm_workers

pytest_plugins = ("tests.mcp_servers", "tests.rewrite_cache")
"""`mcp_http`: the MCP fixture server on streamable HTTP that a worker's MCP tests share; the test modules'
asserts rewritten once by the controller for all the workers."""

# The test modules' rewritten asserts cached like any bytecode, even where the environment says not to write
# bytecode (PYTHONDONTWRITEBYTECODE=1 in some CI images): otherwise every xdist worker of every run parses
# and rewrites all ~350 test modules again, about half of a collection's CPU. The app's own modules are
# compiled once per run for the processes the tests start (`pytest_configure`, below).
sys.dont_write_bytecode = False

PACKAGES = ("agent", "hermes_tui", "widgets", "themes", "scripted")
"""What the processes the tests start import (`hermes-tui -z`, `hermes-tui acp`, the fixture servers)."""


def pytest_configure(config: pytest.Config) -> None:
    """The project's bytecode, once, in the controller before any worker starts. An editable install
    compiles nothing, and where the environment says not to write bytecode (PYTHONDONTWRITEBYTECODE=1, which
    those processes inherit) each of the suite's hundreds of subprocesses would compile what it imports again:
    ~0.35 s of a `-z` run's ~1.4 s CPU. Up to date, this is a stat per file (~20 ms); a clean clone pays
    ~0.5 s once. `.ci/run` runs this same command, so this is the one place."""
    if hasattr(config, "workerinput"):
        return
    import compileall

    root = Path(__file__).resolve().parents[1]
    for package in PACKAGES:
        compileall.compile_dir(root / package, quiet=2)


# The collector is off while the tests are collected, and what the collection made (every SDK's pydantic
# models, imported by the test modules) is frozen out of its scans after: a worker's collection took 8.2 s of
# CPU with the collector's passes over those objects as they were made, 4.7 s without.
gc.disable()


def pytest_collection_finish(session: pytest.Session) -> None:
    gc.freeze()
    gc.enable()


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    """On for the tests in any case (xdist's controller collects nothing)."""
    gc.enable()


def _default_signals() -> None:
    """The suite's processes, and so every process they start, take Ctrl+C, hang-ups and quits as a terminal
    delivers them, however the suite was launched: `nohup`, or `&` in a script without job control, starts
    it with those signals ignored, a disposition every child inherits across exec, and the tests of Ctrl+C
    and SIGHUP then met processes that could not be stopped (four failed that way in one CI run)."""
    for number in (signal.SIGHUP, signal.SIGQUIT):
        if signal.getsignal(number) == signal.SIG_IGN:
            signal.signal(number, signal.SIG_DFL)
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


_default_signals()

# Once per test process, before any app is built, and all of it (the fixes for our widget classes too): so
# a bare-App test and a HermesApp test run against the same patched Textual, whatever the test order.
textual_compat.install(eager=True)
# The Pilot's settle test in 5 ms windows instead of 20 (tests/pilot_pace.py says why it is sound): the app
# tests slept ~70% of their wall time in it.
pilot_pace.quicken()


@pytest.fixture
def anyio_backend() -> str:
    """Textual runs on asyncio."""
    return "asyncio"


@pytest.fixture(autouse=True)
def hermes_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("hermes_home")
    monkeypatch.setenv("HERMES_HOME", str(home))
    for var in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "OPENROUTER_API_KEY",
        "OPENAI_BASE_URL",
        "HERMES_MODEL",
    ):
        monkeypatch.delenv(var, raising=False)
    # Proxies would send loopback traffic elsewhere; tests only ever talk to 127.0.0.1.
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    assert os.environ["HERMES_HOME"] == str(home)
    return home


@pytest.fixture(autouse=True)
def _plugin_toolsets_withdrawn() -> Iterator[None]:
    """Dynamic toolsets live in one process-wide catalog: those a test's plugins added are withdrawn after
    it, so no other test's agent is offered them."""
    from agent.toolkit.toolsets import CATALOG

    before = set(CATALOG.dynamic())
    yield
    for name in set(CATALOG.dynamic()) - before:
        CATALOG.unregister(name)


WORKERS_PER_CORE = 3
"""xdist workers per core for `-n auto`: much of the suite waits (a subprocess app, a tmux screen, a kill -9
trial), so one worker per core leaves the cores idle half the run. Measured on 2 cores, the whole suite:
4 workers 312 s (81 core-s idle), 5 workers 285 s (44), 6 workers 281 s (17)."""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (pyproject's `addopts`): WORKERS_PER_CORE per core this process may use."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(2, WORKERS_PER_CORE * cores)


def pytest_xdist_setupnodes(config: pytest.Config, specs: list[object]) -> None:
    """Each worker forked from one process that imported the SDKs once (`tests/warm_workers.py`)."""
    warm_workers.fork_workers(config, specs)


SLOW_DIRECTORIES = ("e2e", "reliability")
"""Whole apps in a real terminal, kill -9 and orphan trials: every test under these is `slow`."""

SLOW_MODULES = {
    # A whole `hermes-tui` process (headless, cron, a crash child) or a plugin's subprocess per test.
    "test_headless.py",
    "test_headless_faults.py",
    "test_plugin_faults.py",
    "test_local_servers.py",
    "test_hostile_files.py",
    "test_crash.py",
    "test_cron.py",
    "test_cron_actions.py",
    "test_execute_code.py",
    "test_browser.py",  # a real Chromium
}
"""Modules (by file name, wherever they live) whose tests each run for seconds. Modules that start MCP
servers or the browser say `pytestmark = pytest.mark.slow` themselves."""

SLOW_TESTS = {
    "test_supervisor.py::test_the_next_start_tells_what_a_crash_left_once",
    "test_approval_table.py::test_adversarial_inputs_stay_fast",
    "test_scripted_server.py::test_twenty_thousand_chunk_stream",
    "test_search_query.py::test_select_over_many_records_is_matches_on_each",
    "test_chat_screen.py::test_typing_and_resizing_stay_responsive_during_a_fast_stream",
    "test_keys_stop.py::test_an_approval_waits_while_the_user_types",
}
"""Single tests of otherwise quick modules that run for seconds (`module.py::function`)."""


SETTLING_DIRECTORIES = ("app", "snapshots", "widgets", "fuzz", "compat")
"""Where most quick tests drive an app through a Pilot and spend half their time waiting for it to settle:
they run before the other quick tests, so the run's last minute is CPU-dense unit tests that keep both cores
busy, not four workers napping between looks."""


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects: the marks added here count
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the slow directories `slow`, then put slow tests first: xdist hands work out in collection
    order (after the largest `xdist_group`s), so the long tests start at once and the run ends on short
    ones instead of on one worker finishing a long tail. Among the quick ones, the settling directories
    come first."""
    tests_root = Path(__file__).parent
    for item in items:
        parts = item.path.relative_to(tests_root).parts if item.path.is_relative_to(tests_root) else ()
        function = getattr(item, "originalname", item.name)
        if (
            (parts and parts[0] in SLOW_DIRECTORIES)
            or item.path.name in SLOW_MODULES
            or f"{item.path.name}::{function}" in SLOW_TESTS
        ):
            item.add_marker(pytest.mark.slow)

    def order(item: pytest.Item) -> tuple[bool, bool]:
        parts = item.path.relative_to(tests_root).parts if item.path.is_relative_to(tests_root) else ()
        quick = item.get_closest_marker("slow") is None
        return quick, quick and not (parts and parts[0] in SETTLING_DIRECTORIES)

    items.sort(key=order)
