"""The `session_search` tool: full-text search over the user's past sessions (the store's FTS5 index, and
Hermes' own history beside it when the store is a `SessionLibrary`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agent.tools.registry import Tool, ToolContext, ToolResult

DEFAULT_LIMIT = 3
MAX_LIMIT = 10
SNIPPETS_PER_SESSION = 3
SNIPPET_CHARS = 400


class SessionSearchArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")

    query: str = Field(
        description="Words to search for in past conversations (full-text search; a few distinctive "
        "keywords work best, e.g. 'docker compose postgres')."
    )
    limit: int = Field(
        default=DEFAULT_LIMIT,
        description=f"How many sessions to return (default {DEFAULT_LIMIT}, max {MAX_LIMIT}).",
    )
    include_current: bool = Field(
        default=False, description="Also search the current session (excluded by default)."
    )


def _when(value: Any) -> str:
    if value is None or value == "":
        return ""
    if isinstance(value, (int, float)):
        try:
            return dt.datetime.fromtimestamp(value).strftime("%Y-%m-%d %H:%M")
        except (OverflowError, OSError, ValueError):
            return str(value)
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    return str(value)


def _snippet(text: Any) -> str:
    s = " ".join(str(text or "").split())
    s = s.replace("\x02", ">>>").replace("\x03", "<<<")
    if len(s) > SNIPPET_CHARS:
        s = s[:SNIPPET_CHARS] + "..."
    return s


def session_search(args: SessionSearchArgs, ctx: ToolContext) -> ToolResult:
    store = ctx.store
    if store is None or not hasattr(store, "search"):
        return ToolResult.error("session search is not available")
    query = args.query.strip()
    if not query:
        return ToolResult.error("query is empty: give a few keywords to search for.")
    limit = min(max(1, args.limit), MAX_LIMIT)
    try:
        hits = list(store.search(query, limit=max(limit * 10, 30)))
    except Exception as exc:  # the store reports bad FTS syntax etc. as exceptions
        return ToolResult.error(f"session search failed: {exc}")

    sessions: dict[str, dict[str, Any]] = {}
    for hit in hits:
        sid = str(getattr(hit, "session_id", "") or "")
        if not sid or (sid == ctx.session_id and not args.include_current):
            continue
        group = sessions.get(sid)
        if group is None:
            if len(sessions) >= limit:
                continue
            group = sessions[sid] = {
                "session_id": sid,
                "title": getattr(hit, "session_title", None) or "(untitled)",
                "when": _when(getattr(hit, "created_at", None)),
                "matches": [],
            }
        if len(group["matches"]) >= SNIPPETS_PER_SESSION:
            continue
        role = str(getattr(hit, "role", "") or "?")
        tool_name = getattr(hit, "tool_name", None)
        group["matches"].append(
            {
                "message_id": getattr(hit, "message_id", None),
                "seq": getattr(hit, "seq", None),
                "role": f"tool:{tool_name}" if role == "tool" and tool_name else role,
                "snippet": _snippet(getattr(hit, "snippet", "")),
                "when": _when(getattr(hit, "created_at", None)),
            }
        )

    results = list(sessions.values())
    if not results:
        scope = "" if args.include_current else " (the current session is not searched)"
        return ToolResult(content=f"No past sessions match {query!r}{scope}.", data={"results": []})
    lines = [f"Found {len(results)} past session(s) matching {query!r} (matches marked >>>like this<<<):"]
    for n, group in enumerate(results, 1):
        when = f", {group['when']}" if group["when"] else ""
        lines.append("")
        where = "Hermes session" if group["session_id"].startswith("hermes:") else "session"
        lines.append(f"{n}. {group['title']} ({where} {group['session_id']}{when})")
        for match in group["matches"]:
            seq = f" #{match['seq']}" if match["seq"] is not None else ""
            lines.append(f"   [{match['role']}{seq}] {match['snippet']}")
    return ToolResult(content="\n".join(lines), data={"results": results})


SESSION_SEARCH_TOOL = Tool(
    name="session_search",
    toolset="session_search",
    description=(
        "Search the user's past conversations (all earlier sessions) by keywords, to recall what was done "
        "or decided before: commands that worked, fixes, preferences, earlier results. Returns the matching "
        "sessions with snippets."
    ),
    args_model=SessionSearchArgs,
    handler=session_search,
    parallel_safe=True,
    summary_arg="query",
)

TOOLS = [SESSION_SEARCH_TOOL]
