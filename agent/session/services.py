"""A session's services: those that need its id, the approval gate (which remembers the answers given "for
this session"), checkpoints and trajectories, built when the session gets its id (its first turn, a
resume); and its extensions, the user's plugins and shell hooks, built with it. Each session has its own,
so two sessions in one process never share an answer or a checkpoint."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from agent.config.settings import Settings
from agent.core.permission_mode import PermissionMode
from agent.core.ui import AgentUI
from agent.transports.factory import make_transport

if TYPE_CHECKING:
    from agent.approval import ApprovalGate
    from agent.approval.sandbox_bounds import SandboxBounds
    from agent.checkpoints import CheckpointManager
    from agent.environments import Environment
    from agent.hooks import ShellHooks
    from agent.plugins import PluginManager
    from agent.session.trajectory import TrajectoryWriter
    from agent.store import SessionStoreProtocol

__all__ = ["approval_gate", "checkpoint_manager", "plugin_manager", "shell_hooks", "trajectory_writer"]


def approval_gate(
    settings: Settings,
    *,
    ui: AgentUI,
    session_id: str,
    store: SessionStoreProtocol | None,
    interrupt: threading.Event,
    side_settings: Callable[[], Settings],
    mode: PermissionMode,
    sandbox: SandboxBounds | None = None,
) -> ApprovalGate:
    """`side_settings`: the endpoint and key of smart mode's reviewing model (on a transport of its own);
    `sandbox`: the OS sandbox the session's commands run in (what it contains is not asked about)."""
    from agent.approval import ApprovalGate, load_allowlist
    from agent.approval.smart import SmartApprover

    cfg = settings.tui_config_path
    allow = list(dict.fromkeys([*settings.command_allowlist, *load_allowlist(cfg)]))
    smart = settings.approvals_mode == "smart"
    gate = ApprovalGate(
        ui=ui,
        session_id=session_id,
        mode=settings.approvals_mode,
        allowlist=allow,
        deny=list(settings.approvals_deny),
        config_path=cfg,
        store=store,
        timeout=settings.approvals_timeout,
        interrupt=interrupt,
        hermes_home=settings.hermes_home,
        smart=SmartApprover(lambda: make_transport(side_settings())) if smart else None,
        sandbox=sandbox,
    )
    gate.permission_mode = mode
    return gate


def checkpoint_manager(
    settings: Settings, session_id: str, environment: Callable[[], Environment] | None = None
) -> CheckpointManager:
    """`environment`: the session's, when its files are not this machine's (checkpoints are archives made
    there)."""
    from agent.checkpoints import CheckpointManager

    folder = settings.hermes_home / "tui" / "checkpoints"
    return CheckpointManager(folder, session_id, hermes_home=settings.hermes_home, environment=environment)


def trajectory_writer(settings: Settings, session_id: str) -> TrajectoryWriter | None:
    """The session's trajectory file, when `save_trajectories` is on (its key masked in it)."""
    if not settings.save_trajectories:
        return None
    from agent.session.trajectory import TrajectoryWriter

    key = settings.api_key.get_secret_value() if settings.api_key else ""
    return TrajectoryWriter(
        settings.hermes_home / "tui" / "trajectories", session_id, secrets=[key] if key else []
    )


def plugin_manager(
    settings: Settings, builtin_tools: Iterable[str], *, on_error: Callable[[str, str, str], None]
) -> PluginManager:
    """The user's plugins, loaded (a plugin that fails says so through `on_error`, never raises)."""
    from agent.plugins import PluginManager

    plugins = PluginManager(
        settings.hermes_home,
        on_error=on_error,
        enabled=settings.plugins_enabled,
        disabled=settings.plugins_disabled,
        cwd=settings.cwd,
        builtin_tools=builtin_tools,
        hook_timeout=settings.plugin_hook_timeout,
        load_timeout=settings.plugin_load_timeout,
    )
    plugins.load()
    return plugins


def shell_hooks(settings: Settings, ui: Callable[[], AgentUI], interrupt: threading.Event) -> ShellHooks:
    """The shell hooks of the configuration (`ui`: the session's, as it is when a hook asks)."""
    from agent.hooks import ShellHooks

    return ShellHooks.from_settings(settings, ui, interrupt)
