"""The bridge's questions: an unanswered one ends with no answer, never with a made-up one."""

from __future__ import annotations

import threading

import pytest
from textual.app import App

from agent.core.ui import ApprovalDecision, ApprovalRequest, ClarifyRequest
from hermes_tui.chat import bridge as bridge_module
from hermes_tui.chat.bridge import ApprovalAsked, ClarifyAsked, UIBridge


class SilentApp(App[None]):
    """Receives the questions and never answers them (a UI that froze, or had no card to show)."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[object] = []

    def on_clarify_asked(self, message: ClarifyAsked) -> None:
        self.asked.append(message)

    def on_approval_asked(self, message: ApprovalAsked) -> None:
        self.asked.append(message)


async def _ask_in_thread(app: SilentApp, ask: object) -> object:
    result: list[object] = []
    done = threading.Event()

    def run() -> None:
        result.append(ask())  # type: ignore[operator]
        done.set()

    threading.Thread(target=run, daemon=True).start()
    async with app.run_test() as pilot:
        while not done.is_set():
            await pilot.pause(0.05)
    return result[0]


async def test_a_clarify_nobody_answers_gets_no_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bridge_module, "ANSWER_GRACE", 0.0)
    app = SilentApp()
    ui = UIBridge(app)
    answer = await _ask_in_thread(app, lambda: ui.ask_clarify(ClarifyRequest("Which?", ("a", "b"), 0.2)))
    assert answer is None
    assert len(app.asked) == 1


async def test_an_approval_nobody_answers_times_out_and_an_interrupt_denies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bridge_module, "ANSWER_GRACE", 0.0)
    app = SilentApp()
    ui = UIBridge(app)
    request = ApprovalRequest("rm -rf build", ("recursive delete",), ("rm",), 0.2)
    assert await _ask_in_thread(app, lambda: ui.ask_approval(request)) is ApprovalDecision.TIMEOUT
    cancelled = ApprovalRequest("rm -rf build", ("recursive delete",), ("rm",), 60.0)
    cancelled.cancel.set()
    other = SilentApp()
    assert (
        await _ask_in_thread(other, lambda: UIBridge(other).ask_approval(cancelled)) is ApprovalDecision.DENY
    )
