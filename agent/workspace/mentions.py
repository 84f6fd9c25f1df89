"""`@` mentions in a message: `@src/app.py`, `@src/app.py#L20-45`, `@docs/` (a listing), and Hermes' spellings
`@file:PATH[:20-45]`, `@folder:PATH`, `@diff`, `@staged`, `@git:N` (the last N commits with their diffs,
`git log -N -p`, N up to 10 as in Hermes) and `@url:https://...` (the page as web_extract reads it: the same
URL policy, timeout and size limits, `agent.web.fetch.extract_page`).

The mention stays in the text as typed; what it names is attached after the text, under one header, so the
model reads the file without a tool call and the stored message is what the model saw (a resumed session
replays the same request). A word that names no file (`@someone`) is left alone, as in Claude Code. Paths
resolve inside the session's working directory only, secrets' folders (`~/.ssh`, ...) are refused, binary
files are described rather than inlined, and everything is capped: a cut is always said, never silent.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

from agent.config.web import WebSettings
from agent.core.humanize import format_size
from agent.workspace.file_tree import walk

__all__ = [
    "Attachment",
    "Expansion",
    "Mention",
    "attached_block",
    "badge_line",
    "expand_mentions",
    "fetch_remote",
    "find_mentions",
    "split_attached",
    "with_attached",
]

ATTACHED_HEADER = "--- Attached context ---"
"""Separates what the user typed from what was attached to it (`@` mentions, `!` shell output);
`split_attached` finds it again to show the message as typed."""

MAX_FILE_CHARS = 60_000
MAX_TOTAL_CHARS = 200_000
MAX_LISTING = 200
GIT_TIMEOUT = 10.0
MAX_GIT_COMMITS = 10
_SNIFF = 8192
_TRAILING = ",.;:!?)]}'\""

_MENTION = re.compile(
    r"""(?<![\w@/])@(?:
        (?P<simple>diff|staged)\b
      | (?P<kind>file|folder|url|git):(?P<value>"[^"\n]+"|\S+)
      | "(?P<quoted>[^"\n]+)"(?:\#L(?P<qstart>\d+)(?:-L?(?P<qend>\d+))?)?
      | (?P<path>[^\s"@]+?)(?:\#L(?P<start>\d+)(?:-L?(?P<end>\d+))?)?(?=[\s,;:!?)\]}]|$)
    )""",
    re.VERBOSE,
)
_HERMES_RANGE = re.compile(r"^(?P<path>.+?):(?P<start>\d+)(?:-(?P<end>\d+))?$")
_SECRET_DIRS = (".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure", ".config/gh")


@dataclass(frozen=True)
class Mention:
    raw: str  # as typed, `@` included
    kind: str  # "path" (a file or a folder), "file", "folder", "diff", "staged", "git", "url"
    target: str = ""
    start: int | None = None  # 1-based, inclusive line range
    end: int | None = None


@dataclass(frozen=True)
class Attachment:
    """One mention's result: a badge label for the UI, and the block the model reads (empty when refused)."""

    mention: Mention
    label: str  # `src/app.py L20-45 · 26 lines`, `docs/ · 12 entries`, `git diff · 3 files`
    block: str
    problem: str = ""  # why nothing (or not everything) was attached; shown to the user
    truncated: bool = False


@dataclass
class Expansion:
    text: str  # what goes to the model and the store: the typed text, then the attached blocks
    typed: str
    attachments: list[Attachment] = field(default_factory=list)

    remote: list[Mention] = field(default_factory=list)
    """`@url:` mentions left for `fetch_remote` (no web settings given: the caller fetches them off its UI
    thread and attaches them with the rest)."""

    @property
    def problems(self) -> list[str]:
        return [a.problem for a in self.attachments if a.problem]


def find_mentions(text: str) -> list[Mention]:
    found: list[Mention] = []
    for match in _MENTION.finditer(text):
        raw = match.group(0)
        if match.group("simple"):
            found.append(Mention(raw, match.group("simple")))
        elif match.group("kind"):
            value = match.group("value")
            start = end = None
            if value.startswith('"'):
                value = value.strip('"')
            elif match.group("kind") == "file" and (m := _HERMES_RANGE.match(value)):
                value, start, end = m.group("path"), int(m.group("start")), _int(m.group("end"))
            value = value.rstrip(_TRAILING) if not match.group("value").startswith('"') else value
            found.append(Mention(raw, match.group("kind"), value, start, end))
        elif match.group("quoted"):
            found.append(
                Mention(
                    raw, "path", match.group("quoted"), _int(match.group("qstart")), _int(match.group("qend"))
                )
            )
        else:
            path = match.group("path")
            if match.group("start") is None:
                path = path.rstrip(_TRAILING)
            if path:
                found.append(Mention(raw, "path", path, _int(match.group("start")), _int(match.group("end"))))
    return found


def _int(value: str | None) -> int | None:
    return int(value) if value else None


def expand_mentions(
    text: str,
    cwd: Path,
    *,
    web: WebSettings | None = None,
    interrupt: threading.Event | None = None,
    max_total_chars: int = MAX_TOTAL_CHARS,
    max_file_chars: int = MAX_FILE_CHARS,
) -> Expansion:
    """The message with what its mentions name attached. Mentions of nothing (no such file) are text.
    `@url:` pages are fetched with `web` (the web tools' settings); without it they are left in
    `Expansion.remote` for `fetch_remote`."""
    expansion = Expansion(text=text, typed=text)
    budget = max_total_chars
    seen: set[tuple[str, str, int | None, int | None]] = set()
    for mention in find_mentions(text):
        key = (mention.kind, mention.target, mention.start, mention.end)
        if key in seen:
            continue
        seen.add(key)
        if mention.kind == "url" and web is None:
            expansion.remote.append(mention)
            continue
        attachment: Attachment | None
        if mention.kind == "url" and web is not None:
            attachment = _url(mention, web, min(budget, max_file_chars), interrupt)
        else:
            attachment = _attach(mention, cwd.resolve(), min(budget, max_file_chars))
        if attachment is None:
            continue
        budget -= len(attachment.block)
        expansion.attachments.append(attachment)
    expansion.text = with_attached(text, [a.block for a in expansion.attachments if a.block])
    return expansion


def fetch_remote(
    mentions: list[Mention],
    web: WebSettings,
    *,
    interrupt: threading.Event | None = None,
    max_file_chars: int = MAX_FILE_CHARS,
) -> list[Attachment]:
    """The `@url:` mentions an expansion left (`Expansion.remote`), fetched: call it off the UI thread."""
    return [_url(mention, web, max_file_chars, interrupt) for mention in mentions]


def with_attached(typed: str, blocks: list[str]) -> str:
    """The typed text, then the attached blocks under one header (nothing added when there are none)."""
    return f"{typed}\n\n{ATTACHED_HEADER}\n\n" + "\n\n".join(blocks) if blocks else typed


def split_attached(content: str) -> tuple[str, list[str]]:
    """(what was typed, the attachments' labels) of a stored user message, for showing it again."""
    typed, sep, rest = content.partition(f"\n\n{ATTACHED_HEADER}\n\n")
    if not sep:
        return content, []
    labels = [m.group(1) for m in re.finditer(r"^<attached [a-z]+ label=\"([^\"\n]*)\">$", rest, re.M)]
    return typed, labels


def badge_line(labels: list[str]) -> str:
    """The attachments of one message on one line, as the transcript shows them."""
    return "   ".join(f"📎 {label}" for label in labels)


def _looks_like_a_path(target: str) -> bool:
    """`@src/app.py`, `@notes.md`, `@~/x`: meant as a file, so a missing one is said (a typo must not
    go to the model silently); `@someone` is prose."""
    return "/" in target or re.search(r"\.[A-Za-z0-9]{1,8}$", target) is not None


def _attach(mention: Mention, cwd: Path, budget: int) -> Attachment | None:
    if mention.kind in ("diff", "staged"):
        return _git_diff(mention, cwd, budget)
    if mention.kind == "git":
        return _git_log(mention, cwd, budget)
    path = Path(os.path.expanduser(mention.target))
    path = (path if path.is_absolute() else cwd / path).resolve()
    shown = _shown(path, cwd)
    if not path.exists():
        if mention.kind == "path" and not _looks_like_a_path(mention.target):
            return None  # `@someone` in prose: not a mention of a file
        return Attachment(mention, shown, "", problem=f"{mention.raw}: no such file or folder")
    if not (path == cwd or path.is_relative_to(cwd)):
        return Attachment(mention, shown, "", problem=f"{mention.raw}: outside the working directory {cwd}")
    if _secret(path):
        return Attachment(
            mention, shown, "", problem=f"{mention.raw}: a credentials folder is never attached"
        )
    if path.is_dir():
        if mention.kind == "file":
            return Attachment(mention, shown, "", problem=f"{mention.raw}: a folder (use @folder:)")
        return _listing(mention, path, cwd, budget)
    if mention.kind == "folder":
        return Attachment(mention, shown, "", problem=f"{mention.raw}: a file, not a folder")
    return _file(mention, path, shown, budget)


def _shown(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd)) if path != cwd else "."
    except ValueError:
        return str(path)


def _secret(path: Path) -> bool:
    home = Path.home()
    return any(path == home / d or path.is_relative_to(home / d) for d in _SECRET_DIRS)


def attached_block(kind: str, label: str, body: str, note: str = "") -> str:
    """One attachment for the model: a header naming it, the body fenced so Markdown inside stays inside."""
    fence = "`" * max(3, _longest_backtick_run(body) + 1)
    tail = f"\n{note}" if note else ""
    label = label.replace('"', "'")
    return f'<attached {kind} label="{label}">\n{fence}\n{body}\n{fence}{tail}\n</attached>'


def _longest_backtick_run(text: str) -> int:
    return max((len(m) for m in re.findall(r"`+", text)), default=0)


def _file(mention: Mention, path: Path, shown: str, budget: int) -> Attachment:
    try:
        with open(path, "rb") as fh:
            head = fh.read(_SNIFF)
            size = os.fstat(fh.fileno()).st_size
    except OSError as exc:
        return Attachment(mention, shown, "", problem=f"{mention.raw}: {exc.strerror or exc}")
    if b"\x00" in head:
        label = f"{shown} · binary, {format_size(size)}"
        body = f"{shown} is a binary file ({format_size(size)}); not inlined: use tools to inspect it."
        return Attachment(mention, label, attached_block("file", label, body))
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        return Attachment(mention, shown, "", problem=f"{mention.raw}: {exc.strerror or exc}")
    lines = text.splitlines()
    first, last = 1, len(lines)
    if mention.start is not None:
        first = max(1, mention.start)
        last = min(len(lines), mention.end if mention.end is not None else mention.start)
        if first > len(lines) or last < first:
            problem = f"{mention.raw}: {shown} has {len(lines)} lines"
            return Attachment(mention, shown, "", problem=problem)
    chosen = lines[first - 1 : last]
    body, kept = _fit(chosen, budget)
    truncated = kept < len(chosen)
    where = f" L{first}-{last}" if mention.start is not None else ""
    label = f"{shown}{where} · {len(chosen)} line{'s' if len(chosen) != 1 else ''}"
    note = ""
    if truncated:
        label += f" (first {kept} attached)"
        note = (
            f"[cut: lines {first + kept}-{last} of {shown} were not attached (size cap); "
            f"read them with read_file offset={first + kept}]"
        )
    problem = (
        f"{mention.raw}: only the first {kept} of {len(chosen)} lines attached (size cap)"
        if truncated
        else ""
    )
    numbered = (
        f"{shown} (lines {first}-{first + kept - 1} of {len(lines)})\n{body}"
        if chosen
        else f"{shown} (empty)"
    )
    return Attachment(
        mention, label, attached_block("file", label, numbered, note), problem=problem, truncated=truncated
    )


def _fit(lines: list[str], budget: int) -> tuple[str, int]:
    """As many whole lines as fit in `budget` characters: (text, how many)."""
    used, kept = 0, 0
    for line in lines:
        used += len(line) + 1
        if used > budget and kept:
            break
        kept += 1
    return "\n".join(lines[:kept]), kept


def _listing(mention: Mention, path: Path, cwd: Path, budget: int) -> Attachment:
    shown = _shown(path, cwd).rstrip("/") + "/"
    entries: list[str] = []
    more = False
    for rel, _ in walk(path):
        if len(entries) >= MAX_LISTING:
            more = True
            break
        entries.append(rel)
    body, kept = _fit(entries, budget)
    label = f"{shown} · {len(entries)}{'+' if more else ''} files"
    note = (
        f"[listing cut at {kept} files; use search_files to see more]" if more or kept < len(entries) else ""
    )
    return Attachment(
        mention, label, attached_block("folder", label, body or "(no files)", note), truncated=bool(note)
    )


def _git_log(mention: Mention, cwd: Path, budget: int) -> Attachment:
    """`@git:N`: the last N commits with their diffs (Hermes' `git log -N -p`, N from 1 to 10)."""
    target = mention.target.rstrip(_TRAILING) or "1"
    if not target.isdigit() or not 1 <= int(target) <= MAX_GIT_COMMITS:
        problem = f"{mention.raw}: expected a number of commits from 1 to {MAX_GIT_COMMITS} (@git:3)"
        return Attachment(mention, mention.raw, "", problem=problem)
    return _git_diff(mention, cwd, budget, ["git", "log", f"-{int(target)}", "-p"], unit="commit")


def _url(mention: Mention, web: WebSettings, budget: int, interrupt: threading.Event | None) -> Attachment:
    """`@url:https://...`: the page as web_extract reads it, cut to the attachment's share (said)."""
    from agent.web.fetch import extract_page

    url = mention.target.rstrip(_TRAILING) if not mention.raw.endswith('"') else mention.target
    page = extract_page(url, web, interrupt)
    if page.error:
        return Attachment(mention, url, "", problem=f"{mention.raw}: {page.error}")
    text = page.text.strip()
    if not text:
        return Attachment(
            mention, url, "", problem=f"{mention.raw}: no text could be extracted from the page"
        )
    notes = []
    if page.cut:
        notes.append(
            f"[the page is over the read limit ({page.bytes_read:,} bytes): only its start was read]"
        )
    truncated = len(text) > budget
    if truncated:
        notes.append(f"[cut: the page has {len(text):,} characters; the first {budget:,} are attached]")
        text = text[:budget]
    label = f"{url} · {format_size(len(text))}" + (" (cut)" if truncated or page.cut else "")
    head = f"# {page.title}\nURL: {url}" if page.title else f"URL: {url}"
    problem = f"{mention.raw}: the page was cut to fit (size cap)" if truncated else ""
    block = attached_block("url", label, f"{head}\n\n{text}", "\n".join(notes))
    return Attachment(mention, label, block, problem=problem, truncated=truncated or page.cut)


def _git_diff(
    mention: Mention, cwd: Path, budget: int, args: list[str] | None = None, *, unit: str = "file"
) -> Attachment:
    if args is None:
        args = ["git", "diff", "--staged"] if mention.kind == "staged" else ["git", "diff"]
    name = " ".join(args)
    try:
        proc = subprocess.run(
            args, cwd=cwd, capture_output=True, text=True, errors="replace", timeout=GIT_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Attachment(mention, name, "", problem=f"{mention.raw}: {name} did not run ({exc})")
    if proc.returncode != 0:
        reason = (proc.stderr.strip().splitlines() or ["failed"])[0]
        return Attachment(mention, name, "", problem=f"{mention.raw}: {reason}")
    lines = proc.stdout.splitlines()
    marker = "commit " if unit == "commit" else "diff --git "
    files = sum(1 for line in lines if line.startswith(marker))
    body, kept = _fit(lines, budget)
    label = f"{name} · {files} {unit}{'s' if files != 1 else ''}"
    note = f"[diff cut after {kept} of {len(lines)} lines (size cap)]" if kept < len(lines) else ""
    return Attachment(
        mention, label, attached_block("git", label, body or "(no changes)", note), truncated=bool(note)
    )
