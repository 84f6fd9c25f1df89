"""Run the real chat on the scripted server as if Textual were an unverified version (every fix of
textual_compat off): a reply streams, a clarify question is answered, the transcript scrolls. Run by
tests/compat/test_textual_compat.py in a process of its own (the fixes are decided once per process)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from hermes_tui.textual_compat import manifest

manifest.VERIFIED["textual"] = "0.0.1"  # before anything installs the fixes

from textual.pilot import Pilot  # noqa: E402

from hermes_tui import textual_compat  # noqa: E402
from hermes_tui.app import HermesApp  # noqa: E402
from scripted import ScriptedServer  # noqa: E402
from tests.app.harness import chat, run_chat, submit, wait_for  # noqa: E402
from widgets.clarify_prompt import ClarifyPrompt  # noqa: E402
from widgets.transcript.entries.reply import ReplyEntry  # noqa: E402

LONG = "\n\n".join(f"Paragraph {n}: " + "words " * 30 for n in range(40)) + "\n\nTHE END"
CALLS = [
    {"text": LONG, "chunk_size": 40},
    {
        "tool_calls": [
            {"name": "clarify", "arguments": {"question": "Which one?", "choices": ["red", "green"]}}
        ]
    },
    {"text": "green it is"},
]


async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
    assert not textual_compat.active()
    screen = chat(app)
    await submit(pilot, "tell me a lot")
    await wait_for(pilot, lambda: not screen.busy and screen.transcript.entries_of(ReplyEntry), what="reply")
    reply = screen.transcript.entries_of(ReplyEntry)[-1]
    await reply.wait_until_drained()
    assert "THE END" in reply.rendered_text(), "the whole reply is drawn"
    print("ok: streamed", flush=True)

    await submit(pilot, "ask me")
    card = await wait_for(pilot, lambda: next(iter(screen.query(ClarifyPrompt)), None), what="clarify card")
    await wait_for(pilot, lambda: card.is_armed, what="clarify armed")
    await pilot.press("2")
    await wait_for(pilot, lambda: not screen.busy, what="turn end")
    tool = next(m for m in server.requests[-1].body["messages"] if m["role"] == "tool")
    assert "green" in tool["content"], tool
    print("ok: answered", flush=True)

    transcript = screen.transcript
    await wait_for(pilot, lambda: transcript.max_scroll_y > 0, what="something to scroll")
    bottom = transcript.scroll_y
    transcript.focus()
    await pilot.press("pageup")
    await wait_for(pilot, lambda: transcript.scroll_y < bottom, what="scrolled up")
    print("ok: scrolled", flush=True)


def main() -> int:
    work = Path(sys.argv[1])
    home, cwd = work / "home", work / "cwd"
    home.mkdir(parents=True, exist_ok=True)
    cwd.mkdir(exist_ok=True)
    asyncio.run(run_chat({"name": "unverified", "calls": CALLS}, body, home=home, cwd=cwd, size=(100, 30)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
