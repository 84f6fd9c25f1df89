"""The `session_search` tool: the user's past sessions (the store's, and Hermes' own history beside it when
the store is a `SessionLibrary`), in Hermes' four shapes, chosen by the arguments given:

* discovery (`query`): full-text search (the FTS5 index), matches grouped by session;
* scroll (`session_id` + `around_message_id`): the messages around one, `window` on each side;
* read (`session_id` alone): one whole session, its first 20 and last 10 messages when it is long;
* browse (nothing): the most recent sessions.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agent.core.messages import Message
from agent.store.records import LoadedSession, SessionInfo
from agent.toolkit.registry import Tool, ToolContext, ToolResult

DEFAULT_LIMIT = 3
MAX_LIMIT = 10
SNIPPETS_PER_SESSION = 3
SNIPPET_CHARS = 400
DEFAULT_WINDOW = 5
MAX_WINDOW = 20
READ_HEAD, READ_TAIL = 20, 10  # a long session read whole: its first and last messages (Hermes')
MESSAGE_CHARS = 600  # of each message shown by scroll and read
BROWSE_LIMIT = 10


class SessionSearchArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")

    query: str = Field(
        default="",
        description="Words to search for in past conversations (full-text search; a few distinctive "
        "keywords work best, e.g. 'docker compose postgres'). Leave out (with no session_id) to list the "
        "most recent sessions.",
    )
    limit: int = Field(
        default=DEFAULT_LIMIT,
        description=f"How many sessions to return (default {DEFAULT_LIMIT}, max {MAX_LIMIT}).",
    )
    include_current: bool = Field(
        default=False, description="Also search the current session (excluded by default)."
    )
    session_id: str | None = Field(
        default=None,
        description="Read this session (from a search result): alone, the whole session (first "
        f"{READ_HEAD} and last {READ_TAIL} messages when long); with around_message_id, the messages "
        "around one.",
    )
    around_message_id: int | None = Field(
        default=None,
        description="With session_id: show the messages around this one (a match's message id). To "
        "scroll on, pass the first or last id shown.",
    )
    window: int = Field(
        default=DEFAULT_WINDOW,
        description=f"Messages on each side of around_message_id (default {DEFAULT_WINDOW}, max "
        f"{MAX_WINDOW}).",
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


def _message_line(message: Message, anchor: int | None = None) -> str:
    role: str = message.role
    if role == "tool" and message.tool_name:
        role = f"tool:{message.tool_name}"
    text = " ".join((message.content or "").split())
    if len(text) > MESSAGE_CHARS:
        text = text[:MESSAGE_CHARS] + "..."
    calls = ", ".join(c.name for c in message.tool_calls)
    if calls:
        text = f"{text} [calls {calls}]".strip()
    mark = " <- match" if anchor is not None and message.id == anchor else ""
    return f"  #{message.id} {role}: {text or '(empty)'}{mark}"


def _session_heading(info: SessionInfo) -> str:
    when = _when(info.created_at)
    where = "Hermes session" if info.id.startswith("hermes:") else "session"
    return f"{info.title or '(untitled)'} ({where} {info.id}{', ' + when if when else ''})"


def _load(store: Any, session_id: str, ctx: ToolContext, include_current: bool) -> LoadedSession | str:
    """The session, or the one line that says why not."""
    if session_id == ctx.session_id and not include_current:
        return f"session {session_id} is the current session: it is already in your context."
    if not hasattr(store, "load"):
        return "reading sessions is not available"
    try:
        loaded: LoadedSession = store.load(session_id)
    except KeyError:
        return f"no session {session_id!r}: use an id from a search result."
    except Exception as exc:
        return f"could not read session {session_id}: {exc}"
    return loaded


def _scroll(store: Any, args: SessionSearchArgs, ctx: ToolContext, around: int) -> ToolResult:
    loaded = _load(store, str(args.session_id), ctx, args.include_current)
    if isinstance(loaded, str):
        return ToolResult.error(loaded)
    ids = [m.id for m in loaded.messages]
    if around not in ids:
        return ToolResult.error(f"message {around} is not in session {loaded.info.id}.")
    at = ids.index(around)
    window = min(max(1, args.window), MAX_WINDOW)
    start, end = max(0, at - window), min(len(ids), at + window + 1)
    shown = loaded.messages[start:end]
    lines = [
        f"{_session_heading(loaded.info)}: messages {start + 1}-{end} of {len(ids)} around #{around} "
        f"({start} before, {len(ids) - end} after):",
        *(_message_line(m, around) for m in shown),
    ]
    if start or end < len(ids):
        lines.append("To scroll on, pass the first or last id shown as around_message_id.")
    data = {
        "mode": "scroll",
        "session_id": loaded.info.id,
        "message_ids": [m.id for m in shown],
        "messages_before": start,
        "messages_after": len(ids) - end,
    }
    return ToolResult(content="\n".join(lines), data=data)


def _read(store: Any, args: SessionSearchArgs, ctx: ToolContext) -> ToolResult:
    loaded = _load(store, str(args.session_id), ctx, args.include_current)
    if isinstance(loaded, str):
        return ToolResult.error(loaded)
    messages = loaded.messages
    long = len(messages) > READ_HEAD + READ_TAIL
    lines = [f"{_session_heading(loaded.info)}: {len(messages)} messages"]
    if long:
        lines[0] += (
            f"; the first {READ_HEAD} and the last {READ_TAIL} (pass around_message_id to read the middle):"
        )
        shown = [*messages[:READ_HEAD], None, *messages[-READ_TAIL:]]
    else:
        lines[0] += ":"
        shown = list(messages)
    for m in shown:
        lines.append(
            f"  ... {len(messages) - READ_HEAD - READ_TAIL} more ..." if m is None else _message_line(m)
        )
    ids = [m.id for m in shown if m is not None]
    data = {"mode": "read", "session_id": loaded.info.id, "message_ids": ids, "truncated": long}
    return ToolResult(content="\n".join(lines), data=data)


def _browse(store: Any, args: SessionSearchArgs, ctx: ToolContext) -> ToolResult:
    if not hasattr(store, "list_sessions"):
        return ToolResult.error("listing sessions is not available")
    try:
        infos: list[SessionInfo] = list(store.list_sessions(limit=BROWSE_LIMIT + 1))
    except Exception as exc:
        return ToolResult.error(f"could not list sessions: {exc}")
    infos = [i for i in infos if args.include_current or i.id != ctx.session_id][:BROWSE_LIMIT]
    if not infos:
        return ToolResult(content="There are no past sessions.", data={"mode": "browse", "sessions": []})
    lines = [f"The {len(infos)} most recent session(s) (pass query= to search, session_id= to read one):"]
    for n, info in enumerate(infos, 1):
        preview = f": {info.preview}" if info.preview else ""
        lines.append(f"{n}. {_session_heading(info)}, {info.message_count} messages{preview}")
    return ToolResult(content="\n".join(lines), data={"mode": "browse", "sessions": [i.id for i in infos]})


def session_search(args: SessionSearchArgs, ctx: ToolContext) -> ToolResult:
    store = ctx.store
    if store is None or not hasattr(store, "search"):
        return ToolResult.error("session search is not available")
    if args.session_id is not None and args.session_id.strip():
        args = args.model_copy(update={"session_id": args.session_id.strip()})
        if args.around_message_id is not None:
            return _scroll(store, args, ctx, args.around_message_id)
        return _read(store, args, ctx)
    if args.around_message_id is not None:
        return ToolResult.error("around_message_id needs the session_id it belongs to.")
    query = args.query.strip()
    if not query:
        return _browse(store, args, ctx)
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
            at = f", message {match['message_id']}" if match["message_id"] is not None else ""
            lines.append(f"   [{match['role']}{seq}{at}] {match['snippet']}")
    lines.append("")
    lines.append(
        "For more: session_search(session_id=..., around_message_id=<message>) shows the messages around one."
    )
    return ToolResult(content="\n".join(lines), data={"results": results})


SESSION_SEARCH_TOOL = Tool(
    name="session_search",
    toolset="session_search",
    description=(
        "Search the user's past conversations (all earlier sessions) by keywords, to recall what was done "
        "or decided before: commands that worked, fixes, preferences, earlier results. Four shapes: query= "
        "finds matching sessions with snippets; session_id= with around_message_id= shows the messages "
        "around a match (scroll with the first or last id shown); session_id= alone reads a session; no "
        "arguments lists the most recent sessions."
    ),
    args_model=SessionSearchArgs,
    handler=session_search,
    parallel_safe=True,
    summary_arg="query",
)

TOOLS = [SESSION_SEARCH_TOOL]
