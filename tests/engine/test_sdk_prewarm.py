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


def test_the_sdk_a_configuration_uses_is_the_one_its_transport_imports(tmp_path: Path) -> None:
    from agent.config.settings import Settings
    from agent.session.prewarm import sdk_module

    def settings(**values: object) -> Settings:
        return Settings(hermes_home=tmp_path, model="m", api_key="k", **values)  # type: ignore[arg-type]

    assert sdk_module(settings(provider="openrouter")) == "openai"
    assert sdk_module(settings(provider="custom", base_url="http://127.0.0.1:8080/v1")) == "openai"
    assert sdk_module(settings(provider="anthropic")) == "anthropic"
    assert sdk_module(settings(provider="custom", base_url="http://127.0.0.1:8080/anthropic")) == "anthropic"


def test_only_a_known_sdk_is_imported_by_the_name_a_snapshot_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The name comes from a file in HERMES_HOME: anything but a model SDK is not imported."""
    import sys

    from agent.transports.sdk_import import import_sdk

    (tmp_path / "not_an_sdk_module.py").write_text("raise SystemExit('imported')\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    import_sdk("not_an_sdk_module")
    assert "not_an_sdk_module" not in sys.modules
    import_sdk("openai")
    assert "openai" in sys.modules
