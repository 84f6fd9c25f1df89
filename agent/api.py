"""The engine as the UI sees it: the one module `hermes_tui/`, `widgets/` and `themes/` import from `agent`.

Why a facade: the UI used to import some forty engine modules and walk the `Agent`'s sub-objects, so every
move inside `agent/` broke the app and every engine detail was a UI dependency. Here is the curated list of
what the UI may use: the `Agent` and its operations, settings, events, the UI protocol, the store protocol,
the tool catalogue, numbers for people. `tests/test_layering.py` fails when a UI module imports any other
`agent.` module (type-checking imports included); tests may import anything.

Lazy by design: the app's first frame is drawn before pydantic, the store or an SDK is imported, and a widget
importing `format_elapsed` from here must not pull in the turn loop. So `_EXPORTS` names each export's module
and `__getattr__` imports it on first use (the same cost as importing that module directly); the
`TYPE_CHECKING` block repeats the table for the type checker (a test checks that the two agree). A name
`"attr as name"` is exported under a clearer name than its module gives it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Module -> the names it gives the UI (grouped by concept; "attr as name" renames).
_EXPORTS: dict[str, tuple[str, ...]] = {
    # the session and its operations (`Agent` is its older name, kept for the UI's call sites)
    "agent.session.session": ("Session", "Session as Agent"),
    "agent.session.turn": ("TurnResult",),
    # where the tools run (terminal.backend)
    "agent.environments.base": ("EnvironmentUnavailable",),
    "agent.environments.factory": (
        "environment_label",
        "environment_problem",
        "open_environment",
        "sandbox_status",
        "unsupported_backend",
    ),
    "agent.session.tool_batch": ("ROLLBACK_HINT",),
    "agent.session.rewind": ("RewindPoint", "RewindReport"),
    "agent.session.prewarm": ("import_prewarm_modules", "prewarm_engine", "sdk_module"),
    "agent.transports.sdk_import": ("import_sdk",),
    "agent.core.warm_thread": ("start_warm_thread",),
    "agent.session.context_report": ("ContextReport", "render_context"),
    # scheduled jobs (Hermes' cron/jobs.json)
    "agent.session.cron_run": ("CronDaemon", "JobRun", "run_due_jobs"),
    "agent.cron.jobs": ("CronJobs", "CronStoreError", "Job", "JobList"),
    "agent.cron.schedule": ("ScheduleError",),
    "agent.transports.factory": ("make_transport",),
    # settings
    "agent.config.settings": ("ConfigProblem", "LoadedSettings", "Settings", "load_settings"),
    "agent.config.home": ("ProfileError", "hermes_home", "profile_home"),
    "agent.config.yaml_files": (
        "YAML_ERRORS",
        "SettingNotSaved",
        "load_yaml",
        "save_env_value",
        "save_setting",
        "yaml_problem",
    ),
    # files the app reads on its own: regular files only, size-capped
    "agent.core.bounded_files": (
        "FileRefused",
        "read_bytes as read_bounded_bytes",
        "read_tail as read_bounded_tail",
        "read_text as read_bounded_text",
    ),
    "agent.config.model_catalog": ("ModelCatalog", "closest_models", "load_catalog"),
    "agent.config.reasoning": ("normalize_level as normalize_reasoning_level",),
    "agent.prompts.personality": (
        "personalities",
        "choose as choose_personality",
        "current_name as current_personality",
    ),
    # events, messages, how a turn ended
    "agent.core.events": (
        "AgentEvent",
        "ApiCallStarted",
        "AssistantMessageDone",
        "ChildEvent",
        "ChildFinished",
        "ChildStarted",
        "FirstDelta",
        "ReasoningDelta",
        "StatusNotice",
        "SteerDelivered",
        "StreamDiscarded",
        "StreamResumed",
        "StreamStalled",
        "TextDelta",
        "ToolCallStarted",
        "ToolFinished",
        "ToolOutput",
        "ToolProgress",
        "ToolStarted",
        "TodoUpdated",
        "TurnFinished",
        "TurnStarted",
        "UsageUpdated",
    ),
    "agent.core.messages": ("Message", "ToolCall", "Usage"),
    "agent.core.exit_reasons": ("is_success", "reply_marker"),
    # the UI protocol: how the engine talks to whoever watches it
    "agent.core.ui": ("AgentUI", "ApprovalAnswer", "ApprovalDecision", "ApprovalRequest", "ClarifyRequest"),
    "agent.approval.allowlist": ("rule_matches as approval_rule_matches",),
    # the session store (type against SessionStoreProtocol) and the search language
    "agent.store": ("SearchHit", "SessionInfo", "SessionStore", "SessionStoreProtocol"),
    "agent.store.errors": ("StoreError",),
    "agent.store.library": ("open_library",),
    "agent.store.opening": ("open_store",),
    "agent.store.recovery": ("check_store", "recover_store"),
    "agent.store.hermes": ("HermesHistory", "HermesHistoryError"),
    "agent.store.query": ("SearchQuery", "parse as parse_search_query"),
    # the tool catalogue
    "agent.session.catalogue": ("builtin_tools", "default_registry"),
    "agent.toolkit.registry": (
        "ToolCatalog",
        "ToolContext",
        "ToolRegistry",
        "ToolResult",
        "result_status",
        "summarize_call",
        "warm_schemas",
    ),
    "agent.toolkit.toolsets": ("LayeredCatalog", "ToolsetStatus"),
    "agent.tools.processes": ("PROCESSES", "ProcessInfo", "note_left_running"),
    # the app's child processes: their one owner, and what an earlier run left behind
    "agent.children.supervisor": ("SUPERVISOR", "Child as SupervisedChild"),
    "agent.children.leftovers": (
        "leftovers_path",
        "summary as leftovers_summary",
        "take as take_leftovers",
    ),
    "agent.tools.terminal": ("TerminalArgs", "run_terminal", "MAX_TIMEOUT as TERMINAL_MAX_TIMEOUT"),
    "agent.tools.todo": ("render_todos",),
    "agent.tools.clarify": ("clarify_answer",),
    "agent.checkpoints": ("Checkpoint", "RestoreReport"),
    "agent.skills.library": ("Skill", "SkillScan"),
    "agent.plugins": ("PluginManager", "format_plugin_list"),
    "agent.mcp": ("McpManager", "ServerStatus", "load_mcp_config"),
    "agent.mcp.report": ("NO_SERVERS as NO_MCP_SERVERS", "masked_lines as mcp_server_lines"),
    "agent.mcp.session": (
        "connected_servers as connected_mcp_servers",
        "print_mcp_servers",
        "ready_within as mcp_ready_within",
        "session_servers as session_mcp_servers",
    ),
    # images, the project's files, what calls cost
    "agent.images": ("ImageError", "ImageRef", "save_image"),
    "agent.images.paths": ("image_paths",),
    "agent.images.store": ("refs_of as image_refs_of",),
    "agent.workspace.file_tree": ("FileIndex",),
    "agent.workspace.mentions": (
        "Attachment",
        "Mention",
        "attached_block",
        "badge_line",
        "expand_mentions",
        "fetch_remote as fetch_remote_mentions",
        "split_attached",
        "with_attached",
    ),
    "agent.workspace.path_match": ("rank_paths",),
    "agent.workspace.worktree": ("Worktree", "WorktreeError", "finish_worktree", "open_worktree"),
    "agent.usage.pricing": ("format_cost", "warm_up as warm_up_prices"),
    "agent.usage.report": ("UsageReport", "gather as gather_usage", "render_text as render_usage_text"),
    # numbers for people, files written whole
    "agent.core.humanize": (
        "format_absolute",
        "format_age",
        "format_countdown",
        "format_elapsed",
        "format_size",
        "format_tokens",
    ),
    "agent.core.fileio": ("atomic_write_text",),
    # the permission modes (plan, ask, default, yolo): one value for the TUI, -z and ACP
    "agent.core.permission_mode": (
        "MODE_NAMES",
        "PermissionMode",
        "UnknownMode",
        "cycle_after",
        "go_ahead_text",
        "parse_mode",
    ),
    "agent.core.user_paths": ("expand_user",),
    # whether the endpoint takes the reasoning level asked (the status bar claims it only then)
    "agent.transports.reasoning": ("reasoning_shown", "reasoning_unsent"),
    # the engine's bursts, served by the collector's one owner (the app's GcPolicy)
    "agent.core.collector": ("serve_collector",),
    # untrusted text made safe: secrets masked, terminal controls neutralised (one implementation each)
    "agent.core.secrets": ("redact as redact_secrets", "redact_data as redact_secrets_in"),
    "agent.core.text_safety": (
        "KEPT_CONTROLS",
        "PASTE_KEEP",
        "StreamSanitizer",
        "control_token",
        "is_kept as is_kept_char",
        "sanitize_display",
        "visible_controls",
    ),
}


def _table() -> dict[str, tuple[str, str]]:
    """Exported name -> (module, the module's own name for it)."""
    table: dict[str, tuple[str, str]] = {}
    for module, entries in _EXPORTS.items():
        for entry in entries:
            attr, _, alias = entry.partition(" as ")
            table[alias or attr] = (module, attr)
    return table


_WHERE = _table()
__all__ = [
    "KEPT_CONTROLS",
    "MODE_NAMES",
    "NO_MCP_SERVERS",
    "PASTE_KEEP",
    "PROCESSES",
    "ROLLBACK_HINT",
    "SUPERVISOR",
    "TERMINAL_MAX_TIMEOUT",
    "YAML_ERRORS",
    "Agent",
    "AgentEvent",
    "AgentUI",
    "ApiCallStarted",
    "ApprovalAnswer",
    "ApprovalDecision",
    "ApprovalRequest",
    "AssistantMessageDone",
    "Attachment",
    "Checkpoint",
    "ChildEvent",
    "ChildFinished",
    "ChildStarted",
    "ClarifyRequest",
    "ConfigProblem",
    "ContextReport",
    "CronDaemon",
    "CronJobs",
    "CronStoreError",
    "EnvironmentUnavailable",
    "FileIndex",
    "FileRefused",
    "FirstDelta",
    "HermesHistory",
    "HermesHistoryError",
    "ImageError",
    "ImageRef",
    "Job",
    "JobList",
    "JobRun",
    "LayeredCatalog",
    "LoadedSettings",
    "McpManager",
    "Mention",
    "Message",
    "ModelCatalog",
    "PermissionMode",
    "PluginManager",
    "ProcessInfo",
    "ProfileError",
    "ReasoningDelta",
    "RestoreReport",
    "RewindPoint",
    "RewindReport",
    "ScheduleError",
    "SearchHit",
    "SearchQuery",
    "ServerStatus",
    "Session",
    "SessionInfo",
    "SessionStore",
    "SessionStoreProtocol",
    "SettingNotSaved",
    "Settings",
    "Skill",
    "SkillScan",
    "StatusNotice",
    "SteerDelivered",
    "StoreError",
    "StreamDiscarded",
    "StreamResumed",
    "StreamSanitizer",
    "StreamStalled",
    "SupervisedChild",
    "TerminalArgs",
    "TextDelta",
    "TodoUpdated",
    "ToolCall",
    "ToolCallStarted",
    "ToolCatalog",
    "ToolContext",
    "ToolFinished",
    "ToolOutput",
    "ToolProgress",
    "ToolRegistry",
    "ToolResult",
    "ToolStarted",
    "ToolsetStatus",
    "TurnFinished",
    "TurnResult",
    "TurnStarted",
    "UnknownMode",
    "Usage",
    "UsageReport",
    "UsageUpdated",
    "Worktree",
    "WorktreeError",
    "approval_rule_matches",
    "atomic_write_text",
    "attached_block",
    "badge_line",
    "builtin_tools",
    "check_store",
    "choose_personality",
    "clarify_answer",
    "closest_models",
    "connected_mcp_servers",
    "control_token",
    "current_personality",
    "cycle_after",
    "default_registry",
    "environment_label",
    "environment_problem",
    "expand_mentions",
    "expand_user",
    "fetch_remote_mentions",
    "finish_worktree",
    "format_absolute",
    "format_age",
    "format_cost",
    "format_countdown",
    "format_elapsed",
    "format_plugin_list",
    "format_size",
    "format_tokens",
    "gather_usage",
    "go_ahead_text",
    "hermes_home",
    "image_paths",
    "image_refs_of",
    "import_prewarm_modules",
    "import_sdk",
    "is_kept_char",
    "is_success",
    "leftovers_path",
    "leftovers_summary",
    "load_catalog",
    "load_mcp_config",
    "load_settings",
    "load_yaml",
    "make_transport",
    "mcp_ready_within",
    "mcp_server_lines",
    "normalize_reasoning_level",
    "note_left_running",
    "open_environment",
    "open_library",
    "open_store",
    "open_worktree",
    "parse_mode",
    "parse_search_query",
    "personalities",
    "prewarm_engine",
    "print_mcp_servers",
    "profile_home",
    "rank_paths",
    "read_bounded_bytes",
    "read_bounded_tail",
    "read_bounded_text",
    "reasoning_shown",
    "reasoning_unsent",
    "recover_store",
    "redact_secrets",
    "redact_secrets_in",
    "render_context",
    "render_todos",
    "render_usage_text",
    "reply_marker",
    "result_status",
    "run_due_jobs",
    "run_terminal",
    "sandbox_status",
    "sanitize_display",
    "save_env_value",
    "save_image",
    "save_setting",
    "sdk_module",
    "serve_collector",
    "session_mcp_servers",
    "split_attached",
    "start_warm_thread",
    "summarize_call",
    "take_leftovers",
    "unsupported_backend",
    "visible_controls",
    "warm_schemas",
    "warm_up_prices",
    "with_attached",
    "yaml_problem",
]


if not TYPE_CHECKING:  # hidden from the type checker, which would otherwise take any unknown name as Any

    def __getattr__(name: str) -> Any:
        try:
            module, attr = _WHERE[name]
        except KeyError:
            raise AttributeError(f"module 'agent.api' has no attribute {name!r}") from None
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value  # next time a plain module attribute
        return value

    def __dir__() -> list[str]:
        return __all__


if TYPE_CHECKING:
    from agent.approval.allowlist import rule_matches as approval_rule_matches
    from agent.checkpoints import Checkpoint, RestoreReport
    from agent.children.leftovers import leftovers_path
    from agent.children.leftovers import summary as leftovers_summary
    from agent.children.leftovers import take as take_leftovers
    from agent.children.supervisor import SUPERVISOR
    from agent.children.supervisor import Child as SupervisedChild
    from agent.config.home import ProfileError, hermes_home, profile_home
    from agent.config.model_catalog import ModelCatalog, closest_models, load_catalog
    from agent.config.reasoning import normalize_level as normalize_reasoning_level
    from agent.config.settings import ConfigProblem, LoadedSettings, Settings, load_settings
    from agent.config.yaml_files import (
        YAML_ERRORS,
        SettingNotSaved,
        load_yaml,
        save_env_value,
        save_setting,
        yaml_problem,
    )
    from agent.core.bounded_files import FileRefused
    from agent.core.bounded_files import read_bytes as read_bounded_bytes
    from agent.core.bounded_files import read_tail as read_bounded_tail
    from agent.core.bounded_files import read_text as read_bounded_text
    from agent.core.collector import serve_collector
    from agent.core.events import (
        AgentEvent,
        ApiCallStarted,
        AssistantMessageDone,
        ChildEvent,
        ChildFinished,
        ChildStarted,
        FirstDelta,
        ReasoningDelta,
        StatusNotice,
        SteerDelivered,
        StreamDiscarded,
        StreamResumed,
        StreamStalled,
        TextDelta,
        TodoUpdated,
        ToolCallStarted,
        ToolFinished,
        ToolOutput,
        ToolProgress,
        ToolStarted,
        TurnFinished,
        TurnStarted,
        UsageUpdated,
    )
    from agent.core.exit_reasons import is_success, reply_marker
    from agent.core.fileio import atomic_write_text
    from agent.core.humanize import (
        format_absolute,
        format_age,
        format_countdown,
        format_elapsed,
        format_size,
        format_tokens,
    )
    from agent.core.messages import Message, ToolCall, Usage
    from agent.core.permission_mode import (
        MODE_NAMES,
        PermissionMode,
        UnknownMode,
        cycle_after,
        go_ahead_text,
        parse_mode,
    )
    from agent.core.secrets import redact as redact_secrets
    from agent.core.secrets import redact_data as redact_secrets_in
    from agent.core.text_safety import (
        KEPT_CONTROLS,
        PASTE_KEEP,
        StreamSanitizer,
        control_token,
        sanitize_display,
        visible_controls,
    )
    from agent.core.text_safety import is_kept as is_kept_char
    from agent.core.ui import AgentUI, ApprovalAnswer, ApprovalDecision, ApprovalRequest, ClarifyRequest
    from agent.core.user_paths import expand_user
    from agent.core.warm_thread import start_warm_thread
    from agent.cron.jobs import CronJobs, CronStoreError, Job, JobList
    from agent.cron.schedule import ScheduleError
    from agent.environments.base import EnvironmentUnavailable
    from agent.environments.factory import (
        environment_label,
        environment_problem,
        open_environment,
        sandbox_status,
        unsupported_backend,
    )
    from agent.images import ImageError, ImageRef, save_image
    from agent.images.paths import image_paths
    from agent.images.store import refs_of as image_refs_of
    from agent.mcp import McpManager, ServerStatus, load_mcp_config
    from agent.mcp.report import NO_SERVERS as NO_MCP_SERVERS
    from agent.mcp.report import masked_lines as mcp_server_lines
    from agent.mcp.session import connected_servers as connected_mcp_servers
    from agent.mcp.session import print_mcp_servers
    from agent.mcp.session import ready_within as mcp_ready_within
    from agent.mcp.session import session_servers as session_mcp_servers
    from agent.plugins import PluginManager, format_plugin_list
    from agent.prompts.personality import choose as choose_personality
    from agent.prompts.personality import current_name as current_personality
    from agent.prompts.personality import personalities
    from agent.session.catalogue import builtin_tools, default_registry
    from agent.session.context_report import ContextReport, render_context
    from agent.session.cron_run import CronDaemon, JobRun, run_due_jobs
    from agent.session.prewarm import import_prewarm_modules, prewarm_engine, sdk_module
    from agent.session.rewind import RewindPoint, RewindReport
    from agent.session.session import Session
    from agent.session.session import Session as Agent
    from agent.session.tool_batch import ROLLBACK_HINT
    from agent.session.turn import TurnResult
    from agent.skills.library import Skill, SkillScan
    from agent.store import SearchHit, SessionInfo, SessionStore, SessionStoreProtocol
    from agent.store.errors import StoreError
    from agent.store.hermes import HermesHistory, HermesHistoryError
    from agent.store.library import open_library
    from agent.store.opening import open_store
    from agent.store.query import SearchQuery
    from agent.store.query import parse as parse_search_query
    from agent.store.recovery import check_store, recover_store
    from agent.toolkit.registry import (
        ToolCatalog,
        ToolContext,
        ToolRegistry,
        ToolResult,
        result_status,
        summarize_call,
        warm_schemas,
    )
    from agent.toolkit.toolsets import LayeredCatalog, ToolsetStatus
    from agent.tools.clarify import clarify_answer
    from agent.tools.processes import PROCESSES, ProcessInfo, note_left_running
    from agent.tools.terminal import MAX_TIMEOUT as TERMINAL_MAX_TIMEOUT
    from agent.tools.terminal import TerminalArgs, run_terminal
    from agent.tools.todo import render_todos
    from agent.transports.factory import make_transport
    from agent.transports.reasoning import reasoning_shown, reasoning_unsent
    from agent.transports.sdk_import import import_sdk
    from agent.usage.pricing import format_cost
    from agent.usage.pricing import warm_up as warm_up_prices
    from agent.usage.report import UsageReport
    from agent.usage.report import gather as gather_usage
    from agent.usage.report import render_text as render_usage_text
    from agent.workspace.file_tree import FileIndex
    from agent.workspace.mentions import (
        Attachment,
        Mention,
        attached_block,
        badge_line,
        expand_mentions,
        split_attached,
        with_attached,
    )
    from agent.workspace.mentions import fetch_remote as fetch_remote_mentions
    from agent.workspace.path_match import rank_paths
    from agent.workspace.worktree import Worktree, WorktreeError, finish_worktree, open_worktree
