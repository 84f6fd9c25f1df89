"""Settings: Hermes' `config.yaml` + `.env` (shared keys), our `tui/config.yaml`, environment, then flags.

A Hermes user's setup must work unchanged, and a broken file must never stop the app: every problem becomes
a `ConfigProblem` naming the file, the key, the value and what was expected, and the default is used.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from agent.config import yaml_files
from agent.config.cloud import CloudAccess, bedrock_access, vertex_access
from agent.config.home import hermes_home
from agent.config.images import VisionSettings, load_vision_settings
from agent.config.reasoning import ALLOWED_TEXT, Reasoning, normalize_level, resolve_reasoning
from agent.config.terminal import UNREADABLE_CONFIG, TerminalSettings, load_terminal_settings
from agent.config.web import WebSettings, load_web_settings
from agent.core import providers
from agent.core.bounded_files import MAX_DOTENV_BYTES, read_text
from agent.core.errors import ProviderSetupError
from agent.core.secrets import SECRETS, looks_secret_name, redact_logs
from agent.core.user_paths import expand_user

# Context windows for well-known model families; anything else uses DEFAULT_CONTEXT_WINDOW.
KNOWN_CONTEXT_WINDOWS: dict[str, int] = {
    "gpt-4o": 128_000,
    "gpt-4.1": 1_047_576,
    "gpt-5": 400_000,
    "o3": 200_000,
    "o4-mini": 200_000,
    "claude": 200_000,
    "gemini": 1_000_000,
    "deepseek": 128_000,
    "qwen": 131_072,
    "llama": 131_072,
    "hermes": 131_072,
    "scripted": 128_000,
}
DEFAULT_CONTEXT_WINDOW = 128_000


@dataclass(frozen=True)
class ConfigProblem:
    file: str
    key: str
    value: str
    expected: str

    def __str__(self) -> str:
        return f"{self.file}: {self.key} = {self.value!r}: expected {self.expected}"


class FallbackProvider(BaseModel):
    """One entry of the fallback chain (`fallback_providers`, or Hermes' legacy `fallback_model`). Its key
    comes from `key_env` (Hermes' `key_env` / `api_key_env`) when set, else the provider's key variables."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    provider: str = "openai"
    model: str
    base_url: str | None = None
    key_env: str | None = Field(default=None, validation_alias=AliasChoices("key_env", "api_key_env"))

    @field_validator("provider")
    @classmethod
    def _hermes_name(cls, value: str) -> str:
        return providers.canonical(value)


class PersonalitySpec(BaseModel):
    """A personality in Hermes' dict form (`agent.personalities.NAME: {system_prompt, tone, style}`)."""

    model_config = ConfigDict(extra="ignore")
    description: str = ""
    system_prompt: str = ""
    tone: str = ""
    style: str = ""


class Settings(BaseModel):
    """The effective configuration of one run. API keys are SecretStr so they never print by accident."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    model: str = ""
    provider: str = (
        ""  # a name from agent/core/providers.py, as Hermes names it ("" = infer from key/base_url)
    )
    base_url: str | None = None
    # Hermes' model.api_mode: chat_completions | anthropic_messages | codex_responses ("" = chosen from the
    # provider and URL, as Hermes chooses; see `api_mode`).
    wire_api: Literal["", "chat_completions", "anthropic_messages", "codex_responses"] = ""
    api_key: SecretStr | None = None
    api_key_source: str = ""
    model_chosen: bool = False
    """The model was named for this run (`--model`): a resumed session keeps it instead of its own."""
    """How the key was given (`flag --api-key`, `env VAR`, `<home>/.env VAR`): a rejected key's hint says
    where to fix it. Never the key itself."""
    context_window: int | None = None
    max_iterations: int = Field(90, ge=1, le=10_000)
    max_output_tokens: int | None = Field(None, ge=1)
    stale_timeout: float = Field(180.0, gt=0)
    # The stale timeout for local endpoints (loopback, private addresses) when stale_timeout is not set:
    # a slow local prefill must not be killed and retried forever (Hermes' agent.local_stream_stale_timeout).
    local_stale_timeout: float = Field(900.0, gt=0)
    connect_timeout: float = Field(30.0, gt=0)
    max_retries: int = Field(3, ge=0, le=10)
    # manual: ask the user; smart: an auxiliary model call approves, denies or asks the user
    # (agent/approval/smart.py); off: run everything (hard-blocked commands stay blocked).
    approvals_mode: Literal["manual", "smart", "off"] = "manual"
    approvals_timeout: float = Field(300.0, gt=0)
    command_allowlist: list[str] = Field(default_factory=list)
    approvals_deny: list[str] = Field(default_factory=list)
    # The permission mode a new session starts in (`approvals.default_mode`, `--permission-mode`; the
    # policy is agent/approval/modes.py). `yolo: true` (--yolo, HERMES_YOLO_MODE) starts in yolo instead.
    permission_mode: Literal["default", "ask", "plan", "yolo"] = "default"
    # The mode was given on the command line (`--permission-mode`, `--yolo`): it wins over a resumed
    # session's stored one.
    permission_mode_chosen: bool = False
    clarify_timeout: float = Field(120.0, gt=0)
    tool_output_budget: int = Field(50_000, ge=1_000)
    terminal_timeout: float = Field(180.0, gt=0, le=600)
    # Background processes (`terminal` with `background: true`) kept running when the app ends, on
    # purpose: each entry is matched as a substring of the command (`npm run dev`, `http.server`).
    # Everything else the app started is stopped with it.
    terminal_keep_on_exit: list[str] = Field(default_factory=list)
    yolo: bool = False
    # The OS sandbox of the local backend (agent/environments/sandbox.py, bubblewrap): off | read-only |
    # workspace-write (`sandbox.mode`, `--sandbox`), and whether sandboxed commands reach the network
    # (`sandbox.network`). Ours: Hermes has no such keys.
    sandbox_mode: Literal["off", "read-only", "workspace-write"] = "off"
    sandbox_network: bool = False
    skin: str = "default"
    # File edits' tool panels open with their diff shown (Hermes-style key `display.expand_diffs`).
    expand_diffs: bool = True
    # When a turn ends or a question waits while the terminal is unfocused: bell | desktop | off
    notify: str = Field("bell", pattern="^(bell|desktop|off)$")
    save_trajectories: bool = False
    # Replace the first-message title with a short model-made one after the first turn (one small call).
    auto_title: bool = True
    fallback_providers: list[FallbackProvider] = Field(default_factory=list)
    compression_enabled: bool = True
    compression_threshold: float = Field(0.5, gt=0, le=1)
    # Hermes' compression.target_ratio: the recent messages kept verbatim may take this share of the
    # threshold's tokens (used between 0.1 and 0.8, as Hermes clamps it); protect_first_n / protect_last_n:
    # the first messages always kept, and the fewest recent ones kept.
    compression_target_ratio: float = Field(0.2, gt=0, le=1)
    compression_protect_first_n: int = Field(3, ge=0)
    compression_protect_last_n: int = Field(20, ge=1)
    # Toolsets offered to the model, by Hermes' names (`hermes-cli` = every built-in one), and the ones
    # taken away again; `/tools` can switch them per session. See agent/toolkit/toolsets.py.
    toolsets: list[str] = Field(default_factory=lambda: ["hermes-cli"])
    disabled_toolsets: list[str] = Field(default_factory=list)
    # Memory (MEMORY.md / USER.md): a frozen snapshot enters each new session's system prompt.
    memory_enabled: bool = True
    user_profile_enabled: bool = True
    memory_char_limit: int = Field(2200, ge=100, le=100_000)
    user_char_limit: int = Field(1375, ge=100, le=100_000)
    # User turns between reminders to save what was learned (0 = never); wire-only.
    memory_nudge_interval: int = Field(10, ge=0, le=10_000)
    # Skills ($HERMES_HOME/skills/<category>/<name>/SKILL.md) left out of the index and slash commands.
    skills_disabled: list[str] = Field(default_factory=list)
    # Tool iterations in one turn after which the next turn reminds the agent to save a skill (0 = never).
    skill_nudge_interval: int = Field(10, ge=0, le=10_000)
    # Appended to the system message on the wire only (Hermes' agent.system_prompt / a personality).
    ephemeral_system_prompt: str = ""
    # Extra or replaced personalities for /personality, by name (Hermes' agent.personalities).
    personalities: dict[str, str | PersonalitySpec] = Field(default_factory=dict)
    # Web search backends and their keys (Hermes' `web.*` and environment), the vision models.
    web: WebSettings = Field(default_factory=WebSettings)
    # Where the tools run (Hermes' `terminal.backend` and its siblings; agent/config/terminal.py).
    terminal: TerminalSettings = Field(default_factory=TerminalSettings)
    vision: VisionSettings = Field(default_factory=VisionSettings)
    # Subagents (delegate_task), Hermes' `delegation.*`: each child's iteration budget, how many run at once,
    # and the endpoint they use ("" / None: the parent's provider, model and base URL).
    delegation_max_iterations: int = Field(50, ge=1, le=10_000)
    delegation_max_concurrent: int = Field(3, ge=1, le=32)
    delegation_model: str = ""
    delegation_provider: str = ""
    delegation_base_url: str | None = None
    # execute_code's limits, Hermes' `code_execution.*`: the script's time and its tool calls.
    code_execution_timeout: float = Field(300.0, gt=0, le=3600)
    code_execution_max_tool_calls: int = Field(50, ge=1, le=1000)
    # The Chromium the browser tools drive (`browser.executable_path`; None: the first one on PATH).
    browser_executable_path: str | None = None
    # Reasoning (agent/config/reasoning.py): Hermes' agent.reasoning_effort ("" = the provider's default,
    # "none" = off, or a level) and agent.reasoning_overrides (model -> level, any spelling of the model);
    # `reasoning_choice` is the level chosen for this run (--reasoning, /reasoning), which wins over both.
    reasoning_effort: str = ""
    reasoning_overrides: dict[str, str] = Field(default_factory=dict)
    reasoning_choice: str = ""
    # Hermes' display.show_reasoning: the model's thinking is shown (a collapsed block) in the transcript.
    show_reasoning: bool = True
    # Hermes' plugins.enabled (None: the key is missing, so no Hermes plugin loads) and plugins.disabled.
    plugins_enabled: list[str] | None = None
    plugins_disabled: list[str] = Field(default_factory=list)
    # Claude on a cloud (agent/config/cloud.py): Hermes' `bedrock.region`, `vertex.project_id`,
    # `vertex.region` ("" = from the environment, else the cloud's default).
    bedrock_region: str = ""
    vertex_project_id: str = ""
    vertex_region: str = ""
    # Seconds a plugin's hook, and its import with register(), may take before the plugin is disabled.
    plugin_hook_timeout: float = Field(5.0, gt=0, le=600)
    plugin_load_timeout: float = Field(10.0, gt=0, le=600)
    # Hermes' shell hooks (`hooks:`, read by agent/hooks/spec.py, which reports what is wrong in it) and
    # `hooks_auto_accept` (its commands run without asking first).
    hooks: Any = None
    hooks_auto_accept: bool = False
    # Hermes' `quick_commands`: /name -> {type: exec, command} | {type: alias, target} | {type: prompt,
    # prompt}; read and checked by the app (hermes_tui/commands/quick.py).
    quick_commands: Any = None
    hermes_home: Path = Field(default_factory=lambda: hermes_home())
    cwd: Path = Field(default_factory=Path.cwd)

    def register_secrets(self) -> None:
        """Give the redactor (`agent.core.secrets.SECRETS`) the keys these settings hold: the provider's,
        the web backends', the vision model's."""
        keys = (self.api_key, self.web.tavily_api_key, self.web.exa_api_key, self.web.firecrawl_api_key)
        SECRETS.add(*(k.get_secret_value() for k in (*keys, self.vision.api_key) if k is not None))

    @field_validator("approvals_mode", mode="before")
    @classmethod
    def _approvals_mode(cls, value: Any) -> Any:
        if value is False:
            return "off"  # YAML reads a bare `off` as False
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("sandbox_mode", mode="before")
    @classmethod
    def _sandbox_mode(cls, value: Any) -> Any:
        if value is False:
            return "off"  # YAML reads a bare `off` as False
        return value.strip().lower().replace("_", "-") if isinstance(value, str) else value

    @field_validator("permission_mode", mode="before")
    @classmethod
    def _permission_mode(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("reasoning_effort", "reasoning_choice", mode="before")
    @classmethod
    def _reasoning_level(cls, value: Any) -> str:
        level = normalize_level(value)
        if level is None:
            raise ValueError(ALLOWED_TEXT)
        return level

    @field_validator("reasoning_overrides", mode="before")
    @classmethod
    def _reasoning_overrides(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        out: dict[str, str] = {}
        for model, level in value.items():
            normalized = normalize_level(level)
            if normalized is None:
                raise ValueError(f"{model}: {ALLOWED_TEXT}")
            out[str(model)] = normalized
        return out

    def reasoning_for(self, model: str | None = None) -> Reasoning | None:
        """The reasoning a call to `model` (default: this configuration's) asks for; None = the provider's
        default, and nothing is sent."""
        return resolve_reasoning(
            chosen=self.reasoning_choice,
            overrides=self.reasoning_overrides,
            effort=self.reasoning_effort,
            model=self.model if model is None else model,
        )

    @property
    def reasoning_label(self) -> str:
        """The level asked of this configuration's model (`high`, `none`); "" when nothing is set. Whether
        the endpoint takes it is the wire's question: `agent.transports.reasoning.reasoning_shown`."""
        reasoning = self.reasoning_for()
        return reasoning.label if reasoning is not None else ""

    @property
    def effective_context_window(self) -> int:
        if self.context_window:
            return self.context_window
        name = self.model.lower()
        best = 0
        window = DEFAULT_CONTEXT_WINDOW
        for prefix, size in KNOWN_CONTEXT_WINDOWS.items():
            if prefix in name and len(prefix) > best:
                best, window = len(prefix), size
        return window

    @property
    def api_mode(self) -> str:
        """Which wire protocol, as Hermes chooses: `model.api_mode` when set (Responses only for a named
        provider or an OpenAI / xAI URL, as Hermes ignores a stale one on a plain custom endpoint); the
        Responses API for xAI and api.openai.com (GPT-5.x answers tool-using reasoning turns only there);
        else the provider's (agent/core/providers.py), else Anthropic for a base URL ending in /anthropic
        (MiniMax, DashScope...), else chat completions."""
        spec = providers.lookup(self.provider)
        host = _url_host(self.effective_base_url or "")
        responses_host = host in ("api.openai.com", "api.x.ai")
        if self.wire_api == "codex_responses" and (
            responses_host or (spec is not None and spec.name != "custom")
        ):
            return "codex_responses"
        if self.wire_api == "anthropic_messages":
            return "anthropic"
        if self.wire_api == "chat_completions":
            return "openai_chat"
        if responses_host or (spec is not None and spec.name == "xai"):
            return "codex_responses"
        if spec is not None and spec.protocol is not None and spec.name != "custom":
            return spec.protocol
        if self.base_url and self.base_url.rstrip("/").endswith("/anthropic"):
            return "anthropic"
        return "openai_chat"

    @property
    def effective_base_url(self) -> str | None:
        """The base URL requests go to: the configured one, else the provider's default."""
        return self.base_url or providers.base_url_for(self.provider)

    @property
    def unsupported_provider(self) -> str | None:
        """One line when `provider` names a provider Hermes knows that we cannot talk to yet, or a cloud
        whose credentials (or model) will not do, naming what to set."""
        reason = providers.unsupported_reason(self.provider)
        if reason is not None:
            return reason
        try:
            self.cloud_access()
        except ProviderSetupError as exc:
            return str(exc)
        return None

    def cloud_access(self) -> CloudAccess | None:
        """How the SDK's Bedrock or Vertex client is built for this configuration (None: not a cloud);
        raises ProviderSetupError with the line to show. The environment is read now (with
        `$HERMES_HOME/.env` under it), as boto3 and google-auth would read it."""
        spec = providers.lookup(self.provider)
        if spec is None or not spec.platform:
            return None
        env = {**read_dotenv(self.hermes_home / ".env"), **os.environ}
        if spec.platform == "bedrock":
            return bedrock_access(
                self.model, env, region=self.bedrock_region, bearer_token=self.api_key is not None
            )
        return vertex_access(self.model, env, project_id=self.vertex_project_id, region=self.vertex_region)

    @property
    def is_configured(self) -> bool:
        """A provider can be reached: a key, a custom base URL (local servers often need no key), or a
        local provider that needs none (LM Studio). A provider we cannot talk to is never configured."""
        if not self.model or self.unsupported_provider:
            return False
        if self.api_key is not None or self.base_url:
            return True
        spec = providers.lookup(self.provider)
        if spec is not None and spec.platform:
            return True  # its credentials were found (`unsupported_provider` is None)
        return spec is not None and not spec.needs_key and bool(self.effective_base_url)

    @property
    def state_db(self) -> Path:
        return self.hermes_home / "tui" / "state.db"

    @property
    def tui_config_path(self) -> Path:
        return self.hermes_home / "tui" / "config.yaml"


def _url_host(url: str) -> str:
    from urllib.parse import urlparse

    try:
        return (urlparse(url if "://" in url else f"https://{url}").hostname or "").lower()
    except ValueError:
        return ""


def endpoint_settings(
    settings: Settings, provider: str, model: str, base_url: str | None, key_env: str | None = None
) -> Settings:
    """`settings` aimed at another provider, model and URL (None: the provider's default): a provider the
    user switched to (`/model NAME --provider P`), a subagent's own model, or the next entry of the fallback
    chain after a call failed for good, all built one way. The key comes from the entry's own variable
    (`key_env`) or the provider's variables (`agent/core/providers.py`), else the current key stays."""
    provider = providers.canonical(provider)
    key = providers.key_from_env(provider, os.environ, key_env)
    updated = settings.model_copy(update={"provider": provider, "model": model, "base_url": base_url})
    updated.api_key = SecretStr(key) if key else settings.api_key
    return updated


def next_fallback(settings: Settings, index: int) -> tuple[FallbackProvider, Settings] | None:
    """The fallback chain's entry at `index` (0 = the first fallback) and its settings; None past the end."""
    chain = settings.fallback_providers
    if index >= len(chain):
        return None
    entry = chain[index]
    return entry, endpoint_settings(settings, entry.provider, entry.model, entry.base_url, entry.key_env)


@dataclass
class LoadedSettings:
    settings: Settings
    problems: list[ConfigProblem] = field(default_factory=list)
    # key -> where its value came from (file path, "env VAR", "flag --x", "default")
    sources: dict[str, str] = field(default_factory=dict)


def read_dotenv(path: Path) -> dict[str, str]:
    """A small .env reader: KEY=VALUE lines, optional `export`, quotes stripped, comments ignored."""
    values: dict[str, str] = {}
    try:
        text = read_text(path, limit=MAX_DOTENV_BYTES)
    except OSError:  # missing, unreadable, or refused (a FIFO, a device, too large: logged once)
        return values
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        if line.startswith("export "):
            line = line[7:].lstrip()
        key, _, value = line.partition("=")
        key = key.strip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        if key:
            values[key] = value
    return values


def read_yaml_mapping(path: Path, problems: list[ConfigProblem]) -> dict[str, Any]:
    """A YAML file that should hold a mapping ({} when missing); anything wrong with it (any bytes at all)
    becomes a problem, never an error (`agent.config.yaml_files` reads it)."""
    read = yaml_files.read_yaml_mapping(path)
    if not read.ok:
        problems.append(ConfigProblem(str(path), read.where, read.found, read.problem))
    return read.data


def _get(data: dict[str, Any], dotted: str) -> Any:
    cur: Any = data
    for part in dotted.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


_HERMES_KEYS: dict[str, str] = {
    "platform_toolsets.cli": "toolsets",  # what `hermes tools` saves; wins over the top-level key
    "toolsets": "toolsets",
    "agent.disabled_toolsets": "disabled_toolsets",
    "memory.memory_enabled": "memory_enabled",
    "memory.user_profile_enabled": "user_profile_enabled",
    "memory.memory_char_limit": "memory_char_limit",
    "memory.user_char_limit": "user_char_limit",
    "memory.nudge_interval": "memory_nudge_interval",
    "skills.disabled": "skills_disabled",
    "skills.creation_nudge_interval": "skill_nudge_interval",
    "agent.system_prompt": "ephemeral_system_prompt",
    "agent.max_turns": "max_iterations",
    "max_turns": "max_iterations",
    "agent.local_stream_stale_timeout": "local_stale_timeout",
    "approvals.mode": "approvals_mode",
    "approvals.timeout": "approvals_timeout",
    "approvals.deny": "approvals_deny",
    "approvals.default_mode": "permission_mode",
    "command_allowlist": "command_allowlist",
    "display.skin": "skin",
    "display.expand_diffs": "expand_diffs",
    "clarify.timeout": "clarify_timeout",
    "terminal.timeout": "terminal_timeout",  # the terminal tool's default (Hermes' TERMINAL_TIMEOUT)
    "terminal.keep_on_exit": "terminal_keep_on_exit",  # ours: Hermes has no such key
    "sandbox.mode": "sandbox_mode",  # ours, Codex's names
    "sandbox.network": "sandbox_network",
    "compression.enabled": "compression_enabled",
    "compression.threshold": "compression_threshold",
    "compression.target_ratio": "compression_target_ratio",
    "compression.protect_first_n": "compression_protect_first_n",
    "compression.protect_last_n": "compression_protect_last_n",
    "fallback_providers": "fallback_providers",
    "delegation.max_iterations": "delegation_max_iterations",
    "delegation.max_concurrent_children": "delegation_max_concurrent",  # Hermes' name
    "delegation.max_concurrent": "delegation_max_concurrent",
    "delegation.model": "delegation_model",
    "delegation.provider": "delegation_provider",
    "delegation.base_url": "delegation_base_url",
    "code_execution.timeout": "code_execution_timeout",
    "browser.executable_path": "browser_executable_path",
    "code_execution.max_tool_calls": "code_execution_max_tool_calls",
    "plugins.enabled": "plugins_enabled",
    "plugins.disabled": "plugins_disabled",
    "plugins.hook_timeout": "plugin_hook_timeout",
    "plugins.load_timeout": "plugin_load_timeout",
    "hooks": "hooks",
    "hooks_auto_accept": "hooks_auto_accept",
    "quick_commands": "quick_commands",
    "agent.reasoning_effort": "reasoning_effort",
    "agent.reasoning_overrides": "reasoning_overrides",
    "display.show_reasoning": "show_reasoning",
    "bedrock.region": "bedrock_region",
    "vertex.project_id": "vertex_project_id",
    "vertex.region": "vertex_region",
}
"""Hermes' dotted keys -> our settings names; the first key found wins (so list a preferred one first)."""


def _hermes_model_values(model: Any) -> dict[str, tuple[str, Any]]:
    """Hermes' `model:`, a name or a section (default, provider, base_url, api_mode, context_length)."""
    if not isinstance(model, dict):
        return {} if model is None else {"model": ("model", model)}
    out: dict[str, tuple[str, Any]] = {}
    for sub, name in (
        ("default", "model"),
        ("provider", "provider"),
        ("base_url", "base_url"),
        ("api_mode", "wire_api"),
        ("context_length", "context_window"),
    ):
        if model.get(sub) is not None:
            out[name] = (f"model.{sub}", model[sub])
    return out


def _hermes_personalities(data: dict[str, Any]) -> tuple[str, Any] | None:
    """Hermes reads personalities from both places; the agent section wins on a name clash."""
    top, section = data.get("personalities"), _get(data, "agent.personalities")
    if isinstance(top, dict) or isinstance(section, dict):
        merged = {**(top if isinstance(top, dict) else {}), **(section if isinstance(section, dict) else {})}
        return ("agent.personalities" if isinstance(section, dict) else "personalities", merged)
    if top is not None or section is not None:
        return ("personalities", top if top is not None else section)
    return None


def _hermes_config_values(data: dict[str, Any]) -> dict[str, tuple[str, Any]]:
    """Map Hermes' shared keys to our settings names: {setting: (hermes key, value)}."""
    out = _hermes_model_values(data.get("model"))
    for key, name in _HERMES_KEYS.items():
        value = _get(data, key)
        if value is not None and name not in out:
            out[name] = (key, value)
    legacy = data.get("fallback_model")
    if legacy is not None:
        chain = out.get("fallback_providers", ("fallback_providers", []))[1]
        out["fallback_providers"] = (
            "fallback_model" if "fallback_providers" not in out else "fallback_providers",
            _merge_fallbacks(chain, legacy),
        )
    personalities = _hermes_personalities(data)
    if personalities is not None:
        out["personalities"] = personalities
    return out


def _merge_fallbacks(chain: Any, legacy: Any) -> Any:
    """Hermes' effective chain: `fallback_providers` in order, then the legacy `fallback_model` (one dict or
    a list of them) unless an entry already targets the same provider, model and base URL."""
    if not isinstance(chain, list):
        return chain  # reported as invalid by validation
    entries = [legacy] if isinstance(legacy, dict) else legacy if isinstance(legacy, list) else []

    def identity(entry: Any) -> tuple[str, str, str]:
        if not isinstance(entry, dict):
            return ("", "", "")
        return (
            providers.canonical(str(entry.get("provider") or "").strip().lower()),
            str(entry.get("model") or "").strip().lower(),
            str(entry.get("base_url") or "").strip().rstrip("/").lower(),
        )

    seen = {identity(entry) for entry in chain}
    merged = list(chain)
    for entry in entries:
        if isinstance(entry, dict) and entry.get("model") and identity(entry) not in seen:
            seen.add(identity(entry))
            merged.append(entry)
    return merged


_FLAG_NAMES = {
    "reasoning_choice": "--reasoning",
    "sandbox_mode": "--sandbox",
    "hooks_auto_accept": "--accept-hooks",
}
"""Settings whose command-line flag is not named after them."""
_REASONING_LEVELS = frozenset({"reasoning_effort", "reasoning_choice"})


def _valid_overrides(value: Any, file: str, key: str, problems: list[ConfigProblem]) -> Any:
    """`agent.reasoning_overrides` with each bad entry reported on its own line and left out, so one typo
    does not discard the others."""
    if not isinstance(value, dict):
        return value
    kept: dict[str, Any] = {}
    for model, level in value.items():
        if normalize_level(level) is None:
            problems.append(ConfigProblem(file, f"{key}.{model}", str(level)[:80], ALLOWED_TEXT))
        else:
            kept[str(model)] = level
    return kept


def _validate_one(name: str, value: Any) -> tuple[bool, Any, str]:
    """Validate one field in isolation so a bad key never discards the good ones."""
    field_info = Settings.model_fields[name]
    if name in _REASONING_LEVELS and normalize_level(value) is None:
        return False, None, ALLOWED_TEXT
    try:
        checked = Settings.__pydantic_validator__.validate_assignment(Settings.model_construct(), name, value)
        return True, getattr(checked, name), ""
    except ValidationError as exc:
        msg = exc.errors()[0].get("msg", "a valid value") if exc.errors() else "a valid value"
        ann = field_info.annotation
        if get_origin(ann) is Literal:
            return False, None, "one of " + " | ".join(str(choice) for choice in get_args(ann))
        expected = ann.__name__ if isinstance(ann, type) else str(ann).replace("typing.", "")
        return False, None, f"{expected} ({msg})"


def _env_source(var: str, environ: dict[str, str], home: Path) -> str:
    return f"env {var}" if var in environ else f"{home / '.env'} {var}"


_ENV_SETTINGS = {
    "HERMES_MODEL": "model",
    "HERMES_PROVIDER": "provider",
    "OPENAI_BASE_URL": "base_url",
    "HERMES_BASE_URL": "base_url",
    "HERMES_STREAM_STALE_TIMEOUT": "stale_timeout",
    "HERMES_LOCAL_STREAM_STALE_TIMEOUT": "local_stale_timeout",
    "HERMES_MAX_ITERATIONS": "max_iterations",
    "HERMES_EPHEMERAL_SYSTEM_PROMPT": "ephemeral_system_prompt",
    "TERMINAL_TIMEOUT": "terminal_timeout",
}
"""Environment variables (or `.env` entries) that set a setting."""

_DEFAULT_MODELS = {
    "openai": "gpt-4o",
    "openrouter": "nousresearch/hermes-4-405b",
    "anthropic": "claude-sonnet-4-6",
}
"""The model a provider's key gets when none is configured; only where the choice is obvious (a DeepSeek or
Gemini key gets no OpenAI model name guessed for it: the missing model is reported instead)."""


class _Layers:
    """The settings being gathered, one layer after another (later wins), with where each value came from
    and every problem found: one bad value is reported and left out, never discarding the good ones."""

    def __init__(self, home: Path, environ: dict[str, str], flags: dict[str, Any]) -> None:
        self.home, self.environ, self.flags = home, environ, flags
        self.problems: list[ConfigProblem] = []
        self.values: dict[str, Any] = {"hermes_home": home}
        self.sources: dict[str, str] = {
            "hermes_home": "flag --hermes-home"
            if "hermes_home" in flags
            else ("env HERMES_HOME" if environ.get("HERMES_HOME") else "default")
        }
        self.hermes_data: dict[str, Any] = {}
        self.hermes_unreadable = False
        self.tui_data: dict[str, Any] = {}
        self.merged_env: dict[str, str] = dict(environ)

    def put(self, name: str, value: Any, source: str, file: str, key: str) -> None:
        if name == "reasoning_overrides":
            value = _valid_overrides(value, file, key, self.problems)
        ok, checked, expected = _validate_one(name, value)
        if ok:
            self.values[name] = checked
            self.sources[name] = source
        else:
            self.problems.append(ConfigProblem(file, key, str(value)[:80], expected))

    def env_source(self, var: str) -> str:
        return _env_source(var, self.environ, self.home)

    def hermes_config(self) -> None:
        """Hermes' config.yaml (the keys both apps share), then its .env under the environment."""
        path = self.home / "config.yaml"
        before = len(self.problems)
        self.hermes_data = read_yaml_mapping(path, self.problems)
        # A file there that gave nothing (it does not parse, or is not a mapping): what it chose is unknown.
        self.hermes_unreadable = len(self.problems) > before and not self.hermes_data and path.exists()
        for name, (key, value) in _hermes_config_values(self.hermes_data).items():
            self.put(name, value, str(path), str(path), key)
        self.merged_env = {**read_dotenv(self.home / ".env"), **self.environ}

    def tui_config(self) -> None:
        """Our own tui/config.yaml (and the web and vision sections, which read both files)."""
        path = self.home / "tui" / "config.yaml"
        self.tui_data = read_yaml_mapping(path, self.problems)
        self._web_and_vision()
        for key, value in self.tui_data.items():
            name = key.replace("-", "_")
            if (
                name == "command_allowlist"
                and isinstance(value, list)
                and all(isinstance(v, str) for v in value)
            ):
                value = list(dict.fromkeys([*self.values.get("command_allowlist", []), *value]))
            if name in Settings.model_fields and name not in ("hermes_home", "api_key"):
                self.put(name, value, str(path), str(path), key)
            elif name == "api_key":
                expected = "API keys in environment variables or .env"
                self.problems.append(ConfigProblem(str(path), key, "***", expected))
            else:
                self.problems.append(ConfigProblem(str(path), key, str(value)[:80], "a known setting"))

    def _web_and_vision(self) -> None:
        data = self.hermes_data
        web, web_problems, self.sources["web"] = load_web_settings(
            data.get("web"), self.tui_data.pop("web", None), self.merged_env
        )
        security = data.get("security")
        if isinstance(security, dict) and security.get("allow_private_urls") is True:  # Hermes' switch for it
            web.allow_private_urls = True
        vision, vision_problems, self.sources["vision"] = load_vision_settings(data, self.merged_env)
        self.values.update(web=web, vision=vision)
        terminal, terminal_problems, self.sources["terminal"] = load_terminal_settings(
            data.get("terminal"), self.merged_env
        )
        if self.hermes_unreadable and self.sources["terminal"] == "default":
            # Where the user chose to run tools is in the file that could not be read: never assume local.
            terminal.backend = UNREADABLE_CONFIG
            self.sources["terminal"] = "config.yaml (unreadable)"
        self.values["terminal"] = terminal
        hermes_cfg = str(self.home / "config.yaml")
        problems = (*web_problems, *vision_problems, *terminal_problems)
        self.problems += [ConfigProblem(hermes_cfg, *p) for p in problems]

    def environment(self) -> None:
        for var, name in _ENV_SETTINGS.items():
            if self.merged_env.get(var):
                src = self.env_source(var)
                self.put(name, self.merged_env[var], src, src, var)
        if self.merged_env.get("HERMES_YOLO_MODE", "").lower() in ("1", "true", "yes"):
            self.values["yolo"] = True
            self.sources["yolo"] = "env HERMES_YOLO_MODE"

    def command_line(self) -> None:
        for name, value in self.flags.items():
            if name in Settings.model_fields and name not in ("api_key", "hermes_home"):
                flag = _FLAG_NAMES.get(name, f"--{name.replace('_', '-')}")
                self.put(name, value, f"flag {flag}", "command line", flag)
        self.values["model_chosen"] = "model" in self.flags
        self.values["permission_mode_chosen"] = "permission_mode" in self.flags

    def credentials(self) -> bool:
        """Provider and key: an explicit flag wins, else the provider's key variables (Hermes' order), else
        any of the common keys. Hermes' aliases become its canonical names (`claude` -> `anthropic`).
        True when a key was found."""
        values, env = self.values, self.merged_env
        provider = providers.canonical(str(values.get("provider") or ""))
        if provider != str(values.get("provider") or ""):
            values["provider"] = provider
        spec = providers.lookup(provider)
        url_var = spec.base_url_env if spec is not None else ""
        if url_var and not values.get("base_url") and env.get(url_var):
            self.put("base_url", env[url_var], self.env_source(url_var), url_var, url_var)
        api_key: object = self.flags.get("api_key")
        key_source = "flag --api-key" if api_key else ""
        if not api_key:
            for cand in self._key_candidates(provider, known=spec is not None):
                key_var = next((v for v in providers.key_env_vars(cand) if env.get(v)), None)
                if key_var is not None:
                    api_key, key_source = env[key_var], self.env_source(key_var)
                    if not provider:
                        values["provider"] = cand
                        self.sources["provider"] = f"inferred from {key_var}"
                    break
        if api_key:
            values["api_key"] = SecretStr(str(api_key))
            values["api_key_source"] = key_source
            self.sources["api_key"] = key_source
        return bool(api_key)

    def _key_candidates(self, provider: str, *, known: bool) -> list[str]:
        """Whose key variables to look in: the provider's, else a guess from the base URL, else the common."""
        if provider:
            return [provider] if known else []
        base = str(self.values.get("base_url") or "")
        if "openrouter" in base:
            return ["openrouter"]
        if base.rstrip("/").endswith("/anthropic"):
            return ["anthropic"]
        return ["openai", "openrouter", "anthropic"]


def load_settings(flags: dict[str, Any] | None = None, env: dict[str, str] | None = None) -> LoadedSettings:
    """Layers, later wins: Hermes config.yaml, Hermes .env, tui/config.yaml, environment, flags."""
    flags = {k: v for k, v in (flags or {}).items() if v is not None}
    environ = dict(os.environ if env is None else env)
    home = expand_user(flags.get("hermes_home") or environ.get("HERMES_HOME") or Path.home() / ".hermes")
    layers = _Layers(home, environ, flags)
    layers.hermes_config()
    layers.tui_config()
    layers.environment()
    layers.command_line()
    has_key = layers.credentials()
    settings = Settings.model_validate(layers.values)
    sources = layers.sources
    if not settings.model and settings.is_configured is False and has_key:
        guess = _DEFAULT_MODELS.get(settings.provider, "gpt-4o" if settings.provider == "custom" else None)
        if guess:
            settings.model = guess
            sources["model"] = "default for provider"
    for name in Settings.model_fields:
        sources.setdefault(name, "default")
    register_config_secrets(layers.merged_env, layers.hermes_data, layers.tui_data)
    settings.register_secrets()
    redact_logs()
    return LoadedSettings(settings=settings, problems=layers.problems, sources=sources)


def register_config_secrets(env: dict[str, str], *documents: Any) -> None:
    """Every secret the configuration holds, for the redactor (`agent.core.secrets`): environment and
    `.env` values under secret-looking names, and config values under secret-looking keys at any depth
    (`model.api_key`, a custom provider's `api_key`, an MCP server's `headers`/`env` entries)."""
    SECRETS.add_environment(env)
    stack: list[Any] = list(documents)
    seen: set[int] = set()  # YAML anchors can make a list contain itself (`key: &a [*a]`)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, str) and looks_secret_name(str(key)):
                    SECRETS.add(value)
                elif isinstance(value, dict | list):
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, dict | list))
