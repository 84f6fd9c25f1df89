"""Images in the conversation: what reaches each wire, what the store keeps, shrinking, and routing to a
vision model when the main model cannot see. All against the scripted server through the real SDKs."""

from __future__ import annotations

import base64
import io
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from agent.config.images import VisionSettings
from agent.core import providers
from agent.images.paths import image_paths
from agent.images.store import ImageError, ImageRef, refs_of, save_image
from agent.store import SessionStore
from scripted import ScriptedServer
from tests.engine.helpers import API_PARAMS, make_agent

SEEING = VisionSettings(supports_vision=True)


def _png(path: Path, size: tuple[int, int] = (64, 48), colour: tuple[int, int, int] = (200, 30, 30)) -> Path:
    Image.new("RGB", size, colour).save(path, format="PNG")
    return path


def _noise_png(path: Path, side: int) -> Path:
    """A PNG that does not compress: random pixels, ~3 bytes a pixel."""
    Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(path, format="PNG")
    return path


def _agent(server: ScriptedServer, home: Path, cwd: Path, api: str, **kw: Any):
    if api == "anthropic":
        kw = {"api": "anthropic", "model": "claude-test", **kw}
    return make_agent(server, home, cwd, vision=kw.pop("vision", SEEING), **kw)


def _wire_images(body: dict[str, Any], api: str) -> list[tuple[str, bytes]]:
    """(mime, bytes) of every image in the request's last user message."""
    last = [m for m in body["messages"] if m["role"] == "user"][-1]
    out = []
    for part in last["content"] if isinstance(last["content"], list) else []:
        if api == "anthropic" and part.get("type") == "image":
            out.append((part["source"]["media_type"], base64.b64decode(part["source"]["data"])))
        elif api == "openai" and part.get("type") == "image_url":
            head, data = part["image_url"]["url"].split(",", 1)
            assert head.startswith("data:") and head.endswith(";base64")
            out.append((head[5:].split(";")[0], base64.b64decode(data)))
    return out


def _wire_text(body: dict[str, Any]) -> str:
    last = [m for m in body["messages"] if m["role"] == "user"][-1]
    if isinstance(last["content"], str):
        return last["content"]
    return "".join(p.get("text", "") for p in last["content"] if p.get("type") == "text")


@pytest.mark.parametrize("api", API_PARAMS)
def test_an_attached_image_is_sent_in_the_providers_format(hermes_home: Path, tmp_path: Path, api: str):
    shot = _png(tmp_path / "shot.png")
    ref = save_image(shot, hermes_home)
    with ScriptedServer({"calls": ["A red rectangle."]}) as server:
        agent, store, _ = _agent(server, hermes_home, tmp_path, api)
        result = agent.run_conversation("what is in this picture?", images=[ref])
        body = server.requests[0].body
    assert result.final_text == "A red rectangle."
    assert _wire_images(body, api) == [("image/png", shot.read_bytes())]
    assert "what is in this picture?" in _wire_text(body)
    stored = store.load(result.session_id).messages[0]
    assert stored.content == "what is in this picture?"
    assert refs_of(stored.meta) == [ref]


def test_the_store_keeps_a_reference_and_a_hash_never_the_bytes(hermes_home: Path, tmp_path: Path):
    shot = _png(tmp_path / "shot.png", (300, 200))
    ref = save_image(shot, hermes_home)
    encoded = base64.b64encode(shot.read_bytes()).decode()
    with ScriptedServer({"calls": ["first", "second"]}) as server:
        agent, store, _ = _agent(server, hermes_home, tmp_path, "openai")
        result = agent.run_conversation("look", images=[ref])
        # The next turn still shows the model the image: it is read from the store by its reference.
        agent.run_conversation("and now?")
        bodies = [r.body for r in server.requests]
    assert _wire_images(bodies[1], "openai") == []
    earlier = next(m for m in bodies[1]["messages"] if m["role"] == "user")
    assert any(p.get("type") == "image_url" for p in earlier["content"])
    store.close()
    db = sqlite3.connect(hermes_home / "tui" / "state.db")
    rows = db.execute("SELECT content, meta FROM messages").fetchall()
    dump = "\n".join(f"{c}{m}" for c, m in rows)
    assert encoded[:200] not in dump and "base64" not in dump
    assert ref.sha256 in dump
    fts = db.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?", (f'"{encoded[:40]}"',))
    assert fts.fetchone()[0] == 0
    db.close()
    assert ref.path(hermes_home).read_bytes() == shot.read_bytes()
    assert SessionStore(hermes_home / "tui" / "state.db").load(result.session_id).messages[0].meta


def test_an_oversized_image_is_shrunk_below_the_wire_limit(hermes_home: Path, tmp_path: Path):
    big = _noise_png(tmp_path / "big.png", 1800)  # ~9.7 MB: over Anthropic's 5 MB and 1568 px
    assert big.stat().st_size > 5 * 1024 * 1024
    ref = save_image(big, hermes_home)
    with ScriptedServer({"calls": ["noise"]}) as server:
        agent, _, _ = _agent(server, hermes_home, tmp_path, "anthropic")
        agent.run_conversation("what is this?", images=[ref])
        block = next(b for b in server.requests[0].body["messages"][0]["content"] if b["type"] == "image")
    assert len(block["source"]["data"]) <= 5 * 1024 * 1024
    with Image.open(io.BytesIO(base64.b64decode(block["source"]["data"]))) as sent:
        assert max(sent.size) <= 1568


def test_an_image_too_large_error_shrinks_the_images_and_retries_once(hermes_home: Path, tmp_path: Path):
    ref = save_image(_png(tmp_path / "wide.png", (2000, 1000)), hermes_home)
    too_large = {"fault": {"status": 400, "message": "image exceeds the maximum allowed size"}}
    with ScriptedServer({"calls": [too_large, "got it"]}) as server:
        agent, _, _ = _agent(server, hermes_home, tmp_path, "openai")
        result = agent.run_conversation("see", images=[ref])
        bodies = [r.body for r in server.requests]
    assert result.final_text == "got it" and len(bodies) == 2
    (_, first), (_, second) = _wire_images(bodies[0], "openai")[0], _wire_images(bodies[1], "openai")[0]
    with Image.open(io.BytesIO(first)) as a, Image.open(io.BytesIO(second)) as b:
        assert a.size == (2000, 1000) and max(b.size) <= 1024

    with ScriptedServer({"calls": [too_large, too_large, "never"]}) as server:
        agent, _, _ = _agent(server, hermes_home, tmp_path, "openai")
        result = agent.run_conversation("see", images=[ref])
        assert len(server.requests) == 2
    assert result.exit_reason != "completed" and result.error is not None


def test_a_model_without_vision_gets_a_note_and_asks_the_auxiliary_vision_model(
    hermes_home: Path, tmp_path: Path
):
    ref = save_image(_png(tmp_path / "chart.png"), hermes_home)
    stored_at = str(ref.path(hermes_home))
    ask = {"name": "vision_analyze", "arguments": {"image": stored_at, "question": "colour?"}}
    calls = [
        {"tool_calls": [ask]},
        "The image is a red rectangle.",  # the auxiliary vision model
        "It is red.",
    ]
    vision = VisionSettings(supports_vision=False, model="vision-aux")
    with ScriptedServer({"calls": calls}) as server:
        agent, _, _ = _agent(server, hermes_home, tmp_path, "openai", model="text-only", vision=vision)
        result = agent.run_conversation("what colour is it?", images=[ref])
        bodies = [r.body for r in server.requests]
    assert result.final_text == "It is red."
    assert _wire_images(bodies[0], "openai") == [] and stored_at in _wire_text(bodies[0])
    assert "vision_analyze" in {t["function"]["name"] for t in bodies[0]["tools"]}
    assert bodies[1]["model"] == "vision-aux" and not bodies[1].get("tools")
    assert _wire_images(bodies[1], "openai") == [("image/png", ref.path(hermes_home).read_bytes())]
    assert "colour?" in _wire_text(bodies[1])
    tool_result = next(m for m in bodies[2]["messages"] if m["role"] == "tool")
    assert "The image is a red rectangle." in tool_result["content"]


def test_without_any_vision_model_vision_analyze_is_not_offered(hermes_home: Path, tmp_path: Path):
    vision = VisionSettings(supports_vision=False)
    with ScriptedServer({"calls": ["ok"]}) as server:
        agent, _, _ = _agent(server, hermes_home, tmp_path, "openai", model="text-only", vision=vision)
        agent.run_conversation("hi")
        tools = {t["function"]["name"] for t in server.requests[0].body["tools"]}
    assert "vision_analyze" not in tools and "read_file" in tools


def test_without_any_vision_model_the_image_note_does_not_offer_vision_analyze(
    hermes_home: Path, tmp_path: Path
):
    ref = save_image(_png(tmp_path / "chart.png"), hermes_home)
    vision = VisionSettings(supports_vision=False)
    with ScriptedServer({"calls": ["I cannot see it."]}) as server:
        agent, _, ui = _agent(server, hermes_home, tmp_path, "openai", model="text-only", vision=vision)
        agent.run_conversation("what colour is it?", images=[ref])
        text = _wire_text(server.requests[0].body)
    assert str(ref.path(hermes_home)) in text and "vision_analyze" not in text
    assert "no vision model is configured (auxiliary.vision.model)" in text
    notices = [e.text for e in ui.events if type(e).__name__ == "StatusNotice"]
    assert any("cannot see images and no vision model is set" in n for n in notices)


def test_attaching_something_that_is_not_an_image_says_why(hermes_home: Path, tmp_path: Path):
    (tmp_path / "notes.png").write_text("not really a picture")
    with pytest.raises(ImageError, match=r"notes\.png is not an image"):
        save_image(tmp_path / "notes.png", hermes_home)
    with pytest.raises(ImageError, match="no such file"):
        save_image(tmp_path / "missing.png", hermes_home)


def test_the_same_image_twice_is_one_file_and_other_formats_become_png(hermes_home: Path, tmp_path: Path):
    a = save_image(_png(tmp_path / "a.png"), hermes_home)
    b = save_image(_png(tmp_path / "b.png"), hermes_home)
    assert a.sha256 == b.sha256 and a.name == "a.png" and b.name == "b.png"
    Image.new("RGB", (10, 10)).save(tmp_path / "c.bmp", format="BMP")
    c = save_image(tmp_path / "c.bmp", hermes_home)
    assert c.mime == "image/png" and c.path(hermes_home).suffix == ".png"
    assert ImageRef.from_meta(c.to_meta()) == c


def test_pasted_text_counts_as_images_only_when_it_is_nothing_but_image_files(tmp_path: Path):
    one = _png(tmp_path / "one.png")
    spaced = _png(tmp_path / "my shot.png")
    assert image_paths(str(one)) == [one]
    assert image_paths(f"'{spaced}' {one}") == [spaced, one]
    assert image_paths(str(spaced).replace(" ", "\\ ")) == [spaced]
    assert image_paths(str(spaced)) == [spaced]  # unquoted, as some terminals drop it
    assert image_paths(f"file://{str(spaced).replace(' ', '%20')}") == [spaced]
    assert image_paths(f"look at {one}") is None
    assert image_paths(str(tmp_path / "gone.png")) is None
    assert image_paths("one.png", cwd=tmp_path) is None  # a bare word is text, not a path
    assert image_paths("./one.png", cwd=tmp_path) == [tmp_path / "one.png"]


def test_a_tilde_word_naming_no_user_is_text(tmp_path: Path) -> None:
    """`~)` or `~nobody/a.png` in a paste: `expanduser` cannot expand them (no such user) and raises; the
    paste is text, not an error (UI fuzz seed 10: pasting `$(rm -rf ~)` killed the app)."""
    assert image_paths("$(rm -rf ~)", cwd=tmp_path) is None
    assert image_paths("~no-such-user-here/shot.png") is None


def test_vision_is_configured_with_hermes_keys_and_tools_says_what_is_missing(tmp_path: Path):
    from agent.config.settings import load_settings
    from agent.images.routing import NO_VISION, sees_images, vision_settings
    from agent.session.catalogue import default_registry
    from agent.toolkit.toolsets import SessionToolsets

    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        "model:\n  default: local-llama\n  base_url: http://127.0.0.1:9/v1\n  supports_vision: false\n"
        "auxiliary:\n  vision:\n    provider: openrouter\n    model: google/gemini-2.5-flash\n"
        "    timeout: 30\nagent:\n  image_input_mode: auto\n"
    )
    env = {"HERMES_HOME": str(home), "OPENROUTER_API_KEY": "sk-or-test"}
    loaded = load_settings({}, env=env)
    settings = loaded.settings
    assert not loaded.problems and not sees_images(settings)
    aux = vision_settings(settings)
    assert (aux.model, aux.provider, aux.stale_timeout) == ("google/gemini-2.5-flash", "openrouter", 30)
    assert aux.base_url == providers.base_url_for("openrouter", {})  # the provider table's own endpoint

    (home / "config.yaml").write_text("model:\n  default: local-llama\n  supports_vision: no\n")
    bare = load_settings({}, env={"HERMES_HOME": str(home)}).settings
    status = SessionToolsets(default_registry(), bare).status("vision")
    assert not status.available and status.reason == f"unavailable: {NO_VISION}"
    (home / "config.yaml").write_text("agent:\n  image_input_mode: pixels\n")
    problems = load_settings({}, env={"HERMES_HOME": str(home)}).problems
    assert [p.key for p in problems] == ["agent.image_input_mode"]


def test_only_a_broken_optional_png_chunk_is_dropped(hermes_home: Path, tmp_path: Path):
    import struct
    import zlib

    from agent.images.store import without_broken_ancillary_chunks

    good = _png(tmp_path / "a.png").read_bytes()
    assert without_broken_ancillary_chunks(good) is good
    at = 8 + 12 + 13  # after the signature and IHDR

    def chunk(kind: bytes, body: bytes, crc_ok: bool) -> bytes:
        crc = zlib.crc32(kind + body) ^ (0 if crc_ok else 1)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc & 0xFFFFFFFF)

    text = chunk(b"tEXt", b"Comment\x00hi", crc_ok=True)
    broken_text = chunk(b"tEXt", b"Comment\x00bye", crc_ok=False)
    mixed = good[:at] + text + broken_text + good[at:]
    assert without_broken_ancillary_chunks(mixed) == good[:at] + text + good[at:]
    (tmp_path / "mixed.png").write_bytes(mixed)
    assert save_image(tmp_path / "mixed.png", hermes_home).size == len(good) + len(text)
    # A critical chunk (uppercase) that fails its CRC is not repaired: the file is refused.
    ihdr_broken = good[:29] + bytes([good[29] ^ 1]) + good[30:]
    (tmp_path / "bad.png").write_bytes(ihdr_broken)
    assert without_broken_ancillary_chunks(ihdr_broken) is ihdr_broken
    with pytest.raises(ImageError):
        save_image(tmp_path / "bad.png", hermes_home)
