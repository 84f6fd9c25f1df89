"""What must never happen while the fuzzer drives the app, watched from outside it.

- `ErrorWatch`: an exception that reaches a log (any logger at ERROR with a traceback or an error
  record, asyncio's "exception was never retrieved"), a thread's uncaught exception, an unraisable one.
- `ApprovalWatch`: every approval dialog the app pushes, and each answer it gives. An answer that allows
  the command must come from the dialog's own approving keys (a lone `1` or `2`, Enter or Space on a
  focused allow button or the rule input), or a click on an allow button, reaching the dialog while it was
  the screen on top. Anything else (typing, a paste, a slash command, a timer, a key sent to another screen)
  is a failure.
- `QuitWatch`: the actions being handled when the app's quit began. A quit ends only after a running
  turn is finalized (`HermesApp.action_quit` waits a few seconds at most for it), so on a loaded machine
  the exit lands while a later action is handled; it is still the quitting key's.

The dialog is recognised by what it carries (an `ApprovalRequest`), not by its module, so the watch does
not depend on where the app keeps its screens.
"""

from __future__ import annotations

import logging
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from textual.app import App
from textual.screen import Screen

from agent.api import ApprovalAnswer, ApprovalDecision, ApprovalRequest
from tests.fuzz.plan import Action


class ErrorWatch(logging.Handler):
    """Collects every exception the process reports while installed (a context manager)."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.errors: list[str] = []
        self._thread_hook: Callable[[threading.ExceptHookArgs], Any] = threading.excepthook
        self._unraisable_hook: Callable[[Any], Any] = sys.unraisablehook

    def emit(self, record: logging.LogRecord) -> None:
        # Once the app's secret filter has seen a record (`agent.core.secrets`), its exception is the
        # redacted `exc_text` and `exc_info` is gone: both carry the traceback.
        trace = record.exc_text or ""
        if record.exc_info is not None:
            trace = "".join(traceback.format_exception(*record.exc_info))
        if record.levelno < logging.ERROR and not trace:
            return
        text = f"log {record.name} {record.levelname}: {record.getMessage()}"
        if trace:
            text += "\n" + trace
        self.errors.append(text)

    def _thread_exception(self, args: threading.ExceptHookArgs) -> None:
        name = args.thread.name if args.thread is not None else "?"
        trace = "".join(traceback.format_exception(args.exc_type, args.exc_value, args.exc_traceback))
        self.errors.append(f"uncaught in thread {name}:\n{trace}")

    def _unraisable(self, unraisable: Any) -> None:
        exc = unraisable.exc_value
        trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)) if exc else ""
        self.errors.append(f"unraisable ({unraisable.err_msg}: {unraisable.object!r}):\n{trace}")

    def __enter__(self) -> ErrorWatch:
        logging.getLogger().addHandler(self)
        threading.excepthook = self._thread_exception
        sys.unraisablehook = self._unraisable
        return self

    def __exit__(self, *exc_info: object) -> None:
        logging.getLogger().removeHandler(self)
        threading.excepthook = self._thread_hook
        sys.unraisablehook = self._unraisable_hook


APPROVING_FOCUS = frozenset({"approval-once", "approval-session", "approval-confirm-yes", "approval-rule"})
"""Where Enter (or Space on a button) allows: the allow buttons, the rule confirmation and its input."""

APPROVING_CLICKS = frozenset({"approval-once", "approval-session", "approval-confirm-yes"})


@dataclass
class Cause:
    """The action being played, and where it met the app: the top screen, the dialog's focus and the dialog's
    widget under the click, seen when the dialog answers (`ApprovalWatch._where`)."""

    step: int
    action: Action
    keys: tuple[str, ...]
    click: tuple[int, int] | None = None
    dialog_on_top: bool = False
    focused_id: str | None = None
    clicked_id: str | None = None

    def may_approve(self) -> bool:
        if not self.dialog_on_top:
            return False
        if self.action.kind == "click":
            return self.clicked_id in APPROVING_CLICKS
        if len(self.keys) == 1 and self.keys[0] in ("1", "2"):
            return True
        return bool(self.keys) and self.keys[-1] in ("enter", "space") and self.focused_id in APPROVING_FOCUS


def _by(cause: Cause | None) -> str:
    if cause is None:
        return "between actions (a timer, a message, a thread: no key or click)"
    return (
        f"at step {cause.step} by {cause.action.describe()} (dialog on top: {cause.dialog_on_top}, "
        f"focus: {cause.focused_id}, under the click: {cause.clicked_id})"
    )


@dataclass
class Decision:
    result: object
    cause: Cause | None

    @property
    def allows(self) -> bool:
        decision = self.result.decision if isinstance(self.result, ApprovalAnswer) else self.result
        return decision in (ApprovalDecision.ONCE, ApprovalDecision.SESSION, ApprovalDecision.ALWAYS)


@dataclass
class ApprovalWatch:
    """Wraps the app's `push_screen` to see each approval dialog, and each dialog's `dismiss` to see its
    answer and which action gave it."""

    app: App[Any]
    dialogs: list[Screen[Any]] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    cause: Cause | None = None

    def install(self) -> None:
        push = self.app.push_screen

        def push_screen(screen: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(getattr(screen, "request", None), ApprovalRequest):
                self._watch(screen)
            return push(screen, *args, **kwargs)

        self.app.push_screen = push_screen  # type: ignore[method-assign]

    def _watch(self, dialog: Screen[Any]) -> None:
        self.dialogs.append(dialog)
        dismiss = dialog.dismiss

        def recorded(result: Any = None) -> Any:
            cause = self._where(dialog, self.cause) if self.cause is not None else None
            self.decisions.append(Decision(result, cause))
            return dismiss(result)

        dialog.dismiss = recorded  # type: ignore[method-assign]

    def before(self, step: int, action: Action, keys: tuple[str, ...], click: tuple[int, int] | None) -> None:
        self.cause = Cause(step, action, keys, click)

    def _where(self, dialog: Screen[Any], cause: Cause) -> Cause:
        """Where `cause` met the app, seen as `dialog` answers: the answer is given while the dialog handles
        the key or click, so this is what that key or click reached. Seen before the action is sent it could
        be wrong: on a loaded machine the dialog can appear between the two (a Pilot click pauses before its
        mouse-down), and a click that then lands on the armed dialog's allow button is the dialog's own."""
        on_top = self.app.screen is dialog
        focused = dialog.focused.id if on_top and dialog.focused is not None else None
        clicked = None
        if on_top and cause.click is not None:
            try:
                widget, _ = dialog.get_widget_at(*cause.click)
            except Exception:  # outside every widget
                widget = None
            while widget is not None and not (widget.id or "").startswith("approval-"):
                widget = widget.parent if not isinstance(widget, Screen) else None
            clicked = widget.id if widget is not None else None
        return replace(cause, dialog_on_top=on_top, focused_id=focused, clicked_id=clicked)

    def after(self) -> None:
        self.cause = None

    def wrongful(self) -> list[str]:
        """Each allowing answer that did not come from the dialog's own approving keys or clicks."""
        wrong = []
        for decision in self.decisions:
            if decision.allows and (decision.cause is None or not decision.cause.may_approve()):
                wrong.append(f"approval {decision.result!r} given {_by(decision.cause)}")
        return wrong

    @property
    def allowed(self) -> int:
        return sum(1 for d in self.decisions if d.allows)


@dataclass
class QuitWatch:
    """Wraps the app's `action_quit` (Ctrl+Q, `/quit`, the palette's quit and Ctrl+D on an empty prompt end
    there) to see which actions were being handled when the quit began. A second Ctrl+C at rest exits at
    once (there is no turn to finalize), so its exit is its own step's."""

    app: App[Any]
    recent: tuple[Action, ...] = ()
    begun: tuple[Action, ...] | None = None
    """The action being handled when the quit began and the two before it: a typed slash command's keys
    are posted, not awaited (`pilot_run._apply`), and Ctrl+D reaches `action_quit` through `call_later`,
    so on a loaded machine the quit can begin while a later action is handled."""

    def install(self) -> None:
        quit_app = self.app.action_quit

        async def action_quit() -> None:
            if self.begun is None:
                self.begun = self.recent
            await quit_app()

        self.app.action_quit = action_quit  # type: ignore[method-assign]

    def before(self, action: Action) -> None:
        self.recent = (*self.recent[-2:], action)
