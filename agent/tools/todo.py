"""The `todo` tool: the agent's task list for the session, shown to the user as it changes.

The list lives in `ctx.state.todos` (a list of {"id", "content", "status"} dicts, owned by the agent) and
every change is announced with a `TodoUpdated` event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agent.core.events import TodoUpdated
from agent.toolkit.registry import Tool, ToolContext, ToolResult, simplify_schema

if TYPE_CHECKING:
    from agent.core.messages import Message

STATUSES = ("pending", "in_progress", "completed", "cancelled")
_MARKS = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]", "cancelled": "[-]"}


class TodoItem(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str = Field(description="A short stable identifier for the item, e.g. '1' or 'tests'.")
    content: str | None = Field(
        default=None,
        description="What needs doing, one line. Required for new items; optional when merging an update.",
    )
    status: str | None = Field(
        default=None,
        description="One of: pending, in_progress, completed, cancelled. New items default to pending.",
        json_schema_extra={"enum": list(STATUSES)},
    )

    @field_validator("id", mode="before")
    @classmethod
    def _id_as_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, (int, float)) else value


class TodoArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")

    todos: list[TodoItem] | None = Field(
        default=None,
        description=(
            "The items to write. Omit to read the current list. "
            "With merge=false this replaces the whole list."
        ),
    )
    merge: bool = Field(
        default=False,
        description=(
            "false: replace the whole list with `todos`. true: update the items with matching ids (only the "
            "fields given) and append items with new ids."
        ),
    )

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        schema = super().model_json_schema(*args, **kwargs)
        return simplify_schema(schema)


def _normalize_status(status: str | None) -> str | None:
    if status is None:
        return None
    return status.strip().lower().replace("-", "_").replace(" ", "_")


def render_todos(items: list[dict[str, str]]) -> str:
    if not items:
        return "The todo list is empty."
    counts = {s: sum(1 for i in items if i["status"] == s) for s in STATUSES}
    lines = [f"{_MARKS.get(i['status'], '[?]')} {i['content']}  (id: {i['id']})" for i in items]
    summary = (
        f"{counts['completed']}/{len(items)} completed, {counts['in_progress']} in progress, "
        f"{counts['pending']} pending" + (f", {counts['cancelled']} cancelled" if counts["cancelled"] else "")
    )
    return "\n".join([*lines, "", summary])


def todos_from_history(messages: Sequence[Message]) -> list[dict[str, str]]:
    """The task list as the last successful todo call left it (what a resumed session starts from)."""
    for message in reversed(messages):
        if message.role != "tool" or message.tool_name != "todo" or message.meta.get("status", "ok") != "ok":
            continue
        items = message.meta.get("todos")
        if not isinstance(items, list):
            continue
        return [
            {
                "id": str(i.get("id", "")),
                "content": str(i.get("content", "")),
                "status": str(i.get("status", "pending")),
            }
            for i in items
            if isinstance(i, dict)
        ]
    return []


def todo(args: TodoArgs, ctx: ToolContext) -> ToolResult:
    current: list[dict[str, str]] = [dict(i) for i in ctx.state.todos]
    if args.todos is None:
        return ToolResult(content=render_todos(current), data={"todos": current})

    # Validate everything before changing anything.
    for item in args.todos:
        status = _normalize_status(item.status)
        if status is not None and status not in STATUSES:
            return ToolResult.error(
                f"invalid status {item.status!r} for todo {item.id!r}: use one of {', '.join(STATUSES)}."
            )
        if not item.id.strip():
            return ToolResult.error("every todo needs a non-empty id.")

    if args.merge:
        items = current
        by_id = {i["id"]: i for i in items}
        for item in args.todos:
            status = _normalize_status(item.status)
            existing = by_id.get(item.id)
            if existing is not None:
                if item.content is not None and item.content.strip():
                    existing["content"] = item.content.strip()
                if status is not None:
                    existing["status"] = status
                continue
            if not (item.content and item.content.strip()):
                return ToolResult.error(
                    f"todo {item.id!r} is not in the list and has no content: new items need content."
                )
            new = {"id": item.id, "content": item.content.strip(), "status": status or "pending"}
            items.append(new)
            by_id[item.id] = new
    else:
        items = []
        index: dict[str, int] = {}
        for item in args.todos:
            if not (item.content and item.content.strip()):
                return ToolResult.error(f"todo {item.id!r} has no content.")
            entry = {
                "id": item.id,
                "content": item.content.strip(),
                "status": _normalize_status(item.status) or "pending",
            }
            if item.id in index:  # a repeated id: the last one wins, in the first one's place
                items[index[item.id]] = entry
            else:
                index[item.id] = len(items)
                items.append(entry)

    ctx.state.todos = items
    snapshot = [dict(i) for i in items]
    ctx.ui.on_event(TodoUpdated(items=tuple(dict(i) for i in items)))
    return ToolResult(content=render_todos(snapshot), data={"todos": snapshot})


TODO_TOOL = Tool(
    name="todo",
    toolset="todo",
    description=(
        "Keep a task list for multi-step work (3+ steps) so you and the user can track progress. Call it "
        "with the full list to create or replace it, with merge=true to update statuses by id, or with no "
        "arguments to read it. Keep exactly one item in_progress while working; mark items completed as "
        "soon as they are done."
    ),
    args_model=TodoArgs,
    handler=todo,
)

TOOLS = [TODO_TOOL]
