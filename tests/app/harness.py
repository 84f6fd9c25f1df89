"""Drive the real app against the scripted server with Pilot. Waits poll conditions, never fixed sleeps."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from agent.config.settings import Settings
from hermes_tui.app import HermesApp
from hermes_tui.chat.screen import ChatScreen
from scripted import ScriptedServer, scripted_settings
from tests.waiting import wait_for_async


def chat_settings(server: ScriptedServer, home: Path, cwd: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "model": "scripted",
        "hermes_home": home,
        "cwd": cwd,
        "max_retries": 0,
        **overrides,
    }
    return scripted_settings(server, **values)


async def wait_for(pilot: Pilot, predicate: Callable[[], Any], timeout: float = 10.0, what: str = "") -> Any:
    """The first truthy value of `predicate`, the app running between looks (`tests/waiting.py`)."""
    return await wait_for_async(predicate, what or str(predicate), timeout=timeout, pause=pilot.pause)


async def shown(pilot: Pilot, text: str, timeout: float = 10.0) -> str:
    """The screen once `text` is on it. What the screen shows trails the state it draws by a refresh, so a
    test that checks the screen after waiting on the state waits here, not with a bare assert."""
    app: HermesApp = pilot.app  # type: ignore[assignment]
    return await wait_for_async(
        lambda: text in (seen := screen_text(app)) and seen,
        f"{text!r} on the screen",
        timeout=timeout,
        pause=pilot.pause,
        seen=lambda: screen_text(app),
    )


def chat(app: HermesApp) -> ChatScreen:
    for screen in app.screen_stack:
        if isinstance(screen, ChatScreen):
            return screen
    raise AssertionError("no chat screen")


async def submit(pilot: Pilot, text: str) -> None:
    screen = chat(pilot.app)  # type: ignore[arg-type]
    screen.prompt_input.text = text
    screen.prompt_input.focus()
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()


async def run_chat(
    scenario: Any,
    body: Callable[[Pilot, HermesApp, ScriptedServer], Awaitable[None]],
    *,
    home: Path,
    cwd: Path,
    size: tuple[int, int] = (100, 32),
    **overrides: Any,
) -> None:
    """The real app on a scripted server playing `scenario`: `body` runs once the chat screen is up."""
    with ScriptedServer(scenario) as server:
        app = HermesApp(chat_settings(server, home, cwd, **overrides))
        async with app.run_test(size=size) as pilot:
            await wait_for(
                pilot, lambda: any(isinstance(s, ChatScreen) for s in app.screen_stack), what="chat"
            )
            await pilot.pause()
            await body(pilot, app, server)


def screen_text(app: HermesApp) -> str:
    """The visible screen as plain text, rebuilt from the SVG export (each text run at its column)."""
    import html
    import re

    svg = app.export_screenshot()
    cell = 12.2  # Rich's SVG export uses a fixed cell width
    lines: dict[int, list[str]] = {}
    pattern = r'<text[^>]*?x="([\d.]+)"[^>]*?clip-path="url\(#[\w-]*-line-(\d+)\)"[^>]*>(.*?)</text>'
    for match in re.finditer(pattern, svg, re.S):
        col = round(float(match.group(1)) / cell)
        row = lines.setdefault(int(match.group(2)), [])
        text = html.unescape(match.group(3)).replace("\xa0", " ")
        if len(row) < col:
            row.extend(" " * (col - len(row)))
        row[col : col + len(text)] = list(text)
    return "\n".join("".join(lines[n]).rstrip() for n in sorted(lines))
