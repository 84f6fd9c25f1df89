"""The agent loop: one synchronous turn, meant to run in a worker thread.

`run_conversation` loops model call -> tools -> model call until the model stops, the user interrupts, the
iteration budget runs out (then one last tool-less call asks for a summary) or an error cannot be
recovered. Everything the user should see is an event through `AgentUI`; everything that completes is
persisted at once, so a crash at any moment leaves a consistent, resumable session.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from agent.config.settings import Settings, endpoint_settings, next_fallback
from agent.core import exit_reasons
from agent.core.budget import IterationBudget
from agent.core.errors import (
    ClassifiedError,
    EmptyStreamError,
    InterruptedByUser,
    backoff_delay,
    classify,
    stated_context_window,
)
from agent.core.events import (
    ApiCallStarted,
    AssistantMessageDone,
    StatusNotice,
    SteerDelivered,
    StreamDiscarded,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from agent.core.messages import API_CONTENT, REASONING_DETAILS, Message, ToolCall, Usage, strip_surrogates
from agent.core.sanitize import sanitize_for_wire
from agent.core.ui import AgentUI, NullUI
from agent.images.routing import prepare_images, sees_images
from agent.prompts.personality import with_ephemeral
from agent.prompts.sources import session_prompt_parts
from agent.prompts.system import build_system_prompt, context_sections
from agent.session import reply_outcomes, request_parts
from agent.session.call_sink import CallSink
from agent.session.compression import Compressor, estimate_tokens, wire_view
from agent.session.key_pool import KeyPool
from agent.session.nudges import LearningNudges
from agent.skills.invoke import skill_invocation
from agent.skills.library import Skill, SkillLibrary
from agent.store.errors import StoreError
from agent.toolkit.executor import ExecutedCall, ToolExecutor
from agent.toolkit.registry import ToolContext, ToolRegistry
from agent.toolkit.state import SessionState
from agent.toolkit.toolsets import SessionToolsets
from agent.tools.memory import memory_state
from agent.tools.todo import todos_from_history
from agent.transports.base import (
    ModelRequest,
    ModelResponse,
    PartialInterrupt,
    SDKClientHolder,
    Transport,
    approx_tokens,
)
from agent.transports.endpoint import Endpoint
from agent.transports.factory import make_transport
from agent.transports.served_window import served_context_window
from agent.usage.pricing import CallCost, CostTotal, call_cost
from agent.usage.pricing import warm_up as warm_up_prices

if TYPE_CHECKING:
    from agent.approval import ApprovalGate
    from agent.checkpoints import BatchCheckpoint, Checkpoint, CheckpointManager, RestoreReport
    from agent.images.store import ImageRef
    from agent.session.trajectory import TrajectoryWriter
    from agent.store import SessionStoreProtocol

CONTINUE_PROMPT = (
    "[System: Your previous response was truncated by the output length limit. Continue exactly where you "
    "left off. Do not restart or repeat prior text. Finish the answer directly.]"
)
BUDGET_PROMPT = (
    "You've reached the maximum number of tool-calling iterations allowed. Please provide a final response "
    "summarizing what you've found and accomplished so far, without calling any more tools."
)
MAX_CONTINUATIONS = 3
STEER_MARKER = "\n\n[The user sent this while you were working; take it into account: {text}]"


ROLLBACK_HINT = " (/rollback to restore)"
"""How a checkpoint notice says it can be undone (a front end without /rollback leaves it out)."""


@dataclass
class TurnResult:
    exit_reason: str
    final_text: str
    usage: Usage
    api_calls: int
    session_id: str
    error: ClassifiedError | None = None
    pending_steer: str | None = None

    @property
    def completed(self) -> bool:
        return self.exit_reason == "completed"


class Agent:
    """One session's agent. Not re-entrant: one turn at a time; `interrupt()` may come from any thread."""

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
    ) -> None:
        """`budget`: a child agent's share of its parent's (`parent.budget.child(n)`, see agent.core.budget);
        without one, every turn gets a fresh budget of `settings.max_iterations` calls."""
        self.settings = settings
        settings.register_secrets()  # the redactor masks this session's keys wherever text leaves it
        self.ui: AgentUI = ui or NullUI()
        self.store = store
        if registry is None:
            from agent.session.catalogue import default_registry

            registry = default_registry()
        self.registry = registry
        self.executor = ToolExecutor(registry, result_budget=settings.tool_output_budget)
        self._transport = transport
        # Several keys for the primary provider (Hermes' credential pool): None with one key.
        self.key_pool: KeyPool | None = KeyPool.for_settings(settings) if transport is None else None
        self._interrupt = threading.Event()
        self._busy = threading.Lock()
        self.source = source
        self.session_id: str = ""
        self.system_prompt: str = ""
        self.messages: list[Message] = []
        self.session_usage = Usage()
        self.session_cost = CostTotal()
        self.last_context_tokens = 0
        # Toolsets decide each request's tools; skills, memory limits and nudges are the session's learning.
        self.toolsets = SessionToolsets(registry, settings, on_change=self._tools_changed)
        self.skills = SkillLibrary(settings.hermes_home, settings.skills_disabled)
        self.nudges = LearningNudges(settings.memory_nudge_interval, settings.skill_nudge_interval)
        self.ephemeral_prompt = settings.ephemeral_system_prompt  # wire only; /personality replaces it
        self.state = SessionState(skills=self.skills, memory=memory_state(settings))
        self.approvals: ApprovalGate | None = None
        self.yolo = settings.yolo
        self._fallback_index = 0  # 0 = the primary provider; n = fallback_providers[n-1]
        self._fallback_settings: Settings | None = None  # the endpoint a fallback moved this turn to
        self._active_model = settings.model
        self._shared_budget = budget
        self.budget = budget or IterationBudget(settings.max_iterations)
        self._wire_nudge: list[dict[str, Any]] = []  # wire-only turns asking again after an empty reply
        self._active_endpoint = (settings.provider, settings.base_url)  # a fallback's during one
        self.compressor = Compressor(
            self, wire=self._wire_messages, append=self._append, interrupt=self._interrupt
        )
        self._served_windows: dict[tuple[str, str], int | None] = {}  # asked of local servers, once each
        self._window_learned = False  # settings.context_window is the server's (not the configuration's)
        self._window_noted = False  # a small known window's share taken by the tools was said (once a model)
        self._output_cap: int | None = None  # a larger output cap for the retry of a cut tool call
        self._shrink_images = False  # a provider refused an image as too large: send them smaller
        self._turn_user_index = -1
        self._steer_lock = threading.Lock()
        self._pending_steer: list[str] = []
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
        if session_id:
            self.resume(session_id)

    # ----------------------------------------------------------------- public API

    def interrupt(self) -> None:
        """Cooperative: the stream is abandoned within one poll slice, tools see the flag and stop."""
        self._interrupt.set()

    def _tools_changed(self, text: str) -> None:
        self.ui.on_event(StatusNotice(kind="info", text=text))

    def _plugin_error(self, plugin: str, where: str, message: str) -> None:
        from agent.plugins import fault_line

        self.ui.on_event(StatusNotice(kind="warn", text=fault_line(plugin, where, message)))

    def _session_services(self) -> None:
        """Per-session helpers that need the session id: checkpoints and (when enabled) trajectories."""
        from agent.checkpoints import CheckpointManager

        home = self.settings.hermes_home / "tui"
        self.checkpoints = CheckpointManager(
            home / "checkpoints", self.session_id, hermes_home=self.settings.hermes_home
        )
        if self.settings.save_trajectories:
            from agent.session.trajectory import TrajectoryWriter

            key = self.settings.api_key.get_secret_value() if self.settings.api_key else ""
            self.trajectory = TrajectoryWriter(
                home / "trajectories", self.session_id, secrets=[key] if key else []
            )

    def steer(self, text: str) -> None:
        """Redirect the running turn without stopping it: delivered at the next safe point (after a tool
        batch, appended to the last tool result), never as a new user message."""
        text = strip_surrogates(text.strip())
        if text:
            with self._steer_lock:
                self._pending_steer.append(text)

    def _take_steer(self) -> str:
        with self._steer_lock:
            text = "\n".join(self._pending_steer)
            self._pending_steer.clear()
        return text

    def _deliver_steer(self) -> None:
        """Append a pending steer to the last tool result (the transcript ends on one after a batch)."""
        if not self.messages or self.messages[-1].role != "tool":
            return
        text = self._take_steer()
        if not text:
            return
        last = self.messages[-1]
        last.content += STEER_MARKER.format(text=text)
        last.meta = {**last.meta, "steer": text}
        if self.store is not None and last.id is not None:
            self.store.update_message(last)
        self.ui.on_event(SteerDelivered(text))

    @property
    def interrupted(self) -> bool:
        return self._interrupt.is_set()

    def wait_idle(self, timeout: float) -> bool:
        """True once no turn runs (at exit: an interrupted turn finishes its writes before the app's)."""
        if not self._busy.acquire(timeout=timeout):
            return False
        self._busy.release()
        return True

    def set_yolo(self, on: bool) -> None:
        self.yolo = on
        if self.approvals is not None:
            self.approvals.yolo = on

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
        self.messages = list(loaded.messages)
        self.state.todos = todos_from_history(self.messages)
        self.nudges.hydrate(self.messages)
        self.session_usage = Usage(prompt_tokens=info.input_tokens, completion_tokens=info.output_tokens)
        self.session_cost = CostTotal(info.cost_usd, info.cost_unknown_calls)
        self.approvals = None
        self._session_services()
        self.last_context_tokens = estimate_tokens(self._wire_messages())  # the meter, before any call
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

    def update_settings(self, **changes: Any) -> Settings:
        """These settings from the next request on (`/config`, a saved toggle); the session continues."""
        self.settings = self.settings.model_copy(update=changes)
        return self.settings

    @property
    def context_window(self) -> int:
        """The tokens the current model takes (the context meter's whole)."""
        return self.settings.effective_context_window

    def plugin_listing(self) -> str:
        """`/plugins`: every plugin found, loaded or not, and why."""
        from agent.plugins import format_plugin_list

        return format_plugin_list(self.plugins.plugins, plugin_dir=self.plugins.plugin_dir)

    @property
    def transport(self) -> Transport:
        if self._transport is None:
            self._transport = make_transport(self._keyed_settings())
        return self._transport

    def _keyed_settings(self) -> Settings:
        """`settings` with the credential pool's key in use: side calls (titles, smart approval) go out with
        the key that is not resting."""
        if self.key_pool is None:
            return self.settings
        return self.settings.model_copy(update={"api_key": SecretStr(self.key_pool.current_key)})

    def _use_key(self, key: str) -> None:
        """The primary transport sends `key` from now on (the credential pool chose it)."""
        if isinstance(self._transport, SDKClientHolder):
            self._transport.use_api_key(key)

    def close_browser(self) -> None:
        """Close the session's browser, if a browser tool started one (at exit, and in `close`)."""
        from agent.browser.tools import close_browser

        close_browser(self.state)

    def close(self) -> None:
        self.close_browser()
        if self._transport is not None:
            self._transport.close()
        if self.store is not None and self.session_id:
            self.store.release_session(self.session_id)
        self.plugins.close()

    @property
    def model(self) -> str:
        """The model the next call goes to (a fallback's during a turn that fell back)."""
        return self._active_model

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
            self._window_noted = False
            if (self.settings.provider, self.settings.effective_base_url) != before:  # its own keys
                self.key_pool = KeyPool.for_settings(self.settings)
            self._restore_primary()  # closes the old transport: the next call builds one for these settings
        finally:
            self._busy.release()

    def _learn_context_window(self) -> None:
        """A local server's own window (llama.cpp's `/props`, vLLM's model card) for the context meter and
        compression, when the configuration gives none; asked once per server and model."""
        settings = self.settings
        base = settings.effective_base_url
        if settings.context_window or not base or settings.api_mode != "openai_chat":
            return
        key = (base, settings.model)
        if key not in self._served_windows:
            local = Endpoint(settings.provider or "", base, settings.model).is_local
            secret = settings.api_key.get_secret_value() if settings.api_key else None
            self._served_windows[key] = served_context_window(base, settings.model, secret) if local else None
        found = self._served_windows[key]
        if found:
            self._use_served_window(found)

    def _use_served_window(self, window: int) -> None:
        """The server's own window as the session's (forgotten when the model changes: `switch_model`)."""
        self.settings = self.settings.model_copy(update={"context_window": window})
        self._window_learned = True

    def _learn_stated_window(self, exc: BaseException, request: ModelRequest) -> None:
        """The window an overflow error states (llama-cpp-python has no `/props`, but its refusal says
        "maximum context length is 2048 tokens"), when the configuration gives none: the meter (told at
        once, with the refused request's size) and the compression that follows aim at it. Not while a
        fallback answers: the window is the primary's."""
        if self.settings.context_window or self._fallback_index:
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
            self._interrupt.clear()
            self._learn_context_window()
            self.compressor.new_turn()
            self.budget = self._shared_budget or IterationBudget(self.settings.max_iterations)
            if self._fallback_index:
                self._restore_primary()
            turn_start = len(self.messages)
            try:
                return self._run_turn(user_message, images)
            except StoreError as exc:
                return self._store_failed(exc, turn_start)
            finally:
                self._interrupt.clear()

    def _store_failed(self, exc: StoreError, turn_start: int) -> TurnResult:
        """The store failed mid-turn (see `agent.session.storage_fault`): the turn ends here, saying what is
        lost."""
        from agent.session.storage_fault import storage_failure, unsaved_count

        unsaved = unsaved_count(self.messages[turn_start:], streamed_reply_lost=exc.unsaved_reply)
        error = storage_failure(exc, unsaved)
        self._set_status("error")
        self.ui.on_event(
            TurnFinished(exit_reason=error.exit_reason, final_text="", usage=Usage(), error=error.user_line())
        )
        return TurnResult(error.exit_reason, "", Usage(), 0, self.session_id, error)

    # ----------------------------------------------------------------- the turn

    def _ensure_session(self, first_message: str) -> None:
        warm_up_prices()  # once per process, in the background: the first call's cost needs the table
        if not self.system_prompt:
            tools = self.toolsets.active_tools()
            self.system_prompt = build_system_prompt(
                cwd=self.settings.cwd,
                tools=[(t.name, t.description) for t in tools],
                model=self.settings.model,
                **session_prompt_parts(
                    self.settings,
                    {t.name for t in tools},
                    self.skills,
                    self.toolsets.active_instructions(),
                ),
            )
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
                if self.plugins.has_hooks("on_session_start"):
                    self.plugins.session_started(self.session_id, self._active_model)
                title = " ".join(first_message.split())[:100]
                if title:
                    try:
                        self.store.set_title(self.session_id, title)
                    except Exception:
                        pass
            else:
                import uuid

                self.session_id = time.strftime("%Y%m%d_%H%M%S_") + uuid.uuid4().hex[:6]
        if self.checkpoints is None:
            self._session_services()
        if self.approvals is None:
            self.approvals = self._make_gate()

    def _make_gate(self) -> ApprovalGate:
        from agent.approval import ApprovalGate, load_allowlist
        from agent.approval.smart import SmartApprover

        cfg = self.settings.tui_config_path
        allow = list(dict.fromkeys([*self.settings.command_allowlist, *load_allowlist(cfg)]))
        gate = ApprovalGate(
            ui=self.ui,
            session_id=self.session_id,
            mode=self.settings.approvals_mode,
            allowlist=allow,
            deny=list(self.settings.approvals_deny),
            config_path=cfg,
            store=self.store,
            timeout=self.settings.approvals_timeout,
            interrupt=self._interrupt,
            hermes_home=self.settings.hermes_home,
            # smart mode's reviewing model: the session's own endpoint, on a transport of its own
            smart=SmartApprover(lambda: make_transport(self._keyed_settings()))
            if self.settings.approvals_mode == "smart"
            else None,
        )
        gate.yolo = self.yolo
        return gate

    def _append(self, message: Message) -> None:
        message.content = strip_surrogates(message.content)
        self.messages.append(message)
        if self.store is not None:
            self.store.append_message(self.session_id, message)

    def _set_status(self, status: str) -> None:
        if self.store is not None:
            try:
                self.store.set_status(self.session_id, status)
            except Exception:
                pass

    def _run_turn(self, user_message: str, images: Sequence[ImageRef] = ()) -> TurnResult:
        text = strip_surrogates(user_message)
        self._ensure_session(text)
        first_turn = not any(m.role == "user" for m in self.messages)
        meta = {"images": [ref.to_meta() for ref in images]} if images else {}
        self._append(Message(role="user", content=text, meta=meta))
        self._set_status("active")
        # Plugin context (and a skill's text, reminders) goes into this turn's user message, never the
        # system prompt (it must stay byte-stable for prompt caching). The message keeps what was typed
        # (search shows that); what is sent is its `api_content` sidecar, in this turn and every later one.
        plugin_context = ""
        self.plugins.begin_turn(self.session_id, text, self._active_model)
        if self.plugins.has_hooks("pre_llm_call"):
            plugin_context = self.plugins.pre_llm_call(
                self.session_id, text, list(self.messages), first_turn, self._active_model
            )
        context = self._turn_context(text, plugin_context)
        self._turn_user_index = len(self.messages) - 1
        if context:
            self._keep_api_content(self.messages[-1], f"{text}\n\n{context}")
        self.ui.on_event(TurnStarted(session_id=self.session_id, user_message=text))
        if images and not sees_images(self.settings) and "vision_analyze" not in self.toolsets.active_names():
            notice = (
                "This model cannot see images and no vision model is set (auxiliary.vision.model): it gets "
                "only the image's path."
            )
            self.ui.on_event(StatusNotice(kind="warn", text=notice))
        turn_usage = Usage()
        api_calls = 0
        continuations = 0
        parts: list[str] = []  # text of `length`-truncated replies joined with the final one
        started = time.monotonic()

        def finish(
            reason: str, final: str, error: ClassifiedError | None = None, marker: str | None = None
        ) -> TurnResult:
            self._wire_nudge = []
            self._set_status(exit_reasons.session_status(reason))
            if self.store is not None:
                try:
                    # Tokens, calls and cost were counted call by call (`record_call`).
                    self.store.add_usage(self.session_id, duration_s=time.monotonic() - started)
                except Exception:
                    pass
            line = error.user_line() if error else None
            self._record_exit(reason, line, api_calls)
            if reason == exit_reasons.COMPLETED and self._is_first_turn():
                self._title_in_background(text, final)
            streamed = final
            if reason == "completed" and final and self.plugins.has_hooks("on_turn_end"):
                final = self.plugins.transform_output(
                    final, session_id=self.session_id, model=self._active_model
                )
            leftover = self._take_steer() or None
            self.ui.on_event(
                TurnFinished(
                    exit_reason=reason,
                    final_text=final,
                    usage=turn_usage.copy(),
                    error=line,
                    pending_steer=leftover,
                    marker=marker,
                    rewritten=final != streamed,
                )
            )
            result = TurnResult(reason, final, turn_usage, api_calls, self.session_id, error, leftover)
            self.nudges.at_turn_end(
                self.messages[self._turn_user_index :],
                skills_offered="skill_manage" in self.toolsets.active_names(),
            )
            if self.plugins.has_hooks("on_turn_end"):
                self.plugins.turn_finished(
                    result,
                    completed=reason == "completed",
                    interrupted=reason == "interrupted",
                    history=self.messages,
                )
            if self.trajectory is not None:
                self.trajectory.flush()
            return result

        empty_replies = 0
        cut_calls = 0  # replies in a row whose tool calls were cut at the output limit
        unknown_strikes = 0  # replies in a row that called only tools not offered
        refusals = 0  # safety-filter refusals (each fallback gets one try)
        self._output_cap = None
        carried: CallSink | None = None  # an empty reply's sink: its partial row serves the next attempt
        while True:
            if self._interrupt.is_set():
                return finish("interrupted", "".join(parts))
            if not self.budget.consume():
                return self._budget_summary(finish, turn_usage, parts, api_calls)
            tools = self.toolsets.schemas()  # per request: /tools and dynamic toolsets apply at once
            api_calls += 1
            try:
                response, sink, cost = self._call_model(tools, api_calls, turn_usage, carried)
            except _Interrupted as exc:
                self._keep_partial(exc.row, exc.partial)
                return finish("interrupted", "".join(parts) + exc.partial.text)
            except InterruptedByUser:
                return finish("interrupted", "".join(parts))
            except _CallFailed as exc:
                marker = exit_reasons.reply_marker(exc.classified.exit_reason) if exc.kept else None
                return finish(exc.classified.exit_reason, "".join(parts) + exc.kept, exc.classified, marker)
            carried = None

            if reply_outcomes.is_empty(response):
                empty_replies += 1
                carried = self._ask_again_after_empty(sink, empty_replies)
                if carried is not None:
                    self._record_call(response, cost, None)  # the empty reply's tokens count too
                    continue
                self._keep_empty(sink, response, cost)
                error = reply_outcomes.empty_response_error(fell_back=empty_replies > 2)
                return finish(exit_reasons.EMPTY_RESPONSE, "".join(parts), error)
            self._wire_nudge = []
            finish_reason = response.finish_reason or "stop"
            if response.tool_calls and finish_reason == "length":
                cut_calls += 1
                if cut_calls <= reply_outcomes.CUT_TOOL_CALL_RETRIES:
                    carried = self._ask_again_after_cut_call(sink, response, cost, cut_calls)
                    continue
                self._keep_cut(sink, replace(response, tool_calls=[]), cost)
                error = reply_outcomes.cut_tool_call_error(cut_calls - 1)
                marker = exit_reasons.reply_marker(exit_reasons.TRUNCATED) if response.text else None
                return finish(exit_reasons.TRUNCATED, "".join(parts) + response.text, error, marker)
            cut_calls = 0
            self._output_cap = None
            if finish_reason == "content_filter":
                refusals += 1
                error = reply_outcomes.content_filter_error(fell_back=refusals > 1)
                if self._activate_fallback(error):
                    self._record_call(response, cost, None)
                    if sink.shown:
                        self.ui.on_event(StreamDiscarded(reason="content_filter"))
                    sink.reset()
                    carried = sink
                    continue
                self._record_response(response, sink, cost)
                return finish(error.exit_reason, "".join(parts) + response.text, error)
            truncated = finish_reason == "length" and bool(response.text) and not response.tool_calls
            incomplete = None
            if reply_outcomes.is_thinking_exhausted(response):
                incomplete = exit_reasons.THINKING_EXHAUSTED
            elif truncated and (continuations >= MAX_CONTINUATIONS or self._filled_context()):
                incomplete = exit_reasons.TRUNCATED
            message = self._record_response(response, sink, cost, incomplete=incomplete)
            if incomplete == exit_reasons.THINKING_EXHAUSTED:
                error = reply_outcomes.thinking_exhausted_error()
                return finish(incomplete, "".join(parts), error)
            if incomplete == exit_reasons.TRUNCATED:
                error = (
                    reply_outcomes.context_full_error(self.last_context_tokens, self.context_window)
                    if self._filled_context()
                    else reply_outcomes.truncated_error(continuations)
                )
                marker = exit_reasons.reply_marker(incomplete)
                return finish(incomplete, "".join(parts) + response.text, error, marker)
            if response.tool_calls:
                offered = self.toolsets.active_names()
                unknown = [c.name for c in message.tool_calls if c.name not in offered]
                unknown_strikes = unknown_strikes + 1 if len(unknown) == len(message.tool_calls) else 0
                self._run_tools(message.tool_calls)  # each unknown call gets its error: none is unanswered
                self._deliver_steer()
                if self._interrupt.is_set():
                    return finish("interrupted", "".join(parts) + response.text)
                if unknown_strikes >= reply_outcomes.UNKNOWN_TOOL_STRIKES:
                    error = reply_outcomes.unknown_tools_error(unknown, unknown_strikes)
                    return finish(error.exit_reason, "".join(parts) + response.text, error)
                if unknown_strikes:
                    self.ui.on_event(
                        StatusNotice(
                            kind="warn",
                            text=f"The model called a tool it does not have ({', '.join(unknown)}): it was "
                            f"told which tools it has (try {unknown_strikes} of "
                            f"{reply_outcomes.UNKNOWN_TOOL_STRIKES}).",
                        )
                    )
                continue
            if truncated:
                continuations += 1
                parts.append(response.text)
                self.ui.on_event(
                    StatusNotice(
                        kind="info", text="Reply cut at the output limit: asking the model to continue"
                    )
                )
                self._append(
                    Message(role="user", content=CONTINUE_PROMPT, meta={"synthetic": "continuation"})
                )
                continue
            return finish("completed", "".join(parts) + response.text)

    def _record_exit(self, reason: str, line: str | None, api_calls: int) -> None:
        """Why the turn ended, in Hermes' words, with the line the user was shown (`hermes-tui sessions`)."""
        if self.store is None:
            return
        index = self._turn_user_index
        user = self.messages[index] if 0 <= index < len(self.messages) else None
        try:
            self.store.record_turn(
                self.session_id,
                exit_reason=exit_reasons.stored_name(reason),
                user_message_id=user.id if user is not None else None,
                api_calls=api_calls,
                detail=line,
            )
        except Exception:
            pass

    def _ask_again_after_empty(self, sink: CallSink, empty_replies: int) -> CallSink | None:
        """An empty reply is asked again once with Hermes' nudge, then each fallback provider gets a try.
        What it showed (reasoning) is withdrawn; the sink (its row) serves the next attempt. None: give up."""
        if empty_replies == 1:
            after_tools = bool(self.messages) and self.messages[-1].role == "tool"
            self._wire_nudge = reply_outcomes.nudge_messages(after_tools)
            notice = "The model returned an empty reply: asking again."
            self.ui.on_event(StatusNotice(kind="retry", text=notice))
        elif not self._activate_fallback(reply_outcomes.EMPTY_AGAIN):
            return None
        if sink.shown:
            self.ui.on_event(StreamDiscarded(reason=exit_reasons.EMPTY_RESPONSE))
        sink.reset()
        return sink

    def _ask_again_after_cut_call(
        self, sink: CallSink, response: ModelResponse, cost: CallCost, retry: int
    ) -> CallSink:
        """A tool call cut at the output limit is never run (its arguments are incomplete) nor kept: the
        same request goes again with a larger output cap (Hermes'). The sink serves the next attempt."""
        self._record_call(response, cost, None)  # its tokens count
        self._output_cap = reply_outcomes.cut_tool_call_cap(self.settings.max_output_tokens, retry)
        names = ", ".join(dict.fromkeys(c.name for c in response.tool_calls))
        notice = (
            f"The model's {names} call was cut at the output limit and was not run: asking again with "
            f"room for {self._output_cap} tokens ({retry} of {reply_outcomes.CUT_TOOL_CALL_RETRIES})."
        )
        self.ui.on_event(StatusNotice(kind="retry", text=notice))
        if sink.shown:
            self.ui.on_event(StreamDiscarded(reason=exit_reasons.TRUNCATED))
        sink.reset()
        return sink

    def _keep_cut(self, sink: CallSink, response: ModelResponse, cost: CallCost) -> None:
        """The last cut tool call: its text (if any) is kept, marked truncated; the call itself is not."""
        if response.text or sink.message is not None:
            self._record_response(response, sink, cost, incomplete=exit_reasons.TRUNCATED)
        else:
            self._record_call(response, cost, None)

    def _keep_empty(self, sink: CallSink, response: ModelResponse, cost: CallCost) -> None:
        """The last empty reply: a row it started (reasoning) is kept and says it was empty."""
        if sink.message is not None:
            self._record_response(response, sink, cost, incomplete=exit_reasons.EMPTY_RESPONSE)
        else:
            self._record_call(response, cost, None)

    def _budget_summary(
        self, finish: Callable[..., TurnResult], turn_usage: Usage, parts: list[str], api_calls: int
    ) -> TurnResult:
        """The budget is spent: the model is asked (without tools) to summarize, twice if its first answer
        has no text. It is never a blank success: a tool call it makes anyway is dropped (never run, never
        left unanswered), and with no text at all Hermes' sentence says so."""
        limit = self.budget.max_total
        self.ui.on_event(
            StatusNotice(
                kind="warn",
                text=f"Iteration budget exhausted ({api_calls}/{limit}): asking the model to summarize",
            )
        )
        self._append(Message(role="user", content=BUDGET_PROMPT, meta={"synthetic": "budget"}))
        for attempt in (1, 2):
            try:
                response, sink, cost = self._call_model([], api_calls + attempt, turn_usage)
            except _Interrupted as exc:
                self._keep_partial(exc.row, exc.partial)
                return finish("interrupted", exc.partial.text)
            except InterruptedByUser:
                return finish("interrupted", "")
            except _CallFailed as exc:
                return finish("budget_exhausted", exc.kept, exc.classified)
            summary = replace(response, tool_calls=[])
            if summary.text.strip():
                self._record_response(summary, sink, cost)
                return finish("budget_exhausted", summary.text)
            self._keep_empty(sink, summary, cost)
            if attempt == 1:
                notice = "The model gave no summary (no text): asking once more."
                self.ui.on_event(StatusNotice(kind="retry", text=notice))
        text = reply_outcomes.BUDGET_NO_SUMMARY.format(limit=limit)
        self._append(Message(role="assistant", content=text, meta={"synthetic": "budget"}))
        self.ui.on_event(StatusNotice(kind="warn", text=text))
        return finish("budget_exhausted", text)

    def _is_first_turn(self) -> bool:
        return sum(1 for m in self.messages if m.role == "user" and not m.meta.get("synthetic")) == 1

    def _title_in_background(self, first_user: str, first_reply: str) -> None:
        if self.store is None or not self.settings.auto_title or not first_reply.strip():
            return
        from agent.session.titles import retitle_in_background

        settings = self._keyed_settings()
        retitle_in_background(
            self.store, self.session_id, lambda: make_transport(settings), first_user, first_reply
        )

    def _turn_context(self, text: str, plugin_context: str) -> str:
        """This turn's wire-only additions to its user message: a `/skill-name` skill, plugin context, and
        the memory / skill reminders. Never stored: the transcript keeps what the user typed."""
        offered = self.toolsets.active_names()
        parts = [
            skill_invocation(text, self.skills),
            plugin_context,
            *self.nudges.at_turn_start(
                memory_offered="memory" in offered, skills_offered="skill_manage" in offered
            ),
        ]
        return "\n\n".join(p for p in parts if p)

    def _keep_api_content(self, message: Message, wire_text: str) -> None:
        """The turn's user message is sent as `wire_text` in this turn and every later one (resumed
        too): the sidecar is stored with it."""
        message.meta = {**message.meta, API_CONTENT: wire_text}
        if self.store is not None and message.id is not None:
            self.store.update_message(message)

    def _endpoint(self) -> Endpoint:
        """Where the next call goes (a fallback's endpoint during a turn that fell back)."""
        active = self._fallback_settings or self.settings
        return Endpoint(active.provider or "", active.base_url or "", self._active_model)

    def _wire_messages(self) -> list[dict[str, Any]]:
        view = [
            replace(m, content=m.api_content) if m.api_content != m.content else m
            for m in wire_view(self.messages)
        ]
        system = with_ephemeral(self.system_prompt, self.ephemeral_prompt)
        wire = [
            {"role": "system", "content": system},
            *sanitize_for_wire(view, reasoning_echo=self._endpoint().needs_reasoning_echo),
            *self._wire_nudge,
        ]
        vision_tool = "vision_analyze" in self.toolsets.active_names()
        return prepare_images(wire, self.settings, shrink=self._shrink_images, vision_tool=vision_tool)

    # ----------------------------------------------------------------- compression

    def compress_now(self, *, reason: str = "on request") -> bool:
        """Summarize the middle of the conversation (the /compress command). Runs a model call."""
        with self._busy:
            self._interrupt.clear()
            try:
                return self.compressor.run(reason)
            finally:
                self._interrupt.clear()

    # ----------------------------------------------------------------- fallback

    def _activate_fallback(self, classified: ClassifiedError) -> bool:
        found = next_fallback(self.settings, self._fallback_index)
        if found is None:
            return False
        entry, updated = found
        self._fallback_index += 1
        if self._transport is not None:
            self._transport.close()
        self._transport = make_transport(updated)
        self._fallback_settings = updated
        self._active_model = entry.model
        self._active_endpoint = (entry.provider, entry.base_url)
        self.ui.on_event(
            StatusNotice(
                kind="warn",
                text=f"{classified.user_line()} Falling back to {entry.provider}/{entry.model} this turn.",
            )
        )
        return True

    def _request_parts(self, request: ModelRequest) -> request_parts.RequestParts:
        chars = sum(len(section) for section in context_sections(self.settings.cwd))
        return request_parts.RequestParts.of(request.messages, request.tools, chars)

    def _note_small_window(self, request: ModelRequest) -> None:
        """Once per model: a local model whose window is known and small is told how much of it the tools
        and the system prompt take (`request_parts.window_note`)."""
        window = self.settings.context_window
        if self._window_noted or not window or self._fallback_index or not self._endpoint().is_local:
            return
        self._window_noted = True
        if (note := request_parts.window_note(self._request_parts(request), window)) is not None:
            self.ui.on_event(StatusNotice(kind="info", text=note))

    def _name_fixed_parts(self, classified: ClassifiedError, request: ModelRequest) -> ClassifiedError:
        """An overflow compression could not fix: when the tools and the system prompt are what does not
        fit, the line names them, their sizes and the fix (`request_parts.fixed_parts_overflow`)."""
        window = self.settings.effective_context_window
        line = request_parts.fixed_parts_overflow(self._request_parts(request), window)
        return classified if line is None else replace(classified, hint=line)

    def _fallback_key_var(self) -> str | None:
        """The key variable of the fallback entry in use, when it names its own (`key_env`)."""
        if not self._fallback_index or self._fallback_settings is None:
            return None
        return self.settings.fallback_providers[self._fallback_index - 1].key_env

    def _restore_primary(self) -> None:
        if self._transport is not None:
            self._transport.close()
        self._transport = None
        self._fallback_index = 0
        self._fallback_settings = None
        self._active_model = self.settings.model
        self._active_endpoint = (self.settings.provider, self.settings.base_url)

    def _call_model(
        self, tools: list[dict[str, Any]], iteration: int, turn_usage: Usage, sink: CallSink | None = None
    ) -> tuple[ModelResponse, CallSink, CallCost]:
        """One model call with retries, and what it cost. Raises _Interrupted/InterruptedByUser or
        _CallFailed."""
        sink = sink or CallSink(self.ui, self.store, self.session_id)
        attempt = 0
        self.compressor.maybe(tools)
        if self.key_pool is not None and not self._fallback_index:
            first = self.key_pool.begin_call()  # a key whose rest is over comes back first
            if first is not None and self._transport is not None:
                self._use_key(first)
        while True:
            max_tokens = self._output_cap or self.settings.max_output_tokens
            active = self._fallback_settings or self.settings
            request = ModelRequest(
                messages=self._wire_messages(),
                tools=tools,
                max_tokens=max_tokens,
                reasoning=active.reasoning_for(self._active_model),
            )
            self._note_small_window(request)
            self.ui.on_event(
                ApiCallStarted(
                    iteration=iteration, model=self._active_model, max_iterations=self.budget.max_total
                )
            )
            try:
                response = self.transport.stream(request, sink, self._interrupt)
            except PartialInterrupt as exc:
                raise _Interrupted(exc.partial, sink.message) from None
            except StoreError as exc:  # the store's, never the provider's: not classified, not retried
                exc.unsaved_reply = bool(sink.text or sink.reasoning)
                raise
            except Exception as exc:
                active = self._fallback_settings or self.settings
                classified = classify(
                    exc,
                    provider=active.provider,
                    model=self._active_model,
                    base_url=active.base_url or "",
                    key_var=self._fallback_key_var(),
                    key_source=active.api_key_source,
                )
                if classified.reason == "context_overflow":
                    self._learn_stated_window(exc, request)
                if isinstance(exc, EmptyStreamError):
                    used = max(estimate_tokens(request.messages, request.tools), self.last_context_tokens)
                    window = self.settings.effective_context_window
                    overflow = reply_outcomes.empty_stream_overflow(used, window)
                    if overflow is not None:
                        classified = overflow
                    elif not self.settings.context_window and self._endpoint().is_local:
                        classified = reply_outcomes.empty_stream_unknown_window(classified, used)
                if self.key_pool is not None and not self._fallback_index:
                    retry_left = classified.retryable and attempt < self.settings.max_retries
                    turn = self.key_pool.after_failure(classified, retry_left=retry_left)
                    if turn.key is not None:  # another key at once: not one of the call's retries
                        self._discard(sink, classified)
                        self._use_key(turn.key)
                        self.ui.on_event(StatusNotice(kind="retry", text=turn.notice))
                        continue
                    if turn.note:
                        classified = replace(classified, hint=f"{classified.hint} {turn.note}".strip())
                if classified.reason == "image_too_large" and not self._shrink_images:
                    self._shrink_images = True  # for the rest of the session: the provider's limit is lower
                    self._discard(sink, classified)
                    notice = f"{classified.hint} Sending the images smaller."
                    self.ui.on_event(StatusNotice(kind="retry", text=notice))
                    continue
                if classified.should_compress and self.compressor.may_run:
                    self._discard(sink, classified)
                    if self.compressor.run(f"the provider said: {classified.hint}"):
                        continue
                attempt += 1
                # A request too big for the model, that compression could not shrink: sending it again
                # cannot help.
                exhausted = (
                    classified.should_compress
                    or not classified.retryable
                    or attempt > self.settings.max_retries
                )
                if exhausted and classified.should_fallback and self._activate_fallback(classified):
                    self._discard(sink, classified)
                    attempt = 0
                    continue
                if exhausted:
                    if classified.reason == "context_overflow":
                        classified = self._name_fixed_parts(classified, request)
                    raise _CallFailed(classified, self._keep_failed_partial(sink, classified)) from exc
                self._discard(sink, classified)
                delay = backoff_delay(attempt, retry_after=classified.retry_after)
                self.ui.on_event(
                    StatusNotice(
                        kind="retry",
                        text=f"{classified.hint} Retrying in {delay:.0f} s "
                        f"(attempt {attempt} of {self.settings.max_retries}).",
                    )
                )
                if self._backoff_wait(delay):
                    self._keep_failed_partial(sink, classified)  # closes a reused partial row
                    raise InterruptedByUser() from None
                continue
            if self.trajectory is not None:
                self.trajectory.record_call(
                    iteration,
                    self._active_model,
                    request.messages,
                    [t["function"]["name"] for t in tools],
                    response,
                )
            if response.usage is not None:
                turn_usage.add(response.usage)
                self.session_usage.add(response.usage)
                self.last_context_tokens = response.usage.prompt_tokens + response.usage.completion_tokens
            else:
                self.last_context_tokens = approx_tokens(request.messages)
            provider, base_url = self._active_endpoint
            cost = call_cost(response.usage, model=self._active_model, provider=provider, base_url=base_url)
            self.session_cost.add(cost)
            self.ui.on_event(
                UsageUpdated(
                    call=response.usage or Usage(),
                    session=self.session_usage.copy(),
                    context_tokens=self.last_context_tokens,
                    context_window=self.settings.effective_context_window,
                    cost=cost.usd,
                    session_cost=self.session_cost.usd,
                    session_unknown_calls=self.session_cost.unknown_calls,
                )
            )
            return response, sink, cost

    def _filled_context(self) -> bool:
        """The last reply ended where the context window does (prompt and reply fill it)."""
        return reply_outcomes.fills_context(self.last_context_tokens, self.context_window)

    def _backoff_wait(self, delay: float) -> bool:
        """Sleep before a retry; True when the user interrupted meanwhile (the sleep ends at once)."""
        return self._interrupt.wait(delay)

    def _discard(self, sink: CallSink, classified: ClassifiedError) -> None:
        """A retry follows: what the failed attempt streamed is withdrawn from the screen."""
        if sink.shown:
            self.ui.on_event(StreamDiscarded(reason=classified.reason))
            sink.reset()

    def _keep_failed_partial(self, sink: CallSink, classified: ClassifiedError) -> str:
        """A call that failed for good keeps whatever it streamed (never lose what the user saw), marked
        incomplete (`meta["incomplete"]` = the exit reason). Returns the kept text."""
        text, reasoning = "".join(sink.text), "".join(sink.reasoning)
        if text or reasoning:
            incomplete = classified.exit_reason
            self._keep_partial(sink.message, ModelResponse(text=text, reasoning=reasoning), incomplete)
        elif self.store is not None and sink.message is not None and sink.message.id is not None:
            sink.message.partial = False
            sink.message.finish_reason = "error"
            self.store.update_message(sink.message)
        return text

    def _keep_partial(
        self, row: Message | None, partial: ModelResponse, incomplete: str | None = None
    ) -> None:
        """Persist a reply's text that never finished: interrupted, or (`incomplete`: why) failed. Its
        unfinished tool calls are dropped: they never ran."""
        if not partial.text and not partial.reasoning and row is None:
            return
        message = row or Message(role="assistant")
        message.content = strip_surrogates(partial.text)
        message.reasoning = partial.reasoning or None
        message.tool_calls = []
        message.finish_reason = "incomplete" if incomplete else "interrupted"
        if incomplete:
            message.meta = {**message.meta, "incomplete": incomplete}
        message.partial = False
        if row is None:
            self._append(message)
        else:
            self.messages.append(message)
            if self.store is not None:
                self.store.update_message(message)

    def _record_response(
        self, response: ModelResponse, sink: CallSink, cost: CallCost, *, incomplete: str | None = None
    ) -> Message:
        message = sink.message or Message(role="assistant")
        message.content = strip_surrogates(response.text)
        message.reasoning = response.reasoning or None
        message.tool_calls = list(response.tool_calls)
        message.finish_reason = response.finish_reason
        message.usage = response.usage
        message.partial = False
        if incomplete:
            message.meta = {**message.meta, "incomplete": incomplete}
        if response.reasoning_details:
            message.meta = {**message.meta, REASONING_DETAILS: response.reasoning_details}
        if sink.message is None:
            self._append(message)
        else:
            self.messages.append(message)
            if self.store is not None:
                self.store.update_message(message)
        self._record_call(response, cost, message.id)
        self.ui.on_event(
            AssistantMessageDone(
                text=message.content,
                reasoning=message.reasoning,
                tool_calls=tuple((c.id, c.name, c.arguments) for c in message.tool_calls),
                finish_reason=message.finish_reason,
                usage=response.usage,
            )
        )
        return message

    def _record_call(self, response: ModelResponse, cost: CallCost, message_id: int | None) -> None:
        """One model call's tokens and cost in the store's `usage` table (and the session's totals)."""
        if self.store is not None:
            self.store.record_call(
                self.session_id,
                usage=response.usage,
                model=self._active_model,
                provider=self._active_endpoint[0] or self.settings.api_mode,
                cost_usd=cost.usd,
                cost_source=cost.source,
                message_id=message_id,
            )

    def _batch_checkpoint(self, calls: list[ToolCall]) -> BatchCheckpoint | None:
        """The batch's one checkpoint, taken by the first approved call that changes files."""
        if self.checkpoints is None:
            return None
        from agent.checkpoints import BatchCheckpoint

        def saved(checkpoint: Checkpoint) -> None:
            self.ui.on_event(
                StatusNotice(kind="info", text=f"Checkpoint saved: {checkpoint.summary}{ROLLBACK_HINT}")
            )

        return BatchCheckpoint(self.checkpoints, calls, cwd=self.settings.cwd, on_saved=saved)

    def _run_tools(self, calls: list[ToolCall]) -> None:
        batch = self._batch_checkpoint(calls)

        def make_context(call: ToolCall) -> ToolContext:
            if batch is not None:
                batch.note(call)
            return ToolContext(
                cwd=self.settings.cwd,
                session_id=self.session_id,
                call_id=call.id,
                interrupt=self._interrupt,
                hermes_home=self.settings.hermes_home,
                ui=self.ui,
                store=self.store,
                approvals=self.approvals,
                state=self.state,
                clarify_timeout=self.settings.clarify_timeout,
                checkpoint=(lambda: batch.before_mutation(call)) if batch is not None else (lambda: None),
                settings=self.settings,
                make_transport=make_transport,
                new_agent=type(self),
                tools=self.registry,
            )

        def on_result(done: ExecutedCall) -> None:
            if batch is not None:
                batch.finished(done.call.id)
            self._append(
                Message(
                    role="tool",
                    content=done.result.content,
                    tool_call_id=done.call.id,
                    tool_name=done.call.name,
                    meta={
                        "status": done.result.status,
                        "duration": round(done.duration, 3),
                        **_ui_data(done.result.data),
                    },
                )
            )

        done = self.executor.run_batch(
            calls,
            make_context=make_context,
            ui=self.ui,
            interrupt=self._interrupt,
            on_result=on_result,
            hooks=self.plugins
            if (self.plugins.has_hooks("before_tool") or self.plugins.has_hooks("after_tool"))
            else None,
        )
        if self.trajectory is not None:
            self.trajectory.record_tool_results(done)


def _ui_data(data: dict[str, Any]) -> dict[str, Any]:
    """The part of a tool's UI data worth keeping for a resumed transcript (diffs, exit codes, todos)."""
    keep: dict[str, Any] = {}
    for key in ("diff", "exit_code", "todos", "path", "images"):
        if key in data:
            keep[key] = data[key]
    return keep


class _Interrupted(InterruptedByUser):
    """Interrupted mid-stream: the partial reply and its checkpointed row (if any) to finalize."""

    def __init__(self, partial: ModelResponse, row: Message | None):
        super().__init__("interrupted by user")
        self.partial = partial
        self.row = row


class _CallFailed(Exception):
    """A model call failed for good; `kept` is the text of the reply it had streamed (kept, marked)."""

    def __init__(self, classified: ClassifiedError, kept: str = ""):
        super().__init__(classified.message)
        self.classified = classified
        self.kept = kept


__all__ = ["ROLLBACK_HINT", "Agent", "TurnResult", "make_transport"]
