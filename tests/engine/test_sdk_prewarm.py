"""The first Enter does not pay for importing the SDK: the app loads it after its first frame, unasked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# In a fresh interpreter: the test process has imported both SDKs long ago.
SCRIPT = """
import asyncio, sys
from pathlib import Path
from scripted import ScriptedServer
from hermes_tui.app import HermesApp
from tests.app.harness import chat, chat_settings, submit, wait_for
from widgets.transcript.entries.reply import ReplyEntry

API, HOME, CWD = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
SDK = "anthropic" if API == "anthropic" else "openai"


async def main() -> None:
    with ScriptedServer({"name": "t", "calls": [{"text": "warm reply"}]}) as server:
        extra = {}
        if API == "anthropic":
            extra = {"provider": "anthropic", "base_url": server.anthropic_base_url, "model": "claude-t"}
        app = HermesApp(chat_settings(server, HOME, CWD, **extra))
        assert SDK not in sys.modules
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: SDK in sys.modules, timeout=60, what="the SDK, unasked")
            assert server.requests == [], "warming up sent a request"
            await submit(pilot, "hello")
            await wait_for(pilot, lambda: not chat(app).busy and server.requests, timeout=30, what="a reply")
            replies = list(chat(app).transcript.entries_of(ReplyEntry))
            assert replies and replies[-1].text == "warm reply"
    print("ok")


asyncio.run(main())
"""


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_the_sdk_is_loaded_after_the_first_frame_before_any_message(
    hermes_home: Path, tmp_path: Path, api: str
) -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, api, str(hermes_home), str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-3000:]
