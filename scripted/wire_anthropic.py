"""The Anthropic messages shape of a planned answer: `message_start`, content blocks (redacted thinking,
thinking with its signature, text, tool_use with `input_json_delta`), `message_delta`, `message_stop`; or
one message body."""

from __future__ import annotations

import json
from typing import Any

from .plan import Piece, Plan
from .request import Api
from .wire import dumps

__all__ = ["STOP_REASONS", "AnthropicEncoder"]

STOP_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}
"""Our finish reasons as Anthropic's stop reasons."""


class AnthropicEncoder:
    api: Api = "anthropic"

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.id = f"msg_scripted_{plan.response_id}"
        self._block: str | None = None  # kind of the open content block
        self._index = -1  # index of the open (or last) content block

    @staticmethod
    def _event(name: str, obj: dict[str, Any]) -> bytes:
        return f"event: {name}\ndata: {dumps(obj)}\n\n".encode()

    def usage(self, *, start: bool = False) -> dict[str, Any]:
        p = self.plan
        return {
            "input_tokens": p.prompt_tokens,
            "output_tokens": 1 if start else p.completion_tokens,
            "cache_read_input_tokens": p.cache_read_tokens,
            "cache_creation_input_tokens": p.cache_write_tokens,
        }

    def preamble(self) -> bytes:
        p = self.plan
        message: dict[str, Any] = {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": p.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": self.usage(start=True),
        }
        return self._event("message_start", {"type": "message_start", "message": message}) + self._event(
            "ping", {"type": "ping"}
        )

    def _close_block(self) -> bytes:
        if self._block is None:
            return b""
        out = b""
        if self._block == "thinking":
            out += self._delta({"type": "signature_delta", "signature": self.plan.signature})
        out += self._event("content_block_stop", {"type": "content_block_stop", "index": self._index})
        self._block = None
        return out

    def _open_block(self, kind: str, block: dict[str, Any]) -> bytes:
        out = self._close_block()
        self._index += 1
        self._block = kind
        return out + self._event(
            "content_block_start",
            {"type": "content_block_start", "index": self._index, "content_block": block},
        )

    def _delta(self, delta: dict[str, Any]) -> bytes:
        return self._event(
            "content_block_delta", {"type": "content_block_delta", "index": self._index, "delta": delta}
        )

    def piece(self, piece: Piece) -> bytes:
        out = b""
        if piece.kind == "redacted":
            return self._open_block("redacted_thinking", {"type": "redacted_thinking", "data": piece.text})
        if piece.kind == "reasoning":
            if self._block != "thinking":
                out += self._open_block("thinking", {"type": "thinking", "thinking": "", "signature": ""})
            return out + self._delta({"type": "thinking_delta", "thinking": piece.text})
        if piece.kind == "text":
            if self._block != "text":
                out += self._open_block("text", {"type": "text", "text": ""})
            return out + self._delta({"type": "text_delta", "text": piece.text})
        if piece.kind == "tool_start":
            tc = self.plan.tool_calls[piece.index]
            return self._open_block(
                "tool_use", {"type": "tool_use", "id": tc.id, "name": tc.name, "input": {}}
            )
        return self._delta({"type": "input_json_delta", "partial_json": piece.text})

    def malformed(self) -> bytes:
        delta = {"type": "text_delta", "text": "this chunk is cut short"}
        whole = dumps({"type": "content_block_delta", "index": max(self._index, 0), "delta": delta})
        return f"event: content_block_delta\ndata: {whole[: len(whole) // 2]}\n\n".encode()

    def finish(self) -> bytes:
        p = self.plan
        return (
            self._close_block()
            + self._event(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {
                        "stop_reason": None if p.call.omit_finish_reason else STOP_REASONS[p.finish_reason],
                        "stop_sequence": None,
                    },
                    "usage": self.usage(),
                },
            )
            + self._event("message_stop", {"type": "message_stop"})
        )

    def full_body(self) -> dict[str, Any]:
        p = self.plan
        content: list[dict[str, Any]] = []
        if p.call.redacted_thinking:
            content.append({"type": "redacted_thinking", "data": p.call.redacted_thinking})
        if p.reasoning:
            content.append({"type": "thinking", "thinking": p.reasoning, "signature": p.signature})
        if p.text:
            content.append({"type": "text", "text": p.text})
        for tc in p.tool_calls:
            try:
                tool_input: Any = json.loads(tc.arguments) if tc.arguments else {}
            except ValueError:
                tool_input = tc.arguments  # malformed on purpose: passed through as a string
            content.append({"type": "tool_use", "id": tc.id, "name": tc.name, "input": tool_input})
        return {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": p.model,
            "content": content,
            "stop_reason": STOP_REASONS[p.finish_reason],
            "stop_sequence": None,
            "usage": self.usage(),
        }

    def malformed_body(self) -> bytes:
        return f'{{"id":"{self.id}","type":"message","role":"assistant","content":[{{"type":"te'.encode()

    @staticmethod
    def error_body(message: str, type_: str, code: str | None = None) -> dict[str, Any]:
        return {"type": "error", "error": {"type": type_, "message": message}}
