"""`mcp_servers:` in `$HERMES_HOME/config.yaml`, read exactly as Hermes reads it.

Per server: `command`/`args`/`env`/`cwd` (a stdio server) or `url`/`headers` (streamable HTTP), `timeout`
(seconds a tool call may take, default 300), `connect_timeout` (default 60), `enabled`, `tools: {include,
exclude}` (include wins; a single string is a list of one), and ours: `approval: never|always` (default: ask
for tools the server does not annotate read-only, or annotates destructive). `${VAR}` (or `${env:VAR}`) in any
string is replaced from the environment and `$HERMES_HOME/.env`, as Hermes does; `${VAR:-default}` takes the
default when VAR is unset or empty. Hermes' `sampling:` (the server may ask the session's model for a
completion: `enabled`, `model`, `max_tokens_cap`, `timeout`, `max_rpm`, `allowed_models`, `max_tool_rounds`,
`log_level`) and `elicitation:` (it may ask the user for input: `enabled`, `timeout`) are read with Hermes'
defaults (`agent.mcp.sampling`, `agent.mcp.elicitation` use them). Keys we do not use (Hermes' `auth`, ...)
are ignored, so a Hermes configuration loads unchanged.

A broken entry never hides the others: it becomes a `ServerProblem` that `/mcp` shows in the server's place.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from agent.config.settings import ConfigProblem, read_dotenv, read_yaml_mapping

__all__ = [
    "ElicitationSpec",
    "McpConfig",
    "SamplingSpec",
    "ServerProblem",
    "ServerSpec",
    "load_mcp_config",
    "parse_mcp_servers",
]

DEFAULT_TOOL_TIMEOUT = 300.0
DEFAULT_CONNECT_TIMEOUT = 60.0
_ENV_REF = re.compile(r"\$\{([^}]+)\}")


def _names(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple | set):
        return [str(v) for v in value]
    raise ValueError("a tool name or a list of tool names")


class ToolFilter(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    @field_validator("include", "exclude", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> tuple[str, ...]:
        return tuple(_names(value))

    def allows(self, tool: str) -> bool:
        """Hermes' rule: an include list is a whitelist and wins; else the exclude list is a blacklist."""
        if self.include:
            return tool in self.include
        return tool not in self.exclude


def _number(value: Any, default: float, minimum: float) -> float:
    """Hermes' `_safe_numeric`: a YAML string ("10") is read as a number, anything unreadable or not finite is
    the default, and a value below `minimum` is `minimum`."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return default
    return max(number, minimum) if math.isfinite(number) else default


def _switch_or_mapping(data: Any) -> Any:
    """`sampling: false` / `elicitation: off` as `{enabled: ...}`, nothing as `{}`, a mapping as a copy to
    normalise (anything else is left for pydantic to refuse)."""
    if isinstance(data, bool):
        return {"enabled": data}
    if not isinstance(data, dict):
        return {} if data is None else data
    return dict(data)


class SamplingSpec(BaseModel):
    """`sampling:` of one server, with Hermes' defaults (`SamplingHandler`): on unless `enabled: false`."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    enabled: bool = True
    model: str | None = None  # the model sampling uses instead of the session's
    max_tokens_cap: int = 4096  # a request's max_tokens is cut to this
    timeout: float = 30.0  # seconds the model call may take
    max_rpm: int = 10  # requests per minute (a sliding window)
    allowed_models: tuple[str, ...] = ()  # empty: any
    max_tool_rounds: int = 5  # tool-use replies in a row (0: none)
    log_level: str = "info"

    @model_validator(mode="before")
    @classmethod
    def _hermes_numbers(cls, data: Any) -> Any:
        out = _switch_or_mapping(data)
        if not isinstance(out, dict):
            return out
        for key, default, minimum in (
            ("max_tokens_cap", 4096, 1),
            ("timeout", 30.0, 1),
            ("max_rpm", 10, 1),
            ("max_tool_rounds", 5, 0),
        ):
            if key in out:
                number = _number(out[key], default, minimum)
                out[key] = number if key == "timeout" else int(number)
        if "allowed_models" in out:
            out["allowed_models"] = tuple(_names(out["allowed_models"]))
        return out


class ElicitationSpec(BaseModel):
    """`elicitation:` of one server, with Hermes' defaults (`ElicitationHandler`): on, 300 s to answer."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    enabled: bool = True
    timeout: float = 300.0

    @model_validator(mode="before")
    @classmethod
    def _hermes_numbers(cls, data: Any) -> Any:
        out = _switch_or_mapping(data)
        if not isinstance(out, dict):
            return out
        if "timeout" in out:
            out["timeout"] = _number(out["timeout"], 300.0, 1)
        return out


class ServerSpec(BaseModel):
    """One server's configuration, validated."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    timeout: float = Field(DEFAULT_TOOL_TIMEOUT, gt=0)
    connect_timeout: float = Field(DEFAULT_CONNECT_TIMEOUT, gt=0)
    enabled: bool = True
    tools: ToolFilter = Field(default_factory=ToolFilter)
    approval: Literal["never", "always"] | None = None
    wire: str | None = Field(default=None, alias="transport")
    """Hermes' `transport:` key: `sse` for a server on the older HTTP+SSE transport (else streamable HTTP)."""
    sampling: SamplingSpec = Field(default_factory=SamplingSpec)
    elicitation: ElicitationSpec = Field(default_factory=ElicitationSpec)

    @field_validator("args", mode="before")
    @classmethod
    def _args(cls, value: Any) -> tuple[str, ...]:
        if value is None:
            return ()
        if isinstance(value, str):
            return (value,)
        return tuple(str(v) for v in value)

    @field_validator("env", "headers", mode="before")
    @classmethod
    def _mapping(cls, value: Any) -> dict[str, str]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise ValueError("a mapping of names to values")
        return {str(k): str(v) for k, v in value.items()}

    @field_validator("tools", "sampling", "elicitation", mode="before")
    @classmethod
    def _tools(cls, value: Any) -> Any:
        return {} if value is None else value

    @field_validator("approval", mode="before")
    @classmethod
    def _approval(cls, value: Any) -> Any:
        if value is False:  # YAML reads a bare `off`/`no` as False: never ask
            return "never"
        if value is True:
            return "always"
        return value

    @model_validator(mode="after")
    def _one_transport(self) -> ServerSpec:
        if bool(self.command) == bool(self.url):
            raise ValueError("give either `command` (a stdio server) or `url` (streamable HTTP)")
        return self

    @property
    def transport(self) -> Literal["stdio", "http", "sse"]:
        if self.command:
            return "stdio"
        return "sse" if (self.wire or "").strip().lower() == "sse" else "http"

    @property
    def target(self) -> str:
        """What `/mcp` shows for where the server is: the command line or the URL (never headers or env)."""
        if self.command:
            return " ".join([self.command, *self.args])
        return self.url or ""


@dataclass(frozen=True)
class ServerProblem:
    """A server entry that could not be used, and why (one line)."""

    name: str
    message: str


@dataclass(frozen=True)
class McpConfig:
    servers: tuple[ServerSpec | ServerProblem, ...] = ()
    problems: tuple[ConfigProblem, ...] = ()  # the file itself: unreadable, not YAML, not a mapping

    @property
    def specs(self) -> tuple[ServerSpec, ...]:
        return tuple(s for s in self.servers if isinstance(s, ServerSpec))


def _reference(match: re.Match[str], env: dict[str, str]) -> str:
    """One `${...}`: `${VAR}` and Cursor's `${env:VAR}` as Hermes reads them (unset: kept as written), and
    the shell's `${VAR:-default}` (unset or empty: the default), which Hermes keeps as written."""
    body = match.group(1).strip()
    name, sep, default = body.partition(":-")
    name = name.strip()
    if name.startswith("env:"):
        name = name[len("env:") :].strip()
    value = env.get(name)
    if sep:
        return value if value else default
    return value if value is not None else match.group(0)


def _interpolate(value: Any, env: dict[str, str]) -> Any:
    if isinstance(value, str):
        return _ENV_REF.sub(lambda m: _reference(m, env), value)
    if isinstance(value, dict):
        return {k: _interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [_interpolate(v, env) for v in value]
    return value


def _problem_text(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err.get("loc", ()))
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        parts.append(f"{where}: {msg}" if where else msg)
    return "; ".join(parts)


def parse_mcp_servers(raw: Any, env: dict[str, str] | None = None) -> tuple[ServerSpec | ServerProblem, ...]:
    """The `mcp_servers` mapping -> one spec (or problem) per server, in the file's order."""
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        return (ServerProblem("mcp_servers", "mcp_servers must be a mapping of server names to settings"),)
    env = dict(os.environ) if env is None else env
    out: list[ServerSpec | ServerProblem] = []
    for name, entry in raw.items():
        name = str(name)
        if not isinstance(entry, dict):
            out.append(ServerProblem(name, "expected a mapping with `command` or `url`"))
            continue
        try:
            out.append(ServerSpec.model_validate({**_interpolate(entry, env), "name": name}))
        except ValidationError as exc:
            out.append(ServerProblem(name, _problem_text(exc)))
    return tuple(out)


def load_mcp_config(hermes_home: Path, env: dict[str, str] | None = None) -> McpConfig:
    """Read `mcp_servers` from `$HERMES_HOME/config.yaml` now (a reload reads the file again)."""
    problems: list[ConfigProblem] = []
    data = read_yaml_mapping(hermes_home / "config.yaml", problems)
    merged = {**read_dotenv(hermes_home / ".env"), **(dict(os.environ) if env is None else env)}
    servers = parse_mcp_servers(data.get("mcp_servers"), merged)
    from agent.core.secrets import SECRETS

    for spec in servers:  # the redactor masks them wherever they would show (`/mcp`, results, logs)
        if isinstance(spec, ServerSpec):
            SECRETS.add_environment(spec.env)
            SECRETS.add(*spec.headers.values())
    return McpConfig(servers, tuple(problems))
