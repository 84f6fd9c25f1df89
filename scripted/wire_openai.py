"""The OpenAI chat-completions shape of a planned answer: `chat.completion.chunk` SSE events ending in
`[DONE]` (usage in a last chunk when `stream_options.include_usage` asks), or one `chat.completion` body."""

from __future__ import annotations

from typing import Any

from .plan import Piece, Plan
from .request import Api
from .wire import dumps

__all__ = ["OpenAIEncoder"]


class OpenAIEncoder:
    api: Api = "openai"

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.id = f"chatcmpl-scripted-{plan.response_id}"

    def _chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        return f"data: {dumps(self._chunk_obj(delta, finish_reason))}\n\n".encode()

    def _chunk_obj(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.plan.created,
            "model": self.plan.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
        }

    def usage(self) -> dict[str, Any]:
        p = self.plan
        usage: dict[str, Any] = {
            "prompt_tokens": p.prompt_tokens,
            "completion_tokens": p.completion_tokens,
            "total_tokens": p.prompt_tokens + p.completion_tokens,
            "prompt_tokens_details": {
                "cached_tokens": p.cache_read_tokens,
                "cache_write_tokens": p.cache_write_tokens,
            },
            "completion_tokens_details": {"reasoning_tokens": p.reasoning_tokens},
        }
        if p.cost is not None:
            usage["cost"] = p.cost
        return usage

    def preamble(self) -> bytes:
        return self._chunk({"role": "assistant", "content": ""})

    def piece(self, piece: Piece) -> bytes:
        if piece.kind == "text":
            return self._chunk({"content": piece.text})
        if piece.kind == "reasoning":
            return self._chunk({"reasoning_content": piece.text})
        if piece.kind == "redacted":  # as OpenRouter streams an encrypted reasoning detail
            detail = {"type": "reasoning.encrypted", "data": piece.text, "index": 0}
            return self._chunk({"reasoning_details": [detail]})
        if piece.kind == "tool_start":
            tc = self.plan.tool_calls[piece.index]
            return self._chunk(
                {
                    "tool_calls": [
                        {
                            "index": piece.index,
                            "id": tc.id,
                            "type": "function",
                            "function": {"name": tc.name, "arguments": ""},
                        }
                    ]
                }
            )
        return self._chunk({"tool_calls": [{"index": piece.index, "function": {"arguments": piece.text}}]})

    def malformed(self) -> bytes:
        # A proper prefix of a JSON object is never valid JSON.
        whole = dumps(self._chunk_obj({"content": "this chunk is cut short"}))
        return f"data: {whole[: len(whole) // 2]}\n\n".encode()

    def finish(self) -> bytes:
        out = self._chunk({}, None if self.plan.call.omit_finish_reason else self.plan.finish_reason)
        if self.plan.include_usage:
            obj = {
                "id": self.id,
                "object": "chat.completion.chunk",
                "created": self.plan.created,
                "model": self.plan.model,
                "choices": [],
                "usage": self.usage(),
            }
            out += f"data: {dumps(obj)}\n\n".encode()
        return out + b"data: [DONE]\n\n"

    def full_body(self) -> dict[str, Any]:
        p = self.plan
        message: dict[str, Any] = {"role": "assistant", "content": p.text or None, "refusal": None}
        if p.reasoning:
            message["reasoning_content"] = p.reasoning
        if p.tool_calls:
            message["tool_calls"] = [
                {"id": tc.id, "type": "function", "function": {"name": tc.name, "arguments": tc.arguments}}
                for tc in p.tool_calls
            ]
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": p.created,
            "model": p.model,
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": p.finish_reason}],
            "usage": self.usage(),
        }

    def malformed_body(self) -> bytes:
        return f'{{"id":"{self.id}","object":"chat.completion","choices":[{{"index":0,"message":'.encode()

    @staticmethod
    def error_body(message: str, type_: str, code: str | None = None) -> dict[str, Any]:
        return {"error": {"message": message, "type": type_, "param": None, "code": code or type_}}
