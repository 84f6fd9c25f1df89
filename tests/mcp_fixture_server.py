"""A real MCP server for the tests, written with the `mcp` SDK: `python tests/mcp_fixture_server.py stdio`
serves on stdin/stdout; `... http` serves streamable HTTP (`... sse` the older HTTP+SSE, at /sse) on
127.0.0.1 (an OS-chosen port, printed as `PORT <n>` on stdout once it listens).

Its tools cover what the client must handle: plain text (`echo`, read-only), structured output (`add`), a
destructive tool (`write_note`), an image (`picture`), audio (`sound`) and an embedded resource, an error
result (`fail`), a call that never answers (`hang`), one that kills the server mid-call (`crash`) and one that
reports its progress (`steps`), one that asks the client's model (`sample`: sampling) and one that asks the
user (`ask`: elicitation, `confirm`: a form without fields), `capabilities` what the client declared;
`--noise` prints NOISE on stdout before the first message. `pid` says which process answered, so a test can
tell a restarted server from the first one. `--prefix P` renames every tool to `P_<name>` so one file can
stand for two servers; `--instructions TEXT` is what the server tells the client to tell the model.
`--until-stdin-closes` (HTTP only): the server exits when its stdin ends, i.e. when the test process that
started it and holds the pipe's other end is gone, however it ended (`tests/mcp_servers.py` shares one
server between a worker's tests: a worker killed before its teardown leaves none behind).
"""

# ruff: noqa: E402 (the collector is off before the SDK's import: see `gc.disable()` below)
from __future__ import annotations

import argparse
import asyncio
import base64
import gc
import json
import os
import socket
import sys
import threading
from typing import Literal

gc.disable()  # the SDK's import (hundreds of pydantic models) runs ~25% faster without the collector's passes

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp.types import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    ModelHint,
    ModelPreferences,
    SamplingMessage,
    TextContent,
    TextResourceContents,
    Tool,
    ToolAnnotations,
)
from pydantic import BaseModel, Field

READ_ONLY = ToolAnnotations(read_only_hint=True)


class Profile(BaseModel):
    """What `ask` elicits: a flat schema of a string, an integer with bounds, an enum and an optional flag."""

    name: str = Field(description="your name")
    age: int = Field(ge=0, le=150)
    colour: Literal["red", "green", "blue"]
    subscribe: bool = False


class Nothing(BaseModel):
    """`confirm`: a request with no fields (accept or decline)."""


DESTRUCTIVE = ToolAnnotations(destructive_hint=True, read_only_hint=False)
PNG_1PX = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201a3d5b7"
        "a40000000049454e44ae426082"
    )
).decode()

WAV_SILENCE = base64.b64encode(
    b"RIFF"
    + (36 + 8).to_bytes(4, "little")
    + b"WAVEfmt "
    + (16).to_bytes(4, "little")
    + bytes.fromhex("01000100401f0000803e000002001000")
    + b"data"
    + (8).to_bytes(4, "little")
    + bytes(8)
).decode()

NOISE = b'a library\'s warning on stdout\n\xff\xfe\x80 not UTF-8 \xc3\n{"json": "but not JSON-RPC"}\n'
"""What `--noise` prints before the first message, as real servers do: a library's warning, bytes that are
not UTF-8, JSON that is not JSON-RPC (tests/app/test_mcp_faults.py also puts it between messages)."""


def build(prefix: str = "", instructions: str | None = None) -> MCPServer:
    server = MCPServer("fixture", instructions=instructions)

    def name(base: str) -> str:
        return f"{prefix}_{base}" if prefix else base

    @server.tool(name=name("echo"), description="Echo the text back.", annotations=READ_ONLY)
    def echo(text: str) -> str:
        return f"echo: {text}"

    @server.tool(name=name("add"), description="Add two integers.", annotations=READ_ONLY)
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(name=name("write_note"), description="Write a note (destructive).", annotations=DESTRUCTIVE)
    def write_note(text: str) -> str:
        return f"wrote {len(text)} characters"

    @server.tool(name=name("picture"), description="A 1x1 PNG and a caption.", annotations=READ_ONLY)
    def picture() -> list[TextContent | ImageContent]:
        return [
            TextContent(type="text", text="a tiny picture"),
            ImageContent(type="image", data=PNG_1PX, mime_type="image/png"),
        ]

    @server.tool(name=name("sound"), description="A short WAV clip.", annotations=READ_ONLY)
    def sound() -> list[AudioContent]:
        return [AudioContent(type="audio", data=WAV_SILENCE, mime_type="audio/wav")]

    @server.tool(name=name("document"), description="An embedded text resource.", annotations=READ_ONLY)
    def document() -> list[EmbeddedResource]:
        return [
            EmbeddedResource(
                type="resource",
                resource=TextResourceContents(uri="note://1", mime_type="text/plain", text="resource body"),
            )
        ]

    @server.tool(name=name("fail"), description="Always fails.", annotations=READ_ONLY)
    def fail(reason: str = "on purpose") -> str:
        raise ValueError(f"failed {reason}")

    @server.tool(name=name("hang"), description="Never answers.", annotations=READ_ONLY)
    async def hang() -> str:
        await asyncio.sleep(3600)
        return "unreachable"

    @server.tool(name=name("crash"), description="Exits the server mid-call.", annotations=READ_ONLY)
    def crash() -> str:
        os._exit(3)

    @server.tool(
        name=name("noisy"), description="Prints noise to stdout, then answers.", annotations=READ_ONLY
    )
    def noisy() -> str:
        os.write(1, NOISE)
        return "after the noise"

    @server.tool(name=name("steps"), description="Reports its progress, then answers.", annotations=READ_ONLY)
    async def steps(ctx: Context, n: int = 3) -> str:
        for i in range(1, n + 1):
            await ctx.report_progress(i, n, f"step {i}")
        return f"{n} steps done"

    @server.tool(
        name=name("sample"), description="Asks the client's model, returns its answer.", annotations=READ_ONLY
    )
    async def sample(
        ctx: Context,
        prompt: str,
        max_tokens: int = 100,
        times: int = 1,
        image: bool = False,
        tool: bool = False,
    ) -> str:
        """`image`: the picture goes with the prompt; `tool`: the model is offered the server's `lookup`."""
        content: list[TextContent | ImageContent] = [TextContent(type="text", text=prompt)]
        if image:
            content.append(ImageContent(type="image", data=PNG_1PX, mime_type="image/png"))
        extra: dict = {}
        if tool:
            lookup = Tool(
                name="lookup",
                description="Look a word up.",
                input_schema={"type": "object", "properties": {"word": {"type": "string"}}},
            )
            extra["tools"] = [lookup]
        answers = []
        for _ in range(times):
            try:
                result = await ctx.session.create_message(
                    [SamplingMessage(role="user", content=content if image else content[0])],
                    max_tokens=max_tokens,
                    system_prompt="You answer for the fixture server.",
                    model_preferences=ModelPreferences(hints=[ModelHint(name="some-model")]),
                    **extra,
                )
            except MCPError as exc:
                answers.append(f"sampling refused: {exc.error.message}")
                continue
            blocks = result.content if isinstance(result.content, list) else [result.content]
            said = " ".join(
                getattr(b, "text", "") or f"{getattr(b, 'name', '')}({json.dumps(getattr(b, 'input', {}))})"
                for b in blocks
            )
            answers.append(f"sampled ({result.model}, {result.stop_reason}): {said}")
        return "\n".join(answers)

    @server.tool(
        name=name("ask"), description="Asks the user for a name, an age and a colour.", annotations=READ_ONLY
    )
    async def ask(ctx: Context) -> str:
        result = await ctx.elicit("Who are you?", Profile)
        if result.action == "accept":
            return f"accept: {result.data.model_dump_json()}"
        return result.action

    @server.tool(
        name=name("sign_in"), description="Sends the user to a page to sign in.", annotations=READ_ONLY
    )
    async def sign_in(ctx: Context, url: str = "https://login.example.test/device?code=HX-42") -> str:
        result = await ctx.elicit_url("Sign in to let the server read your calendar.", url, "sign-in-1")
        return result.action

    @server.tool(name=name("confirm"), description="Asks the user to confirm.", annotations=READ_ONLY)
    async def confirm(ctx: Context) -> str:
        result = await ctx.elicit("Go ahead?", Nothing)
        return result.action

    @server.tool(name=name("capabilities"), description="What the client declared.", annotations=READ_ONLY)
    def capabilities(ctx: Context) -> str:
        caps = ctx.session.client_capabilities
        return caps.model_dump_json(exclude_none=True) if caps is not None else "{}"

    @server.tool(name=name("pid"), description="The server's process id.", annotations=READ_ONLY)
    def pid() -> str:
        return str(os.getpid())

    return server


async def _serve_http(server: MCPServer, sse: bool = False) -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = server.sse_app(host="127.0.0.1") if sse else server.streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uv = uvicorn.Server(config)
    sock.listen(64)
    print(f"PORT {port}", flush=True)
    await uv.serve(sockets=[sock])


def _exit_when_stdin_closes() -> None:
    """Read stdin to its end (nothing is sent on it), then exit: the process holding it has ended."""
    sys.stdin.buffer.read()
    os._exit(0)


def main() -> None:
    gc.freeze()  # the SDK's objects stay for the process's life: out of the collector's scans
    gc.enable()
    parser = argparse.ArgumentParser()
    parser.add_argument("transport", choices=("stdio", "http", "sse"))
    parser.add_argument("--prefix", default="")
    parser.add_argument("--instructions", default=None, help="the server's InitializeResult.instructions")
    parser.add_argument("--noise", action="store_true", help="print NOISE on stdout before serving")
    parser.add_argument("--until-stdin-closes", action="store_true", help="HTTP: exit when stdin ends")
    args = parser.parse_args()
    if args.until_stdin_closes:
        if args.transport == "stdio":
            parser.error("--until-stdin-closes is for http and sse: stdio's stdin is the protocol")
        threading.Thread(target=_exit_when_stdin_closes, daemon=True).start()
    if args.noise:
        os.write(1, b"fixture server 1.0 starting\n" + NOISE)
    server = build(args.prefix, args.instructions)
    if args.transport == "stdio":
        server.run("stdio")
    else:
        asyncio.run(_serve_http(server, sse=args.transport == "sse"))


if __name__ == "__main__":
    sys.exit(main())
