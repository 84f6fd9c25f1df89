"""An MCP `CallToolResult` as the text the model reads.

Text blocks are kept as they are. An image is stored as an attached image is (`agent.images.save_image`) and
rides on the result as its reference (`McpOutcome.images`): the loop keeps it in the tool message's meta, and
each transport sends it in its own form to a model that sees images, or a note with its path (the vision
route) to one that does not (`agent.images.routing`); never as base64 text. Audio and binary resources are
saved under `$HERMES_HOME/tui/cache/mcp/` and named by path in one line (the user and the model can open
them), so nothing is dropped silently. Every payload's size is checked before it is decoded. Text resources
are included with their URI, resource links are listed.
Structured content is sent only when there are no content blocks (servers repeat their content in it:
`server-filesystem` puts an image's base64 there), as JSON. `isError` makes the whole result an error.
The usual tool-output budget truncates it later, in the executor, like any tool's.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agent.core.humanize import format_size
from agent.images.store import ImageError, decode_base64, save_image

__all__ = ["CallReport", "CallStatus", "McpOutcome", "render_result"]

CallStatus = Literal["ok", "error", "timeout", "cancelled", "unavailable"]


@dataclass(frozen=True)
class CallReport:
    """How one call through the manager ended (`text` is for the model: the result, or what went wrong)."""

    status: CallStatus
    text: str
    duration: float = 0.0
    images: tuple[dict[str, Any], ...] = ()  # the stored images' references (`ImageRef.to_meta()`)


@dataclass(frozen=True)
class McpOutcome:
    """What a call produced, ready for a `ToolResult`: the text, and whether the server flagged an error."""

    text: str
    is_error: bool = False
    attachments: tuple[str, ...] = ()  # paths of saved images, audio and blobs
    images: tuple[dict[str, Any], ...] = ()  # stored images for the model (`ImageRef.to_meta()`)


def _decoded(data_b64: str, what: str) -> bytes | str:
    """The payload's bytes, or why not (too large: checked on the text by the image store's one limit, so a
    server's multi-gigabyte blob is never decoded into memory; not base64)."""
    try:
        return decode_base64(data_b64, what)
    except ImageError as exc:
        return f"(not saved: {exc})"


def _save(data_b64: str, mime: str, media_dir: Path) -> str:
    """Decode and store a base64 payload under a content-derived name; returns the path or a reason."""
    raw = _decoded(data_b64, mime or "the payload")
    if isinstance(raw, str):
        return raw
    suffix = mimetypes.guess_extension(mime or "") or ".bin"
    path = media_dir / f"{hashlib.sha256(raw).hexdigest()[:16]}{suffix}"
    try:
        media_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not path.exists():
            path.write_bytes(raw)
    except OSError as exc:
        return f"(could not save: {exc.strerror})"
    return str(path)


def _size(data_b64: str) -> str:
    n = len(data_b64) * 3 // 4
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB"


def _redundant(structured: Any, text: str) -> bool:
    """True when the text blocks already carry the structured content (same JSON, or its lone `result`)."""
    if not text:
        return False
    candidates = [structured]
    if isinstance(structured, dict) and set(structured) == {"result"}:
        candidates.append(structured["result"])
    try:
        parsed: Any = json.loads(text)
    except ValueError:
        parsed = text
    return any(parsed == c or text == str(c) for c in candidates)


def _image(block: Any, hermes_home: Path) -> tuple[str, dict[str, Any] | None]:
    """An image block stored as an attached image: (the line naming it, its reference), or the line saying
    why it could not be (too large, not base64, not an image Pillow reads: then it is not sent as one)."""
    mime = str(getattr(block, "mime_type", "") or "image")
    raw = _decoded(block.data, "the image")
    if isinstance(raw, str):
        return f"[image {mime}, {_size(block.data)} {raw}]", None
    try:
        ref = save_image(raw, hermes_home, name=f"mcp-image{mimetypes.guess_extension(mime) or '.png'}")
    except (ImageError, OSError) as exc:
        path = _save(block.data, mime, hermes_home / "tui" / "cache" / "mcp")
        return f"[image {mime}, {_size(block.data)}, saved to {path}; not shown: {exc}]", None
    size, where = format_size(ref.size), ref.path(hermes_home)
    return f"[image {ref.mime} {ref.width}×{ref.height}, {size}, saved at {where}]", ref.to_meta()


def render_result(result: Any, media_dir: Path, hermes_home: Path | None = None) -> McpOutcome:
    """`result` is the SDK's `CallToolResult` (duck-typed, so this module imports no SDK). With
    `hermes_home`, images are stored for the model (`McpOutcome.images`); without, saved like audio."""
    parts: list[str] = []
    texts: list[str] = []
    saved: list[str] = []
    images: list[dict[str, Any]] = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            texts.append(block.text)
            parts.append(block.text)
        elif kind == "image" and hermes_home is not None:
            line, ref = _image(block, hermes_home)
            parts.append(line)
            if ref is not None:
                images.append(ref)
        elif kind in ("image", "audio"):
            path = _save(block.data, block.mime_type, media_dir)
            saved.append(path)
            parts.append(f"[{kind} {block.mime_type}, {_size(block.data)}, saved to {path}]")
        elif kind == "resource":
            res = block.resource
            mime = getattr(res, "mime_type", None) or ""
            if getattr(res, "text", None) is not None:
                parts.append(f"[resource {res.uri}{f' ({mime})' if mime else ''}]\n{res.text}")
            else:
                path = _save(res.blob, mime, media_dir)
                saved.append(path)
                parts.append(f"[resource {res.uri} ({mime or 'binary'}, {_size(res.blob)}), saved to {path}]")
        elif kind == "resource_link":
            mime = getattr(block, "mime_type", None)
            label = getattr(block, "name", "") or ""
            parts.append(
                f"[resource link {label} {block.uri}{f' ({mime})' if mime else ''}]".replace("  ", " ")
            )
        else:
            parts.append(f"[{kind or type(block).__name__} content the client cannot show]")
    structured = getattr(result, "structured_content", None)
    # Sent once: the content blocks are the result's own text form (a server repeats them as structured
    # content, an image's base64 included); the JSON only when there is nothing else.
    if structured is not None and not parts and not _redundant(structured, "\n".join(texts)):
        dumped = json.dumps(structured, ensure_ascii=False, indent=2, default=str)
        parts.append(f"structured content:\n{dumped}" if parts else dumped)
    text = "\n".join(parts)
    is_error = bool(getattr(result, "is_error", False))
    if is_error and not text:
        text = "the MCP tool reported an error without a message"
    return McpOutcome(text=text, is_error=is_error, attachments=tuple(saved), images=tuple(images))
