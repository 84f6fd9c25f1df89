"""Snapshot tests pinning the look of the transcript: a user message, a finished Markdown reply, a reasoning
block and three tool panels (ok collapsed, error expanded with its output, write_file with its diff), at
120x40 and 80x24.

Regenerate after an intended visual change with `pytest tests/snapshots/test_transcript_snapshots.py
--snapshot-update` and look at the SVGs before committing them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from widgets.transcript.entries.thinking import ThinkingLine
from widgets.transcript.entries.tool_call import ToolCallEntry
from widgets.transcript.view import Transcript

REPLY = """## Plan

I'll run the **test suite** first, then fix the failing `parse_args` call.

1. Run `pytest -q`
2. Patch `cli.py`

```python
def main() -> int:
    return run(parse_args())
```

> Nothing is pushed without asking. [bold red]this stays literal[/]
"""

DIFF = """--- a/cli.py
+++ b/cli.py
@@ -1,4 +1,4 @@
 import sys
-def main():
-    return run(sys.argv)
+def main() -> int:
+    return run(parse_args())
"""

TRACEBACK = """Traceback (most recent call last):
  File "cli.py", line 3, in <module>
    main()
ValueError: unknown flag --bad
"""


class TranscriptSnapshotApp(App[None]):
    """A transcript filled with one of each kind of entry, as after a short turn."""

    def compose(self) -> ComposeResult:
        yield Transcript()

    async def populate(self) -> None:
        transcript = self.query_one(Transcript)
        transcript.add_user("The tests fail after my last change, can you fix it? \x1b[31m(no ANSI)\x1b[0m")

        reasoning = transcript.start_reasoning()
        reasoning.append("The user wants the failing test fixed.\nRun the suite first to see what fails.")
        reasoning.finish()

        reply = transcript.start_assistant()
        for start in range(0, len(REPLY), 7):
            reply.append(REPLY[start : start + 7])
        await reply.finish()

        ok = transcript.add_tool_panel("call_1", "terminal", 0)
        ok.set_started({"command": "pytest -q"}, "pytest -q")
        ok.append_output("....F\n4 passed, 1 failed in 0.31s\n")
        ok.set_finished("ok", 1.24, "....F\n4 passed, 1 failed in 0.31s\n[exit code: 1]", {"exit_code": 1})

        failed = transcript.add_tool_panel("call_2", "terminal", 1)
        failed.set_started({"command": "python -m cli --bad"}, "python -m cli --bad")
        failed.append_output(TRACEBACK)
        failed.set_finished("error", 0.42, "Error: the command crashed (exit code 1)", {"exit_code": 1})

        write = transcript.add_tool_panel("call_3", "write_file", 2)
        write.set_started({"path": "cli.py"}, "cli.py")
        write.set_finished("ok", 0.02, "Wrote cli.py (4 lines)", {"diff": DIFF})
        write.set_expanded(True)


@pytest.fixture(autouse=True)
def static_animations() -> Iterator[None]:
    """No wall-clock or random frames in snapshots."""
    spinner, panel = ThinkingLine.ANIMATE, ToolCallEntry.ANIMATE
    ThinkingLine.ANIMATE = ToolCallEntry.ANIMATE = False
    yield
    ThinkingLine.ANIMATE, ToolCallEntry.ANIMATE = spinner, panel


async def _populate(pilot: Pilot) -> None:
    app = pilot.app
    assert isinstance(app, TranscriptSnapshotApp)
    await app.populate()
    # Settle: wait until the scrollable size and position stay the same for a few frames in a row (a cold,
    # loaded machine needs more frames than two before the panels' heights and the anchor are final).
    transcript = app.query_one(Transcript)
    stable, last = 0, None
    for _ in range(100):
        await pilot.wait_for_scheduled_animations()
        await pilot.pause(0.05)
        now = (transcript.virtual_size, transcript.scroll_offset, transcript.size)
        stable = stable + 1 if now == last else 0
        last = now
        if stable >= 3:
            break


def test_transcript_snapshot_120x40(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(TranscriptSnapshotApp(), terminal_size=(120, 40), run_before=_populate)


def test_transcript_snapshot_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(TranscriptSnapshotApp(), terminal_size=(80, 24), run_before=_populate)
