"""The transcript's model without an App: entries, positions, tool calls in call order, grouping, heights,
and what settling measures (`widgets.transcript.model`, which imports no Textual)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rich.console import Console
from rich.style import Style
from rich.theme import Theme

from widgets.transcript.entries.base import Entry
from widgets.transcript.entries.notice import NoticeEntry
from widgets.transcript.entries.tool_call import ToolCallEntry
from widgets.transcript.entries.user_message import UserMessageEntry
from widgets.transcript.markdown.render import MarkdownStyle
from widgets.transcript.model import TranscriptModel
from widgets.transcript.pacer import Pacer

ROOT = Path(__file__).resolve().parents[2]


class PlainPainter:
    """A `Painter` with no widget behind it: Rich's console, no styles, changes counted."""

    def __init__(self) -> None:
        self.console = Console(width=80, color_system=None, legacy_windows=False)
        self.generation = 0
        self.base_style = Style()
        self.markdown_style = MarkdownStyle(
            theme=Theme(), code_theme="default", code_background=None, base=Style()
        )
        self.scrolls = False
        self.changes: list[Entry] = []
        self.removed: list[Entry] = []

    @property
    def pacer(self) -> Pacer:
        raise AssertionError("no entry of these tests runs on the pacer")

    def span_style(self, component: str) -> Style:
        return Style()

    def entry_style(self, component: str) -> Style:
        return Style()

    def entry_changed(self, entry: Entry, first: int = 0, last: int | None = None) -> None:
        self.changes.append(entry)

    def remove_entry(self, entry: Entry) -> None:
        self.removed.append(entry)


def attached(*entries: Entry) -> list[Entry]:
    painter = PlainPainter()
    for entry in entries:
        entry.attach(painter)
    return list(entries)


def call(call_id: str, index: int, name: str = "terminal") -> ToolCallEntry:
    entry = ToolCallEntry(call_id, name, index)
    entry.attach(PlainPainter())
    return entry


def test_the_model_imports_no_textual() -> None:
    code = (
        "import sys, widgets.transcript.model; "
        "print(sorted(m for m in sys.modules if m.startswith('textual')))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_positions_follow_inserts_and_removals() -> None:
    model = TranscriptModel()
    first, second, third = attached(
        NoticeEntry("info", "one"), NoticeEntry("info", "two"), NoticeEntry("info", "three")
    )
    model.insert(first)
    model.insert(third)
    assert model.insert(second, at=1) == 1
    assert [model.position(e) for e in (first, second, third)] == [0, 1, 2]
    assert model.remove(second) == 1
    assert model.position(second) is None and model.position(third) == 1
    assert model.remove(second) is None
    assert len(model) == 2 and model.entries == [first, third]
    assert model.clear() == [first, third] and len(model) == 0 and model.heights.total == 0


def test_tool_calls_keep_the_models_call_order_and_are_found_by_id() -> None:
    model = TranscriptModel()
    (user,) = attached(UserMessageEntry("go"))
    model.insert(user)
    second = call("b", 1)
    model.insert(second, at=model.call_position(1))
    first = call("a", 0)
    assert model.call_position(0) == 1  # before the call with the higher index
    model.insert(first, at=model.call_position(0))
    assert model.entries == [user, first, second]
    assert model.tool_call("a") is first and model.tool_call("missing") is None
    anonymous = call("", 2)
    model.insert(anonymous)
    assert model.tool_call("c", index=2) is anonymous and anonymous.call_id == "c"
    assert model.tool_call("c") is anonymous
    assert model.last_turn_calls() == [first, second, anonymous]
    model.remove(first)
    assert model.tool_call("a") is None


def test_consecutive_tool_calls_sit_together() -> None:
    model = TranscriptModel()
    model.relayout(60)
    (notice,) = attached(NoticeEntry("info", "before"))
    one, two = call("a", 0), call("b", 1)
    for entry in (notice, one, two):
        position = model.insert(entry)
        model.regroup(position, position + 2)
    assert (one.grouped, two.grouped) == (False, True)
    assert two.gap == 0 and one.gap == Entry.GAP
    model.remove(one)
    assert two.grouped is False  # the call before it went: its gap comes back
    assert model.heights.height(1) == two.measure(60)


def test_heights_are_estimates_until_measured_and_moves_are_reported() -> None:
    moved: list[int] = []
    model = TranscriptModel(moved=moved.append)
    entries = attached(*(UserMessageEntry(f"message {n}\n" * (n % 4 + 1)) for n in range(40)))
    model.extend(entries)
    assert not any(model.heights.is_exact(i) for i in range(40))
    assert model.relayout(50) and moved == [0]
    assert not model.relayout(50)
    model.settle(10, top=None)  # from the end up: the view and a screen above it
    exact = [i for i in range(40) if model.heights.is_exact(i)]
    assert exact and exact[-1] == 39 and exact[0] > 0
    assert sum(model.heights.height(i) for i in exact) >= 20
    moved.clear()
    model.settle(10, top=0)
    assert model.heights.is_exact(0)
    assert all(y >= 0 for y in moved)
    assert model.heights.total == sum(
        entry.measure(50) if model.heights.is_exact(i) else model.heights.height(i)
        for i, entry in enumerate(entries)
    )


def test_the_last_turn_calls_open_and_close_together() -> None:
    model = TranscriptModel()
    model.relayout(60)
    (old_user,) = attached(UserMessageEntry("first"))
    old = call("old", 0)
    (user,) = attached(UserMessageEntry("second"))
    calls = [call("x", 0), call("y", 1)]
    for entry in (old_user, old, user, *calls):
        model.insert(entry)
    for entry in calls:
        entry.set_finished("ok", 0.1, "done\nand more")
    assert model.last_turn_calls() == calls
    assert model.toggle_last_turn_calls() == sum(1 for entry in calls if entry.has_body)
    assert model.latest_call_with_body() is calls[-1]


def test_revealing_an_entry_moves_the_view_only_as_far_as_needed() -> None:
    model = TranscriptModel()
    model.relayout(40)
    entries = attached(*(UserMessageEntry(f"line {n}") for n in range(30)))
    for entry in entries:
        model.insert(entry)
    target = entries[20]
    first = model.heights.offset(20) + target.gap
    end = model.heights.offset(21)
    assert model.reveal(target, first, 10) is None  # already at the top of the view
    assert model.reveal(target, first + 1, 10) == first  # above the view: its first line at the top
    assert model.reveal(target, 0, 10) == end - 10  # below: its last line at the bottom
    assert model.reveal(UserMessageEntry("elsewhere"), 0, 10) is None


def test_a_line_as_text() -> None:
    model = TranscriptModel()
    model.relayout(40)
    (notice,) = attached(NoticeEntry("info", "hello there"))
    model.insert(notice)
    lines = [model.line_text(y, 40) for y in range(model.heights.total)]
    assert any("hello there" in (line or "") for line in lines)
    assert model.line_text(model.heights.total, 40) is None
