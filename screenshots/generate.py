"""Regenerate the PNGs in screenshots/ from the built-in demo, driven by Pilot (no network).

Usage: python screenshots/generate.py [demo|sessions|learning|hermes|reach|senses|input|prompt|panels|
themes|readme ...]
(all groups when none is named; needs `rsvg-convert` from Debian's librsvg2-bin; for emoji and ligature-free
glyphs install fonts-noto-color-emoji and fonts-firacode). SVGs are written too.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from pydantic import SecretStr

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent.config.settings import Settings  # noqa: E402
from hermes_tui.app import HermesApp  # noqa: E402
from hermes_tui.chat.screen import ChatScreen  # noqa: E402
from hermes_tui.screens.approval import ApprovalDialog  # noqa: E402
from scripted import ScriptedServer, demo_scenario_path, scripted_settings  # noqa: E402
from widgets.clarify_prompt import ClarifyPrompt  # noqa: E402
from widgets.transcript.entries.reply import ReplyEntry  # noqa: E402
from widgets.transcript.entries.tool_call import ToolCallEntry  # noqa: E402
from widgets.transcript.view import Transcript  # noqa: E402

OUT = ROOT / "screenshots"
SIZES = [(120, 40), (80, 24)]


def to_png(svg_path: Path) -> Path:
    """rsvg-convert drops leading spaces unless the SVG asks it to keep them."""
    text = svg_path.read_text(encoding="utf-8")
    if 'xml:space="preserve"' not in text:
        text = re.sub(r"<svg ", '<svg xml:space="preserve" ', text, count=1)
        svg_path.write_text(text, encoding="utf-8")
    png = svg_path.with_suffix(".png")
    subprocess.run(["rsvg-convert", "-o", str(png), str(svg_path)], check=True)
    return png


async def wait_for(pilot: Any, predicate: Callable[[], Any], timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() > deadline:
            raise TimeoutError(str(predicate))
        await pilot.pause(0.05)
    return value


async def chat_screen(pilot: Any, app: HermesApp) -> ChatScreen:
    """The chat screen, once the app has pushed it."""
    screen: ChatScreen = await wait_for(
        pilot, lambda: next((s for s in app.screen_stack if isinstance(s, ChatScreen)), None)
    )
    return screen


def snap(app: HermesApp, name: str, size: tuple[int, int]) -> Path:
    """Save the screen as `NAME-WxH.svg` and its PNG; returns the PNG."""
    svg = OUT / f"{name}-{size[0]}x{size[1]}.svg"
    app.save_screenshot(str(svg))
    return to_png(svg)


async def demo_run(size: tuple[int, int], workdir: Path) -> list[Path]:
    shots: list[Path] = []

    def save(app: HermesApp, name: str) -> None:
        shots.append(snap(app, name, size))

    with ScriptedServer(demo_scenario_path()) as server:
        settings = scripted_settings(server, hermes_home=workdir / "home", cwd=workdir)
        app = HermesApp(settings)
        async with app.run_test(size=size) as pilot:
            chat = await chat_screen(pilot, app)
            chat.prompt_input.text = "hello"
            await pilot.press("enter")
            await wait_for(pilot, lambda: chat.transcript.spinner.display)
            await pilot.pause(0.3)
            save(app, "01-spinner")
            await wait_for(
                pilot, lambda: any(len(m.text) > 60 for m in chat.transcript.entries_of(ReplyEntry))
            )
            save(app, "02-mid-stream")
            card = await wait_for(pilot, lambda: next(iter(chat.query(ClarifyPrompt)), None))
            await wait_for(pilot, lambda: card.is_armed)
            save(app, "03-clarify")
            await pilot.press("3")
            dialog = await wait_for(pilot, lambda: isinstance(app.screen, ApprovalDialog) and app.screen)
            await wait_for(pilot, lambda: dialog.is_armed)
            save(app, "04-approval")
            await pilot.press("left", "left", "left", "enter")  # from Deny to "Allow once", pressed
            await wait_for(pilot, lambda: not chat.busy)
            await pilot.pause(0.5)
            save(app, "05-finished")
            chat.transcript.scroll_to_first()
            await pilot.pause(0.3)
            save(app, "06-tool-panels-collapsed")
            for panel in chat.transcript.entries_of(ToolCallEntry):
                panel.set_expanded(True)
            await pilot.pause(0.3)
            chat.transcript.scroll_to_first()
            await pilot.pause(0.3)
            save(app, "07-tool-panels-expanded")
    return shots


async def themes_run(workdir: Path) -> list[Path]:
    """The theme picker and the finished demo turn in three themes, at 120x40."""
    shots: list[Path] = []
    with ScriptedServer(demo_scenario_path()) as server:
        settings = scripted_settings(
            server, hermes_home=workdir / "home", cwd=workdir, yolo=True, clarify_timeout=0.5
        )
        app = HermesApp(settings)
        async with app.run_test(size=(120, 40)) as pilot:
            chat = await chat_screen(pilot, app)
            chat.prompt_input.text = "hello"
            await pilot.press("enter")
            await wait_for(pilot, lambda: next(iter(chat.query(ClarifyPrompt)), None))
            await pilot.press("escape")
            await wait_for(pilot, lambda: not chat.busy)
            await pilot.pause(0.5)
            for theme in ("ares", "poseidon", "daylight"):
                app.theme_manager.apply(theme)
                await pilot.pause(0.5)
                svg = OUT / f"09-theme-{theme}-120x40.svg"
                app.save_screenshot(str(svg))
                shots.append(to_png(svg))
            app.theme_manager.apply("default")
            app.pick_theme()
            await pilot.pause(0.3)
            await pilot.press("down")
            await pilot.pause(0.5)
            svg = OUT / "10-theme-picker-120x40.svg"
            app.save_screenshot(str(svg))
            shots.append(to_png(svg))
    return shots


def _seed_sessions(home: Path, cwd: Path) -> None:
    from agent.core.messages import Message, ToolCall
    from agent.store import SessionStore

    store = SessionStore(home / "tui" / "state.db")
    convos = [
        (
            "Fix the users migration",
            "The users migration fails on email",
            "pytest tests/test_users.py",
            "FAILED test_users_roundtrip - KeyError: 'email'",
            "The migration dropped the column before copying it.",
        ),
        (
            "Speed up the CI pipeline",
            "CI takes 25 minutes, why?",
            "cat .github/workflows/ci.yml",
            "jobs: test: runs-on: ubuntu-latest",
            "The test job installs dependencies without a cache.",
        ),
        (
            "Rename the config loader",
            "Rename load_cfg to load_config everywhere",
            "grep -rn load_cfg .",
            "src/app.py:12: from cfg import load_cfg",
            "Done: 14 places renamed, tests pass.",
        ),
        (
            "Why is redis slow",
            "Our redis latency spikes every hour",
            "redis-cli info persistence",
            "rdb_last_bgsave_time_sec:41",
            "Hourly RDB snapshots block for 41 s; switch to AOF.",
        ),
    ]
    for title, question, command, output, answer in convos:
        sid = store.create_session(
            model="hermes-4-405b", provider="openrouter", cwd=str(cwd), system_prompt="S"
        )
        store.set_title(sid, title)
        store.append_message(sid, Message(role="user", content=question))
        store.append_message(
            sid,
            Message(
                role="assistant",
                content="Let me look.",
                tool_calls=[ToolCall("c1", "terminal", json.dumps({"command": command}))],
            ),
        )
        store.append_message(
            sid, Message(role="tool", content=output, tool_call_id="c1", tool_name="terminal")
        )
        store.append_message(sid, Message(role="assistant", content=answer))
        store.set_status(sid, "completed")
    store.close()


async def sessions_run(size: tuple[int, int], workdir: Path) -> Path:
    from hermes_tui.screens.sessions import SessionsScreen

    home = workdir / "home"
    _seed_sessions(home, workdir)
    settings = Settings(
        model="hermes-4-405b",
        provider="custom",
        base_url="http://127.0.0.1:9/v1",
        api_key=SecretStr("unused"),
        auto_title=False,
        hermes_home=home,
        cwd=workdir,
    )
    app = HermesApp(settings, open_sessions=True)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen))
        await pilot.pause(0.5)
        await pilot.press(*"KeyError")
        await pilot.pause(1.0)
        png = snap(app, "11-sessions-search", size)
    return png


async def learning_run(size: tuple[int, int], workdir: Path) -> list[Path]:
    """`/skills` on a HERMES_HOME laid out as Hermes writes it, and `/tools` with a toolset switched off."""
    from hermes_tui.screens.skills import SkillsScreen
    from hermes_tui.screens.tools import ToolsScreen
    from tests.hermes_home_fixture import write_hermes_home

    home = write_hermes_home(workdir / "home")
    shots: list[Path] = []
    with ScriptedServer(demo_scenario_path()) as server:
        settings = scripted_settings(
            server,
            hermes_home=home,
            cwd=workdir,
            skills_disabled=["note-taking"],
            disabled_toolsets=["session_search"],
        )
        app = HermesApp(settings)
        async with app.run_test(size=size) as pilot:
            chat = await chat_screen(pilot, app)
            chat.action_command("skills")
            skills = await wait_for(pilot, lambda: isinstance(app.screen, SkillsScreen) and app.screen)
            options = await wait_for(pilot, lambda: next(iter(skills.query("#skills-list")), None))
            options.highlighted = options.get_option_index("skill:zebra-deploy")
            await pilot.pause(0.5)
            shots.append(snap(app, "12-skills", size))
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is chat)
            chat.agent.toolsets.set_enabled("terminal", False)
            chat.action_command("tools")
            tools = await wait_for(pilot, lambda: isinstance(app.screen, ToolsScreen) and app.screen)
            await wait_for(pilot, lambda: next(iter(tools.query("#toolsets")), None))
            tools.options.highlighted = tools.options.get_option_index("terminal")
            await pilot.pause(0.5)
            shots.append(snap(app, "13-tools", size))
    return shots


async def senses_run(size: tuple[int, int], workdir: Path) -> list[Path]:
    """An image sent and one waiting as a badge, then `/ps` with a background process the model started."""
    from PIL import Image, ImageDraw

    from hermes_tui.screens.processes import ProcessesScreen

    for name, colour in (("login-form.png", (40, 90, 160)), ("error-dialog.png", (160, 40, 40))):
        picture = Image.new("RGB", (1280, 720), colour)
        ImageDraw.Draw(picture).rectangle((480, 300, 800, 420), fill=(230, 230, 230))
        picture.save(workdir / name)
    serve = "echo serving on :8000; sleep 300"
    scenario = {
        "name": "senses",
        "calls": [
            {"text": "The screenshot shows a login form: a grey panel on a blue page, no error shown."},
            {"tool_calls": [{"name": "terminal", "arguments": {"command": serve, "background": True}}]},
            {"text": "The dev server runs in the background as proc_1; I can keep working meanwhile."},
        ],
    }
    shots: list[Path] = []
    with ScriptedServer(scenario) as server:
        settings = scripted_settings(server, hermes_home=workdir / "home", cwd=workdir)
        app = HermesApp(settings)
        async with app.run_test(size=size) as pilot:
            chat = await chat_screen(pilot, app)
            chat.action_command("image", "login-form.png")
            chat.prompt_input.text = "What does this screen show?"
            await pilot.press("enter")
            await wait_for(pilot, lambda: server.requests and not chat.busy)
            chat.action_command("image", "error-dialog.png")
            await pilot.pause(0.5)
            shots.append(snap(app, "18-images", size))
            chat.action_command("image", "clear")
            chat.prompt_input.text = "Start the dev server and keep working"
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(server.requests) == 3 and not chat.busy)
            chat.action_command("ps")
            await wait_for(pilot, lambda: isinstance(app.screen, ProcessesScreen))
            await pilot.pause(1.2)
            shots.append(snap(app, "19-processes", size))
    return shots


def _ci_log(lines: int, where: str) -> str:
    """A failing CI run's log, `lines` long: what people paste."""
    head = [f"============================= test session starts ({where}) =============================="]
    body = [
        f"tests/test_users.py::test_case_{i:03d} PASSED{' ' * 20}[{100 * i // lines:3d}%]"
        for i in range(lines - 4)
    ]
    tail = [
        "FAILED tests/test_users.py::test_users_roundtrip - KeyError: 'email'",
        "E       KeyError: 'email'",
        f"=================== 1 failed, {lines - 5} passed in 12.31s ===================",
    ]
    return "\n".join(head + body + tail)


async def prompt_run(size: tuple[int, int], workdir: Path) -> list[Path]:
    """A big paste sent (whole on the wire, collapsed in the transcript) and one waiting as its token in the
    prompt; then a queued message and the status bar naming the queue's keys."""
    from textual import events

    scenario = {
        "name": "prompt",
        "model": "hermes-demo",
        "calls": [
            {"text": "The log's one failure is `test_users_roundtrip`: the migration drops `email` first."},
            {"text": "Looking at the staging log now. " * 60, "chunk_size": 8, "delay": 0.05},
        ],
        "fallback": {"text": "Done."},
    }
    shots: list[Path] = []

    def save(app: HermesApp, name: str) -> None:
        shots.append(snap(app, name, size))

    with ScriptedServer(json.dumps(scenario)) as server:
        app = HermesApp(scripted_settings(server, hermes_home=workdir / "home", cwd=workdir))
        async with app.run_test(size=size) as pilot:
            chat = await chat_screen(pilot, app)
            prompt = chat.prompt_input
            prompt.focus()
            await pilot.press(*"Why does CI fail? ")
            prompt.post_message(events.Paste(_ci_log(214, "ci")))
            await wait_for(pilot, lambda: len(prompt.pastes) == 1)
            await pilot.press("enter")
            await wait_for(pilot, lambda: server.requests and not chat.busy)
            await pilot.press(*"Same in staging? ")
            prompt.post_message(events.Paste(_ci_log(48, "staging")))
            await wait_for(pilot, lambda: len(prompt.pastes) == 2)
            await pilot.press(*" Compare them.")
            await pilot.pause(0.5)
            save(app, "24-paste")
            await pilot.press("enter")
            await wait_for(pilot, lambda: chat.busy and len(server.requests) == 2)
            await pilot.press(*"then fix the migration", "enter")
            await pilot.pause(1.0)
            save(app, "25-queue")
    return shots


REACH_SCENARIO = {
    "name": "reach",
    "model": "hermes-demo",
    "calls": [
        {
            "text": "I'll ask the MCP server, then hand three independent checks to subagents.",
            "tool_calls": [
                {"name": "mcp_fixture_echo", "arguments": {"text": "hello"}},
                {
                    "name": "delegate_task",
                    "arguments": {
                        "tasks": [
                            {"goal": "count the python files"},
                            {"goal": "summarize the readme"},
                            {"goal": "list the tests"},
                        ]
                    },
                },
            ],
        },
        {
            "match": "count the python files",
            "text": "Counting.",
            "tool_calls": [{"name": "terminal", "arguments": {"command": "sleep 4; echo 7"}}],
        },
        {"match": "count the python files", "text": "There are 7 python files."},
        {
            "match": "summarize the readme",
            "tool_calls": [{"name": "read_file", "arguments": {"path": "README.md"}}],
        },
        {"match": "summarize the readme", "first_delay": 6, "text": "A demo project."},
        {"match": "list the tests", "text": "No tests yet."},
        {"text": "Done: 7 python files, a demo project readme, no tests yet."},
    ],
}


async def reach_run(size: tuple[int, int], workdir: Path) -> list[Path]:
    """Subagents nested in a running delegate_task panel, then `/mcp` with the test suite's MCP server."""
    from hermes_tui.screens.mcp import McpScreen
    from widgets.transcript.entries.subagents import SubagentList

    home = workdir / "home"
    home.mkdir()
    python = "python" if shutil.which("python") == sys.executable else sys.executable
    server_spec = {"command": python, "args": ["tests/mcp_fixture_server.py", "stdio"], "cwd": str(ROOT)}
    config = {"mcp_servers": {"fixture": {**server_spec, "tools": {"exclude": ["crash", "hang"]}}}}
    (home / "config.yaml").write_text(json.dumps(config))
    shots: list[Path] = []
    with ScriptedServer(json.dumps(REACH_SCENARIO)) as server:
        app = HermesApp(scripted_settings(server, hermes_home=home, cwd=workdir))
        async with app.run_test(size=size) as pilot:
            chat = await chat_screen(pilot, app)
            await wait_for(pilot, lambda: any(s.state == "connected" for s in app.mcp.statuses()), 90)
            chat.prompt_input.text = "check the project"
            chat.prompt_input.focus()
            await pilot.press("enter")

            def progress() -> bool:
                lists = [
                    panel.nested
                    for panel in chat.transcript.entries_of(ToolCallEntry)
                    if isinstance(panel.nested, SubagentList)
                ]
                kids = lists[0].children_progress if lists else {}
                return (
                    len(kids) == 3
                    and any(k.finished for k in kids.values())
                    and any(t.status == "running" for k in kids.values() for t in k.tools)
                )

            await wait_for(pilot, progress, 60)
            await pilot.pause(0.5)
            shots.append(snap(app, "16-subagents", size))
            await wait_for(pilot, lambda: not chat.busy, 60)
            chat.action_command("mcp")
            await wait_for(pilot, lambda: isinstance(app.screen, McpScreen))
            await pilot.pause(0.5)
            shots.append(snap(app, "17-mcp", size))
    return shots


def _seed_costs(home: Path, cwd: Path) -> None:
    """Sessions of ours that made priced calls over the last weeks, beside the Hermes-made history."""
    from agent.core.messages import Message, Usage
    from agent.store import SessionStore

    now = time.time()
    store = SessionStore(home / "tui" / "state.db")
    plan = [
        (
            "Refactor the query parser",
            "claude-sonnet-4-5",
            [
                (0.1, 38_000, 1_400, 30_000, 0.031),
                (1, 30_000, 900, 22_000, 0.041),
                (1, 34_000, 700, 30_000, 0.028),
                (3, 12_000, 400, 0, 0.052),
            ],
        ),
        (
            "Write the release notes",
            "gpt-4o",
            [(6, 8_000, 1_200, 2_000, 0.031), (9, 9_500, 1_000, 4_000, 0.029), (16, 4_000, 300, 0, 0.012)],
        ),
        ("Try the local model", "llama3.1", [(2, 6_000, 800, 0, None), (20, 3_000, 200, 0, None)]),
        (
            "Review the migration PR",
            "deepseek-chat",
            [(12, 22_000, 2_100, 16_000, 0.008), (24, 18_000, 1_600, 0, 0.011)],
        ),
    ]
    for title, model, calls in plan:
        sid = store.create_session(
            model=model, provider="openai", cwd=str(cwd), system_prompt="S", title=title
        )
        store.append_message(sid, Message(role="user", content=title.lower()))
        store.append_message(sid, Message(role="assistant", content="Done."))
        for days_ago, prompt, completion, cached, cost in calls:
            store.record_call(
                sid,
                usage=Usage(prompt, completion, cache_read_tokens=cached),
                model=model,
                provider="openai",
                cost_usd=cost,
                cost_source="price-table" if cost is not None else "unknown",
                created_at=now - days_ago * 86400,
            )
        store.set_status(sid, "completed")
    store.close()


async def hermes_run(size: tuple[int, int], workdir: Path) -> list[Path]:
    """A Hermes user's home (the state.db Hermes 0.19 made): its sessions in the browser beside ours, and
    `/usage` over both."""
    from agent.store.library import open_library
    from hermes_tui.screens.sessions import SessionsScreen
    from hermes_tui.screens.usage import UsageScreen
    from tests.hermes_home_fixture import copy_hermes_home_0_19

    home = copy_hermes_home_0_19(workdir / "home")
    _seed_costs(home, workdir)
    shots: list[Path] = []
    settings = Settings(
        model="claude-sonnet-4-5",
        provider="custom",
        base_url="http://127.0.0.1:9/v1",
        api_key=SecretStr("unused"),
        auto_title=False,
        hermes_home=home,
        cwd=workdir,
    )
    app = HermesApp(settings, open_sessions=True, store=open_library(settings.state_db, home))
    async with app.run_test(size=size) as pilot:
        browser = await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen)
        await pilot.pause(0.5)
        await pilot.press(*"quokka")
        await wait_for(pilot, lambda: browser.shown_query == "quokka" and not browser.is_filling)
        await pilot.press("down")
        await pilot.pause(0.8)
        shots.append(snap(app, "14-sessions-hermes", size))
        await pilot.press("escape", "escape")
        chat = await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen) and app.screen)
        chat.action_command("usage")
        usage = await wait_for(pilot, lambda: isinstance(app.screen, UsageScreen) and app.screen)
        await wait_for(pilot, lambda: usage.report is not None)
        await pilot.pause(0.5)
        shots.append(snap(app, "15-usage", size))
    return shots


async def input_run(size: tuple[int, int], workdir: Path) -> list[Path]:
    """What a Claude Code or Codex user reaches for first: F1 help, `@` completion, `!` shell mode and the
    /model picker (the scripted server lists its models)."""
    from hermes_tui.screens.help import HelpScreen
    from hermes_tui.screens.model_picker import ModelPicker

    (workdir / "src").mkdir()
    (workdir / "src" / "parser.py").write_text("def parse(text):\n    return text.split()\n")
    (workdir / "src" / "parse_errors.py").write_text("class ParseError(Exception):\n    pass\n")
    (workdir / "tests").mkdir()
    (workdir / "tests" / "test_parser.py").write_text("from src.parser import parse\n")
    (workdir / "notes.txt").write_text("deploy on friday\n")
    shots: list[Path] = []

    def shot(name: str, app: HermesApp) -> None:
        shots.append(snap(app, name, size))

    models = ["gpt-4o", "gpt-4o-mini", "o3-mini", "claude-sonnet-4.5", "claude-haiku-4.5", "demo-model"]
    scenario = {"name": "input", "model": "demo-model", "models": models, "calls": []}
    with ScriptedServer(scenario) as server:
        app = HermesApp(scripted_settings(server, hermes_home=workdir / "home", cwd=workdir))
        async with app.run_test(size=size) as pilot:
            chat = await chat_screen(pilot, app)
            await pilot.press("f1")
            await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
            await pilot.pause(0.3)
            shot("20-help", app)
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is chat)
            prompt = chat.prompt_input
            prompt.focus()
            await pilot.press(*"explain @pars")
            await wait_for(pilot, lambda: prompt.completion_kind == "file" and prompt.completions)
            await pilot.pause(0.3)
            shot("21-mentions", app)
            prompt.clear()
            await pilot.pause()
            for key in "!cat notes.txt; ls src":
                await pilot.press(key)
            await pilot.press("enter")
            await wait_for(pilot, lambda: not chat.busy and chat.transcript.entries_of(ToolCallEntry))
            await pilot.pause(0.3)
            shot("22-shell-mode", app)
            chat.action_command("model")
            picker = await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker) and app.screen)
            await wait_for(pilot, lambda: picker.catalog is not None)
            await pilot.press(*"claude")
            await pilot.pause(0.3)
            shot("23-model-picker", app)
    return shots


async def setup_run(size: tuple[int, int], workdir: Path) -> Path:
    app = HermesApp(Settings(hermes_home=Path("~/.hermes"), cwd=workdir))
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.5)
        png = snap(app, "08-setup", size)
    return png


ALWAYS_SCENARIO = {
    "name": "always-allow",
    "calls": [
        {
            "text": "Pushing the fix.",
            "tool_calls": [{"name": "terminal", "arguments": {"command": "git push --force origin main"}}],
        },
        {"text": "Pushed."},
    ],
}


@asynccontextmanager
async def asked(
    scenario: dict[str, Any], size: tuple[int, int], workdir: Path, prompt: str
) -> AsyncIterator[tuple[HermesApp, Any, ChatScreen]]:
    """The app on `scenario`'s scripted model, `prompt` just sent: (app, pilot, chat screen)."""
    with ScriptedServer(json.dumps(scenario)) as server:
        app = HermesApp(
            scripted_settings(server, hermes_home=workdir / "home", cwd=workdir, auto_title=False)
        )
        async with app.run_test(size=size) as pilot:
            chat = await chat_screen(pilot, app)
            chat.prompt_input.text = prompt
            chat.prompt_input.focus()
            await pilot.press("enter")
            yield app, pilot, chat


async def panels_run(size: tuple[int, int], workdir: Path) -> Path:
    """ "Always allow" on a risky command: the rule offered as an editable pattern."""
    async with asked(ALWAYS_SCENARIO, size, workdir, "push the fix") as (app, pilot, chat):
        dialog = await wait_for(pilot, lambda: isinstance(app.screen, ApprovalDialog) and app.screen)
        await wait_for(pilot, lambda: dialog.is_armed)
        await pilot.press("left", "enter")  # from Deny to "Always allow…", pressed
        await pilot.pause(0.3)
        svg = OUT / f"26-always-allow-{size[0]}x{size[1]}.svg"
        app.save_screenshot(str(svg))
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: not chat.busy)
    return to_png(svg)


LONG_COMMAND = " && \\\n".join(f"rm -rf build/stage-{n:02d}/cache" for n in range(45))
LONG_SCENARIO = {
    "name": "long-approval",
    "calls": [
        {
            "text": "Cleaning the stages.",
            "tool_calls": [{"name": "terminal", "arguments": {"command": LONG_COMMAND}}],
        },
        {"text": "Cleaned."},
    ],
}
SELECTION_SCENARIO = {
    "name": "selection",
    "calls": [
        {
            "text": (
                "The tests fail because `parse_date` drops the time zone.\n\n"
                "- `tests/test_dates.py::test_utc` expects `+00:00`\n"
                "- the parser returns a naive datetime\n\n"
                "Fix: pass `tzinfo=timezone.utc` when the string ends in `Z`."
            )
        }
    ],
}


async def long_approval_run(size: tuple[int, int], workdir: Path) -> Path:
    """A 45-line risky command: the dialog shows it whole, scrollable, with how much is below."""
    async with asked(LONG_SCENARIO, size, workdir, "clean the build stages") as (app, pilot, chat):
        dialog = await wait_for(pilot, lambda: isinstance(app.screen, ApprovalDialog) and app.screen)
        await wait_for(pilot, lambda: dialog.is_armed)
        await pilot.pause(0.3)
        png = snap(app, "27-approval-long", size)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not chat.busy)
    return png


async def selection_run(size: tuple[int, int], workdir: Path) -> Path:
    """Text selected with the mouse across the question and the reply: visible, ready for Ctrl+C."""
    async with asked(SELECTION_SCENARIO, size, workdir, "why do the date tests fail?") as (app, pilot, chat):
        await wait_for(pilot, lambda: not chat.busy)
        await pilot.pause(0.3)
        rows = [
            strip.text
            for strip in (chat.transcript.render_line(y) for y in range(chat.transcript.size.height))
        ]
        start = next(n for n, row in enumerate(rows) if "why do the date" in row)
        end = next(n for n, row in enumerate(rows) if "naive datetime" in row)
        await pilot.mouse_down(Transcript, offset=(4, start))
        await pilot.hover(Transcript, offset=(30, end))
        await pilot.mouse_up(Transcript, offset=(30, end))
        await pilot.pause(0.3)
        png = snap(app, "28-selection", size)
    return png


README_IMAGE = ROOT / "docs" / "images" / "demo.svg"
README_SIZE = (110, 34)


async def readme_run(workdir: Path) -> Path:
    """The README's picture: the demo's turn at rest, from the question to the reply, under `~/demo-project`
    (HOME is the temp dir, so the welcome line names no real path)."""
    project = workdir / "demo-project"
    project.mkdir()
    (project / "README.md").write_text("# demo project\n")
    home = os.environ.get("HOME")
    os.environ["HOME"] = str(workdir)
    try:
        with ScriptedServer(demo_scenario_path()) as server:
            settings = scripted_settings(server, hermes_home=workdir / "hermes", cwd=project)
            app = HermesApp(settings)
            async with app.run_test(size=README_SIZE) as pilot:
                chat = await chat_screen(pilot, app)
                chat.prompt_input.text = "hello"
                await pilot.press("enter")
                card = await wait_for(pilot, lambda: next(iter(chat.query(ClarifyPrompt)), None))
                await wait_for(pilot, lambda: card.is_armed)
                await pilot.press("3")
                dialog = await wait_for(pilot, lambda: isinstance(app.screen, ApprovalDialog) and app.screen)
                await wait_for(pilot, lambda: dialog.is_armed)
                await pilot.press("left", "left", "left", "enter")  # "Allow once"
                await wait_for(pilot, lambda: not chat.busy)
                await pilot.pause(0.5)
                chat.transcript.scroll_to_first()
                await pilot.pause(0.3)
                README_IMAGE.parent.mkdir(parents=True, exist_ok=True)
                app.save_screenshot(str(README_IMAGE))
    finally:
        if home is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = home
    return to_png(README_IMAGE)


SENSES_PROCESS = "--senses-process"  # the senses group re-runs this file with it and a size
GROUPS = (
    "demo",
    "sessions",
    "learning",
    "hermes",
    "reach",
    "senses",
    "input",
    "prompt",
    "panels",
    "themes",
    "readme",
)


def main(argv: list[str] | None = None) -> int:
    """`python screenshots/generate.py [GROUP ...]`: every picture, or only those groups'."""
    wanted = set(sys.argv[1:] if argv is None else argv) or set(GROUPS)
    unknown = wanted - set(GROUPS)
    if unknown:
        print(f"unknown group(s) {', '.join(sorted(unknown))}; known: {', '.join(GROUPS)}", file=sys.stderr)
        return 2
    if shutil.which("rsvg-convert") is None:
        print("rsvg-convert not found: apt-get install librsvg2-bin", file=sys.stderr)
        return 1
    OUT.mkdir(exist_ok=True)
    made: list[Path] = []
    for size in SIZES:
        if "demo" in wanted:
            with tempfile.TemporaryDirectory() as tmp:
                work = Path(tmp)
                (work / "README.md").write_text("# demo project\n")
                made += asyncio.run(demo_run(size, work))
                made.append(asyncio.run(setup_run(size, work)))
        if "sessions" in wanted:
            with tempfile.TemporaryDirectory() as tmp:
                made.append(asyncio.run(sessions_run(size, Path(tmp))))
        if "learning" in wanted:
            with tempfile.TemporaryDirectory() as tmp:
                made += asyncio.run(learning_run(size, Path(tmp)))
        if "hermes" in wanted:
            with tempfile.TemporaryDirectory() as tmp:
                made += asyncio.run(hermes_run(size, Path(tmp)))
        if "reach" in wanted:
            with tempfile.TemporaryDirectory() as tmp:
                (Path(tmp) / "README.md").write_text("# demo project\n")
                made += asyncio.run(reach_run(size, Path(tmp)))
        if "input" in wanted:
            with tempfile.TemporaryDirectory() as tmp:
                made += asyncio.run(input_run(size, Path(tmp)))
        if "panels" in wanted:
            with tempfile.TemporaryDirectory() as tmp:
                made.append(asyncio.run(panels_run(size, Path(tmp))))
            with tempfile.TemporaryDirectory() as tmp:
                made.append(asyncio.run(long_approval_run(size, Path(tmp))))
            with tempfile.TemporaryDirectory() as tmp:
                made.append(asyncio.run(selection_run(size, Path(tmp))))
        if "senses" in wanted:
            # Its own process: background processes belong to the process that started them, as in the app.
            tag = f"{size[0]}x{size[1]}"
            subprocess.run([sys.executable, __file__, SENSES_PROCESS, tag], check=True)
            made += [OUT / f"18-images-{tag}.png", OUT / f"19-processes-{tag}.png"]
        if "prompt" in wanted:
            with tempfile.TemporaryDirectory() as tmp:
                made += asyncio.run(prompt_run(size, Path(tmp)))
    if "themes" in wanted:
        with tempfile.TemporaryDirectory() as tmp:
            made += asyncio.run(themes_run(Path(tmp)))
    if "readme" in wanted:
        with tempfile.TemporaryDirectory() as tmp:
            made.append(asyncio.run(readme_run(Path(tmp))))
    for path in made:
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == [SENSES_PROCESS]:
        width, height = (int(n) for n in sys.argv[2].split("x"))
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(senses_run((width, height), Path(tmp)))
        sys.exit(0)
    sys.exit(main())
