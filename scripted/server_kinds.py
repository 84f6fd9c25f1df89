"""What the OpenAI-compatible servers people run locally do differently from OpenAI, played by the scripted
server when a scenario names one (`server: llamacpp` / `llama-cpp-python` / `vllm`).

llama.cpp (and llama-cpp-python, and servers built on them) refuse an assistant message whose `content` is
`null` beside `tool_calls` (HTTP 500: the chat template concatenates it as a string), answer a prompt longer
than `n_ctx` with an empty 200 stream (the error is raised after the headers went out; llama-cpp-python's
server drops the connection without any response instead, `hangs_up`); llama.cpp's says
its window in `GET /props`, llama-cpp-python's nowhere. vLLM says it as `max_model_len` in its model card
(`GET /v1/models`). Neither refusal takes a scripted call: the request is recorded and answered here.
llama-cpp-python's chat formats put the tools in the prompt only when the request names a `tool_choice`:
without one its model never sees them, so a request with tools and no choice is answered here with text
(`tools_unseen`), never with the scenario's tool call; with `tool_choice: auto` (its chatml-function-calling
format) it can answer only unstreamed, and a streamed request gets an empty stream.
"""

from __future__ import annotations

from typing import Any

from .scenario import ModelCall, Scenario

__all__ = [
    "TOOLS_UNSEEN_TEXT",
    "hangs_up",
    "leaves_connection_dead",
    "model_card_extras",
    "overflows",
    "props",
    "rejection",
    "streams_nothing",
    "tools_unseen",
]

LLAMA_KINDS = ("llamacpp", "llama-cpp-python")
"""llama.cpp's own server, and llama-cpp-python's (the same refusals, no `/props`: its window is unknown)."""

NULL_CONTENT_ERROR = 'can only concatenate str (not "NoneType") to str'


def rejection(scenario: Scenario, body: dict[str, Any], raw: bytes) -> tuple[int, dict[str, Any]] | None:
    """The HTTP status and error body llama.cpp answers with, or None when it takes the request: a null
    `content` (500), or a prompt over its window asked for unstreamed (400: said plainly, window included;
    streamed, the same overflow is an empty stream, `streams_nothing`)."""
    if scenario.server not in LLAMA_KINDS:
        return None
    for message in body.get("messages") or ():
        if (
            isinstance(message, dict)
            and message.get("role") == "assistant"
            and message.get("content") is None
        ):
            return 500, {"error": {"code": 500, "message": NULL_CONTENT_ERROR, "type": "server_error"}}
    if body.get("stream") is not True and overflows(scenario, raw):
        asked, window = len(raw) // 3, scenario.n_ctx
        if scenario.server == "llamacpp":
            said = "the request exceeds the available context size, try increasing it"
            error = {"code": 400, "message": said, "type": "exceed_context_size_error"}
            return 400, {"error": {**error, "n_prompt_tokens": asked, "n_ctx": window}}
        said = (
            f"This model's maximum context length is {window} tokens. However, you requested {asked} tokens "
            f"({asked} in the messages, None in the completion). Please reduce the length of the messages or "
            "completion."
        )
        error = {"message": said, "type": "invalid_request_error", "param": "messages"}
        return 400, {"error": {**error, "code": "context_length_exceeded"}}
    return None


def streams_nothing(scenario: Scenario, body: dict[str, Any], raw: bytes) -> bool:
    """True when the server answers a streamed request with a 200 and no event at all (its error comes
    after the headers): a prompt over the window (llama.cpp and llama-cpp-python), or tools with
    `tool_choice: auto` (llama-cpp-python's chatml-function-calling: "Automatic streaming tool choice is
    not supported")."""
    if body.get("stream") is not True or hangs_up(scenario, body, raw):
        return False
    auto_tools = bool(body.get("tools")) and body.get("tool_choice") == "auto"
    return overflows(scenario, raw) or (scenario.server == "llama-cpp-python" and auto_tools)


def leaves_connection_dead(scenario: Scenario) -> bool:
    """True when an empty stream leaves its connection open but dead: llama-cpp-python's server, whose
    stream failed after the headers, drops the next request sent down the same connection unanswered (the
    client sees "Server disconnected without sending a response", or a reset)."""
    return scenario.server == "llama-cpp-python"


def hangs_up(scenario: Scenario, body: dict[str, Any], raw: bytes) -> bool:
    """True when the server closes the connection without sending a response at all: llama-cpp-python's
    for a streamed prompt over its window (its client sees "Server disconnected without sending a
    response"; asked unstreamed, it refuses the same prompt with a 400 that says its window)."""
    return scenario.server == "llama-cpp-python" and body.get("stream") is True and overflows(scenario, raw)


TOOLS_UNSEEN_TEXT = "I have no tools to call."
"""What the scripted llama-cpp-python answers a request whose tools its prompt left out."""


def tools_unseen(scenario: Scenario, body: dict[str, Any]) -> ModelCall | None:
    """llama-cpp-python's answer to a request with tools but no `tool_choice` (or `none`): its prompt left
    the tools out, so its model answers in text; None when the request's tools reach the model."""
    if scenario.server != "llama-cpp-python" or not body.get("tools"):
        return None
    if body.get("tool_choice") not in (None, "none"):
        return None
    return ModelCall(text=TOOLS_UNSEEN_TEXT)


def overflows(scenario: Scenario, raw: bytes) -> bool:
    """True when llama.cpp would find the prompt longer than its window (estimated at 3 bytes a token, as
    a small model's tokenizer counts JSON-heavy text: more than the client's 4-byte estimate):
    it then answers a streamed request with a 200 and no event at all."""
    return scenario.server in LLAMA_KINDS and scenario.n_ctx is not None and len(raw) // 3 > scenario.n_ctx


def props(scenario: Scenario) -> dict[str, Any] | None:
    """llama.cpp's `GET /props`, or None for the servers that have no such route."""
    if scenario.server != "llamacpp":  # llama-cpp-python's server has no /props
        return None
    settings: dict[str, Any] = {"n_ctx": scenario.n_ctx or 4096, "temperature": 0.8}
    return {
        "default_generation_settings": settings,
        "total_slots": 1,
        "model_path": f"/models/{scenario.model}.gguf",
        "chat_template": "",
    }


def model_card_extras(scenario: Scenario) -> dict[str, Any]:
    """Fields a server adds to each entry of `GET /v1/models` (vLLM: `max_model_len`)."""
    if scenario.server == "vllm" and scenario.n_ctx is not None:
        return {"max_model_len": scenario.n_ctx, "root": scenario.model}
    return {}
