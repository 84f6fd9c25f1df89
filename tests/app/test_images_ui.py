"""Images in the app: `/image`, a pasted or typed path and the clipboard attach badges above the prompt;
a badge can be removed; the message goes with its images and the transcript shows them, also on resume."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image
from textual import events
from textual.geometry import Region
from textual.pilot import Pilot

from hermes_tui.app import HermesApp
from hermes_tui.commands.session import open_session
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, screen_text, shown, submit, wait_for
from widgets.attachment_bar import AttachmentBadge, AttachmentBar
from widgets.transcript.entries.user_message import UserMessageEntry

STILL = 3
"""Looks in a row (a frame apart) at which a badge must not have moved before a click aims at it."""


def _png(path: Path, size: tuple[int, int] = (64, 48)) -> Path:
    Image.new("RGB", size, (200, 30, 30)).save(path, format="PNG")
    return path


def _badges(app: HermesApp) -> list[str]:
    return [str(b.render()) for b in chat(app).query(AttachmentBadge)]


def _under_its_corner(app: HermesApp, widget: AttachmentBadge) -> bool:
    """True once the screen shows `widget` at its region's top-left cell (where a click on it lands)."""
    if not widget.region.area:
        return False
    try:
        return app.screen.get_widget_at(*widget.region.offset)[0] is widget
    except Exception:  # not on the screen's map yet
        return False


def _still_under_its_corner(app: HermesApp, widget: AttachmentBadge) -> Callable[[], bool]:
    """A predicate: `widget` under its corner at the same region for `STILL` looks in a row. The bar and the
    prompt below it take a few frames to reach their sizes after the badges mount, and a series run's click,
    aimed where the badge was at its first layout, landed elsewhere once it had moved (Pilot's `click`
    reads the region, pauses, then looks what is there)."""
    regions: list[Region] = []

    def check() -> bool:
        regions.append(widget.region)
        recent = regions[-STILL:]
        return len(recent) == STILL and len(set(recent)) == 1 and _under_its_corner(app, widget)

    return check


def _image_parts(server: ScriptedServer, n: int) -> list[dict]:
    last = [m for m in server.requests[n].body["messages"] if m["role"] == "user"][-1]
    return [p for p in last["content"] if isinstance(p, dict) and p.get("type") == "image_url"]


async def test_image_command_attaches_badges_that_go_with_the_message(hermes_home: Path, tmp_path: Path):
    _png(tmp_path / "shot.png")
    _png(tmp_path / "my chart.png", (30, 20))

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "/image shot.png")
        await submit(pilot, "/image 'my chart.png'")
        await wait_for(pilot, lambda: len(_badges(app)) == 2, what="two badges")
        assert _badges(app)[0].startswith("📎 shot.png · 64×48")
        assert screen.query_one(AttachmentBar).display
        await submit(pilot, "what are these?")
        await wait_for(pilot, lambda: not screen.busy and server.requests, what="turn end")
        assert len(_image_parts(server, 0)) == 2
        assert _badges(app) == [] and not screen.query_one(AttachmentBar).display
        sent = screen.transcript.entries_of(UserMessageEntry)[-1]
        assert sent.text == "what are these?"
        assert [label.split(" · ")[0] for label in sent.images] == ["shot.png", "my chart.png"]
        await shown(pilot, "📎 shot.png · 64×48")

    await run_chat({"calls": ["Two red rectangles."]}, body, home=hermes_home, cwd=tmp_path)


async def test_a_badge_is_removed_by_click_or_delete_and_clear_removes_all(hermes_home: Path, tmp_path: Path):
    for name in ("a.png", "b.png", "c.png"):
        _png(tmp_path / name)

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "/image a.png b.png c.png")
        await wait_for(pilot, lambda: len(_badges(app)) == 3, what="three badges")
        first = screen.query(AttachmentBadge).first()
        # A badge in the DOM is not yet on the screen: the click aims at the region of its first layout.
        await wait_for(pilot, _still_under_its_corner(app, first), what="the first badge laid out and still")
        assert await pilot.click(first)
        await wait_for(pilot, lambda: len(_badges(app)) == 2, what="a removed")
        assert [ref.name for ref in screen.attachments.refs] == ["b.png", "c.png"]
        screen.query(AttachmentBadge).last().focus()
        await pilot.press("delete")
        names = lambda: [r.name for r in screen.attachments.refs]  # noqa: E731
        await wait_for(pilot, lambda: names() == ["b.png"], what="c removed")
        assert screen.prompt_input.has_focus
        await submit(pilot, "/image clear")
        await wait_for(pilot, lambda: _badges(app) == [], what="cleared")
        await submit(pilot, "no images")
        await wait_for(pilot, lambda: not screen.busy and server.requests, what="turn end")
        assert isinstance(server.requests[0].body["messages"][-1]["content"], str)

    await run_chat({"calls": ["ok"]}, body, home=hermes_home, cwd=tmp_path)


async def test_a_pasted_or_typed_image_path_attaches_and_text_stays_text(hermes_home: Path, tmp_path: Path):
    shot = _png(tmp_path / "my shot.png")

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        prompt = screen.prompt_input
        prompt.focus()
        await pilot.pause()
        prompt.post_message(events.Paste(f"'{shot}'"))  # what a terminal sends when a file is dropped on it
        await wait_for(pilot, lambda: len(_badges(app)) == 1, what="pasted badge")
        assert prompt.text == ""
        prompt.post_message(events.Paste(f"see {shot} please"))
        await wait_for(pilot, lambda: prompt.text == f"see {shot} please", what="text pasted as text")
        prompt.clear()
        await submit(pilot, str(shot).replace(" ", "\\ "))  # typed (or a paste without bracketed paste)
        await wait_for(pilot, lambda: len(_badges(app)) == 2, what="typed badge")
        assert not server.requests and not screen.busy
        await submit(pilot, "/image missing.png")
        await wait_for(pilot, lambda: "Not attached: no such file" in screen_text(app), what="one-line error")
        assert len(_badges(app)) == 2

    await run_chat({"calls": ["ok"]}, body, home=hermes_home, cwd=tmp_path)


def _flat(app: HermesApp) -> str:
    return " ".join(screen_text(app).split())


async def test_image_paths_the_system_refuses_are_not_attached_in_one_line(hermes_home: Path, tmp_path: Path):
    """A name too long for the file system, a `~name` naming no user: one line each, never a traceback
    (UI fuzz seed 7120: `/image aaa…` killed the app with ENAMETOOLONG)."""

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "/image " + "a" * 300 + ".png")
        # Wrapped lines joined: the line names the long path, and a longer tmp dir moves where it wraps.
        await wait_for(pilot, lambda: "File name too long" in _flat(app), what="the long name's line")
        await submit(pilot, "/image ~no-such-user-here/x.png")
        await wait_for(pilot, lambda: "no-such-user-here" in _flat(app), what="the ~name's line")
        assert "Not attached" in screen_text(app) and not _badges(app) and app.return_code is None

    await run_chat({"calls": ["ok"]}, body, home=hermes_home, cwd=tmp_path, size=(200, 40))


@pytest.mark.skipif(os.name != "posix", reason="a stand-in clipboard tool is a shell script")
async def test_image_paste_reads_the_clipboard(hermes_home: Path, tmp_path: Path, monkeypatch):
    # A stand-in for wl-paste: prints a PNG, as the real one does when the clipboard holds an image.
    picture = _png(tmp_path / "clip-source.png", (12, 8))
    tools = tmp_path / "bin"
    tools.mkdir()
    script = tools / "wl-paste"
    script.write_text(f"#!/bin/sh\nexec cat '{picture}'\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-test")

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "/image --paste")
        await wait_for(pilot, lambda: len(_badges(app)) == 1, what="clipboard badge")
        assert _badges(app)[0].startswith("📎 clipboard.png · 12×8")
        chat(app).prompt_input.post_message(events.Paste(""))  # an image-only clipboard pastes nothing
        await wait_for(pilot, lambda: len(_badges(app)) == 2, what="empty paste reads the clipboard")

    await run_chat({"calls": ["ok"]}, body, home=hermes_home, cwd=tmp_path)


async def test_a_resumed_session_shows_its_images_as_badges(hermes_home: Path, tmp_path: Path):
    _png(tmp_path / "shot.png")
    session: list[str] = []

    async def first(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "/image shot.png")
        await wait_for(pilot, lambda: len(_badges(app)) == 1, what="badge")
        await submit(pilot, "look")
        await wait_for(pilot, lambda: not chat(app).busy and server.requests, what="turn end")
        session.append(chat(app).agent.session_id)

    await run_chat({"calls": ["A red rectangle."]}, first, home=hermes_home, cwd=tmp_path)

    async def resumed(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        open_session(screen.command_context, session[0])
        await wait_for(pilot, lambda: screen.transcript.entries_of(UserMessageEntry), what="history")
        assert screen.transcript.entries_of(UserMessageEntry)[0].images[0].startswith("shot.png · 64×48")

    await run_chat({"calls": ["ok"]}, resumed, home=hermes_home, cwd=tmp_path)


async def test_the_image_flag_attaches_to_the_first_message(hermes_home: Path, tmp_path: Path):
    from hermes_tui.chat.screen import ChatScreen
    from scripted import scripted_settings

    shot = _png(tmp_path / "flag shot.png")
    with ScriptedServer({"calls": ["ok"]}) as server:
        settings = scripted_settings(server, model="scripted", hermes_home=hermes_home, cwd=tmp_path)
        app = HermesApp(settings, images=[str(shot)])
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_for(pilot, lambda: any(isinstance(s, ChatScreen) for s in app.screen_stack))
            await wait_for(pilot, lambda: len(_badges(app)) == 1, what="badge from --image")
            assert _badges(app)[0].startswith("📎 flag shot.png")
        # `hermes-tui "PROMPT" --image FILE`: the first message goes with the image.
        app = HermesApp(settings, images=[str(shot)], first_message="what is this?")
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_for(pilot, lambda: server.requests, what="the first message's request")
            assert len(_image_parts(server, 0)) == 1


async def test_huge_images_are_refused_in_one_line_off_the_ui_thread(
    hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import threading

    from hermes_tui.chat import attachments
    from tests.image_bombs import png_bomb, tiff_header

    png_bomb(tmp_path / "bomb.png")
    tiff_header(tmp_path / "scan.tiff")
    _png(tmp_path / "fine.png")
    threads: list[str] = []
    real = attachments.save_image

    def recorded(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(attachments, "save_image", recorded)

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "/image bomb.png scan.tiff fine.png")
        await wait_for(pilot, lambda: len(_badges(app)) == 1, what="the one fine image")
        assert _badges(app)[0].startswith("📎 fine.png")
        shown = screen_text(app)
        assert "Not attached: bomb.png is refused: Image size (169000000 pixels)" in shown
        assert "Not attached: scan.tiff is refused: Image size (100000000 pixels)" in shown
        assert threads and threading.main_thread().name not in threads  # never on the UI's thread

    await run_chat({"calls": ["ok"]}, body, home=hermes_home, cwd=tmp_path)
