"""Images on the wire: the one place that turns a message's images into each provider's content parts.

The loop's wire messages carry images as references (`{"role": "user", "content": ..., "images": [ref]}`,
each ref a stored image's meta plus its file `path`); a transport calls `openai_messages()` (content parts
with `image_url` data URLs) or `anthropic_image_blocks()` (base64 `image` blocks) right before the request.
So the base64 exists only in the request body, never in the transcript, the store or a trajectory.

Each wire has its limits (`LIMITS`); an image over them is shrunk with Pillow (`encode`) before it is sent,
and `SHRUNK` is what a retry uses after a provider refused an image as too large. Encodings are cached,
so a screenshot in the history is not re-encoded on every call.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from agent.images.store import ImageError, ImageRef, open_checked


@dataclass(frozen=True)
class ImageLimit:
    max_bytes: int  # of the base64 text
    max_side: int  # pixels, the longer side


LIMITS = {
    # OpenAI takes up to 20 MB an image and scales anything larger than 2048 px down itself.
    "openai": ImageLimit(20 * 1024 * 1024, 2048),
    # Anthropic refuses images over 5 MB (base64) and scales the long side down to 1568 px anyway.
    "anthropic": ImageLimit(5 * 1024 * 1024, 1568),
}
SHRUNK = ImageLimit(1024 * 1024, 1024)  # after a provider said "too large"


def wire_ref(ref: ImageRef, hermes_home: Path, *, shrink: bool = False) -> dict[str, Any]:
    """A reference as it travels in a wire message: the ref, its file, and whether to shrink it."""
    return {**ref.to_meta(), "path": str(ref.path(hermes_home)), "shrink": shrink}


def _limit(ref: dict[str, Any], wire: str) -> ImageLimit:
    limit = LIMITS[wire]
    if ref.get("shrink"):
        return ImageLimit(min(limit.max_bytes, SHRUNK.max_bytes), min(limit.max_side, SHRUNK.max_side))
    return limit


def _b64_len(n: int) -> int:
    return 4 * ((n + 2) // 3)


@lru_cache(maxsize=8)
def encode(path: str, mime: str, max_bytes: int, max_side: int) -> tuple[str, str]:
    """(mime, base64) of the image at `path`, shrunk until it fits `max_bytes` and `max_side`.

    Raises OSError when the file is gone (the store was cleaned up), ImageError when it cannot be decoded."""
    data = Path(path).read_bytes()
    from PIL import Image

    with open_checked(data, Path(path).name) as img:  # ImageError: too large to decode (never stored so)
        width, height = img.size
        if _b64_len(len(data)) <= max_bytes and max(width, height) <= max_side:
            return mime, base64.b64encode(data).decode("ascii")
        img.load()
        alpha = img.mode in ("RGBA", "LA") or (img.mode == "P" and "transparency" in img.info)
        frame = img.convert("RGBA" if alpha else "RGB")
    side = max_side
    best = b""
    for _ in range(8):
        candidate = frame.copy()
        candidate.thumbnail((side, side), Image.Resampling.LANCZOS)
        for quality in (None,) if alpha else (85, 70, 55):
            out = io.BytesIO()
            if alpha:
                candidate.save(out, format="PNG", optimize=True)
            else:
                candidate.save(out, format="JPEG", quality=quality, optimize=True)
            best = out.getvalue()
            if _b64_len(len(best)) <= max_bytes:
                return ("image/png" if alpha else "image/jpeg"), base64.b64encode(best).decode("ascii")
        side = max(16, side // 2)
    return ("image/png" if alpha else "image/jpeg"), base64.b64encode(best).decode("ascii")


def _encoded(ref: dict[str, Any], wire: str) -> tuple[str, str] | None:
    limit = _limit(ref, wire)
    try:
        return encode(str(ref["path"]), str(ref["mime"]), limit.max_bytes, limit.max_side)
    except (OSError, KeyError, ValueError, ImageError):
        return None


def _missing(ref: dict[str, Any]) -> str:
    return f"[image {ref.get('name', '')} is no longer available: its file was removed]"


TOOL_IMAGES_INTRO = "The images returned by the tool calls above:"
"""The text of the user message that carries tool results' images on chat completions."""


def _openai_parts(refs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for ref in refs:
        encoded = _encoded(ref, "openai")
        if encoded is None:
            parts.append({"type": "text", "text": _missing(ref)})
        else:
            mime, data = encoded
            parts.append({"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}})
    return parts


def openai_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat-completions messages with each message's images as content parts (other messages as they are).

    A tool message cannot carry an image there (OpenAI takes `image_url` parts in user messages only), so
    the images of a run of tool results follow it in one user message, as their `image_url` parts."""
    if not any("images" in m for m in messages):
        return messages
    out: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []  # images of the tool results just before
    for message in messages:
        if pending and message.get("role") != "tool":
            out.append({"role": "user", "content": [{"type": "text", "text": TOOL_IMAGES_INTRO}, *pending]})
            pending = []
        refs = message.get("images")
        if refs is None:
            out.append(message)
            continue
        rest = {k: v for k, v in message.items() if k != "images"}
        if message.get("role") == "tool":
            pending += _openai_parts(refs)
            out.append(rest)
            continue
        text = [{"type": "text", "text": message["content"]}] if message.get("content") else []
        out.append({**rest, "content": [*text, *_openai_parts(refs)]})
    if pending:
        out.append({"role": "user", "content": [{"type": "text", "text": TOOL_IMAGES_INTRO}, *pending]})
    return out


def anthropic_image_blocks(refs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Anthropic content blocks for a message's images (base64 `image` blocks)."""
    blocks: list[dict[str, Any]] = []
    for ref in refs:
        encoded = _encoded(ref, "anthropic")
        if encoded is None:
            blocks.append({"type": "text", "text": _missing(ref)})
        else:
            mime, data = encoded
            blocks.append({"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}})
    return blocks
