"""`/context`: the next request, part by part (system prompt, tool schemas, memory, context files, skills
index, messages, tool results, images), in tokens and share, with the biggest items of each part named.

Sizes come from the engine's one counter, the compressor's `estimate_tokens` (4 characters of the request's
JSON a token): each character of `json.dumps([wire])` and `json.dumps(tools)` is given to exactly one part,
so the parts add up to what the compressor measures (to within a token per part, the rounding). The status
bar's figure is the provider's count of the last request and its reply; the report shows both.
Images count as the compressor counts them, by their encoded size (a provider bills an image at a fixed
rate, usually less).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from agent.core.humanize import format_tokens
from agent.prompts.memory_snapshot import CLOSE as MEMORY_CLOSE
from agent.prompts.memory_snapshot import INTRO as MEMORY_INTRO
from agent.skills.index import INTRO as SKILLS_INTRO

__all__ = ["PARTS", "ContextReport", "ContextRow", "measure_request", "render_context"]

PARTS: tuple[tuple[str, str], ...] = (
    ("system", "system prompt"),
    ("tools", "tool schemas"),
    ("memory", "memory"),
    ("context_files", "context files"),
    ("skills", "skills index"),
    ("messages", "messages"),
    ("tool_results", "tool results"),
    ("images", "images"),
)
ITEMS_SHOWN = 3
BAR_WIDTH = 24
_CONTEXT_FILE = re.compile(r"## Project instructions \((?P<label>[^)\n]*)\)\n")
_SKILLS_END = "</available_skills>"


@dataclass
class ContextRow:
    key: str
    label: str
    chars: int = 0
    items: dict[str, int] = field(default_factory=dict)  # item -> characters

    @property
    def tokens(self) -> int:
        return self.chars // 4

    def add(self, chars: int, item: str = "") -> None:
        self.chars += chars
        if item:
            self.items[item] = self.items.get(item, 0) + chars

    def biggest(self, count: int = ITEMS_SHOWN) -> list[tuple[str, int]]:
        ranked = sorted(self.items.items(), key=lambda kv: -kv[1])
        return [(name, chars // 4) for name, chars in ranked[:count]]


@dataclass(frozen=True)
class ContextReport:
    rows: list[ContextRow]
    total: int  # tokens: the compressor's estimate of the next request
    measured: int  # the status bar's: the provider's count of the last request and its reply (0: none yet)
    window: int
    tool_count: int

    def row(self, key: str) -> ContextRow:
        return next(r for r in self.rows if r.key == key)


def _escaped(text: str) -> int:
    """Characters `text` takes inside a JSON string (quotes excluded), as `json.dumps` writes it."""
    return len(json.dumps(text, ensure_ascii=False)) - 2


def _system(rows: dict[str, ContextRow], message: dict[str, Any], prompt_chars: int) -> None:
    content = message.get("content")
    text = content if isinstance(content, str) else ""
    total = len(json.dumps(message, ensure_ascii=False))
    prompt = text[:prompt_chars]
    spans: list[tuple[int, int, str, str]] = []  # start, end, part, item
    files = list(_CONTEXT_FILE.finditer(prompt))
    memory_at = prompt.find(MEMORY_INTRO)
    for i, match in enumerate(files):
        end = (
            files[i + 1].start()
            if i + 1 < len(files)
            else (memory_at if memory_at > match.start() else len(prompt))
        )
        spans.append((match.start(), end, "context_files", match.group("label")))
    if memory_at >= 0:
        close = prompt.find(MEMORY_CLOSE, memory_at)
        spans.append((memory_at, close + len(MEMORY_CLOSE) if close >= 0 else len(prompt), "memory", ""))
    skills_at = prompt.find(SKILLS_INTRO)
    if skills_at >= 0:
        close = prompt.find(_SKILLS_END, skills_at)
        spans.append(
            (
                skills_at,
                close + len(_SKILLS_END) if close >= 0 else skills_at + len(SKILLS_INTRO),
                "skills",
                "",
            )
        )
    given = 0
    for start, end, part, item in spans:
        chars = _escaped(text[start:end])
        rows[part].add(chars, item)
        given += chars
    rows["system"].add(total - given)


def _tool_names(wire: list[dict[str, Any]]) -> dict[str, str]:
    """Tool call id -> the tool's name, from the assistant messages' calls."""
    names: dict[str, str] = {}
    for message in wire:
        for call in message.get("tool_calls") or ():
            if isinstance(call, dict):
                function = call.get("function") or {}
                names[str(call.get("id"))] = str(function.get("name") or "?")
    return names


def measure_request(
    wire: list[dict[str, Any]], tools: list[dict[str, Any]], *, prompt_chars: int, measured: int, window: int
) -> ContextReport:
    """The breakdown of a request: `wire` as sent (the system message first), `tools` as offered,
    `prompt_chars` the stored system prompt's length in the system message (what follows it, the ephemeral
    prompt, is the system prompt's too)."""
    rows = {key: ContextRow(key, label) for key, label in PARTS}
    names = _tool_names(wire)
    rows["messages"].add(2 + 2 * max(0, len(wire) - 1))  # the list's brackets and separators
    turn = 0
    for index, message in enumerate(wire):
        size = len(json.dumps(message, ensure_ascii=False))
        role = message.get("role")
        if index == 0 and role == "system":
            _system(rows, message, prompt_chars)
            continue
        if role == "user":
            turn += 1
        if role == "tool":
            rows["tool_results"].add(
                size, f"{names.get(str(message.get('tool_call_id')), '?')} (turn {turn})"
            )
            continue
        content = message.get("content")
        if isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") in ("image_url", "image", "input_image"):
                    chars = len(json.dumps(part, ensure_ascii=False)) + 2
                    rows["images"].add(chars, f"image in turn {turn}")
                    size -= chars
        what = "your message" if role == "user" else "replies" if role == "assistant" else str(role)
        rows["messages"].add(size, f"{what} (turn {turn})")
    if tools:
        rows["tools"].add(len(json.dumps(tools)) - sum(len(json.dumps(t)) for t in tools))
        for tool in tools:
            inner = tool.get("function")
            function: dict[str, Any] = inner if isinstance(inner, dict) else tool
            rows["tools"].add(len(json.dumps(tool)), str(function.get("name") or "?"))
    total = len(json.dumps(wire, ensure_ascii=False)) // 4 + (len(json.dumps(tools)) // 4 if tools else 0)
    return ContextReport(list(rows.values()), total, measured, window, len(tools))


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:4.0f}%" if whole > 0 else "   ?"


def render_context(report: ContextReport, *, bar_width: int = BAR_WIDTH) -> str:
    """The report as lines for the transcript: a header, one bar per part (share of the request), the
    biggest items of each part, and the room left in the window."""
    total = max(1, sum(r.tokens for r in report.rows))
    window = report.window
    head = f"Context: the next request is about {format_tokens(report.total)} tokens"
    if window > 0:
        head += f" of {format_tokens(window)} ({100 * report.total / window:.0f}% of the window)"
    lines = [head]
    if report.measured:
        lines.append(
            f"The status bar's {format_tokens(report.measured)}: the provider's count of the last request "
            "and its reply."
        )
    width = max(len(r.label) for r in report.rows)
    for row in report.rows:
        filled = round(bar_width * row.tokens / total)
        if row.tokens and not filled:
            filled = 1
        bar = "█" * filled + "░" * (bar_width - filled)
        line = f"  {row.label:<{width}}  {format_tokens(row.tokens):>6}  {_share(row.tokens, total)}  {bar}"
        if row.key == "tools" and report.tool_count:
            line += f"  {report.tool_count} tools"
        lines.append(line)
        items = row.biggest()
        if items and row.key != "system":  # the biggest items on a line of their own, under the row
            shown = ", ".join(f"{name} {format_tokens(tokens)}" for name, tokens in items)
            more = len(row.items) - len(items)
            lines.append(f"    └ {shown}" + (f" (+{more} more)" if more > 0 else ""))
    if window > 0:
        free = max(0, window - report.total)
        share = _share(free, window)
        lines.append(f"  {'free':<{width}}  {format_tokens(free):>6}  {share} of the window")
    lines.append("Sizes are estimates (4 characters a token), as the compressor counts them.")
    return "\n".join(lines)
