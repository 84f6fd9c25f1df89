"""The approval dialog: the user decides whether a risky command may run.

Lessons this dialog encodes (Hermes issues #82647, #41098, #24912; Claude Code #36850):

- A stray Enter must never approve: **Deny has the focus** when the dialog arms.
- **No letter answers it.** A user typing "then run the tests" or "sorry" into a dialog that just took the
  keyboard must not allow `rm -rf` (with `o` for "once", it did). Approving takes a deliberate act: arrows
  (or Tab) to a choice and Enter, a click, or its digit once the dialog has been visible for
  `DIGITS_AFTER` seconds and no letter came in the last `DIGITS_AFTER` seconds ("run 2 tests" typed into
  it is typing, not a choice). Letters only say how to answer.
- Keys typed while the dialog pops up belong to whatever the user was typing, not to the dialog: for
  `GUARD_SECONDS` after it appears every key and click is ignored (the buttons are disabled, the bindings
  refuse to run).
- A command taller than its box says how many lines are hidden ("↓ 41 more lines"), and PageUp/PageDown
  scroll it: nobody approves what they could not see.
- "Deny with a reason" sends the user's words to the model with the denial, so it can do better than
  guess.
- "Always" saves a rule, so it first shows the rule in an input, prefilled with the one offered for the
  command (`git push *` for `git push origin main`), says whether it matches this command as edited, and
  saves exactly what Enter confirms; Escape goes back.
- Silence is not consent: a visible countdown ends in `ApprovalDecision.TIMEOUT`, which the agent treats as
  a denial, and an interrupt (`request.cancel`) ends in `ApprovalDecision.DENY`.
- A file edit asked about (ask mode asks every one) shows its diff under the command, added and removed
  lines in the theme's colours, in the same scrolling box: the user sees what changes before allowing it.
- The command is shown literally: control characters and invisible Unicode (ANSI escapes, carriage
  returns, bidi overrides, zero-width spaces) are made visible, so a command cannot hide what it does.
- It rings the terminal bell, because an approval nobody sees is an approval that times out.

The dialog only displays an `ApprovalRequest` and returns an `ApprovalDecision` (or, for "always", an
`ApprovalAnswer` with the edited rule) through `dismiss()`: the app pushes it with a callback that resolves
the agent thread's future.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Button, ContentSwitcher, Input, Static

from agent.api import ApprovalAnswer, ApprovalDecision, ApprovalRequest
from widgets.cards.look import card_css
from widgets.cards.question import QuestionCard
from widgets.support.text_safety import literal_text


class ApprovalDialog(QuestionCard[ApprovalRequest], ModalScreen[ApprovalDecision | ApprovalAnswer]):
    """Modal asking whether a risky command may run; dismisses with an `ApprovalDecision`, or for "always"
    an `ApprovalAnswer` carrying the rule as edited.

    Keys (after the guard): arrows or Tab move between the choices and Enter presses the focused one
    (Deny when the dialog arms); `1` allow once, `2` allow this session (twice, or then Enter), `3` always
    allow (then edit the rule, Enter to save it, Escape to go back), `4` or Escape deny, `5` deny with a
    reason (Enter sends it); PageUp/PageDown scroll a long command.
    """

    COUNTDOWN_ID = "approval-countdown"
    COUNTDOWN_LABEL = "auto-deny in"

    AUTO_FOCUS = None  # Nothing is focused until the guard ends; then Deny is.

    DIGITS_AFTER: ClassVar[float] = 1.0
    """A digit chooses only once the dialog has been visible this long, and this long after a letter."""

    # Typed as Screen types it (mypy reads Textual's `ClassVar[...] | None` as an instance variable).
    HORIZONTAL_BREAKPOINTS: list[tuple[int, str]] | None = [  # noqa: RUF012
        (0, "-tiny"),
        (40, "-narrow"),
        (116, "-wide"),
    ]
    """Below 116 columns the choices sit in rows of three, so their labels never wrap; below 40 (and in the
    first layout, before the width is known) one per row: a button narrower than its label's padding left
    it no width, and wrapping it raised."""

    VERTICAL_BREAKPOINTS: list[tuple[int, str]] | None = [(0, "-short"), (30, "-tall")]  # noqa: RUF012
    """On short terminals the command box scrolls sooner, so the buttons always stay on screen."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "approval--diff-add",
        "approval--diff-del",
        "approval--diff-hunk",
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "digit('allow_once')", "Allow once", show=False, id="approval.once"),
        Binding("2", "digit('allow_session')", "Allow this session", show=False, id="approval.session"),
        Binding("3", "digit('always')", "Always allow", show=False, id="approval.always"),
        Binding("4", "digit('deny')", "Deny", show=False, id="approval.deny"),
        Binding("5", "digit('deny_with_reason')", "Deny with a reason", show=False, id="approval.reason"),
        Binding("escape", "escape", "Deny / back", show=False, id="approval.escape"),
        Binding("left,up", "move(-1)", "Previous choice", show=False),
        Binding("right,down", "move(1)", "Next choice", show=False),
        Binding("pageup", "scroll_command(-1)", "Scroll the command up", show=False),
        Binding("pagedown", "scroll_command(1)", "Scroll the command down", show=False),
        # Ctrl+C stops the whole turn, guard or not: the chat reads `interrupted` after the denial.
        Binding(
            "ctrl+c", "interrupt", "Interrupt the turn", show=False, priority=True, id="approval.interrupt"
        ),
    ]

    DEFAULT_CSS = (
        card_css("ApprovalDialog #approval-card", "$warning")
        + """
    ApprovalDialog {
        align: center middle;

        #approval-card {
            width: 110;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            padding: 0 2;
        }
        #approval-header {
            height: 1;
            margin-top: 1;
        }
        #approval-intro {
            width: 1fr;
            color: $foreground;
            text-style: bold;
        }
        #approval-countdown {
            width: auto;
            color: $foreground-muted;
            &.-urgent {
                color: $error;
                text-style: bold;
            }
        }
        #approval-command-box {
            height: auto;
            max-height: 12;
            margin: 1 0 0 0;
            padding: 0 1;
            background: $panel;
            border-left: outer $warning;
            scrollbar-size-vertical: 1;
        }
        #approval-command {
            width: 1fr;
        }
        &.-diff #approval-command-box {
            max-height: 20;
        }
        & > .approval--diff-add {
            color: $text-success;
        }
        & > .approval--diff-del {
            color: $text-error;
        }
        & > .approval--diff-hunk {
            color: $text-accent;
        }
        #approval-more {
            height: 1;
            padding: 0 1;
            color: $text-warning;
            text-style: bold;
            display: none;
            &.-shown { display: block; }
        }
        .approval-label {
            margin-top: 1;
            color: $foreground-muted;
            text-style: bold;
        }
        #approval-reasons {
            color: $text-warning;
        }
        #approval-switcher {
            height: auto;
            margin-top: 1;
        }
        #approval-choices {
            height: auto;
            grid-size: 1;  /* one per row until the width is known (below); rows of three or five then */
            grid-gutter: 0 1;
            grid-columns: 1fr;
            grid-rows: auto;
            & Button {
                width: 1fr;
                min-width: 0;
                /* Never wrapped: laid out at a new width before the breakpoint classes follow it, a cell
                   can leave a label no width, and wrapping into none raises. */
                text-wrap: nowrap;
                text-overflow: ellipsis;
            }
        }
        #approval-confirm, #approval-reason {
            height: auto;
            & > .approval-label {
                margin-top: 0;
            }
        }
        #approval-rule, #approval-reason-input {
            height: 1;
            margin: 1 0 0 0;
            padding: 0 1;
            border: none;
            border-left: outer $primary;
            background: $panel;
        }
        #approval-rule-text {
            margin: 1 0 0 0;
            padding: 0 1;
            background: $panel;
            border-left: outer $primary;
        }
        #approval-rule-check {
            padding: 0 1;
            color: $text-success;
            &.-no-match { color: $text-warning; }
        }
        #approval-confirm-buttons {
            height: auto;
            margin-top: 1;
            grid-size: 1;
            grid-gutter: 0 1;
            grid-columns: 1fr;
            grid-rows: auto;
            & Button {
                width: 1fr;
                min-width: 0;
                /* Never wrapped: laid out at a new width before the breakpoint classes follow it, a cell
                   can leave a label no width, and wrapping into none raises. */
                text-wrap: nowrap;
                text-overflow: ellipsis;
            }
        }
        #approval-hint {
            color: $foreground-muted;
            margin-bottom: 1;
        }
        &.-narrow #approval-choices {
            grid-size: 3;
        }
        &.-wide #approval-choices {
            grid-size: 5;
        }
        &.-narrow #approval-confirm-buttons, &.-wide #approval-confirm-buttons {
            grid-size: 2;
        }
        &.-short #approval-command-box {
            max-height: 4;
        }
    }
    """
    )

    def __init__(
        self,
        request: ApprovalRequest,
        *,
        frozen: bool = False,
        clock: Callable[[], float] = time.monotonic,
        aside: Callable[[events.Key | events.Paste], None] | None = None,
        name: str | None = None,
        id: str | None = None,
    ) -> None:
        """Build the dialog for one request.

        Args:
            request: What is asked: command, reasons, rule, timeout, cancel event.
            frozen: Do not run the countdown or poll `request.cancel` (deterministic snapshots).
            clock: Monotonic clock in seconds, injectable for tests.
            aside: Where typing and pastes that do not answer the dialog go (the chat's prompt, so the
                message being written when the dialog took the keyboard goes on); None: nowhere.
            name: Screen name.
            id: Screen id.
        """
        super().__init__(request, frozen=frozen, clock=clock, name=name, id=id)
        self.aside = aside
        self._confirming = False
        self._giving_reason = False
        self.interrupted = False
        """True if the user pressed Ctrl+C here: the turn stops, not just this command."""
        self._session_armed = False  # `2` pressed once: a second one allows for the session
        self._letter_at: float | None = None  # when a letter was last typed here (typing, not choosing)

    # ----------------------------------------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="approval-card") as card:
            card.border_title = "⚠ Approval needed"
            with Horizontal(id="approval-header"):
                yield Static(intro_text(request), id="approval-intro")
                yield Static(self.countdown_text(request.timeout), id="approval-countdown")
            with VerticalScroll(id="approval-command-box", can_focus=True):
                yield Static(
                    Text.assemble(("$ ", "dim"), literal_text(request.command)),
                    id="approval-command",
                )
            yield Static("", id="approval-more")
            if request.reasons:
                yield Static("Why it needs approval", classes="approval-label")
                reasons = Text("\n").join(
                    Text.assemble("• ", literal_text(reason)) for reason in request.reasons
                )
                yield Static(reasons, id="approval-reasons")
            with ContentSwitcher(initial="approval-choices", id="approval-switcher"):
                with Grid(id="approval-choices", disabled=True):
                    yield Button(Text("Allow once (1)"), id="approval-once")
                    yield Button(Text("Allow session (2)"), id="approval-session")
                    yield Button(
                        Text("Always allow… (3)"),
                        id="approval-always",
                        disabled=not request.allow_permanent,
                    )
                    yield Button(Text("Deny (4)"), id="approval-deny", variant="error")
                    yield Button(Text("Deny, say why… (5)"), id="approval-deny-reason")
                with Vertical(id="approval-confirm"):
                    yield Static(
                        "Always allow: this rule is saved to your allowlist, and commands matching it "
                        "will run without asking again (* matches anything). Edit it if you like:",
                        classes="approval-label",
                    )
                    if self.rule_editable:
                        yield Input(self.suggested_rule, id="approval-rule", select_on_focus=False)
                    else:  # invisible characters in it: shown escaped, saved exactly, not editable
                        yield Static(literal_text(self.suggested_rule), id="approval-rule-text")
                    yield Static(self._check_text(self.suggested_rule), id="approval-rule-check")
                    with Grid(id="approval-confirm-buttons"):
                        yield Button(
                            Text("Save rule and allow (Enter)"),
                            id="approval-confirm-yes",
                            variant="warning",
                        )
                        yield Button(Text("Back (Esc)"), id="approval-confirm-back")
                with Vertical(id="approval-reason"):
                    yield Static(
                        "Deny, and tell the model why (it reads this with the denial):",
                        classes="approval-label",
                    )
                    yield Input(placeholder="e.g. use the build script instead", id="approval-reason-input")
            yield Static(self._hint_text(), id="approval-hint")

    @property
    def suggested_rule(self) -> str:
        """The rule offered when "Always" is chosen (the request's suggestion, else its exact rule)."""
        return self.request.suggested_rule or self.request.rule or self.request.command

    @property
    def rule_editable(self) -> bool:
        """Only a rule of visible characters goes into the input (an input would draw the others raw)."""
        return literal_text(self.suggested_rule).plain == self.suggested_rule

    @property
    def saved_rule(self) -> str:
        """The allow rule "Always" would save now: the input's text as edited, stripped."""
        inputs = self.query("#approval-rule").results(Input)
        rule_input = next(inputs, None)
        return (rule_input.value if rule_input is not None else self.suggested_rule).strip()

    def _check_text(self, rule: str) -> Text:
        """Whether `rule` covers this command, as the gate will match it."""
        subject = self.request.rule or self.request.command
        if not rule.strip():
            return Text("✗ an empty rule cannot be saved")
        if _rule_matches(rule, subject):
            return Text("✓ matches this command")
        return Text("✗ does not match this command: it runs now, and would be asked about again")

    @property
    def is_confirming(self) -> bool:
        """True while the "Always allow" rule confirmation is shown."""
        return self._confirming

    def _hint_text(self) -> Text:
        if self._confirming:
            return Text("Enter saves the rule and allows · Esc goes back")
        if self._giving_reason:
            return Text("Enter denies with this reason · Esc goes back")
        always = "3 always · " if self.request.allow_permanent else ""
        return Text(f"←→ + Enter · 1 once · 2 session · {always}4 or Esc deny · 5 say why")

    # -------------------------------------------------------------------------------------------- lifecycle

    def on_mount(self) -> None:
        if self.request.diff:
            self.add_class("-diff")
            self.query_one("#approval-command", Static).update(self._command_with_diff())
        self.app.bell()
        self._start_question()
        box = self.query_one("#approval-command-box", VerticalScroll)
        self.watch(box, "scroll_y", self._show_hidden_lines, init=False)
        self.watch(box, "virtual_size", self._show_hidden_lines, init=False)
        self.call_after_refresh(self._show_hidden_lines)

    def _command_with_diff(self) -> Text:
        """The command, then the edit's diff line by line (each line literal: a file's escapes stay
        visible text), coloured by the theme."""
        styles = {
            "+": self.get_component_rich_style("approval--diff-add", partial=True),
            "-": self.get_component_rich_style("approval--diff-del", partial=True),
            "@": self.get_component_rich_style("approval--diff-hunk", partial=True),
        }
        text = Text.assemble(("$ ", "dim"), literal_text(self.request.command), "\n")
        for line in self.request.diff.rstrip("\n").split("\n"):
            shown = literal_text(line)
            if not line.startswith(("+++", "---")):
                style = styles.get(line[:1])
                if style is not None:
                    shown.stylize(style)
            text.append("\n")
            text.append_text(shown)
        return text

    def on_resize(self) -> None:
        self.call_after_refresh(self._show_hidden_lines)

    def _show_hidden_lines(self, _value: object = None) -> None:
        """ "↓ N more lines" under a command taller than its box (and how many are above, once scrolled)."""
        try:
            box = self.query_one("#approval-command-box", VerticalScroll)
            more = self.query_one("#approval-more", Static)
        except NoMatches:  # answered (or the turn stopped) before this frame: the dialog is gone
            return
        below = max(0, round(box.max_scroll_y - box.scroll_y))
        above = max(0, round(box.scroll_y))
        parts = []
        if below:
            parts.append(f"↓ {below} more line{'s' if below != 1 else ''}")
        if above:
            parts.append(f"↑ {above} above")
        if parts:
            more.update(Text(" · ".join([*parts, "PgUp/PgDn scroll"])))
        more.set_class(bool(parts), "-shown")

    def _on_armed(self) -> None:
        """The guard is over: enable the buttons and focus Deny."""
        self.query_one("#approval-choices", Grid).disabled = False
        self.query_one("#approval-deny", Button).focus()

    def _on_cancelled(self) -> None:
        self._decide(ApprovalDecision.DENY)

    def _on_timed_out(self) -> None:
        self._decide(ApprovalDecision.TIMEOUT)

    def _decide(self, decision: ApprovalDecision | ApprovalAnswer) -> None:
        """Dismiss once with `decision`; later calls (a timer racing a key) are ignored."""
        if not self._answer_once():
            return
        if self.app.screen is not self and self in self.app.screen_stack:
            # Something was opened on top (the command palette, say) and the timeout or an interrupt
            # decided: `dismiss` pops the *top* screen, so close the ones above first, then this one.
            self.pop_until_active()
            self.app.call_later(self.dismiss, decision)
            return
        self.dismiss(decision)

    # ---------------------------------------------------------------------------------------------- actions

    def _allows(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only the actions of the current step: the choices, the rule confirmation, or the reason."""
        choosing = not self._confirming and not self._giving_reason
        if action in ("allow_once", "allow_session", "always", "deny_with_reason", "digit", "move"):
            if action == "always" and not self.request.allow_permanent:
                return False
            return choosing
        if action in ("confirm_always", "back"):
            return self._confirming or self._giving_reason
        return True

    def on_key(self, event: events.Key) -> None:
        """A letter is typing, never a choice: it only says how to answer (and holds the digits back), and
        goes `aside` (to the prompt) with the digits that are not a choice and Backspace. It is not
        stopped: nothing above binds a plain letter, and the key order follows it to the app."""
        if isinstance(self.focused, Input):
            return  # the rule or the reason being written
        if event.key == "backspace":
            self._send_aside(event)
            return
        if not (event.is_printable and event.character):
            return
        if event.character.isdigit():
            if not self._digits_count():
                self._send_aside(event)  # typing: the digit binding does nothing now either
            return
        self._letter_at = self._clock()
        self._send_aside(event)
        if self.accepts_input:
            where = "goes to your message" if self.aside is not None else "does not answer this"
            self.query_one("#approval-hint", Static).update(
                Text(f"Typing {where}: ←→ and Enter, or 1-5 · Esc denies")
            )

    def on_paste(self, event: events.Paste) -> None:
        """A paste never answers: it goes to the prompt (an Input being written takes its own)."""
        if not isinstance(self.focused, Input):
            self._send_aside(event)

    def _send_aside(self, event: events.Key | events.Paste) -> None:
        if self.aside is not None:
            self.aside(event)

    def _digits_count(self) -> bool:
        """A digit is a choice once the dialog has been seen for a moment and no letter came just before."""
        now = self._clock()
        shown = self._shown_at if self._shown_at is not None else now
        if now - shown < self.DIGITS_AFTER:
            return False
        return self._letter_at is None or now - self._letter_at >= self.DIGITS_AFTER

    def action_digit(self, action: str) -> None:
        if not self._digits_count():
            return
        if action == "always" and not self.request.allow_permanent:
            return
        getattr(self, f"action_{action}")()

    def action_move(self, step: int) -> None:
        """Arrows move the focus over the choices that can be pressed (wrapping around)."""
        buttons = [b for b in self.query("#approval-choices Button").results(Button) if not b.disabled]
        if not buttons:
            return
        focused = self.focused
        index = buttons.index(focused) if isinstance(focused, Button) and focused in buttons else -1
        if index < 0:
            index = next((i for i, b in enumerate(buttons) if b.id == "approval-deny"), 0)
            buttons[index].focus()
            return
        buttons[(index + step) % len(buttons)].focus()

    def action_scroll_command(self, direction: int) -> None:
        box = self.query_one("#approval-command-box", VerticalScroll)
        if direction < 0:
            box.scroll_page_up(animate=False)
        else:
            box.scroll_page_down(animate=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "interrupt":  # also during the guard: stopping is never a stray key's harm
            return not self.is_answered
        return super().check_action(action, parameters)

    def action_interrupt(self) -> None:
        self.interrupted = True
        self._decide(ApprovalDecision.DENY)

    def action_allow_once(self) -> None:
        self._decide(ApprovalDecision.ONCE)

    def action_allow_session(self) -> None:
        """`2` widens permission for the whole session, so it needs a second `2` (or Enter on the button it
        focuses)."""
        if self._session_armed:
            self._decide(ApprovalDecision.SESSION)
            return
        self._session_armed = True
        self.query_one("#approval-session", Button).focus()
        self.query_one("#approval-hint", Static).update(
            Text("2 again (or Enter) allows this for the whole session · 4 or Esc deny")
        )

    def _allow_session_now(self) -> None:
        """The session button pressed (Enter on it, or a click): deliberate, no second key needed."""
        self._decide(ApprovalDecision.SESSION)

    def action_deny(self) -> None:
        self._decide(ApprovalDecision.DENY)

    def action_escape(self) -> None:
        """Escape steps back from the rule confirmation or the reason, otherwise denies."""
        if self._confirming or self._giving_reason:
            self.action_back()
        else:
            self._decide(ApprovalDecision.DENY)

    def action_deny_with_reason(self) -> None:
        """Ask for the reason; Enter denies with it (an empty one is a plain denial)."""
        self._giving_reason = True
        self.query_one(ContentSwitcher).current = "approval-reason"
        self.query_one("#approval-hint", Static).update(self._hint_text())
        self.query_one("#approval-reason-input", Input).focus()

    @on(Input.Submitted, "#approval-reason-input")
    def _reason_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.accepts_input and self._giving_reason:
            self._decide(ApprovalAnswer(ApprovalDecision.DENY, reason=event.value.strip()))

    def action_always(self) -> None:
        """Show the rule that would be saved and ask again; nothing is decided yet. A shell hook's consent
        has no rule to edit: its command is remembered as it is."""
        if self.request.subject == "shell hook":
            self._decide(ApprovalAnswer(ApprovalDecision.ALWAYS, self.request.rule))
            return
        self._set_confirming(True)

    def action_confirm_always(self) -> None:
        """Save the rule as edited and allow; an empty rule is refused (it says so below the input)."""
        rule = self.saved_rule
        if not rule:
            return
        self._decide(ApprovalAnswer(ApprovalDecision.ALWAYS, rule))

    @on(Input.Changed, "#approval-rule")
    def _rule_edited(self, event: Input.Changed) -> None:
        event.stop()
        check = self.query_one("#approval-rule-check", Static)
        check.update(self._check_text(event.value))
        subject = self.request.rule or self.request.command
        check.set_class(not _rule_matches(event.value, subject), "-no-match")

    @on(Input.Submitted, "#approval-rule")
    def _rule_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.accepts_input and self._confirming:
            self.action_confirm_always()

    def action_back(self) -> None:
        self._giving_reason = False
        self._set_confirming(False)

    def _set_confirming(self, confirming: bool) -> None:
        self._confirming = confirming
        self.query_one(ContentSwitcher).current = "approval-confirm" if confirming else "approval-choices"
        self.query_one("#approval-hint", Static).update(self._hint_text())
        if confirming and self.rule_editable:
            rule_input = self.query_one("#approval-rule", Input)
            rule_input.focus()
            rule_input.cursor_position = len(rule_input.value)
        elif confirming:
            self.query_one("#approval-confirm-yes", Button).focus()
        else:
            self.query_one("#approval-deny", Button).focus()

    @on(Button.Pressed)
    def _button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if not self.accepts_input:
            return
        actions: dict[str, Callable[[], None]] = {
            "approval-once": self.action_allow_once,
            "approval-session": self._allow_session_now,
            "approval-always": self.action_always,
            "approval-deny": self.action_deny,
            "approval-deny-reason": self.action_deny_with_reason,
            "approval-confirm-yes": self.action_confirm_always,
            "approval-confirm-back": self.action_back,
        }
        if (action := actions.get(event.button.id or "")) is not None:
            action()


def intro_text(request: ApprovalRequest) -> Text:
    """`terminal wants to run this command`; who asks when a subagent does, and what (an MCP tool call)."""
    if request.subject == "shell hook":  # tool_name is the hook's event; asked once per command
        return Text.assemble("a shell hook on ", literal_text(request.tool_name), " wants to run (first use)")
    plain = request.subject in ("command", "file write")  # the wording these always had
    what = " wants to run this command" if plain else f" wants to make this {request.subject}"
    if request.subject.endswith(" outside the sandbox"):  # the sandbox's escapes say where they go
        verb = "run this command" if request.subject.startswith("command") else "write this file"
        what = f" wants to {verb} outside the sandbox"
    elif request.diff:
        what = " wants to make this edit"
    intro = Text.assemble(literal_text(request.tool_name), what)
    if request.origin:
        intro = Text.assemble(literal_text(request.origin), " · ", intro)
    return intro


def _rule_matches(rule: str, subject: str) -> bool:
    """The gate's own matcher. Imported here, not at the top: `agent.approval` brings the shell model
    (~30 ms) that the first frame does not need; when a dialog is open the gate has loaded it already."""
    from agent.api import approval_rule_matches as rule_matches

    return rule_matches(rule, subject)
