"""A session: one conversation's settings, messages, store, environment and the operations the UI calls.

`Session` is what the UI (through `agent.api`) and subagents hold; a turn is `agent.session.turn.Turn`,
built by `run_conversation` and given the session through the `TurnHost` seam (`agent.session.host`).
Where its model calls go is its `ProviderRoute` (`agent.session.route`); the rest of what it is made of
are collaborators beside it, one concept each: the permission mode (`permission`), the environment slot
(`environment_slot`), the learnt context window (`context_window`), steering (`steering`), its store row
(`session_row`), its system prompt (`system_prompt`), its services (`services`) and rewinding
(`rewind`). The session keeps the surface the UI calls and delegates.

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
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agent.config.settings import Settings
from agent.core.budget import IterationBudget
from agent.core.errors import ClassifiedError
from agent.core.events import StatusNotice, TurnFinished
from agent.core.messages import Message, Usage, strip_surrogates
from agent.core.permission_mode import PermissionMode
from agent.core.sanitize import sanitize_for_wire
from agent.core.ui import AgentUI, NullUI
from agent.environments.base import EnvironmentUnavailable
from agent.environments.local import sandbox_of
from agent.images.routing import prepare_images
from agent.prompts.personality import with_ephemeral
from agent.session.compression import Compressor, estimate_tokens, wire_view
from agent.session.context_window import WindowLearner
from agent.session.environment_slot import EnvironmentSlot, environment_refusal
from agent.session.key_pool import KeyPool
from agent.session.nudges import LearningNudges
from agent.session.permission import SessionMode
from agent.session.rewind import RewindPoint, RewindReport, rewind_history, rewind_points
from agent.session.route import ProviderRoute, switched_settings
from agent.session.services import (
    approval_gate,
    checkpoint_manager,
    plugin_manager,
    shell_hooks,
    trajectory_writer,
)
from agent.session.session_row import new_session_id, store_title, take_stored
from agent.session.steering import SteerBox
from agent.session.system_prompt import session_system_prompt
from agent.session.turn import Turn, TurnResult
from agent.skills.library import Skill, SkillLibrary
from agent.store.errors import StoreError
from agent.toolkit.executor import ToolExecutor
from agent.toolkit.registry import ToolRegistry
from agent.toolkit.state import SessionState
from agent.toolkit.toolsets import SessionToolsets, ToolsetCatalog
from agent.tools.memory import memory_state
from agent.tools.todo import todos_from_history
from agent.transports.base import Transport
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
        self.ui: AgentUI = ui or NullUI()
        self.store = store
        self.source = source
        self.session_id: str = ""
        self.interrupt_event = threading.Event()
        self._busy = threading.Lock()
        self.steering = SteerBox()
        self._conversation()
        self._engine(registry, transport, catalog, environment, budget)
        self._learning()
        self._extensions()
        if session_id:
            self.resume(session_id)

    def _conversation(self) -> None:
        """The messages and what they add up to (usage, cost, the last exit), empty until a turn or a
        resume fills them."""
        self.system_prompt: str = ""
        self.messages: list[Message] = []
        self.stored_transcript: list[Message] = []
        """A resumed session's every stored message, rewound ones included (marked): what its transcript
        shows. `messages` is the model's context, without them."""
        self.session_usage = Usage()
        self.session_cost = CostTotal()
        self.last_context_tokens = 0
        self.wire_nudge: list[dict[str, Any]] = []  # wire-only turns asking again after an empty reply
        self.last_exit: str | None = None  # why the last turn ended (a resumed session's too)
        self.title_settled = False  # after a rewind the next "first" turn keeps the session's title
        self._untitled = False  # stored by `open()` before its first message: that message names it
        self.images_shrunk = False  # a provider refused an image as too large: send them smaller
        self.window_noted = False  # a small known window's share taken by the tools was said (once a model)

    def _engine(
        self,
        registry: ToolRegistry | None,
        transport: Transport | None,
        catalog: ToolsetCatalog | None,
        environment: Environment | None,
        budget: IterationBudget | None,
    ) -> None:
        """Where calls go and tools run: the route, the tools, the environment, the budget, the mode and
        the services built once the session has an id (approvals, checkpoints, trajectories)."""
        settings = self.settings
        if registry is None:
            from agent.session.catalogue import default_registry

            registry = default_registry()
        self.registry = registry
        self.executor = ToolExecutor(registry, result_budget=settings.tool_output_budget)
        self.route = ProviderRoute(lambda: self.settings, transport)
        self.toolsets = SessionToolsets(
            registry, settings, on_change=self._tools_changed, **({"catalog": catalog} if catalog else {})
        )
        self.environment_slot = EnvironmentSlot(lambda: self.settings, environment)
        self.window = WindowLearner()
        self.mode = SessionMode(settings, self.store, lambda: self.session_id)
        self._shared_budget = budget
        self.budget = budget or IterationBudget(settings.max_iterations)
        self.compressor = Compressor(
            self, wire=self.wire_messages, append=self.append, interrupt=self.interrupt_event
        )
        self.approvals: ApprovalGate | None = None
        self.checkpoints: CheckpointManager | None = None
        self.trajectory: TrajectoryWriter | None = None

    def _learning(self) -> None:
        """Skills, memory, todos and nudges: what the session learns and keeps across turns."""
        settings = self.settings
        self.skills = SkillLibrary(settings.hermes_home, settings.skills_disabled)
        self.nudges = LearningNudges(settings.memory_nudge_interval, settings.skill_nudge_interval)
        self.ephemeral_prompt = settings.ephemeral_system_prompt  # wire only; /personality replaces it
        self.state = SessionState(skills=self.skills, memory=memory_state(settings))

    def _extensions(self) -> None:
        """The user's plugins (loaded now) and shell hooks."""
        self.plugins = plugin_manager(self.settings, self.registry.names, on_error=self._plugin_error)
        self.hooks = shell_hooks(self.settings, lambda: self.ui, self.interrupt_event)

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
        elsewhere = None if self.environment_slot.is_local else (lambda: self.environment)
        self.checkpoints = checkpoint_manager(self.settings, self.session_id, elsewhere)
        self.trajectory = trajectory_writer(self.settings, self.session_id)

    def steer(self, text: str) -> None:
        """Redirect the running turn without stopping it: delivered at the next safe point (after a tool
        batch, appended to the last tool result), never as a new user message."""
        self.steering.add(text)

    def take_steer(self) -> str:
        return self.steering.take()

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
        return self.mode.current

    @permission_mode.setter
    def permission_mode(self, mode: PermissionMode) -> None:
        """From the next tool call on (a running turn included); stored with the session for `-c`/`-r`."""
        self.mode.set(mode)
        if self.approvals is not None:
            self.approvals.permission_mode = self.mode.current

    @property
    def yolo(self) -> bool:
        return self.mode.current is PermissionMode.YOLO

    @yolo.setter
    def yolo(self, on: bool) -> None:
        self.set_yolo(on)

    def set_yolo(self, on: bool) -> None:
        """`/yolo` and `--yolo`: the yolo mode, or back to default from it."""
        target = self.mode.yolo_target(on)
        if target is not None:
            self.permission_mode = target

    def resume(self, session_id: str) -> None:
        """Load a stored session: its system prompt is reused byte for byte. A session the store only
        reads (one of Hermes' history) continues in the store's copy of it (`adopt`)."""
        if self.store is None:
            raise RuntimeError("resuming needs a session store")
        loaded = take_stored(self.store, session_id, leaving=self.session_id)
        info = loaded.info
        self.session_id = info.id
        self.system_prompt = info.system_prompt
        self.stored_transcript = list(loaded.messages)
        self.messages = [m for m in loaded.messages if m.rewound_at is None]  # the model's context
        self.last_exit = info.exit_reason
        self.mode.restore(info.permission_mode, self.settings)
        self.session_usage = Usage(prompt_tokens=info.input_tokens, completion_tokens=info.output_tokens)
        self.session_cost = CostTotal(info.cost_usd, info.cost_unknown_calls)
        self.approvals = None
        self._session_services()
        self._history_read()
        # `-c` continues with the session's model, as Claude Code does (`--model` says otherwise).
        same_endpoint = info.provider in ("", self.settings.provider)
        other = info.model and info.model != self.settings.model
        if other and same_endpoint and not self.settings.model_chosen:
            self.switch_model(info.model)

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
        """Go back to just before `point`'s message: the conversation, the files, or both
        (`agent.session.rewind`). A running turn is stopped first, as Esc stops it, and waited for (`wait`
        seconds at most). Call it off the UI thread."""
        if not self._busy.acquire(blocking=False):
            self.interrupt()
            if not self._busy.acquire(timeout=wait):
                problem = "The running turn did not stop: nothing was rewound. Press Esc, then retry."
                return RewindReport(text=point.text, conversation=conversation, code=code, problem=problem)
        try:
            return rewind_history(self, point, conversation=conversation, code=code)
        finally:
            self.interrupt_event.clear()
            self._busy.release()

    def history_rewound(self) -> None:
        """After a rewind: what is derived from the live history, derived again."""
        self.last_exit = None  # an interrupted turn rewound away is not the model's to hear about
        self.title_settled = True  # a rewind to the first message keeps the title (the user's, perhaps)
        self.wire_nudge = []
        self.take_steer()
        self._history_read()

    def _history_read(self) -> None:
        """The todo list, the nudges' counts and the meter (before any call), from the live history."""
        self.state.todos = todos_from_history(self.messages)
        self.nudges.hydrate(self.messages)
        self.last_context_tokens = estimate_tokens(self.wire_messages())

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
        return self.environment_slot.get()

    @property
    def environment_label(self) -> str:
        """The configured environment's short label ("" for local), without opening it."""
        return self.environment_slot.label

    def close_environment(self) -> None:
        """End the session's environment (its container stopped, its connection closed, what its commands
        left running there stopped); a later tool call opens it again. Another session's is left alone."""
        self.environment_slot.close()

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
            self.settings = switched_settings(self.settings, model, provider, base_url)
            self.settings = self.window.forget(self.settings)  # the old model's window: ask again
            self.window_noted = False
            if (self.settings.provider, self.settings.effective_base_url) != before:  # its own keys
                self.route.renew_keys()
            self.route.restore_primary()  # the next call builds a transport for these settings
        finally:
            self._busy.release()

    def run_conversation(self, user_message: str, images: Sequence[ImageRef] = ()) -> TurnResult:
        """One turn; `images` (stored with `agent.images.save_image`) go with the user's message."""
        with self._running():
            turn_start = len(self.messages)
            try:
                self.environment  # noqa: B018 - opened (or refused) before the model is asked anything
            except EnvironmentUnavailable as exc:
                return self._turn_failed(environment_refusal(exc))
            try:
                return Turn(self, user_message, images).run()
            except StoreError as exc:
                return self._store_failed(exc, turn_start)

    @contextmanager
    def _running(self) -> Iterator[None]:
        """One turn (or `/compress`) at a time; an interrupt meant for an earlier one is not this one's."""
        with self._busy:
            self.interrupt_event.clear()
            try:
                yield
            finally:
                self.interrupt_event.clear()

    def begin_turn(self) -> None:
        """A turn's entry: the server's window asked (once), a fresh budget, back on the primary provider."""
        self.settings = self.window.served(self.settings)  # a local server's own window, asked once
        self.compressor.new_turn()
        self.budget = self._shared_budget or IterationBudget(self.settings.max_iterations)
        if self.route.on_fallback:
            self.route.restore_primary()

    def _store_failed(self, exc: StoreError, turn_start: int) -> TurnResult:
        """The store failed mid-turn (see `agent.session.storage_fault`): the turn ends here, saying what is
        lost."""
        from agent.session.storage_fault import storage_failure, unsaved_count

        unsaved = unsaved_count(self.messages[turn_start:], streamed_reply_lost=exc.unsaved_reply)
        return self._turn_failed(storage_failure(exc, unsaved))

    def _turn_failed(self, error: ClassifiedError) -> TurnResult:
        """A turn ended before or outside the model's answer (no environment, a failing store)."""
        self.set_status("error")
        self.ui.on_event(
            TurnFinished(exit_reason=error.exit_reason, final_text="", usage=Usage(), error=error.user_line())
        )
        return TurnResult(error.exit_reason, "", Usage(), 0, self.session_id, error)

    # ----------------------------------------------------------------- what a turn needs of its session

    def _build_system_prompt(self) -> str:
        return session_system_prompt(self.settings, self.toolsets, self.skills, self.environment_slot.opened)

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
        # Once per process, in the background: the first call's cost needs the table (if it can have one).
        warm_up_prices(self.route.provider or "", self.route.base_url)
        if not self.system_prompt:
            self.system_prompt = self._build_system_prompt()
        if not self.session_id:
            self.session_id = new_session_id(self.store, self.settings, self.system_prompt, self.source)
            if self.store is not None:
                if self.mode.current is not PermissionMode.DEFAULT:
                    self.mode.save()
                if self.plugins.has_hooks("on_session_start"):
                    self.plugins.session_started(self.session_id, self.route.model)
                if self.hooks.has_hooks("on_session_start"):
                    self.hooks.session_started(self.session_id, self.route.model)
                self._untitled = True
        if self._untitled and self.store is not None:
            self._untitled = not store_title(self.store, self.session_id, first_message)
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
                mode=self.mode.current,
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
        with self._running():
            return self.compressor.run(reason)

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
