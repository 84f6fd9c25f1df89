"""A session: one conversation's settings, messages, store, environment and the operations the UI calls.

`Session` is what the UI (through `agent.api`) and subagents hold; a turn is `agent.session.turn.Turn`,
built by `run_conversation` and given the session through the `TurnHost` seam (`agent.session.host`).
Where its model calls go is its `ProviderRoute` (`agent.session.route`).

Several sessions may live in one process and run turns at the same time, each in its own thread: what
belongs to a conversation (messages, approval memory, todos and the rest of `SessionState`, checkpoints,
the interrupt flag, the credential pool's rests, cost) is the session's own. What a process shares is
shared on purpose and locked: the toolset catalog (a connected MCP server's tools are offered to every
session), the background-process registry (`/ps` lists them all), the child-process supervisor, the
pricing table; the command allowlist saved "always" is the user's configuration file.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agent.config.settings import Settings, endpoint_settings
from agent.core.budget import IterationBudget
from agent.core.errors import ClassifiedError, stated_context_window
from agent.core.events import StatusNotice, TurnFinished, UsageUpdated
from agent.core.messages import Message, Usage, strip_surrogates
from agent.core.permission_mode import PermissionMode, UnknownMode, initial_mode, parse_mode
from agent.core.sanitize import sanitize_for_wire
from agent.core.ui import AgentUI, NullUI
from agent.environments.base import EnvironmentUnavailable
from agent.environments.factory import open_environment, sandbox_prompt_line
from agent.environments.local import sandbox_of
from agent.images.routing import prepare_images
from agent.prompts.personality import with_ephemeral
from agent.prompts.sources import session_prompt_parts
from agent.prompts.system import build_system_prompt
from agent.session.compression import Compressor, estimate_tokens, wire_view
from agent.session.key_pool import KeyPool
from agent.session.nudges import LearningNudges
from agent.session.rewind import RewindPoint, RewindReport, checkpoints_after, rewind_points
from agent.session.route import ProviderRoute
from agent.session.services import approval_gate, checkpoint_manager, trajectory_writer
from agent.session.turn import Turn, TurnResult
from agent.skills.library import Skill, SkillLibrary
from agent.store.errors import StoreError
from agent.toolkit.executor import ToolExecutor
from agent.toolkit.registry import ToolRegistry
from agent.toolkit.state import SessionState
from agent.toolkit.toolsets import SessionToolsets, ToolsetCatalog
from agent.tools.memory import memory_state
from agent.tools.todo import todos_from_history
from agent.transports.base import ModelRequest, Transport
from agent.transports.served_window import served_window_question, session_served_window
from agent.usage.pricing import CostTotal
from agent.usage.pricing import warm_up as warm_up_prices

if TYPE_CHECKING:
    from agent.approval import ApprovalGate
    from agent.checkpoints import Checkpoint, CheckpointManager, RestoreReport
    from agent.environments import Environment
    from agent.images.store import ImageRef
    from agent.session.context_report import ContextReport
    from agent.session.trajectory import TrajectoryWriter
    from agent.store import SessionStoreProtocol

log = logging.getLogger(__name__)


CLOSE_PATIENCE = 2.0
"""Seconds `close_environment` waits for an environment still being opened before it leaves it to the
supervisor."""


class Session:
    """One conversation. Not re-entrant: one turn at a time; `interrupt()` may come from any thread."""

    def __init__(
        self,
        settings: Settings,
        *,
        ui: AgentUI | None = None,
        store: SessionStoreProtocol | None = None,
        registry: ToolRegistry | None = None,
        transport: Transport | None = None,
        session_id: str | None = None,
        source: str = "tui",
        budget: IterationBudget | None = None,
        environment: Environment | None = None,
        catalog: ToolsetCatalog | None = None,
    ) -> None:
        """`budget`: a child agent's share of its parent's (`parent.budget.child(n)`, see agent.core.budget);
        without one, every turn gets a fresh budget of `settings.max_iterations` calls.

        `environment`: where the tools run, when it is another session's (a subagent works where its
        parent does, and does not close it); without one the session opens its own from the settings
        (`terminal.backend`) when first needed (`environment`). `catalog`: the toolsets this session sees
        (a `LayeredCatalog` adds its own MCP servers); default the process's."""
        self.settings = settings
        settings.register_secrets()  # the redactor masks this session's keys wherever text leaves it
        self.owns_environment = environment is None
        self._environment = environment
        self._environment_lock = threading.Lock()
        self.ui: AgentUI = ui or NullUI()
        self.store = store
        if registry is None:
            from agent.session.catalogue import default_registry

            registry = default_registry()
        self.registry = registry
        self.executor = ToolExecutor(registry, result_budget=settings.tool_output_budget)
        self.route = ProviderRoute(lambda: self.settings, transport)
        self.interrupt_event = threading.Event()
        self._busy = threading.Lock()
        self.source = source
        self.session_id: str = ""
        self.system_prompt: str = ""
        self.messages: list[Message] = []
        self.stored_transcript: list[Message] = []
        """A resumed session's every stored message, rewound ones included (marked): what its transcript
        shows. `messages` is the model's context, without them."""
        self.session_usage = Usage()
        self.session_cost = CostTotal()
        self.last_context_tokens = 0
        # Toolsets decide each request's tools; skills, memory limits and nudges are the session's learning.
        self.toolsets = SessionToolsets(
            registry, settings, on_change=self._tools_changed, **({"catalog": catalog} if catalog else {})
        )
        self.skills = SkillLibrary(settings.hermes_home, settings.skills_disabled)
        self.nudges = LearningNudges(settings.memory_nudge_interval, settings.skill_nudge_interval)
        self.ephemeral_prompt = settings.ephemeral_system_prompt  # wire only; /personality replaces it
        self.state = SessionState(skills=self.skills, memory=memory_state(settings))
        self.approvals: ApprovalGate | None = None
        self._mode = initial_mode(settings.permission_mode, settings.yolo)
        self._shared_budget = budget
        self.budget = budget or IterationBudget(settings.max_iterations)
        self.wire_nudge: list[dict[str, Any]] = []  # wire-only turns asking again after an empty reply
        self.last_exit: str | None = None  # why the last turn ended (a resumed session's too)
        self.title_settled = False  # after a rewind the next "first" turn keeps the session's title
        self.compressor = Compressor(
            self, wire=self.wire_messages, append=self.append, interrupt=self.interrupt_event
        )
        self._served_windows: dict[tuple[str, str], int | None] = {}  # asked of local servers, once each
        self._window_learned = False  # settings.context_window is the server's (not the configuration's)
        self.images_shrunk = False  # a provider refused an image as too large: send them smaller
        self.window_noted = False  # a small known window's share taken by the tools was said (once a model)
        self._steer_lock = threading.Lock()
        self._pending_steer: list[str] = []
        self._untitled = False  # stored by `open()` before its first message: that message names it
        self.checkpoints: CheckpointManager | None = None
        self.trajectory: TrajectoryWriter | None = None
        from agent.plugins import PluginManager

        self.plugins = PluginManager(
            settings.hermes_home,
            on_error=self._plugin_error,
            enabled=settings.plugins_enabled,
            disabled=settings.plugins_disabled,
            cwd=settings.cwd,
            builtin_tools=registry.names,
            hook_timeout=settings.plugin_hook_timeout,
            load_timeout=settings.plugin_load_timeout,
        )
        self.plugins.load()
        from agent.hooks import ShellHooks

        self.hooks = ShellHooks.from_settings(settings, lambda: self.ui, self.interrupt_event)
        if session_id:
            self.resume(session_id)

    # ----------------------------------------------------------------- public API

    def interrupt(self) -> None:
        """Cooperative: the stream is abandoned within one poll slice, tools see the flag and stop."""
        self.interrupt_event.set()

    def _tools_changed(self, text: str) -> None:
        self.ui.on_event(StatusNotice(kind="info", text=text))

    def _plugin_error(self, plugin: str, where: str, message: str) -> None:
        from agent.plugins import fault_line

        self.ui.on_event(StatusNotice(kind="warn", text=fault_line(plugin, where, message)))

    def _session_services(self) -> None:
        """Per-session helpers that need the session id: checkpoints and (when enabled) trajectories."""
        # Files elsewhere (docker, ssh): its checkpoints are archives made there.
        local = self.settings.terminal.is_local if self._environment is None else self._environment.is_local
        elsewhere = None if local else (lambda: self.environment)
        self.checkpoints = checkpoint_manager(self.settings, self.session_id, elsewhere)
        self.trajectory = trajectory_writer(self.settings, self.session_id)

    def steer(self, text: str) -> None:
        """Redirect the running turn without stopping it: delivered at the next safe point (after a tool
        batch, appended to the last tool result), never as a new user message."""
        text = strip_surrogates(text.strip())
        if text:
            with self._steer_lock:
                self._pending_steer.append(text)

    def take_steer(self) -> str:
        with self._steer_lock:
            text = "\n".join(self._pending_steer)
            self._pending_steer.clear()
        return text

    @property
    def interrupted(self) -> bool:
        return self.interrupt_event.is_set()

    def wait_idle(self, timeout: float) -> bool:
        """True once no turn runs (at exit: an interrupted turn finishes its writes before the app's)."""
        if not self._busy.acquire(timeout=timeout):
            return False
        self._busy.release()
        return True

    @property
    def permission_mode(self) -> PermissionMode:
        """What the agent may do without asking (`agent.approval.modes`): both front ends set it here."""
        return self._mode

    @permission_mode.setter
    def permission_mode(self, mode: PermissionMode) -> None:
        """From the next tool call on (a running turn included); stored with the session for `-c`/`-r`."""
        self._mode = PermissionMode(mode)
        if self.approvals is not None:
            self.approvals.permission_mode = self._mode
        self._store_mode()

    def _store_mode(self) -> None:
        if self.store is None or not self.session_id:
            return
        try:
            self.store.set_permission_mode(self.session_id, self._mode.value)
        except Exception:  # a read-only or full store: the mode still applies to this run
            log.warning("could not store the permission mode", exc_info=True)

    @property
    def yolo(self) -> bool:
        return self._mode is PermissionMode.YOLO

    @yolo.setter
    def yolo(self, on: bool) -> None:
        self.set_yolo(on)

    def set_yolo(self, on: bool) -> None:
        """`/yolo` and `--yolo`: the yolo mode, or back to default from it."""
        if on:
            self.permission_mode = PermissionMode.YOLO
        elif self._mode is PermissionMode.YOLO:
            self.permission_mode = PermissionMode.DEFAULT

    def resume(self, session_id: str) -> None:
        """Load a stored session: its system prompt is reused byte for byte. A session the store only
        reads (one of Hermes' history) continues in the store's copy of it (`adopt`)."""
        if self.store is None:
            raise RuntimeError("resuming needs a session store")
        session_id = self.store.adopt(session_id)
        loaded = self.store.load(session_id)
        if self.store.take_session(session_id):  # one writer per session; a crash's leftovers repaired first
            loaded = self.store.load(session_id)
        if self.session_id and self.session_id != session_id:
            self.store.release_session(self.session_id)
        info = loaded.info
        self.session_id = info.id
        self.system_prompt = info.system_prompt
        self.stored_transcript = list(loaded.messages)
        self.messages = [m for m in loaded.messages if m.rewound_at is None]  # the model's context
        self.last_exit = info.exit_reason
        self._resumed_mode(info.permission_mode)
        self.state.todos = todos_from_history(self.messages)
        self.nudges.hydrate(self.messages)
        self.session_usage = Usage(prompt_tokens=info.input_tokens, completion_tokens=info.output_tokens)
        self.session_cost = CostTotal(info.cost_usd, info.cost_unknown_calls)
        self.approvals = None
        self._session_services()
        self.last_context_tokens = estimate_tokens(self.wire_messages())  # the meter, before any call
        # `-c` continues with the session's model, as Claude Code does (`--model` says otherwise).
        same_endpoint = info.provider in ("", self.settings.provider)
        other = info.model and info.model != self.settings.model
        if other and same_endpoint and not self.settings.model_chosen:
            self.switch_model(info.model)

    def _resumed_mode(self, stored: str | None) -> None:
        """The mode a resumed session was left in; NULL (never set): the configured one. A mode given on
        the command line wins over both, and is stored."""
        settings = self.settings
        if settings.permission_mode_chosen:
            self._mode = initial_mode(settings.permission_mode, settings.yolo)
            if stored != self._mode.value:
                self._store_mode()
            return
        try:
            self._mode = (
                parse_mode(stored) if stored else initial_mode(settings.permission_mode, settings.yolo)
            )
        except UnknownMode:
            log.warning("session %s: unknown stored permission mode %r", self.session_id, stored)
            self._mode = initial_mode(settings.permission_mode, settings.yolo)

    # ------------------------------------------------------------------ what the UI asks of the session
    def todos(self) -> list[dict[str, str]]:
        """The session's task list (a copy): a resumed transcript shows the list it left off with."""
        return [dict(item) for item in self.state.todos]

    def skill_commands(self, reserved: Iterable[str] = ()) -> dict[str, Skill]:
        """Slash command -> enabled skill, never one of the `reserved` names. Reads the skill folders
        (OSError when they cannot be read): call it off the UI thread."""
        return self.skills.commands(reserved)

    def disabled_skills(self) -> list[str]:
        """The skills switched off for this session (to save as `skills.disabled`)."""
        return sorted(self.skills.disabled)

    def list_checkpoints(self) -> list[Checkpoint] | None:
        """This session's checkpoints for `/rollback`, newest first; None before the first one was saved."""
        return None if self.checkpoints is None else self.checkpoints.list()

    def restore_checkpoint(self, checkpoint_id: str) -> RestoreReport | None:
        """Put a checkpoint's files back (the current state of its paths saved first); None without any."""
        return None if self.checkpoints is None else self.checkpoints.restore(checkpoint_id)

    def rewind_points(self) -> list[RewindPoint]:
        """The user's messages a rewind can go back to (`/rewind`, Esc Esc), newest first."""
        return rewind_points(self.messages)

    def rewind(
        self, point: RewindPoint, *, conversation: bool = True, code: bool = False, wait: float = 30.0
    ) -> RewindReport:
        """Go back to just before `point`'s message: the conversation (that message and everything after it
        leave the model's context, marked rewound in the store in one transaction), the files (the
        checkpoints taken since, restored), or both. A running turn is stopped first, as Esc stops it,
        and waited for (`wait` seconds at most). Call it off the UI thread."""
        report = RewindReport(text=point.text, conversation=conversation, code=code)
        if not self._busy.acquire(blocking=False):
            self.interrupt()
            if not self._busy.acquire(timeout=wait):
                report.problem = "The running turn did not stop: nothing was rewound. Press Esc, then retry."
                return report
        try:
            message = self.messages[point.index] if 0 <= point.index < len(self.messages) else None
            if message is None or message.id != point.message_id or message.content != point.text:
                report.problem = "That message is no longer in the conversation: nothing was rewound."
                return report
            later = self.messages[point.index :]
            checkpoint_ids = checkpoints_after(later)
            if conversation:
                try:
                    report.rewound = self._rewind_conversation(point.index)
                except StoreError as exc:
                    report.problem = f"Not rewound: {exc.user_line()}"
                    return report
                except KeyError:
                    report.problem = "That message is not in the session's store: nothing was rewound."
                    return report
            if code:
                if checkpoint_ids and self.checkpoints is None:
                    report.missing = checkpoint_ids
                elif checkpoint_ids and self.checkpoints is not None:
                    report.files, report.missing = self.checkpoints.restore_all(checkpoint_ids)
            return report
        finally:
            self.interrupt_event.clear()
            self._busy.release()

    def _rewind_conversation(self, index: int) -> int:
        """Cut the live history before `index`, the store first (a refusal changes nothing)."""
        cut = len(self.messages) - index
        now = time.time()
        stored = next((m.id for m in self.messages[index:] if m.id is not None), None)
        if self.store is not None and stored is not None:
            self.store.mark_rewound(self.session_id, stored, now)
        for later in self.messages[index:]:
            later.rewound_at = now
        self.messages = self.messages[:index]
        self.last_exit = None  # an interrupted turn rewound away is not the model's to hear about
        self.title_settled = True  # a rewind to the first message keeps the title (the user's, perhaps)
        self.wire_nudge = []
        self.take_steer()
        self.state.todos = todos_from_history(self.messages)
        self.nudges.hydrate(self.messages)
        self.last_context_tokens = estimate_tokens(self.wire_messages())
        return cut

    def update_settings(self, **changes: Any) -> Settings:
        """These settings from the next request on (`/config`, a saved toggle); the session continues."""
        self.settings = self.settings.model_copy(update=changes)
        return self.settings

    @property
    def context_window(self) -> int:
        """The tokens the current model takes (the context meter's whole)."""
        return self.settings.effective_context_window

    def hook_listing(self) -> str:
        """`/hooks`: the shell hooks, where each comes from and whether it may run."""
        return self.hooks.listing()

    def plugin_listing(self) -> str:
        """`/plugins`: every plugin found, loaded or not, and why."""
        from agent.plugins import format_plugin_list

        return format_plugin_list(self.plugins.plugins, plugin_dir=self.plugins.plugin_dir)

    @property
    def transport(self) -> Transport:
        """The transport of the endpoint in use (built on first use)."""
        return self.route.transport

    @property
    def key_pool(self) -> KeyPool | None:
        """The credential pool of the primary provider (None with one key)."""
        return self.route.key_pool

    def close_browser(self) -> None:
        """Close the session's browser, if a browser tool started one (at exit, and in `close`)."""
        from agent.browser.tools import close_browser

        close_browser(self.state)

    @property
    def environment(self) -> Environment:
        """Where the session's tools run, opened on first use (a container started, a connection made).
        Raises `EnvironmentUnavailable` (one line) when the configured backend cannot be used: no tool of
        the session runs then, on the host least of all; the next use tries again."""
        with self._environment_lock:
            if self._environment is None:
                self._environment = open_environment(self.settings)
            return self._environment

    @property
    def environment_label(self) -> str:
        """The configured environment's short label ("" for local), without opening it."""
        if self._environment is not None:
            return self._environment.label
        return self.settings.terminal.label()

    def close_environment(self) -> None:
        """End the session's environment (its container stopped, its connection closed, what its commands
        left running there stopped); a later tool call opens it again. Another session's is left alone."""
        # Still being opened (a container image pulled, a slow login): the exit does not wait for it; what
        # the opening started is the supervisor's child, stopped with the rest when the app ends.
        if not self._environment_lock.acquire(timeout=CLOSE_PATIENCE):
            return
        try:
            environment = self._environment
            if self.owns_environment:
                self._environment = None
        finally:
            self._environment_lock.release()
        if environment is not None and self.owns_environment:
            environment.close()

    def close(self) -> None:
        self.close_browser()
        self.close_environment()
        self.route.close()
        if self.store is not None and self.session_id:
            self.store.release_session(self.session_id)
        self.plugins.close()

    @property
    def model(self) -> str:
        """The model the next call goes to (a fallback's during a turn that fell back)."""
        return self.route.model

    def switch_model(self, model: str, provider: str | None = None, base_url: str | None = None) -> None:
        """Send the next turns to `model`, named so in events, plugin hooks, error messages and new sessions.

        `provider` (with `base_url`, else the provider's default) switches the endpoint too; a new provider's
        key comes from its environment variable when that is set. The current session continues: its system
        prompt stays byte for byte what it was (prompt caching). Raises RuntimeError during a turn.
        """
        if not self._busy.acquire(blocking=False):
            raise RuntimeError("the model cannot change while a turn runs")
        try:
            before = (self.settings.provider, self.settings.effective_base_url)
            if provider is None or provider == self.settings.provider:
                url = self.settings.base_url if base_url is None else base_url
                self.settings = self.settings.model_copy(update={"model": model, "base_url": url})
            else:
                self.settings = endpoint_settings(self.settings, provider, model, base_url)
            if self._window_learned:  # the old model's window, said by its server: ask again
                self.settings = self.settings.model_copy(update={"context_window": None})
                self._window_learned = False
            self.window_noted = False
            if (self.settings.provider, self.settings.effective_base_url) != before:  # its own keys
                self.route.renew_keys()
            self.route.restore_primary()  # the next call builds a transport for these settings
        finally:
            self._busy.release()

    def _learn_context_window(self) -> None:
        """A local server's own window (llama.cpp's `/props`, vLLM's model card) for the context meter and
        compression, when the configuration gives none; asked once per server and model."""
        question = served_window_question(self.settings)
        if question is None:
            return
        key = question[:2]
        if key not in self._served_windows:
            self._served_windows[key] = session_served_window(question)
        found = self._served_windows[key]
        if found:
            self._use_served_window(found)

    def _use_served_window(self, window: int) -> None:
        """The server's own window as the session's (forgotten when the model changes: `switch_model`)."""
        self.settings = self.settings.model_copy(update={"context_window": window})
        self._window_learned = True

    def learn_stated_window(self, exc: BaseException, request: ModelRequest) -> None:
        """The window an overflow error states (llama-cpp-python has no `/props`, but its refusal says
        "maximum context length is 2048 tokens"), when the configuration gives none: the meter (told at
        once, with the refused request's size) and the compression that follows aim at it. Not while a
        fallback answers: the window is the primary's."""
        if self.settings.context_window or self.route.on_fallback:
            return
        stated = stated_context_window(exc)
        if not stated:
            return
        self._use_served_window(stated)
        refused = estimate_tokens(request.messages, request.tools)
        self.ui.on_event(
            UsageUpdated(
                call=Usage(),
                session=self.session_usage.copy(),
                context_tokens=max(refused, self.last_context_tokens),
                context_window=stated,
                session_cost=self.session_cost.usd or None,  # no call priced yet: no "$0" for a local model
                session_unknown_calls=self.session_cost.unknown_calls,
            )
        )

    def run_conversation(self, user_message: str, images: Sequence[ImageRef] = ()) -> TurnResult:
        """One turn; `images` (stored with `agent.images.save_image`) go with the user's message."""
        with self._busy:
            self.interrupt_event.clear()
            turn_start = len(self.messages)
            try:
                self.environment  # noqa: B018 - opened (or refused) before the model is asked anything
            except EnvironmentUnavailable as exc:
                return self._environment_failed(exc)
            try:
                return Turn(self, user_message, images).run()
            except StoreError as exc:
                return self._store_failed(exc, turn_start)
            finally:
                self.interrupt_event.clear()

    def begin_turn(self) -> None:
        """A turn's entry: the server's window asked (once), a fresh budget, back on the primary provider."""
        self._learn_context_window()
        self.compressor.new_turn()
        self.budget = self._shared_budget or IterationBudget(self.settings.max_iterations)
        if self.route.on_fallback:
            self.route.restore_primary()

    def _environment_failed(self, exc: EnvironmentUnavailable) -> TurnResult:
        """The configured backend cannot be used: the turn ends before the model is asked, with its line."""
        error = ClassifiedError(reason="environment", message=str(exc), retryable=False, hint=str(exc))
        self.set_status("error")
        self.ui.on_event(
            TurnFinished(exit_reason=error.exit_reason, final_text="", usage=Usage(), error=error.user_line())
        )
        return TurnResult(error.exit_reason, "", Usage(), 0, self.session_id, error)

    def _store_failed(self, exc: StoreError, turn_start: int) -> TurnResult:
        """The store failed mid-turn (see `agent.session.storage_fault`): the turn ends here, saying what is
        lost."""
        from agent.session.storage_fault import storage_failure, unsaved_count

        unsaved = unsaved_count(self.messages[turn_start:], streamed_reply_lost=exc.unsaved_reply)
        error = storage_failure(exc, unsaved)
        self.set_status("error")
        self.ui.on_event(
            TurnFinished(exit_reason=error.exit_reason, final_text="", usage=Usage(), error=error.user_line())
        )
        return TurnResult(error.exit_reason, "", Usage(), 0, self.session_id, error)

    # ----------------------------------------------------------------- what a turn needs of its session

    def _build_system_prompt(self) -> str:
        tools = self.toolsets.active_tools()
        # Where the tools run: the opened environment's (a turn opens it first); `/context` before the
        # first message measures without opening one.
        environment = self._environment
        runs_in = self.settings.terminal.label()  # "" for local, sandboxed or not (that is `sandbox`'s line)
        if environment is not None and not environment.is_local:
            runs_in = environment.label
        return build_system_prompt(
            cwd=self.settings.cwd,
            runs_in=runs_in,
            tools_cwd=environment.cwd if environment is not None else None,
            sandbox=sandbox_prompt_line(self.settings),
            tools=[(t.name, t.description) for t in tools],
            model=self.settings.model,
            **session_prompt_parts(
                self.settings, {t.name for t in tools}, self.skills, self.toolsets.active_instructions()
            ),
        )

    def context_report(self) -> ContextReport:
        """What the next request holds, part by part (`/context`). Before the first message, the system
        prompt that message will build is measured (it is built once per session, then kept)."""
        from agent.session.context_report import measure_request

        wire = self.wire_messages()
        prompt = self.system_prompt or self._build_system_prompt()
        if not self.system_prompt:
            wire[0] = {**wire[0], "content": with_ephemeral(prompt, self.ephemeral_prompt)}
        return measure_request(
            wire,
            self.toolsets.schemas(),
            prompt_chars=len(prompt.rstrip()),
            measured=self.last_context_tokens,
            window=self.context_window,
        )

    def ensure_session(self, first_message: str) -> None:
        warm_up_prices()  # once per process, in the background: the first call's cost needs the table
        if not self.system_prompt:
            self.system_prompt = self._build_system_prompt()
        if not self.session_id:
            if self.store is not None:
                self.session_id = self.store.create_session(
                    model=self.settings.model,
                    provider=self.settings.provider or self.settings.api_mode,
                    base_url=self.settings.base_url or "",
                    cwd=str(self.settings.cwd),
                    system_prompt=self.system_prompt,
                    source=self.source,
                )
                self.store.claim_session(self.session_id)
                if self._mode is not PermissionMode.DEFAULT:
                    self._store_mode()
                if self.plugins.has_hooks("on_session_start"):
                    self.plugins.session_started(self.session_id, self.route.model)
                if self.hooks.has_hooks("on_session_start"):
                    self.hooks.session_started(self.session_id, self.route.model)
                self._untitled = True
            else:
                import uuid

                self.session_id = time.strftime("%Y%m%d_%H%M%S_") + uuid.uuid4().hex[:6]
        title = " ".join(first_message.split())[:100]
        if self._untitled and title and self.store is not None:
            self._untitled = False
            try:
                self.store.set_title(self.session_id, title)
            except Exception:
                pass
        if self.checkpoints is None:
            self._session_services()
        if self.approvals is None:
            self.approvals = approval_gate(
                self.settings,
                ui=self.ui,
                session_id=self.session_id,
                store=self.store,
                interrupt=self.interrupt_event,
                side_settings=self.route.keyed_settings,
                mode=self._mode,
                sandbox=sandbox_of(self.environment),
            )

    def open(self) -> str:
        """Store the session now, before its first message, and return its id: a front end that must name
        the session at once (an ACP client's `session/new`) gets the store's id, so the same id resumes it
        anywhere (`hermes-tui -r ID`). The first message still gives it its title."""
        self.ensure_session("")
        return self.session_id

    def append(self, message: Message) -> None:
        message.content = strip_surrogates(message.content)
        self.messages.append(message)
        if self.store is not None:
            self.store.append_message(self.session_id, message)

    def set_status(self, status: str) -> None:
        if self.store is not None:
            try:
                self.store.set_status(self.session_id, status)
            except Exception:
                pass

    def wire_messages(self) -> list[dict[str, Any]]:
        view = [
            replace(m, content=m.api_content) if m.api_content != m.content else m
            for m in wire_view(self.messages)
        ]
        system = with_ephemeral(self.system_prompt, self.ephemeral_prompt)
        wire = [
            {"role": "system", "content": system},
            *sanitize_for_wire(view, reasoning_echo=self.route.endpoint().needs_reasoning_echo),
            *self.wire_nudge,
        ]
        vision_tool = "vision_analyze" in self.toolsets.active_names()
        return prepare_images(wire, self.settings, shrink=self.images_shrunk, vision_tool=vision_tool)

    # ----------------------------------------------------------------- compression

    def compress_now(self, *, reason: str = "on request") -> bool:
        """Summarize the middle of the conversation (the /compress command). Runs a model call."""
        with self._busy:
            self.interrupt_event.clear()
            try:
                return self.compressor.run(reason)
            finally:
                self.interrupt_event.clear()

    # ----------------------------------------------------------------- fallback

    def activate_fallback(self, error: ClassifiedError) -> bool:
        """The next fallback provider for the rest of the turn, saying so; False when the chain is spent."""
        entry = self.route.fall_back()
        if entry is None:
            return False
        text = f"{error.user_line()} Falling back to {entry.provider}/{entry.model} this turn."
        self.ui.on_event(StatusNotice(kind="warn", text=text))
        return True

    def backoff_wait(self, delay: float) -> bool:
        """Sleep before a retry; True when the user interrupted meanwhile (the sleep ends at once)."""
        return self.interrupt_event.wait(delay)


__all__ = ["Session", "TurnResult"]
