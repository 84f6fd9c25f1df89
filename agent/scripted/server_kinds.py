"""What the OpenAI-compatible servers people run locally do differently from OpenAI, played by the scripted
server when a scenario names one (`server: llamacpp` / `llama-cpp-python` / `vllm`).

llama.cpp (and llama-cpp-python, and servers built on them) refuse an assistant message whose `content` is
`null` beside `tool_calls` (HTTP 500: the chat template concatenates it as a string), answer a prompt longer
than `n_ctx` with an empty 200 stream (the error is raised after the headers went out); llama.cpp's says
its window in `GET /props`, llama-cpp-python's nowhere. vLLM says it as `max_model_len` in its model card
(`GET /v1/models`). Neither refusal takes a scripted call: the request is recorded and answered here.
"""

from __future__ import annotations

from typing import Any

from .scenario import Scenario

__all__ = ["model_card_extras", "overflows", "props", "rejection"]

LLAMA_KINDS = ("llamacpp", "llama-cpp-python")
"""llama.cpp's own server, and llama-cpp-python's (the same refusals, no `/props`: its window is unknown)."""

NULL_CONTENT_ERROR = 'can only concatenate str (not "NoneType") to str'


def rejection(scenario: Scenario, body: dict[str, Any]) -> dict[str, Any] | None:
    """The error body llama.cpp answers with (HTTP 500), or None when it takes the request."""
    if scenario.server not in LLAMA_KINDS:
        return None
    for message in body.get("messages") or ():
        if (
            isinstance(message, dict)
            and message.get("role") == "assistant"
            and message.get("content") is None
        ):
            return {"error": {"code": 500, "message": NULL_CONTENT_ERROR, "type": "server_error"}}
    return None


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
