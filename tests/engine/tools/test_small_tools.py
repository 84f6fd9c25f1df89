"""clarify, todo, memory and session_search, with a ToolContext built here and fakes for the UI and store."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent.core.events import TodoUpdated
from agent.core.ui import ClarifyRequest
from agent.session.catalogue import builtin_tools, default_registry
from agent.toolkit.registry import ToolContext
from agent.tools.clarify import CANCELLED, NO_RESPONSE, ClarifyArgs, clarify
from agent.tools.memory import LIMITS, MemoryArgs, load_entries, memory, memory_path
from agent.tools.session_search import SessionSearchArgs, session_search
from agent.tools.todo import TodoArgs, todo
from tests.recording_ui import RecordingUI


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    work = tmp_path / "work"
    work.mkdir()
    return ToolContext(
        cwd=work,
        session_id="current",
        call_id="c1",
        interrupt=threading.Event(),
        hermes_home=tmp_path / "home",
        ui=RecordingUI(),
        clarify_timeout=7.0,
    )


# ------------------------------------------------------------------------------------------------ clarify


def test_clarify_returns_the_answer_as_json(ctx: ToolContext) -> None:
    ctx.ui = RecordingUI(clarify_answer="Postgres")
    args = ClarifyArgs.model_validate({"question": "Which database?", "choices": ["SQLite", "Postgres"]})
    result = clarify(args, ctx)
    assert result.status == "ok"
    assert json.loads(result.content) == {
        "question": "Which database?",
        "choices_offered": ["SQLite", "Postgres"],
        "user_response": "Postgres",
    }
    (request,) = ctx.ui.clarify_requests
    assert request == ClarifyRequest("Which database?", ("SQLite", "Postgres"), timeout=7.0)
    assert request.cancel is ctx.interrupt


def test_clarify_choices_are_flattened_and_capped() -> None:
    args = ClarifyArgs.model_validate(
        {
            "question": "Pick",
            "choices": [{"label": "A"}, {"description": "B"}, {"text": "C"}, "D", {"title": "E"}, "F"],
            "junk": 1,
        }
    )
    assert args.choices == ["A", "B", "C", "D"]
    assert ClarifyArgs.model_validate({"question": "Q", "choices": None}).choices == []
    assert ClarifyArgs.model_validate({"question": "Q", "choices": '["x", "y"]'}).choices == ["x", "y"]


def test_clarify_without_answer(ctx: ToolContext) -> None:
    result = clarify(ClarifyArgs(question="Go on?"), ctx)
    assert result.status == "ok"
    assert result.content == NO_RESPONSE
    assert ctx.ui.clarify_requests[0].choices == ()


def test_clarify_interrupted(ctx: ToolContext) -> None:
    class InterruptingUI(RecordingUI):
        def ask_clarify(self, request: ClarifyRequest) -> str | None:
            request.cancel.set()
            return None

    ctx.ui = InterruptingUI()
    result = clarify(ClarifyArgs(question="Go on?", choices=["yes", "no"]), ctx)
    assert result.status == "cancelled"
    assert result.content == CANCELLED
    assert "cancelled" in result.content


# --------------------------------------------------------------------------------------------------- todo


def run_todo(ctx: ToolContext, payload: dict) -> object:
    return todo(TodoArgs.model_validate(payload), ctx)


def test_todo_replace_read_and_event(ctx: ToolContext) -> None:
    result = run_todo(
        ctx,
        {
            "todos": [
                {"id": 1, "content": "Read the code", "status": "completed"},
                {"id": "2", "content": "Write the fix", "status": "in_progress"},
                {"id": "3", "content": "Run the tests"},
            ]
        },
    )
    assert result.status == "ok"
    assert ctx.state.todos == [
        {"id": "1", "content": "Read the code", "status": "completed"},
        {"id": "2", "content": "Write the fix", "status": "in_progress"},
        {"id": "3", "content": "Run the tests", "status": "pending"},
    ]
    assert result.data["todos"] == ctx.state.todos
    assert "[x] Read the code" in result.content
    assert "[~] Write the fix" in result.content
    assert "[ ] Run the tests" in result.content
    assert "1/3 completed, 1 in progress, 1 pending" in result.content
    (event,) = ctx.ui.of_type(TodoUpdated)
    assert event.items == tuple(ctx.state.todos)

    read = run_todo(ctx, {})
    assert read.content == result.content
    assert len(ctx.ui.of_type(TodoUpdated)) == 1  # reading emits nothing

    replaced = run_todo(ctx, {"todos": [{"id": "a", "content": "Only this"}]})
    assert [t["id"] for t in replaced.data["todos"]] == ["a"]


def test_todo_merge_updates_by_id_and_appends(ctx: ToolContext) -> None:
    run_todo(ctx, {"todos": [{"id": "1", "content": "One"}, {"id": "2", "content": "Two"}]})
    result = run_todo(
        ctx,
        {
            "merge": True,
            "todos": [
                {"id": "1", "status": "completed"},
                {"id": "3", "content": "Three", "status": "in_progress"},
            ],
        },
    )
    assert ctx.state.todos == [
        {"id": "1", "content": "One", "status": "completed"},
        {"id": "2", "content": "Two", "status": "pending"},
        {"id": "3", "content": "Three", "status": "in_progress"},
    ]
    assert len(ctx.ui.of_type(TodoUpdated)) == 2
    assert result.data["todos"][2]["content"] == "Three"
    missing = run_todo(ctx, {"merge": True, "todos": [{"id": "9", "status": "pending"}]})
    assert missing.status == "error" and "'9'" in missing.content


def test_todo_bad_status_changes_nothing(ctx: ToolContext) -> None:
    run_todo(ctx, {"todos": [{"id": "1", "content": "One"}]})
    before = list(ctx.state.todos)
    result = run_todo(ctx, {"todos": [{"id": "1", "content": "One", "status": "done"}]})
    assert result.status == "error"
    assert "'done'" in result.content and "in_progress" in result.content
    assert ctx.state.todos == before
    assert len(ctx.ui.of_type(TodoUpdated)) == 1
    # Case and spelling variants of valid statuses are accepted.
    ok = run_todo(ctx, {"todos": [{"id": "1", "content": "One", "status": "In-Progress"}]})
    assert ok.data["todos"][0]["status"] == "in_progress"


def test_todo_empty_list(ctx: ToolContext) -> None:
    assert "empty" in run_todo(ctx, {}).content
    assert run_todo(ctx, {"todos": []}).data["todos"] == []


# ------------------------------------------------------------------------------------------------- memory


def run_memory(ctx: ToolContext, **kw) -> object:
    return memory(MemoryArgs.model_validate(kw), ctx)


def test_memory_add_replace_remove(ctx: ToolContext) -> None:
    first = run_memory(ctx, target="memory", action="add", content="Project uses uv, not pip.")
    assert first.status == "ok"
    run_memory(ctx, target="memory", action="add", content="Tests run with pytest -q.")
    path = memory_path(ctx.hermes_home, "memory")
    assert path == ctx.hermes_home / "memories" / "MEMORY.md"
    assert path.read_text() == "Project uses uv, not pip.\n§\nTests run with pytest -q.\n"

    replaced = run_memory(
        ctx, target="memory", action="replace", old_text="uv", content="Project uses poetry."
    )
    assert replaced.status == "ok"
    assert load_entries(ctx.hermes_home, "memory") == ["Project uses poetry.", "Tests run with pytest -q."]
    assert "Project uses poetry." in replaced.content

    removed = run_memory(ctx, target="memory", action="remove", old_text="pytest")
    assert removed.status == "ok"
    assert load_entries(ctx.hermes_home, "memory") == ["Project uses poetry."]


def test_memory_user_target_and_validation(ctx: ToolContext) -> None:
    run_memory(ctx, target="user", action="add", content="Name: Ada. Prefers short answers.")
    assert (ctx.hermes_home / "memories" / "USER.md").read_text().startswith("Name: Ada.")
    assert not (ctx.hermes_home / "memories" / "MEMORY.md").exists()
    assert run_memory(ctx, target="user", action="add").status == "error"
    assert run_memory(ctx, target="user", action="remove").status == "error"
    none = run_memory(ctx, target="user", action="remove", old_text="nobody")
    assert none.status == "error" and "no user profile entry contains" in none.content


def test_memory_old_text_must_match_one_entry(ctx: ToolContext) -> None:
    run_memory(ctx, action="add", content="alpha one")
    run_memory(ctx, action="add", content="alpha two")
    result = run_memory(ctx, action="remove", old_text="alpha")
    assert result.status == "error"
    assert "2 memory entries" in result.content
    assert len(load_entries(ctx.hermes_home, "memory")) == 2


def test_memory_cap_refuses_with_usage(ctx: ToolContext) -> None:
    limit = LIMITS["user"]
    run_memory(ctx, target="user", action="add", content="x" * (limit - 100))
    result = run_memory(ctx, target="user", action="add", content="y" * 200)
    assert result.status == "error"
    assert f"{limit - 100:,}" in result.content and f"{limit:,}" in result.content
    assert load_entries(ctx.hermes_home, "user") == ["x" * (limit - 100)]
    # Smaller entries still fit.
    assert run_memory(ctx, target="user", action="add", content="short").status == "ok"


def test_memory_reads_hermes_files(ctx: ToolContext) -> None:
    path = ctx.hermes_home / "memories" / "MEMORY.md"
    path.parent.mkdir(parents=True)
    path.write_text("First entry\nwith two lines\n§\nSecond entry\n")
    assert load_entries(ctx.hermes_home, "memory") == ["First entry\nwith two lines", "Second entry"]
    run_memory(ctx, action="add", content="Third")
    assert path.read_text() == "First entry\nwith two lines\n§\nSecond entry\n§\nThird\n"


# ----------------------------------------------------------------------------------------- session_search


@dataclass
class Hit:
    session_id: str
    message_id: int
    seq: int
    role: str
    snippet: str
    session_title: str | None
    tool_name: str | None = None
    rank: float = 0.0
    created_at: float = 1_700_000_000.0


class FakeStore:
    def __init__(self, hits: list[Hit]) -> None:
        self.hits = hits
        self.calls: list[tuple[str, int]] = []

    def search(self, query: str, *, limit: int = 20) -> list[Hit]:
        self.calls.append((query, limit))
        return self.hits[:limit]


def test_session_search_groups_by_session_and_marks_matches(ctx: ToolContext) -> None:
    ctx.store = FakeStore(
        [
            Hit("current", 1, 1, "user", "the \x02docker\x03 thing now", "This one"),
            Hit("old1", 5, 3, "user", "how do I run \x02docker\x03 compose", "Docker setup"),
            Hit("old1", 6, 4, "tool", "\x02docker\x03 ps output", "Docker setup", tool_name="terminal"),
            Hit("old2", 9, 2, "assistant", "use \x02docker\x03 volumes", None),
            Hit("old3", 9, 2, "assistant", "more \x02docker\x03", "Third"),
        ]
    )
    result = session_search(SessionSearchArgs(query="docker", limit=2), ctx)
    assert result.status == "ok"
    assert "current" not in result.content
    assert "1. Docker setup (session old1" in result.content
    assert "[user #3, message 5] how do I run >>>docker<<< compose" in result.content
    assert "[tool:terminal #4, message 6] >>>docker<<< ps output" in result.content
    assert "2. (untitled) (session old2" in result.content
    assert "old3" not in result.content
    assert [r["session_id"] for r in result.data["results"]] == ["old1", "old2"]
    assert "\x02" not in result.content and "\x03" not in result.content

    with_current = session_search(SessionSearchArgs(query="docker", include_current=True), ctx)
    assert with_current.data["results"][0]["session_id"] == "current"


def test_session_search_limit_is_capped_and_empty(ctx: ToolContext) -> None:
    store = FakeStore([])
    ctx.store = store
    result = session_search(SessionSearchArgs(query="nothing", limit=50), ctx)
    assert result.status == "ok"
    assert "No past sessions match" in result.content
    assert store.calls and store.calls[0][0] == "nothing"
    # No query and no session: the browse shape, which this store cannot do (one clear line).
    browse = session_search(SessionSearchArgs(query="  "), ctx)
    assert browse.status == "error" and "listing sessions is not available" in browse.content


def test_session_search_without_store(ctx: ToolContext) -> None:
    result = session_search(SessionSearchArgs(query="x"), ctx)
    assert result.status == "error"
    assert "session search is not available" in result.content


def test_session_search_store_error(ctx: ToolContext) -> None:
    class Broken:
        def search(self, query: str, *, limit: int = 20) -> list[Hit]:
            raise ValueError("fts5: syntax error near '\"'")

    ctx.store = Broken()
    result = session_search(SessionSearchArgs(query='"'), ctx)
    assert result.status == "error" and "syntax error" in result.content


# ------------------------------------------------------------------------------------------------ builtin


def test_builtin_registry_flags_and_schemas() -> None:
    registry = default_registry()
    assert registry.names == [
        "browser_back",
        "browser_click",
        "browser_console",
        "browser_get_images",
        "browser_navigate",
        "browser_press",
        "browser_scroll",
        "browser_snapshot",
        "browser_type",
        "browser_vision",
        "clarify",
        "cronjob",
        "delegate_task",
        "execute_code",
        "memory",
        "patch",
        "process",
        "read_file",
        "search_files",
        "session_search",
        "skill_manage",
        "skill_view",
        "skills_list",
        "terminal",
        "todo",
        "vision_analyze",
        "web_extract",
        "web_search",
        "write_file",
    ]
    tools = {t.name: t for t in builtin_tools()}
    assert {t.name: t.toolset for t in tools.values()} == {
        "browser_back": "browser",
        "browser_click": "browser",
        "browser_console": "browser",
        "browser_get_images": "browser",
        "browser_navigate": "browser",
        "browser_press": "browser",
        "browser_scroll": "browser",
        "browser_snapshot": "browser",
        "browser_type": "browser",
        "browser_vision": "browser",
        "cronjob": "cronjob",
        "execute_code": "code_execution",
        "clarify": "clarify",
        "delegate_task": "delegation",
        "memory": "memory",
        "patch": "file",
        "process": "terminal",
        "vision_analyze": "vision",
        "web_extract": "web",
        "web_search": "web",
        "read_file": "file",
        "search_files": "file",
        "session_search": "session_search",
        "skill_manage": "skills",
        "skill_view": "skills",
        "skills_list": "skills",
        "terminal": "terminal",
        "todo": "todo",
        "write_file": "file",
    }
    assert tools["read_file"].parallel_safe and tools["read_file"].path_scoped
    assert tools["write_file"].path_scoped and not tools["write_file"].parallel_safe
    assert tools["patch"].path_scoped and not tools["patch"].parallel_safe
    assert tools["search_files"].parallel_safe and tools["search_files"].summary_arg == "pattern"
    assert tools["session_search"].parallel_safe
    assert tools["clarify"].interactive and not tools["clarify"].parallel_safe
    assert tools["terminal"].summary_arg == "command"
    for schema in registry.schemas():
        fn = schema["function"]
        assert fn["description"]
        assert "$ref" not in json.dumps(fn["parameters"])
        for name, prop in fn["parameters"].get("properties", {}).items():
            assert prop.get("description"), (fn["name"], name)


def test_registry_parses_and_ignores_extra_keys(ctx: ToolContext) -> None:
    registry = default_registry()
    parsed = registry.parse_arguments(
        "todo", '{"todos": [{"id": 1, "content": "x", "extra": 2}], "junk": true}'
    )
    assert not hasattr(parsed, "status"), parsed
    tool, args = parsed
    result = registry.run(tool, args, ctx)
    assert result.status == "ok"
    assert ctx.state.todos == [{"id": "1", "content": "x", "status": "pending"}]


@pytest.mark.parametrize(
    "raw", ['{"path": "a', '{"path": "a" "b"}', '{"path": '], ids=["unterminated", "delimiter", "value"]
)
def test_invalid_json_arguments_read_as_one_sentence(raw: str) -> None:
    result = default_registry().parse_arguments("read_file", raw)
    text = getattr(result, "content", "")
    assert "Invalid JSON arguments for 'read_file'" in text
    assert "at at" not in text and "character" in text
