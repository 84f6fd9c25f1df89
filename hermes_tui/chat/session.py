"""The chat's agent and its lifecycle: the one place the TUI builds an `Agent`.

A new session and a resumed one each get a fresh `Agent` (its per-session services, checkpoints and the
approval gate's session rules, must not leak across sessions); a model switch keeps the agent and its
conversation. The settings the next agent is built with follow the current one, so `/model X` then `/new`
stays on X.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.api import AgentUI, Settings

if TYPE_CHECKING:
    from agent.api import Agent, SessionStoreProtocol


class SessionService:
    """Builds, replaces and closes the chat's agent. UI thread only; the agent itself runs in workers."""

    def __init__(self, settings: Settings, *, ui: AgentUI, store: SessionStoreProtocol) -> None:
        self._settings = settings
        self.ui = ui
        self.store = store
        self._agent: Agent | None = None
        # yolo is in the mode key's cycle once chosen (`--yolo`, the config, `/yolo`, `/mode yolo`), as
        # Claude Code offers its bypass mode only when started with it.
        self.yolo_offered = settings.yolo or settings.permission_mode == "yolo"

    @property
    def agent(self) -> Agent:
        """The current agent, built on first use (the engine's modules load then, not at import)."""
        if self._agent is None:
            self._agent = self._build()
        return self._agent

    @property
    def built(self) -> Agent | None:
        """The current agent if one was built (None: nothing was sent or resumed yet)."""
        return self._agent

    @property
    def settings(self) -> Settings:
        """The settings of the current agent (a switched model included)."""
        return self._agent.settings if self._agent is not None else self._settings

    def new_session(self) -> Agent:
        """A fresh, empty conversation, in the permission mode of the one it replaces (`/new` does not
        leave plan mode); its session row is created with its first message."""
        mode = self._agent.permission_mode if self._agent is not None else None
        self._replace()
        if mode is not None:
            self.agent.permission_mode = mode
        return self.agent

    def open(self, session_id: str) -> Agent:
        """Continue a stored session. Raises KeyError for an unknown id (the new agent stays, empty)."""
        self._replace()
        self.agent.resume(session_id)
        return self.agent

    def update_settings(self, **changes: object) -> Settings:
        """Settings that take effect without a new transport (skills, personality): the current agent and
        every later one use them."""
        agent = self.agent
        return agent.update_settings(**changes)

    def switch_model(self, model: str) -> None:
        """The next turn (and every new session) uses `model`. Raises RuntimeError during a turn."""
        self.agent.switch_model(model)

    def interrupt(self) -> None:
        if self._agent is not None:
            self._agent.interrupt()

    def stop_background(self) -> None:
        """At exit: stop every background process (after the interrupted turn, if any, has ended) and note
        in each session which ones were still running."""
        from agent.api import PROCESSES, note_left_running
        from hermes_tui.exit_report import EXIT_REPORT

        if self._agent is not None:
            self._agent.interrupt()
            self._agent.wait_idle(3.0)
            self._agent.close_browser()  # no Chromium outlives the app
        stopped = PROCESSES.shutdown()  # (stopped where they run: before their environment closes)
        if self._agent is not None:
            self._agent.close_environment()  # no container, no ssh connection outlives it either
        EXIT_REPORT.add(info.stopped_line() for info in stopped)  # said once the terminal is back
        EXIT_REPORT.add(info.kept_line() for info in PROCESSES.kept_running())
        note_left_running(self.store, stopped)

    def _replace(self) -> None:
        if self._agent is not None:
            self._settings = self._agent.settings
            self._agent.close()
        self._agent = self._build()

    def _build(self) -> Agent:
        from agent.api import Agent

        return Agent(self._settings, ui=self.ui, store=self.store)
