"""Which model sees an image, and how attached images reach the main model.

Hermes decides with `agent.image_input_mode` (`native`: send the pixels, `text`: describe them, `auto`:
native when the main model supports vision) and learns the capability from `model.supports_vision`, else
models.dev. We have no network lookups, so `auto` falls back to the model's name (`VISION_MODELS`): the
known vision families of OpenAI, Anthropic, Google, Mistral, Qwen, Llama and the open VLMs.

Images a tool returned (an MCP server's) ride on their tool message the same way and take the same route.
A main model that does not see images gets, instead of each image, a note with its stored path; the model
can then ask `vision_analyze`, which sends the image to the auxiliary vision model (`auxiliary.vision`), or
to the main endpoint when the main model sees images itself.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from agent.images.parts import wire_ref
from agent.images.store import ImageRef

if TYPE_CHECKING:
    from agent.config.settings import Settings

VISION_MODELS = re.compile(
    r"gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-4-vision|gpt-5|chatgpt-4o|(^|/)o1(?!-mini)|(^|/)o3(?!-mini)|o4-mini"
    r"|claude-3|claude-(sonnet|opus|haiku)-4|claude-.*-4|gemini|gemma-3|pixtral|mistral-(small|medium)-3"
    r"|llava|bakllava|moondream|minicpm-v|internvl|qwen.*-vl|qvq|llama-3\.2-.*vision|llama-4|grok-.*vision"
    r"|grok-4|vision|-vl\b|scripted|hermes-demo",
    re.IGNORECASE,
)
NO_VISION = (
    "no vision model: the main model does not take images (set model.supports_vision: true if it does) "
    "and auxiliary.vision.model is not set"
)


def sees_images(settings: Settings) -> bool:
    """Whether attached images go to the main model as pixels."""
    vision = settings.vision
    if vision.image_input_mode != "auto":
        return vision.image_input_mode == "native"
    if vision.supports_vision is not None:
        return vision.supports_vision
    return bool(VISION_MODELS.search(settings.model or ""))


def vision_requirement(settings: Any) -> str | None:
    """Why vision_analyze cannot run (None when a vision model is reachable)."""
    vision = getattr(settings, "vision", None)
    if vision is None:
        return NO_VISION
    if vision.auxiliary_configured or sees_images(settings):
        return None
    return NO_VISION


def vision_settings(settings: Settings) -> Settings:
    """The settings of the model vision_analyze asks: `auxiliary.vision` when set, else the main model."""
    vision = settings.vision
    if not vision.auxiliary_configured:
        return settings
    import os

    from agent.core import providers

    provider = "" if vision.provider in ("auto", "") else providers.canonical(vision.provider)
    base_url = vision.base_url or (providers.base_url_for(provider, os.environ) if provider else None)
    key = vision.api_key
    if key is None and provider and (found := providers.key_from_env(provider, os.environ)):
        key = SecretStr(found)
    return settings.model_copy(
        update={
            "model": vision.model,
            "provider": provider or settings.provider,
            "base_url": base_url or settings.base_url,
            "api_key": key or settings.api_key,
            "stale_timeout": vision.timeout,
        }
    )


def image_note(ref: ImageRef, settings: Settings, *, vision_tool: bool, from_tool: bool = False) -> str:
    """What a model that does not see images is told instead of one: where the image is, and
    `vision_analyze` only when that tool is offered (never a tool the model does not have). `from_tool`:
    the image is one a tool returned (an MCP server's), not one the user attached."""
    path = ref.path(settings.hermes_home)
    who = "The tool returned an image" if from_tool else "The user attached an image"
    where = f"[{who}: {ref.name} ({ref.width}×{ref.height}), saved at {path}."
    if vision_tool:
        return f"{where} This model cannot see images: call vision_analyze with that path to ask about it.]"
    return (
        f"{where} This model cannot see images and no vision model is configured (auxiliary.vision.model), "
        "so its content is not available: say so if the answer depends on it.]"
    )


def prepare_images(
    wire: list[dict[str, Any]], settings: Settings, *, shrink: bool = False, vision_tool: bool = True
) -> list[dict[str, Any]]:
    """The loop's wire messages with their images ready for a transport (`agent.images.parts`), or, for a
    model that does not see images, replaced by a note with each image's stored path (`image_note`;
    `vision_tool`: whether vision_analyze is offered)."""
    if not any("images" in m for m in wire):
        return wire
    native = sees_images(settings)
    home = settings.hermes_home
    out = []
    for message in wire:
        refs = [r for item in message.get("images") or [] if (r := ImageRef.from_meta(item)) is not None]
        if "images" not in message:
            out.append(message)
        elif native and refs:
            out.append({**message, "images": [wire_ref(r, home, shrink=shrink) for r in refs]})
        else:
            rest = {k: v for k, v in message.items() if k != "images"}
            tool = message.get("role") == "tool"
            notes = [image_note(r, settings, vision_tool=vision_tool, from_tool=tool) for r in refs]
            out.append(
                {**rest, "content": "\n\n".join(p for p in (message.get("content") or "", *notes) if p)}
            )
    return out
