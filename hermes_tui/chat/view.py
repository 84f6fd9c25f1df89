"""What the chat's controller says, done on the chat screen's widgets (`ScreenView`), and what it asks of
the engine (`ScreenEngine`: the agent, the `!` shell, the prompt's pastes expanded).

The controller (`hermes_tui.chat.controller`) decides; these adapters draw and start things. They reach
the screen through `ChatParts`, the members of `ChatScreen` they use, so this module does not import the
screen (which builds them).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING

from textual.widget import Widget

from agent.api import badge_line, expand_mentions, fetch_remote_mentions, with_attached
from hermes_tui.chat.controller import Outcome, Outgoing, Queued, Refused, RunShell, Send
from hermes_tui.chat.parts import ChatParts
from hermes_tui.chat.shell import ShellRun, shell_command
from hermes_tui.notifications import request_attention
from widgets.queued_messages import QueuedMessages
from widgets.support import timing
from widgets.transcript.entries.reply import ReplyEntry

if TYPE_CHECKING:
    from textual import events

    from agent.api import Attachment, ImageRef, Mention
    from widgets.prompt.input import PromptInput
    from widgets.transcript.view import Transcript

__all__ = ["DEMO_CUE", "ScreenEngine", "ScreenView", "redirect_typing", "welcome_line"]


class ScreenView:
    """`ChatView` on the chat screen (UI thread)."""

    def __init__(self, screen: ChatParts) -> None:
        self.screen = screen

    def outgoing(self, text: str) -> Outgoing:
        screen = self.screen
        return Outgoing(
            text,
            screen.attachments.refs,
            screen.store.read_only or "",
            shell_command(screen.prompt_input.pastes.expand(text)),
        )

    def apply(self, outcome: Outcome) -> None:
        match outcome:
            case Send(text, images):
                if images:
                    self.screen.attachments.take()  # they go with this message: the bar empties
                self._run_turn(*self._show_outgoing(text, images), images)
            case RunShell(command, typed):
                self._run_shell(command, typed)
            case Refused(kind, text, put_back):
                if put_back is not None:
                    self.screen.prompt_input.set_text(put_back)
                self.notice(kind, text)
            case Queued():
                pass

    def _is_shown(self) -> bool:
        shown: object = self.screen.app.screen
        return shown is self.screen

    def notice(self, kind: str, text: str) -> None:
        self.screen.transcript.add_notice(kind, text)

    def toast(self, text: str, timeout: float) -> None:
        self.screen.notify(text, timeout=timeout)

    def show_busy(self, busy: bool) -> None:
        self.screen.busy = busy

    def hide_spinner(self) -> None:
        self.screen.transcript.hide_spinner()

    def wake_drain(self) -> None:
        self.screen.pipeline.wake()

    def drain(self) -> None:
        self.screen.pipeline.drain()

    def when_drawn(self, callback: Callable[[], None]) -> None:
        """Run `callback` a moment after every reply's text is drawn (a burst's reply is still drawn in
        slices after its turn has ended). Not right after the frame: a collection holds the GIL, and the
        writer thread still had the last frame to send (last byte -> screen went from 0.05 to 0.4 s)."""
        if all(reply.is_drained for reply in self.screen.transcript.entries_of(ReplyEntry)):
            self.screen.set_timer(timing.GC_AFTER_DRAWN, callback, name="after-drawn")
        else:
            self.screen.set_timer(timing.GC_DRAWN_POLL, lambda: self.when_drawn(callback), name="when-drawn")

    def focus_prompt(self) -> None:
        if self._is_shown():
            self.screen.prompt_input.focus()

    def copy_selection(self) -> int:
        screen = self.screen.app.screen
        text = screen.get_selected_text()
        if not text:
            return 0
        self.screen.app.copy_to_clipboard(text)  # OSC 52: the terminal's clipboard, over ssh too
        screen.clear_selection()
        return len(text)

    def clear_prompt(self) -> None:
        if self.screen.prompt_input.text:
            self.screen.prompt_input.clear()

    def prompt_empty(self) -> bool:
        return not self.screen.prompt_input.text.strip()

    def open_rewind(self) -> None:
        if (command := self.screen.commands.find("rewind")) is not None:
            command.run(self.screen.command_context, "")

    def notify_mode(self) -> str:
        return self.screen.settings.notify

    def attention(self, why: str) -> None:
        request_attention(self.screen.app, self.screen.settings.notify, why)

    def bell(self) -> None:
        self.screen.app.bell()

    def typed_within(self, seconds: float) -> bool:
        key_order = getattr(self.screen.app, "key_order", None)
        return key_order is not None and bool(key_order.typed_within(seconds))

    def repeat(self, interval: float, callback: Callable[[], bool]) -> None:
        def tick() -> None:
            if not callback():
                timer.stop()

        timer = self.screen.set_interval(interval, tick, name="question-waits-for-a-pause")

    def _show_outgoing(self, text: str, images: tuple[ImageRef, ...]) -> tuple[str, list[str], list[Mention]]:
        """The user's message on screen; what goes on the wire: the text, the blocks attached to it, and the
        `@url:` pages still to fetch (in the turn's worker, never on the UI thread). What `!` commands
        printed since the last message and what `@` mentions name are attached to it (the model and the
        store get them; the transcript shows what was typed and a badge line). Paste tokens (`[Pasted #1:
        214 lines]`, also in queued messages) become the full pastes here."""
        screen = self.screen
        transcript = screen.transcript
        text = screen.prompt_input.pastes.expand(text)
        transcript.add_user(text, [ref.label() for ref in images])
        context = screen.shell.take_context()
        labels = [label for label, _ in context]
        blocks = [block for _, block in context]
        remote: list[Mention] = []
        if "@" in text:
            expansion = expand_mentions(text, Path(screen.settings.cwd))
            attached = [a for a in expansion.attachments if a.block]
            blocks += [a.block for a in attached]
            labels += [a.label for a in attached]
            remote = expansion.remote
            for problem in expansion.problems:
                transcript.add_notice("warn", problem)
        if labels:
            transcript.add_notice("info", badge_line(labels))
        transcript.scroll_to_latest()
        return text, blocks, remote

    def _show_fetched(self, fetched: list[Attachment]) -> None:
        transcript = self.screen.transcript
        for attachment in fetched:
            if attachment.problem:
                transcript.add_notice("warn", attachment.problem)
        labels = [a.label for a in fetched if a.block]
        if labels:
            transcript.add_notice("info", badge_line(labels))

    def _run_turn(
        self, text: str, blocks: list[str], remote: list[Mention], images: tuple[ImageRef, ...]
    ) -> None:
        """The turn runs in a thread worker (the app persists nothing itself: the agent does); `@url:`
        pages are fetched there first, with the web tools' settings, and attached with the rest."""
        screen = self.screen
        screen.turn_view.start_turn()
        session = screen.session  # its agent is built in the worker if it is not yet (a first message)
        web = screen.settings.web

        def work() -> object:
            agent = session.agent
            attached = list(blocks)
            if remote:
                fetched = fetch_remote_mentions(remote, web, interrupt=agent.interrupt_event)
                attached += [a.block for a in fetched if a.block]
                try:
                    screen.app.call_from_thread(self._show_fetched, fetched)
                except RuntimeError:  # the app is closing
                    pass
            return agent.run_conversation(with_attached(text, attached), images)

        screen.turn_worker = screen.run_worker(
            work,
            name="_run_turn",
            group="agent",
            thread=True,
            exclusive=True,
            exit_on_error=False,
        )

    def _run_shell(self, command: str, typed: str) -> None:
        """`!command`: run in the user's shell now (the controller hears when it is done)."""
        screen = self.screen
        screen.transcript.add_user(typed, shell=True)
        screen.turn_view.start_turn()

        def done(_run: ShellRun) -> None:
            try:
                screen.app.call_from_thread(screen.controller.shell_done)
            except RuntimeError:  # the app is closing
                pass

        screen.shell.start(command, done)

    def show_question(self, card: object) -> None:
        assert isinstance(card, Widget)
        bottom = self.screen.query_one("#bottom")
        assert isinstance(bottom, Widget)
        bottom.mount(card, before=bottom.query_one(QueuedMessages))

    def remove_question(self, card: object) -> None:
        if isinstance(card, Widget) and card.is_attached:  # attached: mounted, or its mount still queued
            card.remove()
            self.focus_prompt()

    def exit(self) -> None:
        self.screen.app.exit(0)


class ScreenEngine:
    """`Engine` for the chat: the session's agent and the `!` shell; the prompt's paste tokens expanded."""

    def __init__(self, screen: ChatParts) -> None:
        self.screen = screen

    def interrupt(self) -> None:
        self.screen.session.interrupt()

    def steer(self, text: str) -> None:
        self.screen.session.agent.steer(self.screen.prompt_input.pastes.expand(text))

    def stop_shell(self) -> bool:
        return self.screen.shell.stop()


def redirect_typing(
    event: events.Key,
    focused: Widget | None,
    prompt: PromptInput,
    transcript: Transcript,
    focused_bindings: Collection[str] = (),
) -> None:
    """Typing never goes nowhere: a character that reached the chat screen unhandled (the focus is on a
    tool panel, the transcript...) goes to the prompt, which takes the focus back, and so do the keys typed
    after it in the same burst."""
    if not event.is_printable or event.character is None:
        return
    if focused is prompt:
        # The prompt inserts its own keys and stops them, so a key that reaches the screen now was queued
        # to the widget that had the focus before an earlier key of the same burst moved it here.
        if not (prompt.read_only or prompt.disabled):
            event.stop()
            prompt.insert(event.character)
        return
    if focused is not None and transcript not in focused.ancestors_with_self:
        return  # a question card's choices, the queue's keys: theirs
    if event.key in focused_bindings:
        return  # the transcript's own keys (`y` copies the entry at its cursor), which come after on_key
    event.stop()
    prompt.focus()
    prompt.insert(event.character)


DEMO_CUE = (
    "This is the demo: a scripted model on this machine (no key, no network) plays one turn with tools, a "
    "question and an approval. Type anything, say hi, and press Enter."
)
"""The demo's second welcome line: an empty prompt alone does not say that typing starts the tour."""


def welcome_line(model: str, cwd: str) -> str:
    """One calm line so an empty screen still says where you are and how to get help."""
    home = str(Path.home())
    if cwd == home or cwd.startswith(home + "/"):
        cwd = "~" + cwd[len(home) :]
    return f"{model} · {cwd} · / for commands · Ctrl+R sessions · F1 help · Esc interrupts"
