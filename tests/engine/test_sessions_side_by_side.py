"""Two sessions in one process, their turns running at the same time in threads, against one scripted
server (each session's calls are matched by its first message) and one store.

Session A streams slowly after a tool call; session B asks for approval meanwhile. Each answer lands in its
own session (events and store rows), A's interrupt stops only A, and B's approval "for the session" is not
remembered by A. Sequenced by events, never by sleeps.
"""

from __future__ import annotations

import threading
from pathlib import Path

from agent.core.events import TextDelta, ToolFinished, TurnFinished
from agent.core.ui import ApprovalDecision, ApprovalRequest
from agent.session.session import Session
from agent.session.turn import TurnResult
from agent.store import SessionStore
from scripted import ScriptedServer
from tests.engine.helpers import make_settings
from tests.recording_ui import RecordingUI

PATIENCE = 30.0  # only a hung turn waits this long
RISKY = "rm -rf build"  # asks for approval; harmless in the session's own empty folder
LONG_REPLY = "alpha " * 1200


class GatedUI(RecordingUI):
    """A session's UI: says when its stream started and when its turn ends (held there until `let_end`),
    and holds an approval question until released."""

    def __init__(self, decision: ApprovalDecision) -> None:
        super().__init__(approval=decision)
        self.streaming = threading.Event()
        self.asked = threading.Event()
        self.release = threading.Event()
        self.release.set()  # answers at once unless a test clears it
        self.ending = threading.Event()
        self.let_end = threading.Event()
        self.let_end.set()

    def on_event(self, event: object) -> None:
        super().on_event(event)  # type: ignore[arg-type]
        if isinstance(event, TextDelta):
            self.streaming.set()
        if isinstance(event, TurnFinished):
            self.ending.set()  # inside the turn: its interrupt flag is still set if it was interrupted
            assert self.let_end.wait(PATIENCE), "the test never let the turn end"

    def ask_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        self.approval_requests.append(request)
        self.asked.set()
        assert self.release.wait(PATIENCE), "the test never released the approval"
        return self.approval


def _scenario() -> dict[str, object]:
    def tool(command: str, match: str) -> dict[str, object]:
        return {"match": match, "tool_calls": [{"name": "terminal", "arguments": {"command": command}}]}

    slow = {"match": "alpha", "text": LONG_REPLY, "chunk_size": 6, "delay": 0.05}  # ~60 s unless stopped
    return {
        "name": "two sessions",
        "calls": [
            tool("echo alpha-tool", "alpha"),
            slow,
            tool(RISKY, "alpha"),
            {"match": "alpha", "text": "alpha second turn"},
            tool(RISKY, "beta"),
            {"match": "beta", "text": "beta done"},
            tool(RISKY, "beta"),
            {"match": "beta", "text": "beta again"},
        ],
    }


def _start(session: Session, text: str, box: dict[str, TurnResult]) -> threading.Thread:
    thread = threading.Thread(target=lambda: box.setdefault("r", session.run_conversation(text)), daemon=True)
    thread.start()
    return thread


def test_two_sessions_run_side_by_side(hermes_home: Path, tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with ScriptedServer(_scenario()) as server:
        store = SessionStore(hermes_home / "tui" / "state.db")
        ui_a, ui_b = GatedUI(ApprovalDecision.DENY), GatedUI(ApprovalDecision.SESSION)
        a = Session(make_settings(server, hermes_home, tmp_path / "a"), ui=ui_a, store=store)
        b = Session(make_settings(server, hermes_home, tmp_path / "b"), ui=ui_b, store=store)
        try:
            box_a: dict[str, TurnResult] = {}
            box_b: dict[str, TurnResult] = {}
            thread_a = _start(a, "alpha: run a tool, then talk at length", box_a)
            assert ui_a.streaming.wait(PATIENCE)  # A ran its tool and streams its long reply

            ui_b.release.clear()
            thread_b = _start(b, "beta: clean the build", box_b)
            assert ui_b.asked.wait(PATIENCE)  # B waits for its approval while A streams
            assert thread_a.is_alive() and thread_b.is_alive()

            ui_a.let_end.clear()
            a.interrupt()  # A's Esc
            assert ui_a.ending.wait(PATIENCE)  # A ends, its flag still set: B's is not
            assert a.interrupted and not b.interrupted
            assert not ui_b.approval_requests[0].cancel.is_set()
            ui_a.let_end.set()
            thread_a.join(PATIENCE)
            assert not thread_a.is_alive()
            assert thread_b.is_alive() and not b.interrupted  # B still waits, untouched
            ui_b.release.set()  # "yes, for this session"
            thread_b.join(PATIENCE)
            assert not thread_b.is_alive()

            first_a, first_b = box_a["r"], box_b["r"]
            # What A streamed before its Esc, kept as a part of the reply (one chunk of it, under load).
            assert first_a.exit_reason == "interrupted" and first_a.final_text.startswith("alpha")
            assert LONG_REPLY.startswith(first_a.final_text) and len(first_a.final_text) < len(LONG_REPLY)
            assert first_b.exit_reason == "completed" and first_b.final_text == "beta done"
            assert first_a.session_id != first_b.session_id

            # B's approval is remembered by B for its session, and only by B.
            again_b = b.run_conversation("and once more")
            assert again_b.final_text == "beta again"
            assert len(ui_b.approval_requests) == 1
            second_a = a.run_conversation("now the risky one")
            assert second_a.final_text == "alpha second turn"
            assert [r.command for r in ui_a.approval_requests] == [RISKY]  # asked, and denied

            # Each answer landed in its own session: events and stored rows.
            assert "beta" not in "".join(e.text for e in ui_a.of_type(TextDelta))
            assert "alpha" not in "".join(e.text for e in ui_b.of_type(TextDelta))
            stored_a = store.load(first_a.session_id).messages
            stored_b = store.load(first_b.session_id).messages
            assert next(m.content for m in stored_a if m.role == "user").startswith("alpha:")
            assert all("beta" not in m.content for m in stored_a)
            assert all("alpha" not in m.content for m in stored_b)
            assert stored_a[3].role == "assistant" and stored_a[3].finish_reason == "interrupted"
            assert [m.content for m in stored_b if m.role == "assistant"][-1] == "beta again"
            statuses_a = [e.status for e in ui_a.of_type(ToolFinished)]
            statuses_b = [e.status for e in ui_b.of_type(ToolFinished)]
            assert statuses_a == ["ok", "denied"] and statuses_b == ["ok", "ok"]
        finally:
            ui_a.let_end.set()  # a failed check never leaves a turn held
            ui_b.release.set()
            a.close()
            b.close()
            store.close()
