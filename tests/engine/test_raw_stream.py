"""The transports read the SDKs' raw streaming responses: same deltas and same errors as the SDKs' own
streams, handed to the agent a network read at a time, and clients built ahead of the first request."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import pytest
from anthropic.types import RawMessageStreamEvent
from openai.types.chat import ChatCompletionChunk

from agent.core.events import TextDelta
from agent.session.catalogue import default_registry
from agent.transports.anthropic import event_batches
from agent.transports.base import ModelRequest, SilentSink
from agent.transports.openai_chat import OpenAIChatTransport, chunk_batches
from scripted import ScriptedServer
from tests.engine.helpers import API_PARAMS, api_overrides, make_agent


def _chunk(content: str) -> bytes:
    obj = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    obj["choices"] = [{"index": 0, "delta": {"content": content}, "finish_reason": None}]
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def _response(body: bytes, url: str) -> httpx2.Response:
    pieces = [body[i : i + 7] for i in range(0, len(body), 7)]  # the network splits it anywhere
    return httpx2.Response(
        200,
        headers={"content-type": "text/event-stream"},
        content=iter(pieces),
        request=httpx2.Request("POST", url),
    )


def _drain(batches: Iterator[list[Any]]) -> tuple[list[Any], BaseException | None]:
    got: list[Any] = []
    try:
        for batch in batches:
            got.extend(batch)
    except Exception as exc:
        return got, exc
    return got, None


OPENAI_STREAMS = {
    "plain": _chunk("Hello ") + _chunk("world") + b"data: [DONE]\n\n" + _chunk("after done"),
    "error chunk": _chunk("partial ")
    + b'data: {"error": {"message": "upstream overloaded", "type": "server_error"}}\n\n',
    "error without a message": _chunk("x") + b'data: {"error": {"code": 500}}\n\n',
    "malformed chunk": _chunk("ok ") + b'data: {"choices": [\n\n' + _chunk("never"),
}


@pytest.mark.parametrize("name", sorted(OPENAI_STREAMS))
def test_openai_raw_decoding_matches_the_sdks_own_stream(name: str) -> None:
    body = OPENAI_STREAMS[name]
    url = "http://127.0.0.1:9/v1/chat/completions"
    client = openai.OpenAI(base_url="http://127.0.0.1:9/v1", api_key="k", max_retries=0)
    sdk_stream = openai.Stream(cast_to=ChatCompletionChunk, response=_response(body, url), client=client)
    sdk_chunks, sdk_error = _drain(iter([c] for c in sdk_stream))
    ours, error = _drain(chunk_batches(_response(body, url), openai))
    assert [c["choices"][0]["delta"]["content"] for c in ours] == [
        c.choices[0].delta.content for c in sdk_chunks
    ]
    assert type(error) is type(sdk_error)
    if sdk_error is not None:
        assert str(error) == str(sdk_error)
        assert getattr(error, "body", None) == getattr(sdk_error, "body", None)


ANTHROPIC_STREAMS = {
    "plain": b'event: ping\ndata: {"type": "ping"}\n\n'
    b'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, '
    b'"delta": {"type": "text_delta", "text": "Hi"}}\n\n'
    b'data: {"type": "unnamed events are skipped"}\n\n'
    b'event: message_stop\ndata: {"type": "message_stop"}\n\n',
    "error event": b'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, '
    b'"delta": {"type": "text_delta", "text": "Hi"}}\n\n'
    b'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", '
    b'"message": "Overloaded"}}\n\n',
    "error event not json": b"event: error\ndata: upstream went away\n\n",
}


@pytest.mark.parametrize("name", sorted(ANTHROPIC_STREAMS))
def test_anthropic_raw_decoding_matches_the_sdks_own_stream(name: str) -> None:
    body = ANTHROPIC_STREAMS[name]
    url = "http://127.0.0.1:9/v1/messages"
    client = anthropic.Anthropic(base_url="http://127.0.0.1:9", api_key="k", max_retries=0)
    sdk_stream = anthropic.Stream(cast_to=RawMessageStreamEvent, response=_response(body, url), client=client)
    sdk_events, sdk_error = _drain(iter([e] for e in sdk_stream))
    ours, error = _drain(event_batches(_response(body, url), client))
    assert [e["type"] for e in ours] == [e.type for e in sdk_events]
    assert type(error) is type(sdk_error)
    if sdk_error is not None:
        assert str(error) == str(sdk_error)
        assert getattr(error, "body", None) == getattr(sdk_error, "body", None)


@pytest.mark.parametrize("api", API_PARAMS)
def test_a_burst_reaches_the_agent_a_network_read_at_a_time_and_whole(
    hermes_home: Path, tmp_path: Path, api: str
) -> None:
    text = "".join(f"word{i} " for i in range(800))
    with ScriptedServer({"name": "t", "calls": [{"text": text, "chunk_size": 1}]}) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path, **api_overrides(server, api))
        result = agent.run_conversation("go")
    deltas = ui.of_type(TextDelta)
    assert result.final_text == text and "".join(d.text for d in deltas) == text
    # 5,600 one-character chunks: the UI thread is not handed one event per chunk.
    assert len(deltas) < len(text) / 20


def test_a_prewarmed_client_serves_its_own_configuration_only(tmp_path: Path) -> None:
    request = ModelRequest(messages=[{"role": "user", "content": "hi"}], tools=[])
    with ScriptedServer({"name": "t", "fallback": {"text": "ok"}}) as server:

        def transport(key: str) -> OpenAIChatTransport:
            return OpenAIChatTransport(model="m", base_url=server.openai_base_url, api_key=key)

        transport("key-a").prewarm()
        other = transport("key-b")
        first = transport("key-a")
        second = transport("key-a")
        for t in (other, first, second):
            assert t.stream(request, SilentSink(), threading.Event()).text == "ok"
        first.close()  # the prewarmed client went to one transport: closing it leaves the others working
        assert second.stream(request, SilentSink(), threading.Event()).text == "ok"
        keys = [r.headers["authorization"] for r in server.requests]
    assert keys == ["Bearer key-b", "Bearer key-a", "Bearer key-a", "Bearer key-a"]
    for t in (other, second):
        t.close()


def test_the_request_body_is_byte_for_byte_what_the_sdks_create_sends(tmp_path: Path) -> None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a test."}]
    for i in range(30):
        messages.append({"role": "user", "content": f"question {i} é ✓ 🎉 \u2028"})
        call = {"id": f"c{i}", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": "notes\n" * 3})
        messages.append({"role": "assistant", "content": f"answer {i}"})
    tools = default_registry().schemas()
    request = ModelRequest(messages=messages, tools=tools, max_tokens=50)
    with ScriptedServer({"name": "t", "fallback": {"text": "ok"}}) as server:
        transport = OpenAIChatTransport(model="m", base_url=server.openai_base_url, api_key="k")
        transport.stream(request, SilentSink(), threading.Event())
        client = openai.OpenAI(base_url=server.openai_base_url, api_key="k", max_retries=0)
        with client.chat.completions.with_streaming_response.create(**transport.build_kwargs(request)):
            pass
        ours, sdks = server.requests
        transport.close()
        client.close()
    assert ours.raw == sdks.raw
