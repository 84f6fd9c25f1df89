"""The app's first-frame hand-over of the garbage collector respects what the chat's collector holds."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

from tests.ui.harness import chat, run_chat


async def test_the_first_frame_does_not_turn_the_collector_on_under_a_busy_chat(tmp_path: Path) -> None:
    seen: dict[str, bool] = {}

    async def body(pilot: Any, app: Any, server: Any) -> None:
        collector = chat(app).turn_collector
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
