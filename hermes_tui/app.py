"""HermesApp: the screens, the theme, the command palette, and the lifetime of the demo server."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType

from hermes_tui import early_input, textual_compat
from hermes_tui.commands import SlashCommandProvider
from hermes_tui.first_frame import FirstFrame
from hermes_tui.gc_policy import GcPolicy
from hermes_tui.key_order import KeyOrder
from hermes_tui.typed_path import typed_path

if TYPE_CHECKING:
    from textual.screen import Screen

    from agent.api import ConfigProblem, LoadedSettings, ServerStatus, SessionStore, Settings
    from hermes_tui.chat.screen import ChatScreen
    from hermes_tui.mcp_service import McpChanged, McpService
    from hermes_tui.screens.setup import SetupChoice, SetupScreen
    from hermes_tui.startup_snapshot import StartupSnapshot
    from scripted import ScriptedServer
    from themes.apply import ThemeManager


@dataclasses.dataclass(frozen=True)
class FastStart:
    """The TUI's start: the first frame is the chat's layout at once, drawn from the last run's snapshot or
    the defaults (`hermes_tui.startup_snapshot`); `load` reads the configuration right after it (the same
    layers as ever), then the store opens and the chat (or the setup screen) replaces the layout."""

    snapshot: StartupSnapshot
    load: Callable[[], LoadedSettings]


class HermesApp(textual_compat.FrameSignal[int]):
    TITLE = "hermes-tui"
    COMMANDS: ClassVar = App.COMMANDS | {SlashCommandProvider}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
        # As in a shell: the terminal restored, the process stopped, `fg` redraws it. The prompt holding
        # text keeps Ctrl+Z for undo (`PromptInput.check_action`).
        Binding("ctrl+z", "suspend_process", "Suspend", show=False),
    ]

    settings: Settings
    theme_manager: ThemeManager
    mcp: McpService

    def __init__(
        self,
        settings: Settings | None,
        *,
        fast_start: FastStart | None = None,
        problems: list[ConfigProblem] | None = None,
        demo_factory: Callable[[], Settings] | None = None,
        resume_id: str | None = None,
        open_sessions: bool = False,
        store: SessionStore | None = None,
        first_message: str | None = None,
        reload_settings: Callable[[], LoadedSettings] | None = None,
        images: Sequence[str] = (),
        demo: bool = False,
        worktree: str = "",
    ) -> None:
        super().__init__()
        textual_compat.install()  # every workaround of Textual's faults, or none (before the driver reads)
        self.images = tuple(images)  # `--image FILE`: attached to the first message
        self.problems = problems or []
        self.demo_factory = demo_factory  # starts the scripted server on demand (the setup screen's demo)
        self.demo = demo
        """The chat talks to the built-in demo (`--demo`, or the setup screen's button): its welcome says
        what to do, and the exit hint continues it with `--demo` (without it the setup screen opens)."""
        self.worktree = worktree  # `-w NAME`: the exit hint continues the session in the same worktree
        self.resume_id = resume_id
        self.open_sessions = open_sessions
        self.first_message = first_message  # `hermes-tui "PROMPT"`: sent once the chat is up
        self.reload_settings = reload_settings  # the command line's layers again, after the setup screen
        self._store = store
        self.gc_policy = GcPolicy()
        """The garbage collector's one owner: startup, turns, paging, rest (`hermes_tui.gc_policy`)."""
        from agent.api import serve_collector

        serve_collector(self.gc_policy.burst)  # the engine's bursts (`agent.core.collector`)
        self.first_frame = FirstFrame(self.call_later)
        """What waits for the first frame on the terminal (`hermes_tui.first_frame`)."""
        self.key_order = KeyOrder(self, self._deliver_input)
        """Keys and pastes in typing order, each once the one before settled (`hermes_tui.key_order`)."""
        self._startup_hold: Callable[[], None] | None = None
        self._fast_start = fast_start
        self._prewarmed: Settings | None = None
        """The settings the engine was prewarmed for (`_prewarm_model_client`): once each."""
        self._configured = False
        self.exit_message: str | None = None
        self.chat: ChatScreen | None = None
        """The chat opened (what `resume_hint` reads after the app has exited)."""
        """Printed to stderr once the terminal is back (`run_app`): a store a fast start could not open."""
        if settings is not None:
            self._configure(settings)
        elif fast_start is not None:
            # Keys typed before the chat exists wait in order, as for a slow start (see `_configure`).
            self._startup_hold = self.key_order.hold()
            self.register_theme(fast_start.snapshot.theme)
            self.theme = fast_start.snapshot.theme.name
        else:
            raise ValueError("HermesApp needs settings or a fast start")

    def _configure(self, settings: Settings) -> None:
        """What needs the configuration: the themes, the MCP service, holding keys for the chat."""
        from hermes_tui.mcp_service import McpService
        from themes.apply import ThemeManager

        self.settings = settings
        self.theme_manager = ThemeManager(self, settings.hermes_home, persist_path=settings.tui_config_path)
        self._theme_warning = self.theme_manager.apply_initial(settings.skin)
        # Keys typed before the chat's prompt has focus (the terminal delivers them as soon as the app
        # starts reading) would go to a screen without a focused widget and be lost: they wait in the key
        # order's queue, in order, until the chat says its prompt is ready (`ChatScreen.PromptReady`).
        # The setup screen takes keys as they come.
        if settings.is_configured and self._startup_hold is None:
            self._startup_hold = self.key_order.hold()
        elif not settings.is_configured and self._startup_hold is not None:
            release, self._startup_hold = self._startup_hold, None
            release()
        self.mcp = McpService(settings.hermes_home, post=self._mcp_changed)
        self._configured = True

    def frame_displayed(self) -> None:
        self.first_frame.displayed()

    def _mcp_changed(self, status: ServerStatus) -> None:
        from hermes_tui.mcp_service import McpChanged

        self.post_message(McpChanged(status))  # from the MCP threads: post_message is thread-safe

    async def action_quit(self) -> None:
        """Ctrl+Q, `/quit`: a running turn is finalized as interrupted first (`ChatScreen.finish_turn`)."""
        for screen in self.screen_stack:
            finish = getattr(screen, "finish_turn", None)
            if finish is not None:
                await finish()
        self.exit(0)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The palette's entries beside the slash commands: only what the app does its own way. Textual's
        Screenshot saved through `deliver_screenshot` (to ~/Downloads, "Failed to save screenshot" where
        there is none), its Theme listed Textual's themes and saved nothing (`/theme` is ours), and its
        Keys and Maximize panels were a second, different help (F1 is ours). No Quit: it sorted first, so
        Ctrl+P then Enter quit (Ctrl+Q and `/quit` are there)."""
        yield SystemCommand(
            "Screenshot",
            "Save an SVG picture of the screen (in the working directory, else $HERMES_HOME/screenshots)",
            lambda: self.set_timer(0.1, self.action_screenshot),  # once the palette has closed
        )

    async def on_event(self, event: events.Event) -> None:
        if self.key_order.takes(event):
            self.key_order.accept(event)
            return
        await super().on_event(event)

    async def _deliver_input(self, event: events.Event) -> None:
        await super().on_event(event)

    def input_pending(self) -> bool:
        """Keys typed but not handled yet: live views postpone their next render (`LiveUpdates`)."""
        return self.key_order.in_flight

    def action_command_palette(self) -> None:
        """Ctrl+P: Textual's palette, guarded against its page-key crash (`textual_compat`)."""
        from textual.command import CommandPalette

        from hermes_tui.textual_compat import GuardedCommandPalette

        # Textual types `is_open(app: App[object])`, which an `App[int]` is not (App is invariant).
        if self.use_command_palette and not CommandPalette.is_open(self):  # type: ignore[arg-type]
            self.push_screen(GuardedCommandPalette(id="--command-palette"))

    @property
    def store(self) -> SessionStore:
        if self._store is None:
            from agent.api import open_library

            self._store = open_library(self.settings.state_db, self.settings.hermes_home)
        return self._store

    def on_mount(self) -> None:
        if self._fast_start is not None:
            from hermes_tui.chat.layout import StartingScreen

            self.push_screen(StartingScreen(self._fast_start.snapshot))
            self.first_frame.after(self.gc_policy.starting_frame_shown)
            self.first_frame.after(self._import_last_sdk)
            self.first_frame.after(self._finish_fast_start)
            return
        self._start()

    def _import_last_sdk(self) -> None:
        """After the starting frame, in a background thread: the model SDK the last run used (the snapshot
        names it), while the configuration is read and the chat is made. Those leave the interpreter idle
        between their steps (messages, refreshes) and the import fills the gaps: a message typed 0.5 s after
        the starting frame left 0.22-0.27 s after Enter (medians), against 0.32-0.34 s when the import began
        once the configuration was read and 0.36-0.40 s once the chat was made
        (`benchmarks/terminal_stream.py --only quick`). A snapshot naming another SDK than this run's costs
        an import in the background, nothing else."""
        fast_start = self._fast_start
        if fast_start is None or not fast_start.snapshot.sdk:
            return
        name = fast_start.snapshot.sdk

        def run() -> None:
            from agent.api import import_sdk

            with GcPolicy.warming():
                import_sdk(name)

        from agent.api import start_warm_thread

        start_warm_thread(run, name="sdk-import")

    async def _finish_fast_start(self) -> None:
        """After a fast start's first frame: read the configuration, open the store, start as usual."""
        from agent.api import StoreError, open_library

        fast_start, self._fast_start = self._fast_start, None
        assert fast_start is not None
        loaded = fast_start.load()
        settings = loaded.settings
        # The starting frame is on the terminal: the engine's prewarm (the SDK client, a local server's
        # window, the turn's modules) starts now, beside the chat's making, rather than after it
        # (`_import_last_sdk` says what that is worth).
        if settings.is_configured:
            self._prewarm_model_client(settings)
        if self._store is None:
            try:
                self._store = open_library(settings.state_db, settings.hermes_home)
            except StoreError as exc:  # as a slow start says it, once the terminal is back
                self.exit_message = f"hermes-tui: {exc.user_line()}"
                self.exit(1)
                return
        self.problems = loaded.problems
        self._configure(settings)
        if not settings.is_configured:
            await self.pop_screen()  # the setup screen is pushed on the app's own screen, as usual
        self._start()

    def _start(self) -> None:
        """The configuration is read: themes' problems, what runs after the first frame, the first screen."""
        for error in self.theme_manager.errors:
            self.notify(str(error), title="Theme", severity="error", timeout=10)
        if self._theme_warning:
            self.notify(self._theme_warning, title="Theme", severity="warning")
        # After the first frame: the watcher's thread imports watchfiles, and would hold the GIL against it.
        self.first_frame.after(self.theme_manager.start_watching)
        self.first_frame.after(self._freeze_startup_objects)
        if not self.settings.is_configured:
            if self.open_sessions:
                self._browse_before_setup()  # browsing and searching need no provider
                return
            self._show_setup()
            return
        self._open_chat()

    def _show_setup(self) -> None:
        from hermes_tui.screens.setup import SetupScreen

        detail = self.settings.unsupported_provider  # a Hermes provider we cannot talk to yet, named
        self.push_screen(
            SetupScreen(hermes_home=str(self.settings.hermes_home), detail=detail), self._after_setup
        )

    def _browse_before_setup(self) -> None:
        """`hermes-tui sessions` with no provider: the browser first; resuming asks for a provider then."""
        from pathlib import Path

        from hermes_tui.screens.sessions import SessionsResult, SessionsScreen

        self.open_sessions = False

        def closed(result: SessionsResult | None) -> None:
            if result is None:
                self.exit(0)
                return
            self.resume_id = result.session_id
            self._show_setup()

        self.push_screen(SessionsScreen(self.store, export_dir=Path(self.settings.cwd)), closed)

    def _freeze_startup_objects(self) -> None:
        """The startup's objects out of the collector's scans, and the collector back on, unless a page of
        history or a turn already holds it off: then their collection turns it on (`GcPolicy`)."""
        self.gc_policy.first_frame_shown()

    def _prewarm_model_client(self, settings: Settings | None = None) -> None:
        """After the first frame, in a background thread: the first Enter must not pay for importing the
        session's SDK (`openai` ~0.5 s, `anthropic` ~1.25 s) and building its client. Once per settings: a
        fast start begins it as soon as the configuration is read, and the chat's opening asks again.

        The modules of ours the prewarm needs are imported here, on this thread, before its thread starts:
        Python 3.11 fails one of two threads importing the same package at once (`_DeadlockError`), and
        the prewarm's thread importing the engine's packages beside this thread's making of the chat crashed
        the app about one start in 200 on a loaded machine (`tests/app/test_startup_imports.py`). The SDK
        itself is imported from the first frame by `_import_last_sdk`: a package this thread does not
        import."""
        settings = settings or self.settings
        if self._prewarmed is settings:
            return
        self._prewarmed = settings
        from agent.api import import_prewarm_modules, start_warm_thread

        import_prewarm_modules()
        for name in ("widgets.transcript.markdown.blocks", "widgets.transcript.markdown.rich_elements"):
            importlib.import_module(name)  # `prewarm_model_client`'s own, imported here first too

        start_warm_thread(prewarm_model_client, settings, name="sdk-prewarm")

    def _after_setup(self, choice: SetupChoice | None) -> None:
        if choice == "demo" and self.demo_factory is not None:
            self.settings = self.demo_factory()
            self.demo = True
            self._open_chat()
        elif choice == "configured":
            self._start_configured()
        else:
            self.exit(0)

    def _start_configured(self) -> None:
        """The setup screen saved a key and a model: read the settings again and start, no restart."""
        from agent.api import load_settings

        flags = {"hermes_home": str(self.settings.hermes_home), "cwd": str(self.settings.cwd)}
        loaded = self.reload_settings() if self.reload_settings is not None else load_settings(flags)
        if not loaded.settings.is_configured:
            problem = "; ".join(str(p) for p in loaded.problems) or "the saved key or model was not read"
            self.notify(f"Still not configured: {problem}", severity="error", timeout=10)
            self._show_setup()
            return
        self.settings = loaded.settings
        self.problems = loaded.problems
        self._open_chat()

    def on_setup_screen_configured(self, message: SetupScreen.Configured) -> None:
        self._after_setup("configured")

    def on_setup_screen_start_demo(self, message: SetupScreen.StartDemo) -> None:
        self._after_setup("demo")

    def _open_chat(self) -> None:
        from agent.api import environment_problem
        from hermes_tui.chat.screen import ChatScreen

        if problem := environment_problem(self.settings, self.problems):
            # The sandbox (or backend) the user chose cannot be had: no session starts, nothing runs
            # unsandboxed; the line is printed once the terminal is restored.
            self.exit_message = f"hermes-tui: {problem}"
            self.exit(2)
            return

        chat = ChatScreen(
            self.settings,
            store=self.store,
            resume_id=self.resume_id,
            flavour=self.theme_manager.spec,
            first_message=self.first_message,
            images=self.images,
            demo=self.demo,
        )
        self.first_message = None
        self.images = ()
        self.chat = chat
        self.switch_screen(chat) if len(self.screen_stack) > 1 else self.push_screen(chat)
        self.first_frame.after(self._prewarm_model_client)
        self.first_frame.after(self.mcp.start)
        self.first_frame.after(self.save_startup_snapshot)
        self.first_frame.after(self._tell_leftovers)
        if self.open_sessions:
            chat.call_after_refresh(chat.action_command, "sessions")
        if self.problems:
            self.notify(config_summary(self.problems), title="Configuration", severity="warning", timeout=10)

    def _tell_leftovers(self) -> None:
        """What the last run left running when it crashed (or was killed), stopped then by the reaper or
        the exit hook: told once, here."""
        from agent.api import leftovers_path, leftovers_summary, take_leftovers

        line = leftovers_summary(take_leftovers(leftovers_path(self.settings.hermes_home)))
        if line:
            self.notify(line, title="Cleaned up", severity="warning", timeout=15)

    def on_chat_screen_prompt_ready(self, message: ChatScreen.PromptReady) -> None:
        """Deliver what was typed during startup, in order; keys arriving from now on queue up behind it."""
        release, self._startup_hold = self._startup_hold, None
        if release is not None:
            release()

    def on_chat_screen_theme_requested(self, message: ChatScreen.ThemeRequested) -> None:
        self.pick_theme(message.theme)

    def pick_theme(self, name: str = "") -> None:
        """`/theme`: a picker that previews live; `/theme NAME` switches at once. The choice persists."""
        manager = self.theme_manager
        if name:
            if name not in manager.themes:
                self.notify(
                    f"No theme named {name!r}. Known: {', '.join(sorted(manager.themes))}", severity="warning"
                )
                return
            self._on_theme_chosen(name)
            return
        from hermes_tui.screens.theme_picker import ThemePicker

        self.push_screen(
            ThemePicker(manager.themes, current=manager.active, preview=manager.preview),
            self._on_theme_chosen,
        )

    def _on_theme_chosen(self, name: str | None) -> None:
        if name is None:
            return
        self.theme_manager.apply(name)
        if (error := self.theme_manager.persist(name)) is not None:
            self.notify(str(error), title="Theme not saved", severity="error")
        self.save_startup_snapshot()

    def save_startup_snapshot(self) -> None:
        """What the next launch's first frame shows before it reads the configuration: this theme, its
        prompt symbol, the model (`hermes_tui.startup_snapshot`)."""
        from agent.api import sdk_module
        from hermes_tui.startup_snapshot import StartupSnapshot, write_snapshot

        spec = self.theme_manager.spec
        symbol = spec.prompt_symbol if spec is not None else "❯"
        snapshot = StartupSnapshot(
            theme=self.current_theme,
            prompt_symbol=symbol,
            model=self.settings.model,
            sdk=sdk_module(self.settings),
        )
        write_snapshot(self.settings.hermes_home, snapshot)

    def on_mcp_changed(self, message: McpChanged) -> None:
        from hermes_tui.screens.mcp import McpScreen

        if isinstance(self.screen, McpScreen):
            self.screen.refresh_servers()
        line = self.mcp.report(message.status)
        if line is not None:
            self.notify(line, title="MCP", severity="warning", timeout=10, markup=False)

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        """The palette's Screenshot: Textual saves to ~/Downloads, which often does not exist (and then
        fails with a traceback in a toast). Save under the working directory, else `$HERMES_HOME/screenshots`,
        and say where."""
        folders = [path] if path else [str(self.settings.cwd), str(self.settings.hermes_home / "screenshots")]
        problem = ""
        for folder in folders:
            try:
                os.makedirs(folder, exist_ok=True)
                saved = self.save_screenshot(filename, folder)
            except OSError as exc:
                problem = f"{folder}: {exc.strerror or exc}"
                continue
            self.notify(f"Screenshot saved to {saved}", title="Screenshot")
            return
        self.notify(f"Could not save the screenshot ({problem})", title="Screenshot", severity="error")

    def on_unmount(self) -> None:
        if self._configured:
            self.theme_manager.stop_watching(wait=False)  # quitting does not wait for its next step
            self.mcp.close()
        self.close_store()

    def close_store(self) -> None:
        if self._store is not None:
            self._store.close()  # closing twice is harmless (run_app closes the store it opened)


def config_summary(problems: list[ConfigProblem]) -> str:
    """One notice for any number of problems (six toasts covered half the screen): the first, and where
    the rest are."""
    if len(problems) == 1:
        return f"{problems[0]} (the default is used)"
    return f"{len(problems)} problems, defaults used. First: {problems[0]}. /config lists them all."


def prewarm_model_client(settings: Settings) -> None:
    """Import what the first turn needs and build the SDK client its transport will take (see
    `SDKClientHolder.prewarm`). Quiet on failure: a bad configuration is reported by the first request."""
    from agent.api import prewarm_engine

    # What this imports and builds lives as long as the process, like what the first frame froze: made
    # without the collector's passes over it, then frozen.
    with GcPolicy.warming():
        prewarm_engine(settings)  # the turn's lazy modules, the transport's client, tool schemas, prices
        try:
            # Imported lazily by the first reply drawn (the Markdown parser and Rich's Markdown elements):
            # kept off the first frame, loaded here instead.
            from widgets.transcript.markdown.blocks import BlockDocument
            from widgets.transcript.markdown.rich_elements import warm_lexers

            BlockDocument("warm").update()  # builds the shared markdown-it parser
            warm_lexers()  # the commonest fences' lexers (Pygments compiles them on first use)
        except Exception:
            pass


def _demo_starter(
    args: argparse.Namespace, stack: ExitStack, base: Callable[[], Settings]
) -> Callable[[], Settings]:
    """The scripted demo's settings on `base()`, its server started at most once, on first use."""
    servers: list[ScriptedServer] = []

    def start_demo() -> Settings:
        from scripted import DEMO_MODEL, ScriptedServer, demo_scenario_path, scripted_settings

        if not servers:
            servers.append(stack.enter_context(ScriptedServer(args.scenario or demo_scenario_path())))
        settings = base()
        # --model names the demo's model too (the scripted server answers any name), as in -z.
        return scripted_settings(servers[0], settings, model=settings.model if args.model else DEMO_MODEL)

    return start_demo


def _first_message(args: argparse.Namespace) -> str | None:
    return args.message if args.message and args.message.strip() else None


def _images(args: argparse.Namespace) -> list[str]:
    return [str(typed_path(name).resolve()) for name in args.image]


def _run(app: HermesApp) -> int:
    from hermes_tui import exit_signals
    from hermes_tui.crash_log import CrashCapture
    from hermes_tui.exit_report import EXIT_REPORT

    early_input.release()  # Textual saves the terminal's settings as it takes it: the user's own
    capture = CrashCapture(app)  # a traceback goes to a log file, not over the user's screen
    escaped: Exception | None = None
    # SIGTERM, SIGHUP, SIGINT: quit as Ctrl+Q does (the terminal restored, the children stopped).
    with exit_signals.handled(lambda code: app.exit(code)):
        try:
            code = app.run()
        except Exception as exc:  # raised by the run itself, not by a handler: a crash all the same
            code, escaped = 1, exc
    if capture.crashed or escaped is not None:
        crash_line = capture.report(_home_of(app), escaped)
        EXIT_REPORT.finish()
        saved = resume_hint(app).removeprefix("hermes-tui: ")
        print(f"{crash_line}; {saved}" if saved else crash_line, file=sys.stderr)
        return 1
    if other := capture.other_output():
        print(other, end="", file=sys.stderr)
    if app.exit_message:
        print(app.exit_message, file=sys.stderr)
    EXIT_REPORT.finish()
    if not app.exit_message and (hint := resume_hint(app)):
        print(hint, file=sys.stderr)
    return int(code or 0)


def _home_of(app: HermesApp) -> Path:
    """The app's `HERMES_HOME` (its settings', else the environment's: a crash before they were read)."""
    settings: Settings | None = getattr(app, "settings", None)
    if settings is not None:
        return Path(settings.hermes_home)
    from agent.api import hermes_home

    return hermes_home()


def resume_hint(app: HermesApp) -> str:
    """The line printed on exit when the conversation was saved: how to come back to it (as Codex and
    Claude Code say on exit)."""
    agent = app.chat.session.built if app.chat is not None else None
    if agent is None or not agent.session_id or not agent.messages:
        return ""
    session = agent.session_id
    demo = " --demo" if app.demo else ""  # the demo's session goes on with the demo, not the setup screen
    if app.worktree:  # its folder is the worktree's: `-c` finds it there
        demo += f" -w {app.worktree}"
    return f"hermes-tui: session {session} saved · continue it with: hermes-tui{demo} -c (or -r {session})"


def run_fast_app(
    args: argparse.Namespace, snapshot: StartupSnapshot, load_settings: Callable[[], LoadedSettings]
) -> int:
    """`hermes-tui [PROMPT]`: the first frame (from the snapshot or the defaults) before the configuration
    is read (`load_settings` reads it, after that frame, and again after the setup screen)."""
    with ExitStack() as stack:
        read: list[LoadedSettings] = []
        start_demo = _demo_starter(args, stack, lambda: read[-1].settings)

        def load() -> LoadedSettings:
            read.append(load_settings())
            if args.demo or args.scenario:  # the demo's server starts behind the first frame too
                return dataclasses.replace(read[-1], settings=start_demo())
            return read[-1]

        app = HermesApp(
            None,
            fast_start=FastStart(snapshot, load),
            demo_factory=start_demo,
            first_message=_first_message(args),
            reload_settings=load_settings,
            images=_images(args),
            demo=bool(args.demo),
            worktree=getattr(args, "worktree", None) or "",
        )
        stack.callback(app.close_store)  # the app opened it (`_finish_fast_start`)
        return _run(app)


def run_app(
    args: argparse.Namespace,
    loaded: LoadedSettings,
    *,
    open_sessions: bool = False,
    reload_settings: Callable[[], LoadedSettings] | None = None,
) -> int:
    """What must be settled before the terminal is taken (`-r`/`-c`: the session to resume, or a list of
    candidates on stderr; `hermes-tui sessions`): the configuration and the store first, then the app."""
    settings = loaded.settings
    with ExitStack() as stack:
        start_demo = _demo_starter(args, stack, lambda: loaded.settings)
        if args.demo or args.scenario:
            settings = start_demo()
        from agent.api import StoreError, open_library

        try:  # before the first frame: a store that cannot be used is one line and a clean exit
            store = open_library(settings.state_db, settings.hermes_home)  # a Hermes id resolves too
        except StoreError as exc:
            print(f"hermes-tui: {exc.user_line()}", file=sys.stderr)
            return 1
        stack.callback(store.close)
        resume_id = None
        if args.resume or args.continue_last:
            from hermes_tui.resume_lookup import session_to_resume

            if args.resume:  # one match, or none / several listed on stderr
                info = session_to_resume(store, args.resume, sys.stderr)
            else:
                info = store.latest_session(str(settings.cwd))
            problem = store.hermes_problem
            if info is None:
                if not args.resume:
                    print("hermes-tui: no session found for this directory", file=sys.stderr)
                if problem:
                    print(f"hermes-tui: {problem}", file=sys.stderr)
                return 2
            resume_id = info.id
        app = HermesApp(
            settings,
            problems=loaded.problems,
            demo_factory=start_demo,
            resume_id=resume_id,
            open_sessions=open_sessions,
            store=store,
            first_message=_first_message(args),
            reload_settings=reload_settings,
            images=_images(args),
            demo=bool(args.demo),
            worktree=getattr(args, "worktree", None) or "",
        )
        return _run(app)
