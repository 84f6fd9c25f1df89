"""The app's first-frame hand-over of the garbage collector respects what the chat's collector holds."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

from tests.app.harness import chat, run_chat


async def test_the_first_frame_does_not_turn_the_collector_on_under_a_busy_chat(tmp_path: Path) -> None:
    seen: dict[str, bool] = {}

    async def body(pilot: Any, app: Any, server: Any) -> None:
        collector = chat(app).gc_policy
        collector.pause("pages")  # as a resumed session's history load does, before the first frame ends
        app._freeze_startup_objects()
        seen["while busy"] = gc.isenabled()
        collector.resume(lambda collect: collect(), "pages")
        seen["after its collection"] = gc.isenabled()

    was = gc.isenabled()
    try:
        await run_chat({"name": "t", "calls": []}, body, home=tmp_path / "home", cwd=tmp_path)
    finally:
        gc.enable() if was else gc.disable()
    assert seen == {"while busy": False, "after its collection": True}


def test_what_the_sdk_prewarm_imports_and_builds_is_frozen_too(tmp_path: Path) -> None:
    """The prewarm runs after the first frame's freeze; what it leaves (the SDK's modules and schemas, the
    Markdown parser, the price tables) is long-lived, so it is moved out of the collector's scans as well."""
    from pydantic import SecretStr

    from agent.config.settings import Settings
    from hermes_tui.app import prewarm_model_client

    settings = Settings(
        model="m",
        provider="custom",
        base_url="http://127.0.0.1:9/v1",
        api_key=SecretStr("k"),
        hermes_home=tmp_path,
        cwd=tmp_path,
    )
    made_before = [object()]
    assert any(o is made_before for o in gc.get_objects())
    try:
        prewarm_model_client(settings)
        assert not any(o is made_before for o in gc.get_objects())  # frozen: no pass scans it
    finally:
        gc.unfreeze()
