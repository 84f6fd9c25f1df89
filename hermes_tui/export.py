"""Export a stored session as Markdown (for people) or JSON (for programs).

`export_markdown` renders the transcript the way it reads in the chat: user messages as quoted `**You:**`
blocks, assistant replies as their own Markdown, reasoning and each tool call folded into `<details>` blocks
(GitHub, Gitea and most Markdown viewers render them collapsed), synthetic messages as italic notes, and
what a rewind took out of the model's context after a note that says so (kept, never dropped). Fences
around tool arguments and output are always longer than any backtick run inside them, so output containing
```` ``` ```` never breaks the document.

`export_json` is lossless: the session row and every stored message field, so it round-trips.

Both mask secrets with the engine's one redactor, and the Markdown neutralises terminal controls with the
display's one neutraliser (`_safe`): an export is a file that is shown, pasted and shared.

Pure functions over a `SessionStore`; no textual import, so the CLI and the chat screen can both use them.
"""

from __future__ import annotations

import dataclasses
import html
import json
import os
import re
import unicodedata
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agent.api import (
    Message,
    ToolCatalog,
    atomic_write_text,
    format_elapsed,
    redact_secrets,
    redact_secrets_in,
    reply_marker,
    result_status,
    sanitize_display,
    summarize_call,
)
from agent.api import image_refs_of as refs_of
from hermes_tui.typed_path import typed_path

if TYPE_CHECKING:
    from agent.api import SessionInfo, SessionStoreProtocol

__all__ = [
    "ExportFormat",
    "default_export_path",
    "export_json",
    "export_markdown",
    "fence_for",
    "format_for_path",
    "short_path",
    "title_slug",
    "write_export",
]

ExportFormat = Literal["markdown", "json"]

JSON_EXPORT_VERSION = 1

SYNTHETIC_NOTES = {
    "continuation": "The reply was cut at the output limit; the model was asked to continue.",
    "budget": "The iteration budget was exhausted; the model was asked to summarize.",
}
REWOUND_NOTES = {
    True: "Rewound: the messages below were taken out of the model's context (kept, not sent again).",
    False: "End of the rewound messages: the conversation the model sees goes on from here.",
}

_BACKTICK_RUN = re.compile(r"`+")
_SLUG_STRIP = re.compile(r"[^a-z0-9]+")


# ------------------------------------------------------------------------------------------ helpers


def fence_for(text: str, char: str = "`") -> str:
    """A code fence longer than every run of `char` inside `text` (at least three)."""
    longest = max((len(m.group(0)) for m in re.finditer(re.escape(char) + "+", text)), default=0)
    return char * max(3, longest + 1)


def title_slug(title: str, fallback: str = "session", max_chars: int = 60) -> str:
    """A file-name friendly slug: ascii letters/digits joined by '-', at most `max_chars` long."""
    ascii_text = unicodedata.normalize("NFKD", title or "").encode("ascii", "ignore").decode("ascii")
    slug = _SLUG_STRIP.sub("-", ascii_text.lower()).strip("-")
    if len(slug) > max_chars:
        slug = slug[:max_chars].rsplit("-", 1)[0] or slug[:max_chars]
    return slug.strip("-") or fallback


def default_export_path(
    info: SessionInfo, fmt: ExportFormat = "markdown", directory: Path | None = None
) -> Path:
    """`<directory or cwd>/<title-slug>.md` (or `.json`) for a session."""
    slug = title_slug(info.display_title, fallback=f"session-{info.id}")
    suffix = ".json" if fmt == "json" else ".md"
    return (directory if directory is not None else Path(".")) / f"{slug}{suffix}"


def format_for_path(path: Path | str) -> ExportFormat:
    """`json` for a `.json` file name, else `markdown`."""
    return "json" if str(path).lower().endswith(".json") else "markdown"


def short_path(path: str, home: str | None = None, max_chars: int = 40) -> str:
    """`path` with the home directory as `~`, shortened from the left with `…` past `max_chars`."""
    if not path:
        return ""
    home = home if home is not None else os.path.expanduser("~")
    home = home.rstrip("/")
    if home and (path == home or path.startswith(home + "/")):
        path = "~" + path[len(home) :]
    if len(path) <= max_chars:
        return path
    parts = path.split("/")
    kept: list[str] = []
    length = 1  # the leading "…"
    for part in reversed(parts):
        if kept and length + len(part) + 1 > max_chars:
            break
        kept.insert(0, part)
        length += len(part) + 1
    text = "…/" + "/".join(kept)
    return text if len(text) <= max_chars else "…" + path[-(max_chars - 1) :]


def _load_registry() -> ToolCatalog | None:
    try:
        from agent.api import default_registry

        return default_registry()
    except Exception:  # summaries are a nicety; never fail an export over them
        return None


def _format_time(timestamp: float) -> str:
    try:
        return datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError, TypeError):
        return str(timestamp)


def _fenced(text: str, lang: str) -> str:
    fence = fence_for(text)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{fence}{lang}\n{body}{fence}"


def _pretty_arguments(arguments: str) -> tuple[str, str]:
    """(text, language) for a tool call's arguments: indented JSON when valid, else the raw text."""
    try:
        value = json.loads(arguments or "{}")
    except (ValueError, TypeError):
        return arguments or "", "text"
    return json.dumps(value, indent=2, ensure_ascii=False), "json"


def _safe(text: str) -> str:
    """What an export may hold of stored text: known secrets and credential shapes masked (a key typed in
    a message, an old session stored before the redactor), terminal controls neutralised as the chat
    shows them (a file someone `cat`s must not retitle their terminal). The engine's one redactor and
    the display's one neutraliser."""
    return sanitize_display(redact_secrets(text)) if text else text


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines() or [""])


def _italic_note(text: str) -> str:
    clean = " ".join(text.split()).replace("*", "\\*").replace("_", "\\_")
    return f"*{clean}*"


# ------------------------------------------------------------------------------------------ markdown


def _tool_block(name: str, summary: str, arguments: str | None, result: Message | None) -> str:
    meta = (result.meta if result is not None else None) or {}
    status = result_status(meta) if result is not None else "no result"
    details = [status]
    duration = meta.get("duration") if result is not None else None
    if isinstance(duration, int | float):
        details.append(format_elapsed(duration))
    head = f"{name}: {summary}" if summary else name
    lines = [
        "<details>",
        f"<summary>{html.escape(head)} ({html.escape(', '.join(details))})</summary>",
        "",
    ]
    if arguments is not None:
        text, lang = _pretty_arguments(arguments)
        lines += ["**Arguments**", "", _fenced(text, lang), ""]
    if result is not None:
        lines += ["**Output**", "", _fenced(result.content or "", "text"), ""]
    lines.append("</details>")
    return "\n".join(lines)


def export_markdown(
    store: SessionStoreProtocol, session_id: str, *, registry: ToolCatalog | None = None
) -> str:
    """The session as a Markdown document (see the module doc). KeyError for an unknown session.

    `registry` (a `ToolRegistry`) gives tool summaries as the chat shows them; the built-in one by default.
    """
    loaded = store.load(session_id)
    info = loaded.info
    messages = loaded.messages
    if registry is None:
        registry = _load_registry()

    results: dict[str, Message] = {}
    for message in messages:
        if message.role == "tool" and message.tool_call_id and message.tool_call_id not in results:
            results[message.tool_call_id] = message
    used: set[int] = set()

    meta_parts = []
    if info.model:
        meta_parts.append(f"model `{info.model}`")
    if info.cwd:
        meta_parts.append(f"cwd `{short_path(info.cwd)}`")
    meta_parts.append(f"created {_format_time(info.created_at)}")
    count = info.message_count
    meta_parts.append(f"{count} message{'s' if count != 1 else ''}")
    meta_parts.append(f"session `{info.id}`")

    blocks: list[str] = [
        f"# {' '.join(info.display_title.split()) or info.id}",
        " · ".join(meta_parts),
        "---",
    ]
    rewound = False
    for message in messages:
        synthetic = (message.meta or {}).get("synthetic")
        if message.role == "system":
            continue
        if (message.rewound_at is not None) != rewound:  # a run of rewound messages, kept and said so
            rewound = not rewound
            blocks.append(_italic_note(REWOUND_NOTES[rewound]))
        if message.role == "user":
            if synthetic:
                note = SYNTHETIC_NOTES.get(str(synthetic)) or (message.content or str(synthetic))
                blocks.append(_italic_note(f"Note: {note}"))
            else:
                images = "".join(f"\n\n[image: {ref.label()}]" for ref in refs_of(message.meta))
                blocks.append("**You:**\n\n" + _quote((message.content or "") + images))
            continue
        if message.role == "assistant":
            if message.reasoning and message.reasoning.strip():
                blocks.append(
                    "<details>\n<summary>Reasoning</summary>\n\n"
                    + message.reasoning.strip()
                    + "\n\n</details>"
                )
            if message.content and message.content.strip():
                blocks.append(message.content.strip())
            for call in message.tool_calls:
                result = results.get(call.id)
                if result is not None:
                    used.add(id(result))
                summary = summarize_call(call.name, call.arguments, registry)
                blocks.append(_tool_block(call.name, summary, call.arguments, result))
            if message.partial or message.finish_reason == "interrupted":
                blocks.append(_italic_note("Interrupted: the reply above is partial."))
            elif marker := reply_marker((message.meta or {}).get("incomplete")):
                blocks.append(_italic_note(marker[0].upper() + marker[1:] + "."))
            continue
        if message.role == "tool" and id(message) not in used:
            # A result whose call is not in the transcript (should not happen; kept rather than lost).
            blocks.append(_tool_block(message.tool_name or "tool", "", None, message))
    return _safe("\n\n".join(blocks) + "\n")  # the whole document: titles and summaries too


# ------------------------------------------------------------------------------------------ json


def _message_dict(message: Message, seq: int | None) -> dict[str, Any]:
    data = dataclasses.asdict(message)
    return {"seq": seq, **data}


def export_json(store: SessionStoreProtocol, session_id: str) -> str:
    """The session row and all its messages with every stored field, as indented JSON."""
    loaded = store.load(session_id)
    seqs: list[int | None] = [*loaded.seqs] if loaded.seqs else [None] * len(loaded.messages)
    document = {
        "format": "hermes-tui-session",
        "version": JSON_EXPORT_VERSION,
        "session": dataclasses.asdict(loaded.info),
        "messages": [_message_dict(m, s) for m, s in zip(loaded.messages, seqs, strict=False)],
    }
    # Lossless but for secrets: every string redacted (JSON escapes the controls itself).
    return json.dumps(redact_secrets_in(document), indent=2, ensure_ascii=False)


def message_from_dict(data: dict[str, Any]) -> Message:
    """Rebuild a `Message` from one entry of `export_json`'s `messages` (the inverse of the export)."""
    from agent.api import ToolCall, Usage

    fields = {f.name for f in dataclasses.fields(Message)}
    values = {k: v for k, v in data.items() if k in fields}
    values["tool_calls"] = [ToolCall(**call) for call in values.get("tool_calls") or []]
    if values.get("usage") is not None:
        values["usage"] = Usage(**values["usage"])
    return Message(**values)


# ------------------------------------------------------------------------------------------ files


def write_export(
    store: SessionStoreProtocol, session_id: str, path: Path | str, fmt: ExportFormat = "markdown"
) -> Path:
    """Write the export to `path` (parents created, an existing file replaced atomically, keeping its mode;
    a new file is 0600) and return its absolute path.

    Raises IsADirectoryError when `path` is a directory, ValueError for an unknown format, KeyError for an
    unknown session, OSError when the file cannot be written.
    """
    if fmt not in ("markdown", "json"):
        raise ValueError(f"unknown export format {fmt!r}; expected 'markdown' or 'json'")
    target = typed_path(path)
    if target.is_dir():
        raise IsADirectoryError(f"{target} is a directory")
    text = export_json(store, session_id) if fmt == "json" else export_markdown(store, session_id)
    try:
        mode = target.stat().st_mode & 0o777
    except OSError:
        mode = 0o600  # transcripts can hold secrets: private like the state database
    atomic_write_text(target, text, mode=mode)
    return target.absolute()
