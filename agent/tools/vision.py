"""`vision_analyze(image, question)`: ask a vision model about an image and return its answer as text.

The model asked is `auxiliary.vision` when it is configured (Hermes' key), else the main model when it sees
images itself (`agent.images.routing`); with neither, the `vision` toolset is unavailable and `/tools` says
what to set. The image is a local file or an http(s) URL (downloaded with a size cap); it is stored like an
attached one and sent in the asked model's wire format, shrunk to its limits.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agent.core.user_paths import expand_user
from agent.images.parts import wire_ref
from agent.images.routing import vision_requirement, vision_settings
from agent.images.store import MAX_SOURCE_BYTES, ImageError, ImageRef, save_image
from agent.toolkit.registry import Tool, ToolContext, ToolResult

PROMPT = (
    "Describe everything in this image that bears on the question, then answer the question.\n\n"
    "Question: {question}"
)
MAX_ANSWER_TOKENS = 2048


class VisionArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")

    image: str = Field(description="The image: a local file path, or an http(s) URL of an image.")
    question: str = Field(description="What you want to know about the image.")


def _load(source: str, ctx: ToolContext) -> ImageRef:
    """The image stored by content; raises ImageError with the reason it cannot be used."""
    if source.startswith(("http://", "https://")):
        return save_image(
            _download(source, ctx), ctx.hermes_home, name=source.rsplit("/", 1)[-1][:80] or None
        )
    path = expand_user(source.removeprefix("file://"))
    return save_image(path if path.is_absolute() else ctx.resolve(source), ctx.hermes_home)


def _download(url: str, ctx: ToolContext) -> bytes:
    import httpx

    timeout = ctx.settings.web.timeout if ctx.settings is not None else 20.0
    body = bytearray()
    try:
        with (
            httpx.Client(timeout=timeout, follow_redirects=True, max_redirects=5) as client,
            client.stream("GET", url) as response,
        ):
            if response.status_code >= 400:
                raise ImageError(f"downloading {url} failed: HTTP {response.status_code}")
            kind = response.headers.get("content-type", "").split(";")[0].strip()
            if kind and not kind.startswith("image/"):
                raise ImageError(f"{url} is not an image ({kind})")
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_SOURCE_BYTES:
                    raise ImageError(f"{url} is larger than 50 MB")
    except httpx.HTTPError as exc:
        raise ImageError(f"downloading {url} failed: {type(exc).__name__}: {exc}") from None
    return bytes(body)


def run_vision_analyze(args: VisionArgs, ctx: ToolContext) -> ToolResult:
    from agent.core.errors import classify
    from agent.transports.base import ModelRequest, PartialInterrupt, SilentSink

    settings = ctx.settings
    if settings is None or ctx.make_transport is None:
        return ToolResult.error("vision_analyze is not available here (no model configuration).")
    why = vision_requirement(settings)
    if why:
        return ToolResult.error(why)
    try:
        ref = _load(args.image.strip(), ctx)
    except ImageError as exc:
        return ToolResult.error(str(exc))
    target = vision_settings(settings)
    message = {
        "role": "user",
        "content": PROMPT.format(question=args.question.strip() or "What is in this image?"),
        "images": [wire_ref(ref, settings.hermes_home)],
    }
    transport = ctx.make_transport(target)
    try:
        response = transport.stream(
            ModelRequest(messages=[message], tools=[], max_tokens=MAX_ANSWER_TOKENS),
            SilentSink(),
            ctx.interrupt,
        )
    except PartialInterrupt:
        return ToolResult(content="[vision_analyze interrupted by user]", status="cancelled")
    except Exception as exc:
        classified = classify(
            exc, provider=target.provider, model=target.model, base_url=target.base_url or ""
        )
        return ToolResult.error(f"the vision model {target.model} failed: {classified.user_line()}")
    finally:
        transport.close()
    answer = response.text.strip()
    if not answer:
        return ToolResult.error(f"the vision model {target.model} returned no answer.")
    return ToolResult(
        content=f"[{target.model} looked at {ref.label()}]\n{answer}",
        data={"model": target.model, "image": ref.sha256},
    )


VISION_TOOL = Tool(
    name="vision_analyze",
    toolset="vision",
    description=(
        "Ask a vision model about an image (a local file or an http(s) URL) and get its answer as text. Use "
        "it for screenshots, diagrams and photos the user attached or that a tool produced."
    ),
    args_model=VisionArgs,
    handler=run_vision_analyze,
    parallel_safe=True,
    summary_arg="image",
    requires=vision_requirement,
)

TOOLS = [VISION_TOOL]
