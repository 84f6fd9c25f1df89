"""Keys and pastes reach the widget the user meant, in the order they were typed.

Textual forwards every key to whatever has the focus *when the key is read*, and a terminal read often holds
several keys: a fast typist, a paste without bracketed-paste, tmux `send-keys`, dictation. So in
`Ctrl+R quokka⏎` all eight keys were queued on the chat prompt before Ctrl+R had opened the session browser:
the browser's search stayed empty and "quokka" was sent to the model. In `Ctrl+U hello` the prompt inserted
"hello" before Ctrl+U's binding (run when the key has bubbled up to the app) deleted the line, "hello"
included. A key's effect is rarely finished when the widget has seen it: bindings run at the app, focus
moves through `App.call_later`, a submitted slash command opens its screen a few messages later, and a new
screen gets its focus only once mounted.

The rule here: **the next key (or paste) is delivered only when the previous one has settled**, that is when
every message pump on the path from the focused widget up to the app (and the path the previous key took)
has an empty queue. A key that opens a screen therefore delivers the keys after it to that screen, once the
screen has composed, mounted and focused its widget, never to the widget behind it; a key that moves the
focus delivers the next key to the newly focused widget; an editing binding (Ctrl+U, Ctrl+W, Alt+Backspace)
runs before the characters typed after it. No screen has to opt in: a screen is ready when its mount has
been processed, so a screen that focuses its input in `compose`/`on_mount`/`AUTO_FOCUS` gets the keys typed
after the key that opened it. A screen that becomes ready later (after loading something) holds the keys
itself with `KeyOrder.hold()` and calls the returned function when it is ready.

One exception, the fast lane: a printable key that the focused text field (a `TextArea` or `Input`, editable)
consumed has no effect beyond that field: no binding ran, nothing bubbled, focus did not move. The next
printable key for the same field is delivered as soon as the field has handled the previous one, without
waiting for the screen and the app to finish what they were doing (while a reply streams they are busy
drawing it: each letter of a word waited for a frame, and five keys typed at once took 0.4 s to show).
Anything else (a key that bubbled, a binding, Enter, a paste, another field) goes the normal way.

Waiting costs nothing when the app is quiet (a key is delivered as soon as it is read) and never blocks:
each round waits on `call_later` callbacks. **A key is never dropped, only late.** A handler stuck on a slow
call must not freeze the keyboard, so after `SETTLE_PATIENCE` a key goes to the focused widget even if the
app has not settled, but only to a focused widget: while nothing has the focus (a screen is opening, a
restyle or a recompose moved it) a key delivered would reach a screen that ignores it, so it waits on, looking
again every `timing.KEY_RECHECK` s, however long the restyle or a saturated CPU takes. (A fixed 1 s timeout
used to deliver it anyway, and a key typed right after a slow theme change could be lost.) Mouse events are
not held.

`last_input_at` is when the user last typed or pasted: the chat uses it so a question that appears while the
user is typing does not take the keyboard.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events
from textual.widgets import Input, TextArea

from hermes_tui.textual_compat import bubbles_on, parent_if_stop_is_ambiguous
from widgets.support import timing

if TYPE_CHECKING:
    from textual.app import App
    from textual.message import Message
    from textual.message_pump import MessagePump
    from textual.signal import Signal
    from textual.timer import Timer

__all__ = ["KeyOrder"]

Deliver = Callable[[events.Event], Awaitable[None]]
"""Hands one key or paste to Textual's own dispatch (priority bindings, then the focused widget)."""


class KeyOrder:
    """The app's input queue: `accept()` keys and pastes read from the terminal; they are delivered in order,
    each once the previous one has settled."""

    SETTLE_PATIENCE: ClassVar[float] = timing.KEY_SETTLE_PATIENCE
    """Wait (seconds) for the app to settle after which the next key goes to the focused widget anyway
    (never when nothing has the focus: then it waits on)."""

    def __init__(self, app: App[Any], deliver: Deliver, *, clock: Callable[[], float] = time.monotonic):
        self.app = app
        self._deliver = deliver
        self._clock = clock
        self._pending: deque[events.Event] = deque()
        self._stepping = False  # a `_step` is queued or waiting for the app to settle
        self._delivering: events.Event | None = None
        self._previous_path: list[MessagePump] = []
        self._round = 0  # bumped by every round, so a stale timeout does nothing
        self._timer: Timer | None = None
        self._holds: set[int] = set()
        self._journey: _Journey | None = None  # the last key, while it still bubbles towards the app
        self._consumed_by: MessagePump | None = None  # the text field that took the last key (fast lane)
        self._next_hold = 0
        self.last_input_at: float | None = None
        """Monotonic time of the last key or paste from the terminal (None before the first)."""

    # ------------------------------------------------------------------------------------------------ API

    def takes(self, event: events.Event) -> bool:
        """True for a key or paste just read from the terminal (not one being delivered or forwarded)."""
        return (
            isinstance(event, (events.Key, events.Paste))
            and not event.is_forwarded
            and event is not self._delivering
        )

    def accept(self, event: events.Event) -> None:
        """Queue a key or paste read from the terminal; it is delivered after the ones before it."""
        self.last_input_at = self._clock()
        self._pending.append(event)
        self._schedule()

    def typed_within(self, seconds: float) -> bool:
        """True if the user typed or pasted in the last `seconds` (or keys are still waiting)."""
        if self._pending:
            return True
        return self.last_input_at is not None and self._clock() - self.last_input_at < seconds

    @property
    def pending(self) -> int:
        """Keys and pastes read but not delivered yet."""
        return len(self._pending)

    @property
    def in_flight(self) -> bool:
        """True while a key or paste waits to be delivered or the last one is still on its way."""
        return bool(self._pending) or self._journey is not None

    def hold(self) -> Callable[[], None]:
        """Keep keys back until the returned function is called (a screen that is ready after its mount).

        Held keys stay queued, in order; `SETTLE_PATIENCE` does not apply to a hold, so release it on every
        path (a `finally`)."""
        token = self._next_hold
        self._next_hold += 1
        self._holds.add(token)

        def release() -> None:
            if token in self._holds:
                self._holds.discard(token)
                self._schedule()

        return release

    # ------------------------------------------------------------------------------------------- internals

    def _schedule(self) -> None:
        if self._stepping or self._holds or not self._pending:
            return
        self._stepping = True
        if not self.app.call_later(self._step, self._clock()):
            self._stepping = False

    def _path(self) -> list[MessagePump]:
        """The pumps a key delivered now would pass: the focused widget (else the screen) up to the app."""
        try:
            start = self.app.focused or self.app.screen
        except Exception:  # no screen yet, or the app is closing
            return [self.app]
        return list(start.ancestors_with_self)

    async def _step(self, started: float) -> None:
        """Deliver the next event if the app has settled, else wait one round and try again."""
        if self._holds or not self._pending:
            self._stepping = False
            return
        path = self._path()
        if self._fast_lane(path):
            busy = []
        else:
            busy = [pump for pump in dict.fromkeys([*path, *self._previous_path]) if pump.message_queue_size]
        if (busy or self._journey is not None) and not self._may_go_unsettled(started):
            self._wait_round(busy, started)
            return
        if self._journey is not None:
            self._journey.end()  # out of patience: stop following it
        event = self._pending.popleft()
        self._previous_path = path
        self._consumed_by = None
        self._delivering = event
        try:
            await self._deliver(event)
        finally:
            self._delivering = None
            if event.is_forwarded:  # handed to the focused widget: it bubbles up from there, pump by pump
                self._journey = _Journey(self, event, path)
            self._stepping = False
            self._schedule()

    def _may_go_unsettled(self, started: float) -> bool:
        """Past the patience, and a widget has the focus to take the key (a key for no widget is lost)."""
        if self._clock() - started < self.SETTLE_PATIENCE:
            return False
        try:
            focused = self.app.focused
        except Exception:  # no screen yet, or the app is closing
            return False
        return focused is not None and focused.is_attached and not focused.disabled

    def _fast_lane(self, path: list[MessagePump]) -> bool:
        """True if the next event is a printable key for the text field that consumed the previous one, or
        that is still handling it (then only its journey is waited for: where it ends decides)."""
        event = self._pending[0]
        if not path or not (isinstance(event, events.Key) and _is_text_key(event) and _takes_text(path[0])):
            return False
        journey = self._journey
        if journey is not None:
            previous = journey.event
            return (
                isinstance(previous, events.Key)
                and _is_text_key(previous)
                and bool(journey.path)
                and journey.path[0] is path[0]
            )
        return self._consumed_by is path[0]

    def _consumed(self, event: events.Event, pump: MessagePump, path: list[MessagePump]) -> None:
        """The journey of `event` ended at `pump`: remember it if a text field typed it (fast lane)."""
        if (
            path
            and pump is path[0]
            and isinstance(event, events.Key)
            and _is_text_key(event)
            and _takes_text(pump)
        ):
            self._consumed_by = pump

    def _wait_round(self, busy: list[MessagePump], started: float) -> None:
        """Step again once every busy pump has processed what it has queued now (or once out of patience,
        then every `KEY_RECHECK` s)."""
        self._round += 1
        this_round = self._round
        remaining = len(busy) + (self._journey is not None)

        def next_step() -> None:
            if this_round != self._round:
                return  # the patience timer (or the last callback) already moved on
            self._round += 1
            if self._timer is not None:
                self._timer.stop()
                self._timer = None
            self.app.call_later(self._step, started)

        def one_done() -> None:
            nonlocal remaining
            remaining -= 1
            if remaining == 0:
                next_step()

        if self._journey is not None:
            self._journey.on_end = one_done
        for pump in busy:
            if not pump.call_later(one_done):  # closing: nothing more will come from it
                one_done()
        if this_round == self._round and self._timer is None:
            left = max(self.SETTLE_PATIENCE - (self._clock() - started), timing.KEY_RECHECK) + 0.01
            self._timer = self.app.set_timer(left, next_step, name="key-order-settle")


def _is_text_key(event: events.Key) -> bool:
    """A key that types a character (no Ctrl or Alt with it: those are bindings)."""
    return event.is_printable and not event.key.startswith(("ctrl+", "alt+", "meta+", "super+"))


def _takes_text(pump: MessagePump) -> bool:
    """An editable, focused text field: a printable key only ever inserts its character there."""
    if not isinstance(pump, (TextArea, Input)):
        return False
    read_only = isinstance(pump, TextArea) and pump.read_only  # an Input is always editable
    return pump.has_focus and not read_only and not pump.disabled


class _Journey:
    """Follows one forwarded key up the DOM until it stops bubbling.

    Between two pumps a bubbling key is in no queue (the pump handling it has an empty queue while it runs
    the handler), so queue sizes alone would call the app settled while, say, a focused `Input` has passed
    `down` to its screen but the app has not run the binding yet. Each pump publishes `message_signal` after
    handling a message, by then it has already posted the message to its parent if it bubbles on."""

    def __init__(self, order: KeyOrder, event: events.Event, path: list[MessagePump]) -> None:
        self.order = order
        self.event = event
        self.path = path
        self.on_end: Callable[[], None] | None = None
        self._signals: list[Signal[Message]] = []
        for pump in path:
            try:
                pump.message_signal.subscribe(order.app, partial(self._handled, pump), immediate=True)
            except Exception:  # a pump that stopped running: the key will not pass it
                continue
            self._signals.append(pump.message_signal)

    def _handled(self, pump: MessagePump, message: Message) -> None:
        if message is not self.event:
            return
        bubbles = bubbles_on(pump, message, top=self.order.app)  # Textual's own rule (textual_compat)
        parent = parent_if_stop_is_ambiguous(pump, message) if bubbles else None
        # A screen's handler may have stopped it (the chat's redirect of typing to the prompt): if the parent
        # has not handled it by the time this callback, queued after it, runs, it stopped here. Without this
        # the next key waited out the whole settle patience (1 s).
        if parent is not None and parent.call_later(partial(self._unless_passed_on, pump)):
            return
        if not bubbles:
            try:
                self.order._consumed(self.event, pump, self.path)
            finally:  # whatever happens, the keys after this one are not held up
                self.end()

    def _unless_passed_on(self, pump: MessagePump) -> None:
        if self.order._journey is self:
            try:
                self.order._consumed(self.event, pump, self.path)
            finally:
                self.end()

    def end(self) -> None:
        for signal in self._signals:
            signal.unsubscribe(self.order.app)
        self._signals = []
        if self.order._journey is self:
            self.order._journey = None
        on_end, self.on_end = self.on_end, None
        if on_end is not None:
            on_end()
