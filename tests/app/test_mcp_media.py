"""Images and audio an MCP tool returns, end to end (the fixture server's `picture` and `sound`, the scripted
model server recording what it was sent): an image reaches a model that sees images as an image part in the
wire's own form (chat completions: an `image_url` data URL in a user message after the tool results;
Anthropic: an image block inside the `tool_result`), a model that does not is told where the image is stored
(the vision route), never the base64; audio is saved and named in one line.

The model without vision is served on stdio (a server of its own, the stdio path end to end); the rest
reach the worker's shared server on streamable HTTP (`mcp_http`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.config.images import VisionSettings
from agent.images.store import MAX_SOURCE_BYTES, ImageRef
from agent.mcp import McpManager
from agent.mcp.results import render_result
from agent.toolkit.toolsets import CATALOG
from scripted import ScriptedServer
from tests.app.test_mcp import call, manager_for, scenario, write_config
from tests.engine.helpers import api_overrides, make_agent, tool_results
from tests.mcp_fixture_server import PNG_1PX
from tests.mcp_servers import http_entry, stdio_entry

pytestmark = pytest.mark.slow


def _run(home: Path, cwd: Path, entry: dict, api: str, tool: str, **overrides: Any) -> list[dict[str, Any]]:
    """One turn calling the fixture's `tool` on server `fx` (`entry`); the bodies the model got."""
    write_config(home, {"fx": entry})
    manager: McpManager = manager_for(home, CATALOG)
    try:
        with ScriptedServer(scenario(call(f"mcp_fx_{tool}", "c1"), {"text": "seen"})) as server:
            agent, _store, _ui = make_agent(server, home, cwd, **api_overrides(server, api), **overrides)
            result = agent.run_conversation("use the tool")
            bodies = [r.body for r in server.requests]
        agent.close()
    finally:
        manager.close()
    assert result.exit_reason == "completed", result.error
    return bodies


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_an_image_reaches_a_vision_model_as_an_image_part(
    hermes_home: Path, tmp_path: Path, api: str, mcp_http: str
) -> None:
    vision = VisionSettings(supports_vision=True)
    bodies = _run(hermes_home, tmp_path, http_entry(mcp_http), api, "picture", vision=vision)
    second = bodies[1]
    assert PNG_1PX in json.dumps(second)  # the pixels travel as an image...
    if api == "openai":
        ((_, result),) = tool_results(second, api)
        assert PNG_1PX not in result and "a tiny picture" in result  # ...never as text
        messages = second["messages"]
        at = next(i for i, m in enumerate(messages) if m["role"] == "tool")
        follow = messages[at + 1]
        assert follow["role"] == "user"
        urls = [p["image_url"]["url"] for p in follow["content"] if p["type"] == "image_url"]
        assert urls == [f"data:image/png;base64,{PNG_1PX}"]
    else:
        (turn,) = [m for m in second["messages"] if m["role"] == "user" and m is not second["messages"][0]]
        (block,) = [b for b in turn["content"] if b["type"] == "tool_result"]
        kinds = [b["type"] for b in block["content"]]
        assert kinds == ["text", "image"] and "a tiny picture" in block["content"][0]["text"]
        assert block["content"][1]["source"] == {"type": "base64", "media_type": "image/png", "data": PNG_1PX}


def test_a_model_without_vision_is_told_where_the_image_is(hermes_home: Path, tmp_path: Path) -> None:
    blind = VisionSettings(supports_vision=False)
    bodies = _run(hermes_home, tmp_path, stdio_entry(), "openai", "picture", vision=blind)
    wire = json.dumps(bodies[1])
    assert PNG_1PX not in wire and "image_url" not in wire
    (_, result) = tool_results(bodies[1], "openai")[0]
    assert "The tool returned an image" in result
    path = Path(result.split("saved at ")[-1].split(".png")[0] + ".png")
    assert path.is_file() and path.read_bytes()[:4] == b"\x89PNG"


def test_audio_is_saved_and_named_in_one_line(hermes_home: Path, tmp_path: Path, mcp_http: str) -> None:
    bodies = _run(hermes_home, tmp_path, http_entry(mcp_http), "openai", "sound")
    (_, result) = tool_results(bodies[1], "openai")[0]
    assert result.count("\n") == 0 and result.startswith("[audio audio/wav")
    path = Path(result.split("saved to ")[-1].rstrip("]"))
    assert path.is_file() and path.read_bytes()[:4] == b"RIFF"


def test_a_payload_over_the_limit_is_not_decoded(tmp_path: Path) -> None:
    from types import SimpleNamespace

    class Huge(str):
        """Over the limit in length without the memory: decoding it would fail the test."""

        def __len__(self) -> int:
            return MAX_SOURCE_BYTES * 4 // 3 + 8

    image = SimpleNamespace(type="image", data=Huge("AAAA"), mime_type="image/png")
    outcome = render_result(SimpleNamespace(content=[image], structured_content=None), tmp_path, tmp_path)
    assert outcome.images == () and "over the 50 MB limit" in outcome.text
    assert not any(tmp_path.rglob("*.png"))


def _with_broken_profile(png: bytes) -> bytes:
    """`png` with an `iCCP` chunk whose CRC is wrong after its header, as the MCP reference server's
    `get-tiny-image` PNG has (Pillow refuses such a file; browsers show it)."""
    import struct
    import zlib

    body = b"icc\x00\x00" + zlib.compress(b"not a real profile")
    crc = (zlib.crc32(b"iCCP" + body) ^ 0xFFFF) & 0xFFFFFFFF
    chunk = struct.pack(">I", len(body)) + b"iCCP" + body + struct.pack(">I", crc)
    at = 8 + 12 + 13  # the signature, then IHDR
    return png[:at] + chunk + png[at:]


def test_an_image_with_a_broken_optional_chunk_is_still_an_image(tmp_path: Path) -> None:
    import base64
    import io
    from types import SimpleNamespace

    from PIL import Image

    png = base64.b64decode(PNG_1PX)
    broken = _with_broken_profile(png)
    with pytest.raises(Image.UnidentifiedImageError):  # Pillow alone refuses it
        Image.open(io.BytesIO(broken)).load()
    image = SimpleNamespace(type="image", data=base64.b64encode(broken).decode(), mime_type="image/png")
    outcome = render_result(SimpleNamespace(content=[image], structured_content=None), tmp_path, tmp_path)
    (meta,) = outcome.images
    ref = ImageRef.from_meta(meta)
    assert ref is not None and "not shown" not in outcome.text and (ref.width, ref.height) == (1, 1)
    assert ref.path(tmp_path).read_bytes() == png  # kept without the broken chunk, the rest as it was
