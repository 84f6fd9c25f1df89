"""The shared agent's fixtures (`shared_agent.py`): one `hermes-tui acp` per module and xdist worker, a
test's turn with it between `begin` and `end`."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.acp.shared_agent import SharedAgent


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """Module-wide here: the shared agent's connection lives on one event loop for the whole module."""
    return "asyncio"


@pytest.fixture(scope="module")
async def _module_agent(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[SharedAgent]:
    async with SharedAgent(tmp_path_factory.mktemp("acp_shared")) as agent:
        yield agent


@pytest.fixture
async def shared_agent(
    _module_agent: SharedAgent, request: pytest.FixtureRequest
) -> AsyncIterator[SharedAgent]:
    """The module's agent, for this test: its own scenario (`play`), sessions, recorder."""
    await _module_agent.begin(request.node.nodeid)
    try:
        yield _module_agent
    finally:
        await _module_agent.end()


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A module's `shared_agent` tests on one worker (`--dist loadgroup`), so they really share it."""
    for item in items:
        if "shared_agent" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group(f"acp_shared_{item.path.stem}"))
