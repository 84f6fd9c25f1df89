"""Scenario files for the scripted model server.

A scenario is a list of scripted model calls, played in order, one per model request. It is written in
YAML and validated with pydantic (unknown keys are rejected, so a typo is reported with its location):

```yaml
name: demo
model: scripted-model
calls:
  - reasoning: "Let me look"
    text: "Hello **world**"
    chunk_size: 4
  - tool_calls:
      - name: terminal
        arguments: {command: ls}
  - "A plain string is shorthand for {text: ...}"
  - match: "check the tests"      # only for the conversation that opened with this text (a subagent)
    text: "All tests pass."
fallback:
  text: "Played whenever `calls` is exhausted"
```
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import ErrorDetails, InitErrorDetails

__all__ = [
    "SCENARIOS_DIR",
    "Fault",
    "ModelCall",
    "Scenario",
    "ScenarioError",
    "ScriptedToolCall",
    "ScriptedUsage",
    "load_scenario",
    "load_scenario_file",
]

SCENARIOS_DIR = Path(__file__).parent / "scenarios"
"""Directory of the scenario files shipped with the package."""

FinishReason = Literal["stop", "tool_calls", "length", "content_filter"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScriptedToolCall(_Strict):
    """One tool call the scripted model makes."""

    name: str
    arguments: dict[str, Any] | None = None
    """Arguments as a mapping; sent as JSON text."""
    arguments_raw: str | None = None
    """Arguments sent verbatim (may be malformed JSON, for error-path tests)."""
    id: str | None = None
    """Tool call id; generated (`call_<n>`, counting from 1 per loaded scenario) when absent."""

    @model_validator(mode="after")
    def _one_argument_form(self) -> ScriptedToolCall:
        if self.arguments is not None and self.arguments_raw is not None:
            raise ValueError("give either 'arguments' or 'arguments_raw', not both")
        return self

    @property
    def arguments_text(self) -> str:
        """The arguments exactly as they go on the wire."""
        if self.arguments_raw is not None:
            return self.arguments_raw
        return json.dumps(self.arguments or {}, ensure_ascii=False)


class ScriptedUsage(_Strict):
    """Token usage to report. Missing counts are estimated (characters / 4).

    The numbers are reported as given on both APIs: OpenAI `prompt_tokens`,
    `prompt_tokens_details.cached_tokens` / `cache_write_tokens`; Anthropic `input_tokens`,
    `cache_read_input_tokens`, `cache_creation_input_tokens`.
    """

    prompt_tokens: int | None = Field(default=None, ge=0)
    completion_tokens: int | None = Field(default=None, ge=0)
    cache_read_tokens: int = Field(default=0, ge=0)
    cache_write_tokens: int = Field(default=0, ge=0)
    reasoning_tokens: int | None = Field(default=None, ge=0)
    cost: float | None = Field(default=None, ge=0)
    """OpenRouter's `usage.cost` (USD), sent only when the request asks for it (`usage: {include: true}`),
    as OpenRouter does."""


class Fault(_Strict):
    """Makes a call fail: either an HTTP error (`status`) or a mid-stream fault (`kind`)."""

    status: int | None = Field(default=None, ge=400, le=599)
    """HTTP error status; the body is shaped like the provider's error body."""
    message: str | None = None
    type: str | None = None
    """Error type string in the body (default derived from the status, e.g. 429 -> rate_limit_error)."""
    code: str | None = None
    """OpenAI `error.code` (default: the type)."""
    retry_after: float | None = Field(default=None, ge=0)
    """Retry-After header value, in seconds."""

    kind: Literal["stall", "cut", "close", "malformed"] | None = None
    """Mid-stream fault: `stall` sends nothing more and keeps the connection open; `cut` closes the
    connection abruptly; `close` ends the response cleanly but without the protocol's terminal events (no
    finish reason and no `[DONE]`; Anthropic: no `message_delta` / `message_stop`), as a proxy that drops
    the upstream mid-reply does; `malformed` sends one chunk that is not valid JSON, then carries on."""
    after_chunks: int = Field(default=0, ge=0)
    """How many content chunks are sent before a mid-stream fault."""
    stall_seconds: float = Field(default=600.0, gt=0)
    """How long a stall lasts at most (it also ends when the client disconnects or the server stops);
    the connection is then closed."""

    @model_validator(mode="after")
    def _one_fault_form(self) -> Fault:
        if (self.status is None) == (self.kind is None):
            raise ValueError(
                "a fault needs exactly one of 'status' (HTTP error) or 'kind' (stall|cut|close|malformed)"
            )
        if self.status is not None:
            misplaced = self.model_fields_set & {"after_chunks", "stall_seconds"}
            if misplaced:
                raise ValueError(f"{sorted(misplaced)} only apply to mid-stream faults ('kind')")
        else:
            misplaced = self.model_fields_set & {"message", "type", "code", "retry_after"}
            if misplaced:
                raise ValueError(f"{sorted(misplaced)} only apply to HTTP error faults ('status')")
        return self

    @property
    def error_type(self) -> str:
        if self.type:
            return self.type
        return _DEFAULT_ERROR_TYPES.get(self.status or 500, "api_error")

    @property
    def error_message(self) -> str:
        return self.message or f"scripted fault: HTTP {self.status}"


_DEFAULT_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    502: "api_error",
    503: "api_error",
    529: "overloaded_error",
}


class ModelCall(_Strict):
    """One scripted model response."""

    text: str | None = None
    chunks: list[str] | None = None
    """The text as explicit stream chunks (instead of `text` + `chunk_size`)."""
    chunk_size: int = Field(default=4, ge=1)
    """Split text, reasoning and tool arguments into chunks of this many characters."""
    delay: float = Field(default=0.0, ge=0)
    """Seconds between chunks."""
    first_delay: float = Field(default=0.0, ge=0)
    """Seconds before the first chunk (and before a non-streamed answer or an HTTP error)."""
    reasoning: str | None = None
    redacted_thinking: str | None = None
    """Opaque reasoning sent before the thinking: Anthropic's `redacted_thinking` block with this `data`;
    on chat completions OpenRouter's `reasoning_details` item `{type: reasoning.encrypted, data}`."""
    tool_calls: list[ScriptedToolCall] = Field(default_factory=list)
    finish_reason: FinishReason | None = None
    """Default: `tool_calls` when there are tool calls, else `stop`."""
    usage: ScriptedUsage | None = None
    omit_finish_reason: bool = False
    """Stream the end without a finish reason (`finish_reason: null`, Anthropic `stop_reason: null`) but
    with the terminal `[DONE]` / `message_stop`, as some compatible servers do."""
    fault: Fault | None = None
    match: str | None = Field(default=None, min_length=1)
    """Played only for a request whose first user message contains this text (a subagent's goal), in
    list order among such calls; calls without `match` are played in order by every other request."""

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"text": data}
        return data

    @model_validator(mode="after")
    def _one_text_form(self) -> ModelCall:
        if self.text is not None and self.chunks is not None:
            raise ValueError("give either 'text' or 'chunks', not both")
        return self

    @property
    def full_text(self) -> str:
        if self.chunks is not None:
            return "".join(self.chunks)
        return self.text or ""

    @property
    def text_chunks(self) -> list[str]:
        if self.chunks is not None:
            return [c for c in self.chunks if c]
        return split_chunks(self.text or "", self.chunk_size)

    @property
    def effective_finish_reason(self) -> FinishReason:
        if self.finish_reason is not None:
            return self.finish_reason
        return "tool_calls" if self.tool_calls else "stop"


class Scenario(_Strict):
    """A scripted conversation: the model's answers, in order."""

    name: str = "scenario"
    description: str = ""
    model: str = "scripted"
    models: list[str] = Field(default_factory=list)
    """More model names `GET /models` lists after `model` (for the model picker)."""
    server: Literal["openai", "llamacpp", "llama-cpp-python", "vllm"] = "openai"
    """Which compatible server to behave as (`scripted.server_kinds`): `llamacpp` refuses
    `content: null` beside tool calls, streams nothing for a prompt over `n_ctx` and serves `/props`
    (`llama-cpp-python` the same without `/props`, and answers tools sent without a `tool_choice` in text);
    `vllm` gives `max_model_len` in its model list."""
    n_ctx: int | None = Field(default=None, ge=1)
    """The server's context window in tokens (llama.cpp's `n_ctx`, vLLM's `max_model_len`)."""
    calls: list[ModelCall] = Field(default_factory=list)
    fallback: ModelCall | None = None
    """Played whenever `calls` is exhausted. Without it, an exhausted scenario answers HTTP 500."""
    key_faults: dict[str, Fault] = Field(default_factory=dict)
    """Keys the server refuses, each with its HTTP fault (`status`: 401, 402, 429...): a request carrying
    one (as a bearer token or `x-api-key`) gets the fault and takes no call; other keys play the calls."""

    @model_validator(mode="after")
    def _key_faults_are_http(self) -> Scenario:
        for key, fault in self.key_faults.items():
            if fault.status is None:
                raise ValueError(f"key_faults.{key}: a key's fault is an HTTP error ('status')")
        return self


def split_chunks(text: str, size: int) -> list[str]:
    """Split `text` into pieces of `size` characters (no empty pieces)."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def load_scenario(source: Scenario | Path | str | dict[str, Any]) -> Scenario:
    """Load a scenario from a `Scenario`, a mapping, a file path, or YAML text.

    A string is taken as a path when it is a single line naming an existing file or ending in
    `.yaml`/`.yml`/`.json`; otherwise it is parsed as YAML text. Raises `FileNotFoundError`,
    `yaml.YAMLError`, or `pydantic.ValidationError` (titled with the file name when there is one,
    and naming the offending key, e.g. `calls.0.txt  Extra inputs are not permitted`).
    """
    if isinstance(source, Scenario):
        return source
    origin = "Scenario"
    if isinstance(source, dict):
        data: Any = source
    else:
        path: Path | None = None
        text = ""
        if isinstance(source, Path):
            path = source
        elif (
            "\n" not in source
            and not source.lstrip().startswith(("{", "["))
            and (source.strip().endswith((".yaml", ".yml", ".json")) or _is_file(source.strip()))
        ):
            path = Path(source.strip())
        else:
            text = source
        if path is not None:
            text = path.read_text(encoding="utf-8")
            origin = f"Scenario {path}"
        data = yaml.safe_load(text)
        if data is None:
            data = {}
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        if origin == "Scenario":
            raise
        raise ValidationError.from_exception_data(origin, [_init_details(e) for e in exc.errors()]) from None


def _init_details(error: ErrorDetails) -> InitErrorDetails:
    """The reported error re-raisable under another title (its message is rebuilt from type and ctx)."""
    details: InitErrorDetails = {"type": error["type"], "loc": error["loc"], "input": error["input"]}
    if "ctx" in error:
        details["ctx"] = error["ctx"]
    return details


def _is_file(text: str) -> bool:
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


class ScenarioError(ValueError):
    """A scenario file that cannot be played, said in one line naming the file and the problem."""


def load_scenario_file(path: Path | str) -> Scenario:
    """The scenario in the file at `path`, whatever bytes it holds: any problem (missing, unreadable, not
    UTF-8, not YAML, not a mapping, a wrong key or value) raises `ScenarioError` with a one-line message
    such as `demo.yaml: calls.0.txt: Extra inputs are not permitted`, never another exception."""
    from agent.config.yaml_files import read_yaml_mapping

    path = Path(path)
    read = read_yaml_mapping(path, missing_ok=False)
    if not read.ok:
        found = f" (found {read.found})" if read.found else ""
        raise ScenarioError(f"{path}: {read.where}: expected {read.problem}{found}")
    try:
        return Scenario.model_validate(read.data)
    except ValidationError as exc:
        errors = exc.errors()
        first = errors[0] if errors else {"loc": (), "msg": str(exc)}
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ScenarioError(f"{path}: {where}: {first['msg']}{more}") from None
    except (TypeError, ValueError, RecursionError) as exc:  # a value pydantic could not even inspect
        raise ScenarioError(f"{path}: {type(exc).__name__}: {exc}") from None
