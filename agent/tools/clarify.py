"""The `clarify` tool: ask the user a question (optionally multiple choice) and wait for the answer.

The UI always offers a free-text "Other" answer besides the choices, so choices are suggestions. The wait is
bounded by `ctx.clarify_timeout` and ends at once on interrupt (`ctx.interrupt` is the request's cancel).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agent.core.ui import ClarifyRequest
from agent.toolkit.registry import Tool, ToolContext, ToolResult

MAX_CHOICES = 4
NO_RESPONSE = (
    "The user did not provide a response within the time limit. "
    "Use your best judgement to make the choice and proceed."
)
CANCELLED = (
    "The user cancelled the question (interrupted) without answering. "
    "Do not ask again; stop and wait for the user's next message."
)


def _choice_text(choice: Any) -> str:
    """LLMs sometimes send {"label": ..., "description": ...} objects instead of strings."""
    if isinstance(choice, dict):
        for key in ("label", "description", "text", "title"):
            value = choice.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
        return ""
    if choice is None:
        return ""
    return str(choice).strip()


class ClarifyArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")

    question: str = Field(
        description="The question to ask the user: ONLY the question, short and specific, no preamble."
    )
    choices: list[str] = Field(
        default_factory=list,
        description=(
            f"Up to {MAX_CHOICES} short answer options for a multiple-choice question. The user can always "
            "type another answer instead. Leave empty for an open-ended question."
        ),
        json_schema_extra={"maxItems": MAX_CHOICES},
    )

    @field_validator("choices", mode="before")
    @classmethod
    def _flatten_choices(cls, value: Any) -> list[str]:
        if value is None:
            return []
        if isinstance(value, str):
            try:
                parsed = json.loads(value)
            except json.JSONDecodeError:
                parsed = [value]
            value = parsed if isinstance(parsed, list) else [parsed]
        if isinstance(value, dict):
            value = [value]
        if not isinstance(value, (list, tuple)):
            value = [value]
        texts = [t for t in (_choice_text(c) for c in value) if t]
        deduped = list(dict.fromkeys(texts))
        return deduped[:MAX_CHOICES]


def clarify(args: ClarifyArgs, ctx: ToolContext) -> ToolResult:
    question = args.question.strip()
    if not question:
        return ToolResult.error("question is empty: pass the question to ask the user.")
    choices = tuple(args.choices)
    request = ClarifyRequest(
        question=question, choices=choices, timeout=ctx.clarify_timeout, cancel=ctx.interrupt
    )
    answer = ctx.ui.ask_clarify(request)
    data: dict[str, Any] = {"question": question, "choices": list(choices), "answer": answer}
    if answer is None:
        if ctx.interrupt.is_set():
            return ToolResult(content=CANCELLED, status="cancelled", data=data)
        return ToolResult(content=NO_RESPONSE, data=data)
    payload = {"question": question, "choices_offered": list(choices), "user_response": answer}
    return ToolResult(content=json.dumps(payload, ensure_ascii=False), data=data)


def clarify_answer(content: str) -> tuple[str, str] | None:
    """(question, the user's answer) from a clarify result as the model was sent it (Hermes' JSON), for
    the tool panel and the sessions preview; None for any other text (no answer came, not clarify's)."""
    if not content.startswith("{"):
        return None
    try:
        payload = json.loads(content)
    except ValueError:
        return None
    if not isinstance(payload, dict) or not isinstance(payload.get("user_response"), str):
        return None
    question = payload.get("question")
    return (question if isinstance(question, str) else ""), payload["user_response"]


CLARIFY_TOOL = Tool(
    name="clarify",
    toolset="clarify",
    description=(
        "Ask the user a clarifying question and wait for the answer. Use it only when the request is "
        "ambiguous and a wrong guess would waste real work, or when a decision is the user's to make. "
        f"Give up to {MAX_CHOICES} choices for a multiple-choice question (the user may also type their own "
        "answer). If no answer comes in time, proceed with your best judgement."
    ),
    args_model=ClarifyArgs,
    handler=clarify,
    interactive=True,
    summary_arg="question",
)

TOOLS = [CLARIFY_TOOL]
