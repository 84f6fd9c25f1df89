"""The session browser: every session, full-text search over their messages, and what to do with one.

A search `Input` over a list of sessions (most recently active first) and a preview of the highlighted one.
Typing filters live: the text is one query (`agent.store.query`: words, `"phrases"`, `OR`, `NOT`/`-word`,
`prefix*`, parentheses; anything else is searched literally) matched against titles and ids here and
against message content, tool names and tool arguments by the store, with the same meaning for both.

Why it is built this way:

- `OptionList`, not `ListView`: 5,000 rows fill in ~0.3 s instead of ~10 s (docs/architecture.md). Rows
  (`rows.py`) are Rich `Text` built from data (never markup), styled with this screen's component classes,
  so they follow the theme; they are rebuilt when the theme changes.
- A search runs in a thread a page at a time (`search.py`): the first results are on screen while a slow
  query goes on; a new keystroke cancels it (its SQL stops) and bumps a generation counter, so a page of
  an old query never reaches the list.
- Relative times use an injectable clock (`now=`) so snapshots do not depend on the wall clock.

Sessions of Hermes' own history (when the store is a `SessionLibrary`) are listed beside ours with a
"hermes" badge: searched and previewed alike, never changed; resuming one continues in a copy.

Keys: Enter (or a double click) resumes, `r` renames, `d` deletes (after a confirmation whose default is
Cancel), `b` branches (up to the selected search hit, else the whole session) and opens the branch, `e`
exports (Markdown, or JSON for a `.json` path), `/` goes back to the search, Escape clears the search and
then closes. The screen dismisses with a `SessionsResult`, or None when closed.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from hermes_tui.export import ExportFormat, default_export_path, short_path, write_export
from hermes_tui.screens.export_prompt import ExportPathModal
from hermes_tui.screens.modals import ConfirmModal, PromptModal
from hermes_tui.screens.sessions.preview import build_preview, fetch_preview
from hermes_tui.screens.sessions.rows import (
    STATUS_GLYPHS,
    RowStyles,
    SessionRow,
    nest_subagents,
    one_line,
    session_prompt,
)
from hermes_tui.screens.sessions.search import SearchGate, SessionSearch
from hermes_tui.screens.sessions.widgets import SearchInput, SessionList
from hermes_tui.textual_compat import can_page
from widgets.transcript.markdown.look import MarkdownView

if TYPE_CHECKING:
    from agent.api import SessionInfo, SessionStoreProtocol, ToolRegistry

__all__ = ["SessionsResult", "SessionsScreen"]

_EXCLUDING = re.compile(r'(?:^|\s)-[\w"(]')


@dataclass(frozen=True)
class SessionsResult:
    """What the user chose in the browser. `action` is always "resume" for now: resume `session_id`
    (an existing session, or the branch just created)."""

    action: Literal["resume"]
    session_id: str


class SessionsScreen(Screen["SessionsResult | None"]):
    """Browse, search and manage sessions; dismisses with `SessionsResult` or None.

    Args:
        store: the session store.
        now: the clock for relative times: a timestamp, or a callable returning one (default `time.time`).
        current_id: the session open in the chat, if any (shown as active rather than interrupted).
        home: the directory shown as `~` (default: the user's home).
        query: initial search text.
        export_dir: where relative export paths resolve (default: the current directory).
        registry: the agent's `ToolRegistry`, for tool-call summaries in the preview (optional).
        search_gate: called in the search thread before each page of results (tests hold pages back).
    """

    DEBOUNCE: ClassVar[float] = 0.15
    """Seconds of typing pause before a search runs."""
    LIST_LIMIT: ClassVar[int] = 20_000
    """At most this many sessions are listed (most recent first)."""
    HIT_LIMIT: ClassVar[int] = 200
    """Message hits fetched per search."""
    HIT_PAGE: ClassVar[int] = 50
    """Message hits fetched (and shown) at a time."""
    FIRST_PAGE: ClassVar[int] = 100
    """Sessions fetched and shown first when the screen opens, before the full list."""
    CHUNK: ClassVar[int] = 200
    """Options put in the list at once (a screenful and more); the rest follow in `FEED_CHUNK`s."""
    FEED_CHUNK: ClassVar[int] = 1000
    """Options added per step in the background (~50 ms of work: keys stay responsive)."""

    AUTO_FOCUS = "#sessions-search"
    # Typed as Screen types it (mypy reads Textual's `ClassVar[...] | None` as an instance variable).
    HORIZONTAL_BREAKPOINTS: list[tuple[int, str]] | None = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="sessions.back"),
        # As in the chat: Ctrl+C clears what is typed, else leaves (Textual's default says "press ctrl+q").
        Binding("ctrl+c", "back", show=False, priority=True),
        Binding("enter", "resume", "Resume", key_display="↵", id="sessions.resume"),
        Binding("r", "rename", "Rename", id="sessions.rename"),
        Binding("d", "delete", "Delete", id="sessions.delete"),
        Binding("b", "branch", "Branch", id="sessions.branch"),
        Binding("e", "export", "Export", id="sessions.export"),
        Binding("slash", "focus_search", "Search", show=False, id="sessions.search"),
        Binding("down", "cursor_down", "Next", show=False),
        Binding("up", "cursor_up", "Previous", show=False),
        Binding("pagedown", "page_down", show=False),
        Binding("pageup", "page_up", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "sessions--completed",
        "sessions--active",
        "sessions--interrupted",
        "sessions--error",
        "sessions--empty",
        "sessions--title",
        "sessions--meta",
        "sessions--match",
        "sessions--user",
        "sessions--assistant",
        "sessions--note",
        "sessions--tool",
        "sessions--anchor",
        "sessions--heading",
        "sessions--hermes",
    }

    DEFAULT_CSS = """
    SessionsScreen {
        layout: vertical;
        background: $background;

        & > .sessions--completed { color: $success; }
        & > .sessions--active { color: $accent; }
        & > .sessions--interrupted { color: $warning; }
        & > .sessions--error { color: $error; }
        & > .sessions--empty { color: $text-muted; }
        & > .sessions--title { color: $foreground; }
        & > .sessions--meta { color: $text-muted; }
        & > .sessions--match { color: $text-warning; background: $warning-muted; text-style: bold; }
        & > .sessions--user { color: $text-primary; text-style: bold; }
        & > .sessions--assistant { color: $text-secondary; text-style: bold; }
        & > .sessions--note { color: $text-muted; text-style: italic; }
        & > .sessions--tool { color: $text-secondary; }
        & > .sessions--anchor { color: $accent; text-style: bold; }
        & > .sessions--heading { color: $foreground; text-style: bold; }
        & > .sessions--hermes { color: $text-accent; background: $accent-muted; text-style: bold; }

        #sessions-search {
            margin: 0 1;
            border: round $border-blurred;
            border-title-color: $primary;
            border-title-style: bold;
            border-subtitle-color: $text-muted;
            background: $background;
            &:focus { border: round $primary; background-tint: transparent; }
        }
        #sessions-body { height: 1fr; }
        #sessions-list-area { width: 3fr; height: 1fr; }
        #sessions-list {
            height: 1fr;
            border: none;
            background: $background;
            text-wrap: nowrap;
            text-overflow: ellipsis;
            scrollbar-size-vertical: 1;
            padding: 0;
            & > .option-list--option { padding: 0 1; }
            & > .option-list--option-highlighted {
                color: $foreground;
                background: $primary 12%;
                text-style: none;
            }
            &:focus {
                background-tint: transparent;
                & > .option-list--option-highlighted {
                    color: $foreground;
                    background: $primary 25%;
                    text-style: none;
                }
            }
        }
        #sessions-empty {
            height: 1fr;
            width: 1fr;
            content-align: center middle;
            text-align: center;
            color: $text-muted;
            display: none;
            padding: 0 2;
        }
        #sessions-preview {
            width: 2fr;
            height: 1fr;
            border-left: tall $panel;
            padding: 0 1 0 2;
            scrollbar-size-vertical: 1;
            &:focus { background-tint: transparent; }
        }
        #sessions-preview-body { width: 1fr; height: auto; }
        #sessions-preview-markdown { display: none; }
        &.-empty #sessions-list { display: none; }
        &.-empty #sessions-empty { display: block; }
        &.-empty #sessions-preview { display: none; }
        &.-narrow #sessions-body { layout: vertical; }
        &.-narrow #sessions-list-area { width: 1fr; height: 3fr; }
        &.-narrow #sessions-preview {
            width: 1fr;
            height: 2fr;
            border-left: none;
            border-top: hkey $panel;
            padding: 0 1;
        }
    }
    """

    def __init__(
        self,
        store: SessionStoreProtocol,
        *,
        now: float | Callable[[], float] | None = None,
        current_id: str | None = None,
        home: str | None = None,
        query: str = "",
        export_dir: Path | None = None,
        registry: ToolRegistry | None = None,
        search_gate: SearchGate | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.store = store
        self._clock: Callable[[], float] = (
            now if callable(now) else (lambda: float(now)) if now is not None else time.time
        )
        self.current_id = current_id
        self.home = home if home is not None else os.path.expanduser("~")
        self.initial_query = query
        self.export_dir = export_dir
        self.rows: list[SessionRow] = []
        """The rows on screen, in order (row i is option i)."""
        self.shown_query: str | None = None
        """The search text whose results are on screen (None until the first load completes)."""
        self.search_failed = False
        self._sessions: list[SessionInfo] | None = None
        self._all: tuple[list[SessionRow], list[Option]] | None = None
        self._styles = RowStyles()
        self.registry = registry
        """A `ToolRegistry` for tool-call summaries in the preview (None: the first string argument)."""
        self._pending_query: str | None = None
        self.preview_text: Text = Text("")
        """What the preview pane shows (for tests and screenshots)."""
        self._preview_width = 0  # the reply width the shown preview was drawn for
        self.preview_row: SessionRow | None = None
        """The row whose preview is shown."""
        self._pending: list[Option] = []  # options of all rows; the first `_loaded` are in the list
        self._loaded = 0
        self._feed_generation = 0
        self._resume_when_shown = False
        self.search_gate = search_gate
        self._search: SessionSearch | None = None
        self._generation = 0  # bumped by every new query: a page of an older one is never shown
        self._told_problem: str | None = None

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        search = SearchInput(
            value=self.initial_query,
            placeholder='Search titles and messages: words, "a phrase", OR, NOT, prefix*',
            id="sessions-search",
        )
        search.border_title = "Sessions"
        yield search
        with Horizontal(id="sessions-body"):
            with Vertical(id="sessions-list-area"):
                yield SessionList(id="sessions-list")
                yield Static(Text("Loading sessions…"), id="sessions-empty")
            with VerticalScroll(id="sessions-preview"):
                yield Static(Text(""), id="sessions-preview-body")
                yield MarkdownView(id="sessions-preview-markdown")  # lends the replies' Markdown look
        yield Footer()

    @property
    def search_input(self) -> Input:
        return self.query_one("#sessions-search", Input)

    @property
    def option_list(self) -> SessionList:
        return self.query_one("#sessions-list", SessionList)

    @property
    def highlighted_row(self) -> SessionRow | None:
        index = self.option_list.highlighted
        if index is None or not (0 <= index < len(self.rows)):
            return None
        return self.rows[index]

    @property
    def now(self) -> float:
        return self._clock()

    def on_mount(self) -> None:
        self._styles = self._resolve_styles()
        self.watch(self.app, "theme", self._theme_changed, init=False)
        self._pending_query = self.initial_query
        self._start_query(self.initial_query, 0.0)

    # ------------------------------------------------------------------ styles
    def _resolve_styles(self) -> RowStyles:
        def style(name: str) -> Style:
            """The component's colours blended over the screen (as the theme defines them), without a
            background unless the rule sets one, so the row highlight shows through."""
            try:
                styles = self.get_component_styles(name)
                full = self.get_component_rich_style(name)
            except Exception:  # a missing rule must not break the list
                return Style()
            bgcolor = full.bgcolor if styles.has_rule("background") else None
            return Style(color=full.color, bgcolor=bgcolor) + styles.partial_rich_style.without_color

        return RowStyles(
            glyphs={status: style(f"sessions--{status}") for status in STATUS_GLYPHS},
            title=style("sessions--title"),
            meta=style("sessions--meta"),
            match=style("sessions--match"),
            label={
                "user": style("sessions--user"),
                "assistant": style("sessions--assistant"),
                "note": style("sessions--note"),
            },
            tool=style("sessions--tool"),
            anchor=style("sessions--anchor"),
            heading=style("sessions--heading"),
            badge=style("sessions--hermes"),
        )

    def _theme_changed(self, _theme: str) -> None:
        self.call_after_refresh(self._restyle)

    def _restyle(self) -> None:
        try:
            query = self.search_input.value
        except NoMatches:  # the browser closed before this frame (a theme chosen, then Escape)
            return
        self._styles = self._resolve_styles()
        self._all = None
        if self.shown_query is not None:
            self._start_query(query, 0.0)

    # ------------------------------------------------------------------ querying
    @on(Input.Changed, "#sessions-search")
    def _search_changed(self, event: Input.Changed) -> None:
        event.stop()
        text = event.value
        if text == self._pending_query:
            return  # nothing new to search for
        self._pending_query = text
        self._resume_when_shown = False
        if not text.strip() and self._all is not None:
            self._stop_search()
            self.workers.cancel_group(self, "sessions-query")
            self.search_failed = False
            self._show(text, *self._all)
            return
        self._start_query(text, self.DEBOUNCE)

    def _stop_search(self) -> None:
        """Make the running search (if any) stale: its SQL stops, its pages are dropped."""
        self._generation += 1
        if self._search is not None:
            self._search.cancel()
            self._search = None

    def _start_query(self, text: str, delay: float) -> None:
        self._stop_search()
        self._run_query(text, delay, self._generation)

    @work(exclusive=True, group="sessions-query", exit_on_error=False)
    async def _run_query(self, text: str, delay: float, generation: int) -> None:
        if delay:
            await asyncio.sleep(delay)
        if text.strip():
            await self._search_pages(text, generation)
        else:
            await self._list_all(text, generation)

    async def _load_sessions(self, limit: int) -> list[SessionInfo]:
        try:
            sessions = await asyncio.to_thread(self.store.list_sessions, limit)
        except Exception as exc:  # an unreadable store reads as "no sessions", never a traceback
            self.log.error(f"listing sessions failed: {exc!r}")
            return []
        problem = self.store.hermes_problem
        if problem and problem != self._told_problem:  # Hermes' history left out: say why, once
            self._told_problem = problem
            self.notify(problem, title="Hermes' history", severity="warning", timeout=10)
        return sessions

    async def _list_all(self, text: str, generation: int) -> None:
        """Every session, most recent first; on the first load the first page is shown at once."""
        styles, now = self._styles, self.now
        first_load = self._sessions is None
        if first_load:
            page = await self._load_sessions(self.FIRST_PAGE)
            if generation != self._generation:
                return
            if len(page) >= self.FIRST_PAGE:
                rows = [SessionRow(info) for info in nest_subagents(page)]
                self._show(text, rows, self._options(rows, styles, now), total=None)
        sessions = self._sessions
        if sessions is None:
            sessions = await self._load_sessions(self.LIST_LIMIT)
        rows = [SessionRow(info) for info in nest_subagents(sessions)]
        options = await asyncio.to_thread(self._options, rows, styles, now)
        if generation != self._generation:
            return
        self._sessions = sessions
        self._all = (rows, options)
        self.search_failed = False
        self._show(text, rows, options, extend=first_load)
        self._resume_if_wanted(text)

    async def _search_pages(self, text: str, generation: int) -> None:
        """The results of `text`, page after page, each appended as it comes."""
        styles, now = self._styles, self.now
        if self._sessions is None:
            sessions = await self._load_sessions(self.LIST_LIMIT)
            if generation != self._generation:
                return
            self._sessions = sessions
        search = SessionSearch(
            self.store,
            text,
            self._sessions,
            lambda rows: self._options(rows, styles, now),
            hit_limit=self.HIT_LIMIT,
            page_size=self.HIT_PAGE,
            gate=self.search_gate,
        )
        self._search = search
        rows: list[SessionRow] = []
        options: list[Option] = []
        first = True
        try:
            while True:
                try:
                    page = await asyncio.to_thread(search.next_page)
                except Exception as exc:  # any failure reads as "no results", never a traceback
                    self.log.error(f"session search failed for {text!r}: {exc!r}")
                    page, self.search_failed = None, True
                if generation != self._generation:
                    return  # the user typed on: this query's pages are stale
                if page is None:
                    break
                rows += page.rows
                options += page.options
                self.search_failed = page.failed or (self.search_failed and not first)
                self._show(text, list(rows), list(options), extend=not first)
                for session_id in page.recounted:
                    self._redraw_rows(session_id)
                if first:
                    first = False
                    self._resume_if_wanted(text)
        finally:
            search.cancel()  # finished, failed or cancelled: nothing more will be asked of it
            if self._search is search:
                self._search = None
        if first:  # not even a first page (the search failed)
            self._show(text, [], [])
        self._update_chrome(text)

    def _resume_if_wanted(self, text: str) -> None:
        if self._resume_when_shown and text == self.search_input.value:
            self._resume_when_shown = False
            self.action_resume()

    def _options(self, rows: list[SessionRow], styles: RowStyles, now: float) -> list[Option]:
        home, current = self.home, self.current_id
        return [Option(session_prompt(row, styles, now, home, current), id=row.key) for row in rows]

    def _show(
        self,
        query: str,
        rows: list[SessionRow],
        options: list[Option],
        keep: str | None = None,
        total: int | None = -1,
        extend: bool = False,
    ) -> None:
        """Put `rows` on screen. The first `CHUNK` options go in now, the rest in later chunks (a 5,000
        row list is usable at once and never blocks typing). With `extend` (the full list following the
        first page), rows already shown are kept when the new list starts with them."""
        option_list = self.option_list
        previous = self.highlighted_row
        same_prefix = (
            extend
            and query == self.shown_query
            and 0 < self._loaded <= len(rows)
            and len(self.rows) <= len(rows)
            and all(old.key == new.key for old, new in zip(self.rows[: self._loaded], rows, strict=False))
        )
        self.rows = list(rows)
        self._feed_generation += 1
        if same_prefix:
            self._pending = self._pending[: self._loaded] + list(options[self._loaded :])
            self.shown_query = query
            self._update_chrome(query, total)
            self._feed_more()
            return
        self._pending = list(options)
        index: int | None = 0 if rows else None
        wanted = keep or (previous.session_id if previous is not None and not query.strip() else None)
        if wanted is not None:
            index = next((i for i, row in enumerate(self.rows) if row.session_id == wanted), index)
        first = max(self.CHUNK, (index or 0) + self.CHUNK)
        option_list.set_options(self._pending[:first])
        self._loaded = option_list.option_count
        self.shown_query = query
        option_list.highlighted = index
        if index is not None:
            option_list.scroll_to_highlight(top=index == 0)
        self._update_chrome(query, total)
        self.refresh_bindings()
        if index is None:
            self._set_preview(Text(""))
        self._feed_more()

    def _feed_more(self) -> None:
        if self._loaded < len(self._pending):
            self._feed(self._feed_generation)

    @work(exclusive=True, group="sessions-feed", exit_on_error=False)
    async def _feed(self, generation: int) -> None:
        """Add the remaining options a chunk per frame, until done or another list replaced this one."""
        option_list = self.option_list
        while generation == self._feed_generation and self._loaded < len(self._pending):
            await asyncio.sleep(0.01)
            if generation != self._feed_generation:
                return
            chunk = self._pending[self._loaded : self._loaded + self.FEED_CHUNK]
            option_list.add_options(chunk)
            self._loaded += len(chunk)

    @property
    def is_filling(self) -> bool:
        """True while rows are still being added to the list in the background (a search still finding
        results, or found rows not yet in the list)."""
        return self._search is not None or self._loaded < len(self._pending)

    def _update_chrome(self, query: str, total: int | None = -1) -> None:
        search = self.search_input
        sessions = len(self._sessions or [])
        if not query.strip():
            if total is None:
                search.border_subtitle = f"{len(self.rows):,}+ sessions"
            else:
                search.border_subtitle = f"{sessions:,} session{'s' if sessions != 1 else ''}"
        else:
            count = len(self.rows)  # one row per session
            more = "…" if self._search is not None else ""
            search.border_subtitle = f"{count:,} session{'s' if count != 1 else ''}{more}"
        empty = not self.rows
        self.set_class(empty, "-empty")
        message = self.query_one("#sessions-empty", Static)
        if not empty:
            return
        if not sessions:
            message.update(
                Text("No sessions yet. Start typing in the chat, and your conversations will be here.")
            )
        elif self.search_failed:
            message.update(Text("No results (the search could not run; try other words)."))
        else:
            shown = query.strip()
            shown = shown if len(shown) <= 60 else shown[:59] + "…"
            text = Text("No results for “", end="")
            text.append(one_line(shown))
            if _EXCLUDING.search(query):  # `rm -rf` reads as "rm, without rf": say how to find a command
                text.append('”.\nA word after "-" is left out: put a command in quotes, like "rm -rf"')
            else:
                text.append("”.\nTry fewer words, or a prefix such as migr*")
            message.update(text)

    def _refresh_session(self, session_id: str) -> None:
        """Rebuild the rows of one session (after a rename), loaded or still pending, and its preview."""
        self._redraw_rows(session_id)
        shown = self.highlighted_row
        if shown is not None and shown.session_id == session_id:
            self._load_preview(shown, 0.0)

    def _redraw_rows(self, session_id: str) -> None:
        """Draw the rows of one session again (renamed, or more of its messages match), loaded or not."""
        styles, now = self._styles, self.now
        option_list = self.option_list
        for index, row in enumerate(self.rows):
            if row.session_id != session_id:
                continue
            prompt = session_prompt(row, styles, now, self.home, self.current_id)
            if index < self._loaded:
                option_list.replace_option_prompt_at_index(index, prompt)
            else:
                self._pending[index] = Option(prompt, id=row.key)

    # ------------------------------------------------------------------ preview
    @on(OptionList.OptionHighlighted, "#sessions-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self.refresh_bindings()
        row = self.highlighted_row
        if row is not None:
            self._load_preview(row, 0.05)

    @work(exclusive=True, group="sessions-preview", exit_on_error=False)
    async def _load_preview(self, row: SessionRow, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        try:
            data = await asyncio.to_thread(fetch_preview, self.store, row, self.registry)
            text, anchor = build_preview(
                data, self._styles, self.now, self.home, self.current_id, markdown=self._preview_markdown
            )
            self._preview_width = self._markdown_width()
        except Exception as exc:  # a broken row must not take the screen down: say so instead
            self.log.error(f"preview failed for {row.session_id}: {exc!r}")
            text, anchor = Text("The preview could not be loaded."), None
        self._set_preview(text, anchor)
        self.preview_row = row

    def _markdown_width(self) -> int:
        """Cells for a reply in the preview: the pane inside its padding, less the vertical scrollbar
        whether it shows yet or not (it appears once the text is long: a reply drawn for the full width
        would then wrap again), less the replies' indent of two."""
        pane = self.query_one("#sessions-preview", VerticalScroll)
        width = pane.region.width - pane.styles.gutter.width - pane.styles.scrollbar_size_vertical
        return max(20, width - 2) if pane.region.width else 60

    def _preview_markdown(self, source: str) -> Text:
        """A reply's excerpt drawn as the transcript draws replies (one renderer: `MarkdownView`'s)."""
        view = self.query_one("#sessions-preview-markdown", MarkdownView)
        return view.render_source(source, self._markdown_width())

    def on_resize(self) -> None:
        """Replies are drawn for the pane's width: draw them again when it changes."""
        row = self.preview_row
        if row is not None and self._preview_width and self._preview_width != self._markdown_width():
            self._load_preview(row, 0.05)

    def _set_preview(self, text: Text, anchor: int | None = None) -> None:
        """Show `text`; with an anchor (the matching message), scroll so it is near the top."""
        self.preview_text = text
        self.query_one("#sessions-preview-body", Static).update(text)
        scroller = self.query_one("#sessions-preview", VerticalScroll)
        scroller.scroll_home(animate=False)
        if anchor:
            self.call_after_refresh(self._scroll_preview_to, text, anchor)

    def _scroll_preview_to(self, text: Text, anchor: int) -> None:
        if text is not self.preview_text:
            return  # another preview replaced this one meanwhile
        try:
            body = self.query_one("#sessions-preview-body", Static)
            scroller = self.query_one("#sessions-preview", VerticalScroll)
        except NoMatches:  # the browser closed before this frame (Enter on a match, Escape)
            return
        width = body.content_region.width or body.size.width
        if width <= 0:
            return
        try:
            lines = len(text[:anchor].wrap(self.app.console, width))
        except Exception:  # scrolling to the match is a nicety
            return
        scroller.scroll_to(y=max(0, lines - 2), animate=False)

    # ------------------------------------------------------------------ navigation
    def action_cursor_down(self) -> None:
        self._move(self.option_list.action_cursor_down)

    def action_cursor_up(self) -> None:
        self._move(self.option_list.action_cursor_up)

    def action_page_down(self) -> None:
        if can_page(self.option_list):  # else Textual raises (see textual_compat.command_palette)
            self._move(self.option_list.action_page_down)

    def action_page_up(self) -> None:
        if can_page(self.option_list):
            self._move(self.option_list.action_page_up)

    # The keys' focus moves take effect at once (`set_focus`), not through `Widget.focus`, which queues them
    # on the app: the key order delivers the next key to the focused widget once the app has settled, or
    # after its patience even if it has not, and then a queued move was still to come. Under load that sent
    # the `r` of Down-r-(new title) to the search field instead of the list's rename.

    def _move(self, step: Callable[[], None]) -> None:
        if not self.rows:
            return
        self.set_focus(self.option_list)
        step()

    def action_focus_search(self) -> None:
        self.set_focus(self.search_input)

    @on(SessionList.LeftTop)
    def _left_top(self, event: SessionList.LeftTop) -> None:
        event.stop()
        self.set_focus(self.search_input)

    def action_back(self) -> None:
        search = self.search_input
        if search.value:
            search.value = ""
            self.set_focus(search)
            return
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("resume", "rename", "delete", "branch", "export"):
            try:
                return True if self.highlighted_row is not None else None
            except Exception:  # asked before the list is composed
                return None
        return True

    # ------------------------------------------------------------------ actions
    @on(Input.Submitted, "#sessions-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.shown_query != event.value:
            # Enter before the debounced search ran: search now, then resume its best result.
            self._resume_when_shown = True
            self._start_query(event.value, 0.0)
            return
        self.action_resume()

    @on(OptionList.OptionSelected, "#sessions-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_resume()

    def action_resume(self) -> None:
        row = self.highlighted_row
        if row is not None:
            self.dismiss(SessionsResult("resume", row.session_id))

    def _refuse_hermes(self, info: SessionInfo, what: str) -> bool:
        """Hermes' history is never changed here: say so instead of asking first and failing after."""
        if not info.is_hermes:
            return False
        self.notify(
            f"Sessions of Hermes' history are never changed here: resume it (enter) to {what} its copy.",
            severity="warning",
        )
        return True

    def action_rename(self) -> None:
        row = self.highlighted_row
        if row is None or self._refuse_hermes(row.info, "rename"):
            return
        info = row.info

        def renamed(title: str | None) -> None:
            if title is None:
                return
            try:
                stored = self.store.set_title(info.id, title)
            except Exception as exc:
                self.notify(f"Could not rename: {exc}", severity="error")
                return
            for session in self._sessions or []:
                if session.id == info.id:
                    session.title = stored or None
            for shown in self.rows:
                if shown.session_id == info.id:
                    shown.info.title = stored or None
            info.title = stored or None
            self._all = None
            self._refresh_session(info.id)

        dialog = PromptModal(
            "Rename session",
            info.title or "",
            placeholder="A short title",
            hint="enter save · esc cancel · an empty title shows the first message",
        )
        self.app.push_screen(dialog, renamed)

    def action_delete(self) -> None:
        row = self.highlighted_row
        if row is None or self._refuse_hermes(row.info, "work in"):
            return
        info = row.info
        if info.id == self.current_id:
            self.notify(
                "This session is open in the chat. Start a new one (ctrl+n) before deleting it.",
                severity="warning",
            )
            return

        def confirmed(yes: bool | None) -> None:
            if not yes:
                return
            try:
                self.store.delete_session(info.id)
            except Exception as exc:
                self.notify(f"Could not delete: {exc}", severity="error")
                return
            self._forget(info.id)

        question = Text("Delete “", end="")
        question.append(one_line(info.display_title)[:120], "bold")
        noun = "message" if info.message_count == 1 else "messages"
        question.append(f"” and its {info.message_count} {noun}? This cannot be undone.")
        self.app.push_screen(ConfirmModal("Delete session", question, confirm_label="Delete"), confirmed)

    def _forget(self, session_id: str) -> None:
        """Drop a deleted session from the cache and the rows on screen, keeping the cursor in place."""
        if self._sessions is not None:
            self._sessions = [s for s in self._sessions if s.id != session_id]
        if self._all is not None:
            rows, options = self._all
            keep = [i for i, row in enumerate(rows) if row.session_id != session_id]
            self._all = ([rows[i] for i in keep], [options[i] for i in keep])
        option_list = self.option_list
        index = option_list.highlighted or 0
        for position in range(len(self.rows) - 1, -1, -1):
            if self.rows[position].session_id != session_id:
                continue
            if position < self._loaded:
                option_list.remove_option_at_index(position)
                self._loaded -= 1
            del self.rows[position]
            del self._pending[position]
            if position < index:
                index -= 1
        if self.rows:
            option_list.highlighted = min(index, option_list.option_count - 1)
        self._update_chrome(self.shown_query or "")
        self.refresh_bindings()
        if not self.rows:
            self._set_preview(Text(""))

    def action_branch(self) -> None:
        row = self.highlighted_row
        if row is None:
            return
        if not row.info.message_count:
            self.notify("This session has no messages to branch from.", severity="warning")
            return
        up_to = row.hit.seq if row.hit is not None else max(row.info.message_count - 1, 0) + 1_000_000
        try:
            new_id = self.store.branch(row.session_id, up_to)
        except Exception as exc:
            self.notify(f"Could not branch: {exc}", severity="error")
            return
        self.dismiss(SessionsResult("resume", new_id))

    def action_export(self) -> None:
        row = self.highlighted_row
        if row is None:
            return
        info = row.info
        default = default_export_path(info)
        shown = f"./{default.name}"

        def chosen(answer: tuple[Path, ExportFormat] | None) -> None:
            if answer is not None:
                path, fmt = answer
                self._export(info.id, path, fmt)

        self.app.push_screen(ExportPathModal(shown, base_dir=self.export_dir), chosen)

    @work(group="sessions-export", exit_on_error=False)
    async def _export(self, session_id: str, path: Path, fmt: ExportFormat) -> None:
        try:
            written = await asyncio.to_thread(write_export, self.store, session_id, path, fmt)
        except Exception as exc:
            reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
            self.notify(f"Export failed: {reason}", severity="error", timeout=8)
            return
        self.notify(f"Exported to {short_path(str(written), self.home, 80)}", title="Export")
