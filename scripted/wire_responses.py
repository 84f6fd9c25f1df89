"""The OpenAI Responses shape of a planned answer: `response.created`, output items (reasoning with its
summary and its `encrypted_content`; the message's `output_text` deltas;
function calls with their argument deltas), each closed by `response.output_item.done`, then
`response.completed` (or `response.incomplete` at the output limit) with the usage; or one response body."""

from __future__ import annotations

from typing import Any

from .plan import Piece, Plan
from .request import Api
from .wire import dumps

__all__ = ["ResponsesEncoder"]


class ResponsesEncoder:
    api: Api = "responses"

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.id = f"resp_scripted_{plan.response_id}"
        self._items: list[dict[str, Any]] = []  # the output items so far, the open one last
        self._open = False

    @staticmethod
    def _event(name: str, obj: dict[str, Any]) -> bytes:
        return f"event: {name}\ndata: {dumps({'type': name, **obj})}\n\n".encode()

    @property
    def encrypted(self) -> str:
        return f"scripted-encrypted-{self.plan.response_id}"

    def usage(self) -> dict[str, Any]:
        p = self.plan
        return {
            "input_tokens": p.prompt_tokens,
            "input_tokens_details": {"cached_tokens": p.cache_read_tokens},
            "output_tokens": p.completion_tokens,
            "output_tokens_details": {"reasoning_tokens": p.reasoning_tokens},
            "total_tokens": p.prompt_tokens + p.completion_tokens,
        }

    def _response(self, status: str) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": self.id,
            "object": "response",
            "created_at": self.plan.created,
            "model": self.plan.model,
            "status": status,
            "output": self._items,
        }
        if status != "in_progress":
            body["usage"] = self.usage()
        if status == "incomplete":
            body["incomplete_details"] = {"reason": "max_output_tokens"}
        return body

    def preamble(self) -> bytes:
        return self._event("response.created", {"response": self._response("in_progress")})

    def _close(self) -> bytes:
        if not self._open:
            return b""
        self._open = False
        item = self._items[-1]
        if item["type"] == "reasoning":
            item["encrypted_content"] = self.encrypted
        elif item["type"] == "function_call" or item["type"] == "message":
            item["status"] = "completed"
        return self._event("response.output_item.done", {"output_index": len(self._items) - 1, "item": item})

    def _add(self, item: dict[str, Any]) -> bytes:
        out = self._close()
        self._items.append(item)
        self._open = True
        return out + self._event(
            "response.output_item.added", {"output_index": len(self._items) - 1, "item": item}
        )

    def piece(self, piece: Piece) -> bytes:
        n = len(self._items)
        out = b""
        current = self._items[-1] if self._open else None
        if piece.kind in ("reasoning", "redacted"):
            if current is None or current["type"] != "reasoning":
                out += self._add(
                    {"type": "reasoning", "id": f"rs_{self.plan.response_id}_{n}", "summary": []}
                )
                current = self._items[-1]
            if piece.kind == "redacted":
                return out
            summary = current["summary"]
            if not summary:
                summary.append({"type": "summary_text", "text": ""})
            summary[0]["text"] += piece.text
            return out + self._event(
                "response.reasoning_summary_text.delta",
                {
                    "item_id": current["id"],
                    "output_index": len(self._items) - 1,
                    "summary_index": 0,
                    "delta": piece.text,
                },
            )
        if piece.kind == "text":
            if current is None or current["type"] != "message":
                message = {"type": "message", "id": f"msg_{self.plan.response_id}_{n}", "role": "assistant"}
                out += self._add(
                    {**message, "status": "in_progress", "content": [{"type": "output_text", "text": ""}]}
                )
                current = self._items[-1]
            current["content"][0]["text"] += piece.text
            return out + self._event(
                "response.output_text.delta",
                {
                    "item_id": current["id"],
                    "output_index": len(self._items) - 1,
                    "content_index": 0,
                    "delta": piece.text,
                },
            )
        if piece.kind == "tool_start":
            tc = self.plan.tool_calls[piece.index]
            return self._add(
                {
                    "type": "function_call",
                    "id": f"fc_{self.plan.response_id}_{piece.index}",
                    "call_id": tc.id,
                    "name": tc.name,
                    "arguments": "",
                    "status": "in_progress",
                }
            )
        assert current is not None
        current["arguments"] += piece.text
        return self._event(
            "response.function_call_arguments.delta",
            {"item_id": current["id"], "output_index": len(self._items) - 1, "delta": piece.text},
        )

    def malformed(self) -> bytes:
        whole = dumps({"type": "response.output_text.delta", "delta": "this chunk is cut short"})
        return f"event: response.output_text.delta\ndata: {whole[: len(whole) // 2]}\n\n".encode()

    def finish(self) -> bytes:
        out = self._close()
        if self.plan.finish_reason == "length":
            return out + self._event("response.incomplete", {"response": self._response("incomplete")})
        return out + self._event("response.completed", {"response": self._response("completed")})

    def full_body(self) -> dict[str, Any]:
        for piece in self.plan.pieces:
            self.piece(piece)
        self._close()
        return self._response("incomplete" if self.plan.finish_reason == "length" else "completed")

    def malformed_body(self) -> bytes:
        return f'{{"id":"{self.id}","object":"response","output":[{{"type":"mess'.encode()

    @staticmethod
    def error_body(message: str, type_: str, code: str | None = None) -> dict[str, Any]:
        return {"error": {"message": message, "type": type_, "param": None, "code": code or type_}}
