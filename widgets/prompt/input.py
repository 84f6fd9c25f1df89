"""The multiline prompt: where the user writes to the agent.

`PromptInput` is a `TextArea` (Toad's pattern): Enter sends; a newline is Ctrl+J, Alt+Enter or `\\`+Enter
everywhere, plus Shift+Enter and Ctrl+Enter on terminals that speak the kitty keyboard protocol. What
textual 8.2.8 delivers (checked by feeding the byte sequences to its `XTermParser`):

- Enter: legacy `\\r` -> `enter`.
- Ctrl+J (and Ctrl+Enter on many terminals): `\\n` -> `ctrl+j`.
- `\\` then Enter: `backslash`, `enter`; Enter right after a backslash replaces it with a newline.
- Alt+Enter on a legacy terminal: `ESC \\r` -> plain `enter` (the alt is lost); `hermes_tui.terminal_input`
  turns it into the kitty sequence for `alt+enter` before the parser sees it.
- Shift+Enter on a legacy terminal: `\\r` -> plain `enter` (indistinguishable from Enter).
- Shift/Alt/Ctrl+Enter with the kitty keyboard protocol: `ESC[13;2u` / `;3u` / `;5u` -> `shift+enter` /
  `alt+enter` / `ctrl+enter`.

So Ctrl+J, Alt+Enter and `\\`+Enter work on every terminal. Textual asks the terminal for the kitty
protocol on start, so on kitty, WezTerm, foot, Ghostty and recent iTerm2/Alacritty the modified Enter keys
work too (the placeholder mentions both Shift+Enter and Ctrl+J).

Large pastes arrive as one `events.Paste` (bracketed paste) and are inserted as one edit, never split into
several submissions (Hermes #19494); line endings are normalised (a CRLF paste would otherwise become twice
as many lines). A big paste (`widgets.prompt.pastes.is_big`) is kept in `PromptInput.pastes` and the prompt
shows its token, `[Pasted #1: 214 lines]`: edits never cut a token (Backspace at it deletes the whole paste,
the cursor steps over it, undo restores it whole), Ctrl+O expands it into plain text, and `full_text` /
`pastes.expand` give the text with every paste in full (what is sent). Up on an empty prompt first takes the
last queued message back (`queue_source`), then walks the history. History (Up on the first visual row,
Down on the last) keeps the unsent draft. Typing `/` shows matching slash commands; Tab completes, Up/Down
choose, Escape hides the list.

`PromptBar` wraps the input with its prompt symbol and the slash-command dropdown.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import OptionList, Static, TextArea
from textual.widgets.option_list import Option
from textual.widgets.text_area import Edit, EditResult, Selection

from agent.api import format_size
from widgets.prompt.history_search import HistorySearch
from widgets.prompt.pastes import PasteStore, TokenSpan, is_big
from widgets.support import timing
from widgets.support.text_safety import PASTE_KEEP, visible_controls

PLACEHOLDERS = (
    "Message Hermes… (Enter to send, Shift+Enter/Ctrl+J for newline, / for commands)",
    "Message Hermes… (Enter send · Ctrl+J newline · / commands)",
    "Message Hermes… (/ for commands)",
    "Message Hermes…",
)
"""The prompt's placeholder, longest first: the widest that fits the prompt is shown (a cut hint misleads)."""

Command = tuple[str, str]
"""A slash command as `(name, description)`; the name with or without its leading `/`."""

FileSource = Callable[[str], list[str]]
"""Where `@` completion comes from: the working tree's paths (`a/`, `a/b.py`) for a query, best first."""

_PASTE_MARKERS = ("\x1b[200~", "\x1b[201~")
_AT_TOKEN = re.compile(r'(?:^|(?<=\s))@"?([^\s"]*)$')


def fit_placeholder(variants: Sequence[str], width: int) -> str:
    """The first (longest) of `variants` that fits `width` cells, else the last (shortest)."""
    return next((text for text in variants if cell_len(text) <= width), variants[-1])


def shell_command(text: str) -> str | None:
    """The command of a `!` line (the user's own shell command), or None (`!!` or a lone `!` is text)."""
    stripped = text.strip()
    if not stripped.startswith("!") or stripped.startswith("!!"):
        return None
    command = stripped[1:].strip()
    return command or None


def normalize_paste(text: str) -> str:
    """Pasted text with `\\n` line endings and no leaked bracketed-paste markers (Hermes #7316)."""
    for marker in _PASTE_MARKERS:
        text = text.replace(marker, "")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def match_commands(commands: Sequence[Command], typed: str) -> list[Command]:
    """Commands for the typed `/word`: the command of exactly that name first (`/mode` before `/model`),
    then prefix matches (in registry order), then substring matches."""
    word = typed.removeprefix("/").lower()
    prefix = [command for command in commands if command[0].lstrip("/").lower().startswith(word)]
    prefix.sort(key=lambda command: command[0].lstrip("/").lower() != word)  # stable: the rest keep order
    inner = [
        command
        for command in commands
        if word and command not in prefix and word in command[0].lstrip("/").lower()
    ]
    return prefix + inner


class SlashSuggestions(OptionList, can_focus=False):
    """The dropdown of matching slash commands. Never focused: the prompt keeps the keyboard."""

    DEFAULT_CSS = """
    SlashSuggestions {
        height: auto;
        max-height: 8;
        border: none;
        padding: 0;
        margin: 0 0 0 2;
        background: transparent;
        display: none;
        &.-visible {
            display: block;
        }
        & > .option-list--option-highlighted {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
            text-style: $block-cursor-text-style;
        }
    }
    """

    def show(self, commands: Sequence[Command], highlighted: int, sigil: str = "/") -> None:
        """Show `commands` (or `@` paths, with `sigil` "@") with `highlighted` selected, or hide the list."""
        if not commands:
            self.remove_class("-visible")
            self.clear_options()
            return
        width = max(len(sigil + name.lstrip("/")) for name, _ in commands)
        self.set_options(
            Option(
                Text.assemble(
                    ((sigil + name.lstrip("/")).ljust(width), "bold"),
                    "  ",
                    Text(description, style="dim"),
                    no_wrap=True,
                    overflow="ellipsis",
                )
            )
            for name, description in commands
        )
        self.highlighted = highlighted
        self.add_class("-visible")


class PromptInput(TextArea):
    """Multiline prompt. Posts `PromptInput.Submitted(text)` on Enter and clears itself.

    Keys: Enter send; Ctrl+J (Shift+Enter, Alt+Enter, Ctrl+Enter on kitty-protocol terminals) newline;
    Up/Down on the first/last visual row walk the history (the draft is kept); with the slash dropdown
    open, Up/Down choose, Tab completes, Enter sends the highlighted command, Escape closes it.
    """

    # Enter and the newline keys are handled in `on_key`, not as priority bindings: a priority binding runs
    # when the key reaches the app, before this widget has inserted the characters typed just before it, so
    # "hello⏎" arriving in one read (a fast typist, tmux send-keys, dictation) sent an empty prompt.
    SUBMIT_KEYS: ClassVar[frozenset[str]] = frozenset({"enter"})
    NEWLINE_KEYS: ClassVar[frozenset[str]] = frozenset({"ctrl+j", "shift+enter", "alt+enter", "ctrl+enter"})

    EXPAND_LIMIT: ClassVar[int] = 256 * 1024
    """Ctrl+O expands pastes up to this many characters: laying out a 10 MB paste in the prompt takes a minute
    of CPU (measured: 87 s), the editor (Ctrl+G) takes it at once."""

    BLINK_TIMEOUT: ClassVar[float] = timing.CURSOR_BLINK_TIMEOUT
    """The next key, click or focus blinks the cursor again."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "complete", "Complete", show=False, priority=True, id="prompt.complete"),
        Binding("escape", "close_completions", "Close", show=False, id="prompt.close_completions"),
        # Only while the prompt holds a paste token (`check_action`): else Ctrl+O goes on to the screen.
        Binding("ctrl+o", "expand_paste", "Expand paste", show=False, id="prompt.expand_paste"),
        # The transcript scrolls while the prompt keeps the focus (as in Claude Code and Codex); the prompt
        # keeps Up/Down and Home/End for itself.
        Binding("pageup", "scroll_transcript('page_up')", "Scroll up", show=False),
        Binding("pagedown", "scroll_transcript('page_down')", "Scroll down", show=False),
        Binding("ctrl+home", "scroll_transcript('first')", "First message", show=False),
        Binding("ctrl+end", "scroll_transcript('latest')", "Latest", show=False),
        # Ctrl+D: delete to the right, as in TextArea; on an empty prompt it quits, as EOF does in a shell.
        Binding("ctrl+d", "delete_right_or_quit", "Delete / quit", show=False),
        # Ctrl+R with text typed: the earlier prompts that contain it (`check_action`); on an empty prompt
        # it goes on to the screen, which opens the sessions browser.
        Binding("ctrl+r", "history_search", "Search history", show=False, id="prompt.history_search"),
        # Ctrl+Z undoes while the prompt holds text (`check_action`); on an empty prompt it goes on to the
        # app, which suspends the process as a shell's programs do (`fg` resumes).
        Binding("ctrl+z", "undo", "Undo", show=False, id="prompt.undo"),
    ]

    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 1;
        max-height: 12;
        width: 1fr;
        border: none;
        padding: 0;
        background: transparent;
        &:focus {
            border: none;
            background-tint: transparent;
        }
        & > .text-area--cursor-line {
            background: transparent;
        }
        & > .prompt-input--paste {
            color: $text-accent;
            text-style: bold;
        }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = TextArea.COMPONENT_CLASSES | {"prompt-input--paste"}

    class Submitted(Message):
        """The user sent `text` (never empty or whitespace only)."""

        def __init__(self, prompt_input: PromptInput, text: str) -> None:
            super().__init__()
            self.prompt_input = prompt_input
            self.text = text

        @property
        def control(self) -> PromptInput:
            return self.prompt_input

    class EmptyEnter(Message):
        """Enter on an empty prompt (the chat sends the next queued message, if any)."""

    class ScrollTranscript(Message):
        """PageUp/PageDown, Ctrl+Home/Ctrl+End in the prompt: `where` the transcript should go
        (`page_up`, `page_down`, `first`, `latest`)."""

        def __init__(self, where: str) -> None:
            super().__init__()
            self.where = where

    async def action_delete_right_or_quit(self) -> None:
        if self.text:
            self.action_delete_right()
        else:
            await self.run_action("app.quit")  # what Ctrl+Q does: a running turn is finalized first

    def action_scroll_transcript(self, where: str) -> None:
        self.post_message(self.ScrollTranscript(where))

    def __init__(
        self,
        text: str = "",
        *,
        history: list[str] | None = None,
        commands: Iterable[Command] = (),
        record_history: bool = True,
        placeholder: str | Sequence[str] = PLACEHOLDERS,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        """Create the prompt.

        Args:
            text: Initial text.
            history: Earlier prompts, oldest first. The list is used (not copied), so the app can keep
                and persist it.
            commands: Slash commands `(name, description)` for completion.
            record_history: Append each submitted text to `history`.
            placeholder: Shown while empty; several (longest first): the widest that fits is shown.
            name: Widget name.
            id: Widget id.
            classes: Extra CSS classes.
            disabled: Start disabled.
        """
        # Before TextArea's init, which already validates a selection (see `outside_tokens`).
        self.pastes = PasteStore()
        """The big pastes whose tokens the prompt shows (see `widgets.prompt.pastes`)."""
        super().__init__(
            text,
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            highlight_cursor_line=False,
            compact=True,
            placeholder=placeholder if isinstance(placeholder, str) else placeholder[0],
            name=name,
            id=id,
            classes=classes,
            disabled=disabled,
        )
        self.placeholders: tuple[str, ...] = (
            (placeholder,) if isinstance(placeholder, str) else tuple(placeholder)
        )
        self.prompt_history: list[str] = history if history is not None else []
        self.record_history = record_history
        self.commands: list[Command] = list(commands)
        self.suggestion_view: SlashSuggestions | None = None
        self.completions: list[Command] = []
        self.completion_index = 0
        self.file_source: FileSource | None = None
        """Paths for `@` completion (set by the screen); None: no `@` completion."""
        self.completion_kind = "command"  # or "file": what the dropdown lists
        self._mention_start: tuple[int, int] | None = None  # where the `@` being completed starts
        self._completions_suppressed = False
        self._history_index: int | None = None
        self.search: HistorySearch | None = None
        """The Ctrl+R history search under way (`widgets.prompt.history_search`), or None."""
        self._draft = ""
        # Set by the screen: takes a paste that is not text to insert (image files dropped on the terminal,
        # an empty paste when the clipboard holds an image) and returns True when it did.
        self.paste_handler: Callable[[str], bool] | None = None
        self.queue_source: Callable[[], str | None] | None = None
        """Set by the screen: takes the last queued message out of the queue (None when it is empty), for
        Up on an empty prompt."""
        self._blink_timer: Timer | None = None
        self._blink_timer_armed = False
        self._blink_stopped = False

    # ------------------------------------------------------------------------------------- the cursor blink

    @property
    def is_blinking(self) -> bool:
        """True while the cursor blinks (focused, and typed in within BLINK_TIMEOUT)."""
        return self.cursor_blink and self.has_focus and self.is_mounted

    def _blink_again(self) -> None:
        """A key, click, paste or focus: the cursor blinks again, and stops BLINK_TIMEOUT after the last."""
        if self._blink_stopped:
            self._blink_stopped = False
            self.cursor_blink = True
        if self._blink_timer is not None and self._blink_timer_armed:
            self._blink_timer.reset()
        elif self.is_mounted:
            self._blink_timer = self.set_timer(self.BLINK_TIMEOUT, self._stop_blinking, name="blink-timeout")
            self._blink_timer_armed = True

    def _stop_blinking(self) -> None:
        """Past BLINK_TIMEOUT without input: the cursor stays shown and Textual's blink timer pauses."""
        self._blink_timer_armed = False
        if self.cursor_blink:
            self._blink_stopped = True  # only a blink this stopped is started again (not a user's choice)
            self.cursor_blink = False

    def on_focus(self) -> None:
        self._blink_again()

    def on_mouse_down(self) -> None:
        self._blink_again()

    # ---------------------------------------------------------------------------------------------- editing

    def on_resize(self, event: events.Resize) -> None:
        self.placeholder = fit_placeholder(self.placeholders, self.content_size.width)

    def edit(self, edit: Edit) -> EditResult:
        """Every change made by the user goes through here: a paste token is never cut (an edit touching one
        takes all of it, so undo restores all of it), then the slash completions are refreshed."""
        if len(self.pastes):
            edit = self._keep_tokens_whole(edit)
        result = super().edit(edit)
        self._completions_suppressed = False
        self.refresh_completions()
        return result

    def undo(self) -> None:
        """TextArea's undo sizes the view before it puts the cursor back: undoing an edit that added lines
        (Ctrl+O's expanded paste) left the cursor on a line that no longer exists while the scrollbar went
        away, and "The document line index 1 is out of bounds" ended the app with the draft. The cursor
        waits at the one place every document has; the undo then sets it where it was before the edit."""
        if self.history.undo_stack:
            self.selection = Selection.cursor((0, 0))
        super().undo()

    def redo(self) -> None:
        """As `undo`: a redone deletion shrinks the document under the cursor the same way."""
        if self.history.redo_stack:
            self.selection = Selection.cursor((0, 0))
        super().redo()

    async def on_paste(self, event: events.Paste) -> None:
        """Insert the whole paste as one edit (TextArea's handler does not run: `prevent_default`)."""
        event.prevent_default()
        event.stop()
        self.paste(event.text)

    def paste(self, pasted: str) -> None:
        """A paste, wherever it was made (the chat screen sends here one made with the focus elsewhere):
        the `paste_handler` may take it, else it is inserted as one edit with normalised line endings, a big
        one as its token, and the prompt takes the focus."""
        self._blink_again()
        if self.read_only:
            return
        if self.paste_handler is not None and self.paste_handler(pasted):
            return
        text = visible_controls(
            normalize_paste(pasted), keep=PASTE_KEEP, formats=False
        )  # a paste is text, never keys or escapes
        if is_big(text):
            text = self.pastes.add(text).token
        result = self.replace(text, *self.selection, maintain_selection_offset=False)
        self.move_cursor(result.end_location)
        self.focus()

    def take_typing(self, event: events.Key | events.Paste) -> None:
        """A key or paste meant for the prompt that reached another screen (a dialog that took the keyboard
        mid-sentence): a character goes in at the cursor, Backspace deletes one, a paste is a paste."""
        if self.read_only:
            return
        if isinstance(event, events.Paste):
            self.post_message(events.Paste(event.text))
        elif event.key == "backspace":
            self.action_delete_left()
        elif event.is_printable and event.character:
            self.insert(event.character)

    def on_key(self, event: events.Key) -> None:
        """Send / newline in order with the characters typed before them (see SUBMIT_KEYS); any other key
        goes on to TextArea's own handler, which runs after this one unless `prevent_default` was called."""
        self._blink_again()
        if self.search is not None and self._narrow_search(event):
            event.stop()
            event.prevent_default()
            return
        if self.search is not None and event.key != "ctrl+r" and self._end_search(event.key):
            event.stop()
            event.prevent_default()
            return
        if event.key in self.SUBMIT_KEYS:
            event.stop()
            event.prevent_default()
            if self._backslash_before_cursor():
                # `\` then Enter: a newline on every terminal (the backslash is replaced, not sent).
                start = self.cursor_location
                self.replace("\n", (start[0], start[1] - 1), start, maintain_selection_offset=False)
                return
            self.action_submit()
            return
        if event.key in self.NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.action_newline()

    def _backslash_before_cursor(self) -> bool:
        if not self.selection.is_empty or self.read_only:
            return False
        row, column = self.cursor_location
        return column > 0 and self.document[row][column - 1] == "\\"

    def action_newline(self) -> None:
        """Insert a line break at the cursor (replacing any selection)."""
        if self.read_only:
            return
        self.replace("\n", *self.selection, maintain_selection_offset=False)

    def action_submit(self) -> None:
        """Send the text (or the highlighted slash command while the dropdown is open), then clear."""
        text = self.text
        if self.completions_visible and self.completion_kind == "file":
            self.complete()  # Enter takes the highlighted path, as Tab does; the next Enter sends
            return
        if self.completions_visible:
            name = self._completion_name(self.completion_index)
            if name != text.strip():
                text = name
        if not text.strip():
            if not text:
                self.post_message(self.EmptyEnter())
            return
        self.post_message(self.Submitted(self, text))
        if self.record_history and (not self.prompt_history or self.prompt_history[-1] != text):
            self.prompt_history.append(text)
        self._history_index = None
        self._draft = ""
        self.clear()

    def set_text(self, text: str) -> None:
        """Replace the text (e.g. a queued message taken back for editing), cursor at its end.

        Unlike assigning `.text`, this leaves history navigation (the text becomes the new draft) and
        puts the cursor where the user continues typing.
        """
        self._history_index = None
        self._draft = ""
        self._load(text)

    # ---------------------------------------------------------------------------------------------- history

    class SearchChanged(Message):
        """The history search began, moved or ended: the bar shows `title` (None: no search)."""

        def __init__(self, title: str | None) -> None:
            super().__init__()
            self.title = title

    def action_history_search(self) -> None:
        """Ctrl+R: the newest earlier prompt containing what is typed; again, the next older one."""
        search = self.search
        if search is None:
            search = self.search = HistorySearch(query=self.text.strip(), draft=self.text)
        if search.step(self.prompt_history) or search.index is None:
            self._history_index = None
        if search.index is not None:
            self._load(self.prompt_history[search.index])
        self.post_message(self.SearchChanged(search.title(self.prompt_history)))

    def _narrow_search(self, event: events.Key) -> bool:
        """A character typed during the search adds to its fragment, Backspace takes one off (bash's and
        Claude Code's reverse-i-search); the newest prompt with the new fragment is shown. True when handled.
        Handled here, in key order, so a burst typed after Ctrl+R lands in the fragment in the order typed."""
        search = self.search
        if search is None:
            return False
        if event.key == "backspace":
            query = search.query[:-1]
        elif event.is_printable and event.character is not None and event.key not in self.SUBMIT_KEYS:
            query = search.query + event.character
        else:
            return False
        search.narrow(self.prompt_history, query)
        if search.index is not None:  # none found: the last match stays shown, the title says none has it
            self._load(self.prompt_history[search.index])
        self.post_message(self.SearchChanged(search.title(self.prompt_history)))
        return True

    def _end_search(self, key: str) -> bool:
        """Any key but Ctrl+R ends the search: Esc restores what was typed, Enter keeps the match to edit
        (as Claude Code's does), and both stop there (True); any other key (an arrow, Ctrl+A…) keeps the
        match and acts on it; characters and Backspace narrow the search instead (`_narrow_search`)."""
        search, self.search = self.search, None
        self.post_message(self.SearchChanged(None))
        if search is not None and key == "escape":
            self._load(search.draft)
            return True
        return key in self.SUBMIT_KEYS

    @property
    def history_index(self) -> int | None:
        """Index in `prompt_history` of the entry shown, or None while editing the draft."""
        return self._history_index

    def _load(self, text: str) -> None:
        """Show `text` (a history entry or the draft) with the cursor at its end; no dropdown for it."""
        self.load_text(text)
        self.move_cursor(self.document.end)
        self._completions_suppressed = True
        self._set_completions([])

    def history_previous(self) -> bool:
        """Show the previous (older) prompt; the draft is saved when leaving it. False at the oldest."""
        if not self.prompt_history:
            return False
        if self._history_index is None:
            self._draft = self.text
            index = len(self.prompt_history) - 1
        elif self._history_index == 0:
            return False
        else:
            index = self._history_index - 1
        self._history_index = index
        self._load(self.prompt_history[index])
        return True

    def history_next(self) -> bool:
        """Show the next (newer) prompt, or the saved draft after the newest. False on the draft."""
        if self._history_index is None:
            return False
        if self._history_index >= len(self.prompt_history) - 1:
            self._history_index = None
            self._load(self._draft)
        else:
            self._history_index += 1
            self._load(self.prompt_history[self._history_index])
        return True

    def _cursor_row(self) -> int:
        return self.wrapped_document.location_to_offset(self.cursor_location).y

    def action_cursor_up(self, select: bool = False) -> None:
        """Up: choose in the dropdown, else history from the first visual row, else move the cursor."""
        if not select:
            if self.completions_visible:
                self._move_completion(-1)
                return
            if self._is_empty() and self.queue_source is not None and (queued := self.queue_source()):
                self.set_text(queued)  # the last queued message, back for editing
                return
            if self.selection.is_empty and self._cursor_row() == 0 and self.history_previous():
                return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        """Down: choose in the dropdown, else history from the last visual row, else move the cursor."""
        if not select:
            if self.completions_visible:
                self._move_completion(1)
                return
            last_row = self.wrapped_document.height - 1
            if self.selection.is_empty and self._cursor_row() >= last_row and self.history_next():
                return
        super().action_cursor_down(select)

    # ------------------------------------------------------------------------------------------- completion

    @property
    def completions_visible(self) -> bool:
        """True while the slash-command dropdown has entries."""
        return bool(self.completions)

    def set_commands(self, commands: Iterable[Command]) -> None:
        """Replace the slash-command registry."""
        self.commands = list(commands)
        self.refresh_completions()

    def refresh_completions(self) -> None:
        """Recompute the dropdown for the text and cursor (after an edit, or when `@` paths arrive)."""
        document = self.document
        if self._completions_suppressed:
            self._set_completions([])
            return
        if self.file_source is not None and self.selection.is_empty:
            row, column = self.cursor_location
            before = document.get_line(row)[:column]
            token = _AT_TOKEN.search(before) if "@" in before else None
            if token is not None:
                self._mention_start = (row, token.start())
                paths = self.file_source(token.group(1))
                self._set_completions([(path, "") for path in paths], kind="file")
                return
        # Only a single-line `/word` can be a command; a 10,000-line paste never pays for a join.
        if document.line_count != 1:
            self._set_completions([])
            return
        line = document[0]
        if not line.startswith("/") or any(char.isspace() for char in line):
            self._set_completions([])
            return
        self._set_completions(match_commands(self.commands, line))

    def _set_completions(self, completions: list[Command], kind: str = "command") -> None:
        if completions == self.completions and kind == self.completion_kind:
            return
        self.completions = completions
        self.completion_kind = kind
        self.completion_index = 0
        self._show_completions()

    def _show_completions(self) -> None:
        if self.suggestion_view is not None:
            sigil = "@" if self.completion_kind == "file" else "/"
            self.suggestion_view.show(self.completions, self.completion_index, sigil)

    def _move_completion(self, delta: int) -> None:
        self.completion_index = (self.completion_index + delta) % len(self.completions)
        if self.suggestion_view is not None:
            self.suggestion_view.highlighted = self.completion_index

    def _completion_name(self, index: int) -> str:
        return "/" + self.completions[index][0].lstrip("/")

    def complete(self, index: int | None = None) -> None:
        """Replace the text with the chosen command and a space, ready for its arguments; for `@`, replace
        the mention being typed with the chosen path (a folder keeps completing inside it)."""
        if not self.completions:
            return
        if self.completion_kind == "file" and self._mention_start is not None:
            path = self.completions[self.completion_index if index is None else index][0]
            mention = f'@"{path}"' if any(c.isspace() for c in path) else f"@{path}"
            end = self.cursor_location
            result = self.replace(
                mention + ("" if path.endswith("/") else " "),
                self._mention_start,
                end,
                maintain_selection_offset=False,
            )
            self.move_cursor(result.end_location)
            return
        name = self._completion_name(self.completion_index if index is None else index)
        self.replace(name + " ", (0, 0), self.document.end, maintain_selection_offset=False)
        self.move_cursor(self.document.end)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Tab and Escape belong to the dropdown only while it is open (else: focus next / interrupt)."""
        if action in ("complete", "close_completions"):
            return self.completions_visible
        if action == "expand_paste":
            return self._token_to_expand() is not None
        if action == "history_search":
            return self.search is not None or bool(self.text.strip() and self.prompt_history)
        if action == "undo":
            return not self._is_empty()
        return super().check_action(action, parameters)

    def action_complete(self) -> None:
        self.complete()

    def action_close_completions(self) -> None:
        """Hide the dropdown until the next edit."""
        self._completions_suppressed = True
        self._set_completions([])

    # --------------------------------------------------------------------------------------- paste tokens

    @property
    def full_text(self) -> str:
        """The text with every paste token replaced by its paste: what the user means to send."""
        return self.pastes.expand(self.text)

    def _is_empty(self) -> bool:
        document = self.document
        return document.line_count == 1 and not document[0]

    def _span_at(self, location: tuple[int, int], *, inclusive: bool = False) -> TokenSpan | None:
        row, column = location
        if row >= self.document.line_count:
            return None
        return self.pastes.span_at(self.document[row], column, inclusive=inclusive)

    def token_highlights(self) -> list[tuple[int, int, int]]:
        """Where paste tokens are, as (row, start byte, end byte): TextArea's highlights count UTF-8 bytes.
        `textual_compat.text_area` adds them to the highlight map in the `prompt-input--paste` style, so a
        token stands out as one thing, like the attachment badges (plain Textual has no highlight hook)."""
        spans: list[tuple[int, int, int]] = []
        if not len(self.pastes):
            return spans
        for row, line in enumerate(self.document.lines):
            for span in self.pastes.spans(line):
                start = len(line[: span.start].encode())
                spans.append((row, start, start + len(span.paste.token.encode())))
        return spans

    def _keep_tokens_whole(self, edit: Edit) -> Edit:
        """Widen `edit` to the whole of any token it cuts; typing inside a token types after it."""
        start, end = sorted((edit.from_location, edit.to_location))
        if start == end:
            span = self._span_at(start)
            if span is None:
                return edit
            start = end = (start[0], span.end)
        else:
            first, last = self._span_at(start), self._span_at(end)
            if first is None and last is None:
                return edit
            if first is not None:
                start = (start[0], first.start)
            if last is not None:
                end = (end[0], last.end)
        return Edit(edit.text, start, end, edit.maintain_selection_offset)

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._theme_changed, init=False)

    def _theme_changed(self) -> None:
        if len(self.pastes):
            self.call_after_refresh(self.restyle_tokens)

    def restyle_tokens(self) -> None:
        """A new theme: the tokens get their highlight again, in its colours (`textual_compat.text_area`
        builds TextArea's highlight map again; plain Textual has no tokens highlighted to restyle)."""
        self.refresh()

    def outside_tokens(self, selection: Selection) -> Selection:
        """The cursor never rests inside a token: it steps over it in the direction it was going. Every
        selection TextArea sets passes here where `textual_compat.text_area` is active."""
        if not len(self.pastes):
            return selection
        previous = self.selection
        return Selection(
            self._outside(selection.start, previous.start), self._outside(selection.end, previous.end)
        )

    def _outside(self, location: tuple[int, int], previous: tuple[int, int]) -> tuple[int, int]:
        span = self._span_at(location)
        if span is None:
            return location
        row = location[0]
        return (row, span.start) if previous >= (row, span.end) else (row, span.end)

    def _token_to_expand(self) -> tuple[int, TokenSpan] | None:
        """The token at the cursor, else the last one in the prompt."""
        row = self.cursor_location[0]
        span = self._span_at(self.cursor_location, inclusive=True)
        if span is not None:
            return row, span
        if not len(self.pastes):
            return None
        for row in range(self.document.line_count - 1, -1, -1):
            spans = self.pastes.spans(self.document[row])
            if spans:
                return row, spans[-1]
        return None

    def action_expand_paste(self) -> None:
        """Ctrl+O: put the paste at the cursor (else the last one) into the prompt as plain, editable text."""
        found = self._token_to_expand()
        if found is None:
            return
        row, span = found
        if len(span.paste.text) > self.EXPAND_LIMIT:
            size = format_size(len(span.paste.text.encode()))
            self.notify(
                f"Paste #{span.paste.number} is too big to edit here ({size}): Ctrl+G opens it in $EDITOR.",
                severity="warning",
            )
            return
        result = self.replace(
            span.paste.text, (row, span.start), (row, span.end), maintain_selection_offset=False
        )
        self.move_cursor(result.end_location)


class PromptBar(Widget):
    """The boxed composer: slash-command dropdown, prompt symbol and `PromptInput`.

    The constructor takes the same arguments as `PromptInput` (they are passed through); `input` is the
    `PromptInput`. Its messages (`PromptInput.Submitted`) bubble through the bar.
    """

    prompt_symbol: reactive[str] = reactive("❯")
    """The symbol left of the input (e.g. a different one while the agent is busy)."""

    DEFAULT_CSS = """
    PromptBar {
        height: auto;
        margin: 0 1;
        padding: 0 1;
        border: round $border-blurred;
        background: $surface;
        &:focus-within {
            border: round $border;
        }
        &.-shell {
            border: round $warning;
            border-title-color: $warning;
        }
        &.-searching {
            border: round $accent;
            border-title-color: $accent;
        }
        #prompt-row {
            height: auto;
        }
        #prompt-symbol {
            width: 2;
            color: $primary;
            text-style: bold;
        }
    }
    """

    def __init__(
        self,
        text: str = "",
        *,
        history: list[str] | None = None,
        commands: Iterable[Command] = (),
        record_history: bool = True,
        placeholder: str | Sequence[str] = PLACEHOLDERS,
        prompt_symbol: str = "❯",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.suggestions = SlashSuggestions(id="slash-suggestions")
        self.input = PromptInput(
            text,
            history=history,
            commands=commands,
            record_history=record_history,
            placeholder=placeholder,
            id="prompt-input",
        )
        self.input.suggestion_view = self.suggestions
        self.set_reactive(PromptBar.prompt_symbol, prompt_symbol)

    def compose(self) -> ComposeResult:
        yield self.suggestions
        with Horizontal(id="prompt-row"):
            yield Static(Text(self.prompt_symbol), id="prompt-symbol")
            yield self.input

    def watch_prompt_symbol(self, symbol: str) -> None:
        # Query rather than test `is_mounted`: the symbol may change between compose and mount.
        for static in self.query("#prompt-symbol").results(Static):
            static.update(Text(symbol))

    @on(PromptInput.SearchChanged)
    def _show_search(self, event: PromptInput.SearchChanged) -> None:
        event.stop()
        self.set_class(event.title is not None, "-searching")
        self.border_title = event.title
        if event.title is None:
            self._mark_shell_mode()

    @on(TextArea.Changed, "#prompt-input")
    def _mark_shell_mode(self) -> None:
        """A `!` line runs in the user's shell: the box says so while one is typed (Claude Code's cue)."""
        first = self.input.document.get_line(0)
        shell = first.lstrip().startswith("!") and not first.lstrip().startswith("!!")
        self.set_class(shell, "-shell")
        if self.input.search is None:  # else the search's title is shown until it ends
            self.border_title = "! shell command: runs in your shell, Esc stops it" if shell else None

    def focus_input(self) -> None:
        """Give the keyboard to the input."""
        self.input.focus()

    @on(OptionList.OptionSelected, "#slash-suggestions")
    def _suggestion_clicked(self, event: OptionList.OptionSelected) -> None:
        """A click on a suggestion completes it, like Tab."""
        event.stop()
        self.input.complete(event.option_index)
        self.input.focus()
