"""The scripted model server, driven only through the real `openai` and `anthropic` SDK clients."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anthropic
import httpx2
import openai
import pytest
from pydantic import ValidationError

from scripted import ModelCall, Scenario, ScriptedServer, load_scenario

ROOT = Path(__file__).resolve().parents[2]
USER = [{"role": "user", "content": "hi"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "terminal",
            "description": "Run a command",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        },
    }
]


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as srv:
        yield srv


def oai(server: ScriptedServer, **kwargs) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.openai_base_url, api_key="test", max_retries=0, **kwargs)


def ant(server: ScriptedServer, **kwargs) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.anthropic_base_url, api_key="test", max_retries=0, **kwargs)


def oai_stream(client: openai.OpenAI, **kwargs):
    kwargs.setdefault("messages", USER)
    return client.chat.completions.create(model="any", stream=True, **kwargs)


def ant_stream(client: anthropic.Anthropic, **kwargs):
    kwargs.setdefault("messages", USER)
    return client.messages.create(model="any", max_tokens=1000, stream=True, **kwargs)


def collect_openai(stream) -> dict:
    """Accumulate an OpenAI chat stream the way a transport does."""
    text, reasoning, finish, usage, tools, deltas = [], [], None, None, {}, 0
    for chunk in stream:
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            delta = choice.delta
            if delta.content:
                text.append(delta.content)
                deltas += 1
            extra = getattr(delta, "reasoning_content", None) or (delta.model_extra or {}).get(
                "reasoning_content"
            )
            if extra:
                reasoning.append(extra)
            for tc in delta.tool_calls or []:
                slot = tools.setdefault(tc.index, {"id": None, "name": None, "args": [], "fragments": 0})
                if tc.id:
                    slot["id"] = tc.id
                if tc.function and tc.function.name:
                    slot["name"] = tc.function.name
                if tc.function and tc.function.arguments:
                    slot["args"].append(tc.function.arguments)
                    slot["fragments"] += 1
            if choice.finish_reason:
                finish = choice.finish_reason
    return {
        "text": "".join(text),
        "reasoning": "".join(reasoning),
        "finish": finish,
        "usage": usage,
        "tools": [{**tools[i], "args": "".join(tools[i]["args"])} for i in sorted(tools)],
        "deltas": deltas,
    }


def collect_anthropic(stream) -> dict:
    text, thinking, blocks, stop, usage_start, usage_end = [], [], {}, None, None, None
    for event in stream:
        if event.type == "message_start":
            usage_start = event.message.usage
        elif event.type == "content_block_start":
            blocks[event.index] = {"block": event.content_block, "json": []}
        elif event.type == "content_block_delta":
            d = event.delta
            if d.type == "text_delta":
                text.append(d.text)
            elif d.type == "thinking_delta":
                thinking.append(d.thinking)
            elif d.type == "input_json_delta":
                blocks[event.index]["json"].append(d.partial_json)
        elif event.type == "message_delta":
            stop = event.delta.stop_reason
            usage_end = event.usage
    tools = [
        {
            "id": b["block"].id,
            "name": b["block"].name,
            "args": "".join(b["json"]),
            "fragments": len(b["json"]),
        }
        for _, b in sorted(blocks.items())
        if b["block"].type == "tool_use"
    ]
    return {
        "text": "".join(text),
        "thinking": "".join(thinking),
        "tools": tools,
        "stop": stop,
        "usage_start": usage_start,
        "usage_end": usage_end,
        "block_types": [b["block"].type for _, b in sorted(blocks.items())],
    }


# ---------------------------------------------------------------------------------------------------
# Streaming, OpenAI


def test_openai_stream_reassembles_text_and_reasoning(server: ScriptedServer) -> None:
    text = "Hello **world** — ünïcödé 🎉 and\nnew lines\n\n```py\nx = 1\n```"
    server.load({"model": "scripted-model", "calls": [{"reasoning": "Let me think it over", "text": text}]})
    result = collect_openai(oai_stream(oai(server)))
    assert result["text"] == text
    assert result["reasoning"] == "Let me think it over"
    assert result["finish"] == "stop"
    assert result["deltas"] == -(-len(text) // 4)  # chunk_size 4 by default


def test_openai_explicit_chunks(server: ScriptedServer) -> None:
    server.load({"calls": [{"chunks": ["He", "llo", " there"]}]})
    contents = [
        c.choices[0].delta.content
        for c in oai_stream(oai(server))
        if c.choices and c.choices[0].delta.content
    ]
    assert contents == ["He", "llo", " there"]


def test_openai_stream_tool_calls_accumulate_per_index(server: ScriptedServer) -> None:
    server.load(
        {
            "calls": [
                {
                    "text": "Running two things",
                    "tool_calls": [
                        {"name": "terminal", "arguments": {"command": "ls -la /tmp"}},
                        {"name": "read_file", "arguments": {"path": "README.md", "limit": 20}, "id": "my_id"},
                        {"name": "terminal", "arguments": {"command": "pwd"}},
                    ],
                }
            ]
        }
    )
    result = collect_openai(oai_stream(oai(server), tools=TOOLS))
    assert result["text"] == "Running two things"
    assert result["finish"] == "tool_calls"
    tools = result["tools"]
    assert [t["name"] for t in tools] == ["terminal", "read_file", "terminal"]
    assert [t["id"] for t in tools] == ["call_1", "my_id", "call_2"]
    assert json.loads(tools[0]["args"]) == {"command": "ls -la /tmp"}
    assert json.loads(tools[1]["args"]) == {"path": "README.md", "limit": 20}
    assert json.loads(tools[2]["args"]) == {"command": "pwd"}
    assert all(t["fragments"] > 1 for t in tools)  # arguments arrive in several pieces


def test_openai_first_tool_delta_shape(server: ScriptedServer) -> None:
    server.load({"calls": [{"tool_calls": [{"name": "terminal", "arguments": {"command": "ls"}}]}]})
    tool_deltas = [
        tc for c in oai_stream(oai(server)) for ch in c.choices for tc in (ch.delta.tool_calls or [])
    ]
    first, rest = tool_deltas[0], tool_deltas[1:]
    assert (first.index, first.id, first.type, first.function.name, first.function.arguments) == (
        0,
        "call_1",
        "function",
        "terminal",
        "",
    )
    assert rest and all(d.id is None and d.function.name is None and d.index == 0 for d in rest)


def test_openai_malformed_arguments_raw_are_sent_verbatim(server: ScriptedServer) -> None:
    server.load({"calls": [{"tool_calls": [{"name": "terminal", "arguments_raw": '{"command": "ls"'}]}]})
    result = collect_openai(oai_stream(oai(server)))
    assert result["tools"][0]["args"] == '{"command": "ls"'


def test_openai_usage_in_final_chunk_only_when_asked(server: ScriptedServer) -> None:
    usage = {"prompt_tokens": 120, "completion_tokens": 7, "cache_read_tokens": 100, "cache_write_tokens": 20}
    server.load({"calls": [{"text": "hi", "usage": usage}, {"text": "hi", "usage": usage}]})
    chunks = list(oai_stream(oai(server), stream_options={"include_usage": True}))
    last = chunks[-1]
    assert last.choices == []
    assert (last.usage.prompt_tokens, last.usage.completion_tokens, last.usage.total_tokens) == (120, 7, 127)
    assert last.usage.prompt_tokens_details.cached_tokens == 100
    assert last.usage.prompt_tokens_details.cache_write_tokens == 20
    assert all(c.usage is None for c in chunks[:-1])

    chunks = list(oai_stream(oai(server)))
    assert all(c.usage is None for c in chunks)


def test_openai_default_usage_is_estimated(server: ScriptedServer) -> None:
    server.load({"calls": [{"text": "x" * 400}]})
    usage = collect_openai(
        oai_stream(
            oai(server),
            messages=[{"role": "user", "content": "y" * 800}],
            stream_options={"include_usage": True},
        )
    )["usage"]
    assert usage.completion_tokens == 100
    assert 200 <= usage.prompt_tokens < 260


# ---------------------------------------------------------------------------------------------------
# Non-streamed


def test_openai_non_streamed(server: ScriptedServer) -> None:
    server.load(
        {
            "model": "scripted-model",
            "calls": [
                {
                    "text": "Hello",
                    "reasoning": "hmm",
                    "tool_calls": [{"name": "terminal", "arguments": {"command": "ls"}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "cache_read_tokens": 3},
                }
            ],
        }
    )
    response = oai(server).chat.completions.create(model="any", messages=USER, tools=TOOLS)
    assert response.model == "scripted-model"
    choice = response.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Hello"
    assert (choice.message.model_extra or {}).get("reasoning_content") == "hmm"
    [tc] = choice.message.tool_calls
    assert (tc.id, tc.function.name, json.loads(tc.function.arguments)) == (
        "call_1",
        "terminal",
        {"command": "ls"},
    )
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (10, 5)
    assert response.usage.prompt_tokens_details.cached_tokens == 3


def test_anthropic_non_streamed(server: ScriptedServer) -> None:
    server.load(
        {
            "model": "scripted-model",
            "calls": [
                {
                    "text": "Hello",
                    "reasoning": "hmm",
                    "tool_calls": [{"name": "terminal", "arguments": {"command": "ls"}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "cache_write_tokens": 4},
                }
            ],
        }
    )
    message = ant(server).messages.create(model="any", max_tokens=100, messages=USER)
    assert message.model == "scripted-model"
    assert message.stop_reason == "tool_use"
    assert [b.type for b in message.content] == ["thinking", "text", "tool_use"]
    assert message.content[0].thinking == "hmm"
    assert message.content[1].text == "Hello"
    assert (message.content[2].id, message.content[2].name, message.content[2].input) == (
        "call_1",
        "terminal",
        {"command": "ls"},
    )
    assert (message.usage.input_tokens, message.usage.output_tokens) == (10, 5)
    assert message.usage.cache_creation_input_tokens == 4
    assert message.usage.cache_read_input_tokens == 0


# ---------------------------------------------------------------------------------------------------
# Streaming, Anthropic


def test_anthropic_stream_text_thinking_tools_usage(server: ScriptedServer) -> None:
    server.load(
        {
            "calls": [
                {
                    "reasoning": "Let me think",
                    "text": "Hello **world** 🎉",
                    "tool_calls": [
                        {"name": "terminal", "arguments": {"command": "ls -la"}},
                        {"name": "read_file", "arguments": {"path": "a.txt"}},
                    ],
                    "usage": {
                        "prompt_tokens": 50,
                        "completion_tokens": 9,
                        "cache_read_tokens": 40,
                        "cache_write_tokens": 2,
                    },
                }
            ]
        }
    )
    result = collect_anthropic(ant_stream(ant(server)))
    assert result["block_types"] == ["thinking", "text", "tool_use", "tool_use"]
    assert result["thinking"] == "Let me think"
    assert result["text"] == "Hello **world** 🎉"
    assert result["stop"] == "tool_use"
    assert [(t["id"], t["name"]) for t in result["tools"]] == [
        ("call_1", "terminal"),
        ("call_2", "read_file"),
    ]
    assert json.loads(result["tools"][0]["args"]) == {"command": "ls -la"}
    assert json.loads(result["tools"][1]["args"]) == {"path": "a.txt"}
    assert all(t["fragments"] > 1 for t in result["tools"])
    start, end = result["usage_start"], result["usage_end"]
    assert (start.input_tokens, start.cache_read_input_tokens, start.cache_creation_input_tokens) == (
        50,
        40,
        2,
    )
    assert end.output_tokens == 9


def test_anthropic_stream_helper_final_message(server: ScriptedServer) -> None:
    server.load(
        {
            "calls": [
                {
                    "reasoning": "hmm",
                    "text": "Done.",
                    "tool_calls": [{"name": "t", "arguments": {"a": [1, 2]}}],
                }
            ]
        }
    )
    with ant(server).messages.stream(model="any", max_tokens=100, messages=USER) as stream:
        streamed = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert streamed == "Done."
    assert final.content[0].type == "thinking" and final.content[0].signature
    assert final.content[2].input == {"a": [1, 2]}
    assert final.stop_reason == "tool_use"


# ---------------------------------------------------------------------------------------------------
# Finish reasons


@pytest.mark.parametrize(
    ("finish", "anthropic_stop"),
    [
        ("stop", "end_turn"),
        ("tool_calls", "tool_use"),
        ("length", "max_tokens"),
        ("content_filter", "refusal"),
    ],
)
def test_finish_reasons_both_apis(server: ScriptedServer, finish: str, anthropic_stop: str) -> None:
    call = {"text": "x", "finish_reason": finish}
    server.load({"calls": [call] * 4})
    assert collect_openai(oai_stream(oai(server)))["finish"] == finish
    assert oai(server).chat.completions.create(model="m", messages=USER).choices[0].finish_reason == finish
    assert collect_anthropic(ant_stream(ant(server)))["stop"] == anthropic_stop
    assert ant(server).messages.create(model="m", max_tokens=5, messages=USER).stop_reason == anthropic_stop


# ---------------------------------------------------------------------------------------------------
# HTTP error faults


def test_openai_429_with_retry_after(server: ScriptedServer) -> None:
    server.load(
        {
            "calls": [
                {
                    "fault": {
                        "status": 429,
                        "message": "Rate limit reached",
                        "type": "rate_limit_error",
                        "retry_after": 2,
                    }
                },
                {"fault": {"status": 429, "message": "Rate limit reached", "retry_after": 0.5}},
            ]
        }
    )
    with pytest.raises(openai.RateLimitError) as info:
        oai_stream(oai(server))
    err = info.value
    assert err.status_code == 429
    assert err.response.headers["retry-after"] == "2"
    assert "Rate limit reached" in err.message
    assert err.type == "rate_limit_error"
    assert err.code == "rate_limit_error"

    with pytest.raises(openai.RateLimitError) as info:
        oai(server).chat.completions.create(model="m", messages=USER)
    assert info.value.response.headers["retry-after"] == "0.5"


@pytest.mark.parametrize(
    ("status", "exc", "err_type"),
    [
        (500, anthropic.InternalServerError, "api_error"),
        (401, anthropic.AuthenticationError, "authentication_error"),
        (429, anthropic.RateLimitError, "rate_limit_error"),
        (529, anthropic.OverloadedError, "overloaded_error"),
    ],
)
def test_anthropic_http_errors(server: ScriptedServer, status: int, exc: type, err_type: str) -> None:
    server.load({"calls": [{"fault": {"status": status, "message": "scripted trouble"}}] * 2})
    with pytest.raises(exc) as info:
        ant_stream(ant(server))
    assert info.value.status_code == status
    assert info.value.body == {"type": "error", "error": {"type": err_type, "message": "scripted trouble"}}
    with pytest.raises(exc):
        ant(server).messages.create(model="m", max_tokens=5, messages=USER)


def test_openai_500_and_401(server: ScriptedServer) -> None:
    server.load({"calls": [{"fault": {"status": 500}}, {"fault": {"status": 401, "message": "bad key"}}]})
    with pytest.raises(openai.InternalServerError):
        oai_stream(oai(server))
    with pytest.raises(openai.AuthenticationError) as info:
        oai_stream(oai(server))
    assert info.value.body == {
        "message": "bad key",
        "type": "authentication_error",
        "param": None,
        "code": "authentication_error",
    }


def test_first_delay_applies_before_the_answer(server: ScriptedServer) -> None:
    server.load({"calls": [{"text": "slow start", "first_delay": 0.2, "delay": 0.01}]})
    started = time.monotonic()
    result = collect_openai(oai_stream(oai(server)))
    assert result["text"] == "slow start"
    assert time.monotonic() - started >= 0.2


# ---------------------------------------------------------------------------------------------------
# Mid-stream faults


def test_cut_raises_connection_error_after_some_chunks(server: ScriptedServer) -> None:
    server.load({"calls": [{"text": "abcdefghijklmnop", "fault": {"kind": "cut", "after_chunks": 2}}] * 2})
    received: list[str] = []
    with pytest.raises(openai.APIConnectionError):
        for chunk in oai_stream(oai(server)):
            for choice in chunk.choices:
                received.append(choice.delta.content or "")
    assert "".join(received) == "abcdefgh"

    received = []
    # The anthropic SDK does not wrap transport errors raised while iterating a stream.
    with pytest.raises((anthropic.APIConnectionError, httpx2.TransportError)):
        for event in ant_stream(ant(server)):
            if event.type == "content_block_delta":
                received.append(event.delta.text)
    assert "".join(received) == "abcdefgh"


def test_close_ends_the_body_and_says_the_connection_closes(server: ScriptedServer) -> None:
    """Without `Connection: close` a client's pool may send its retry down the socket the server is
    closing and see a disconnect instead of the retry's answer (it made a fallback test flaky)."""
    closing = {"text": "abcdefgh", "fault": {"kind": "close", "after_chunks": 1}}
    server.load({"calls": [closing, {"text": "ok"}]})
    body = {"model": "m", "messages": USER, "stream": True}
    with httpx2.Client(base_url=server.openai_base_url) as client:
        first = client.post("/chat/completions", json=body)
        assert first.status_code == 200 and first.headers["connection"] == "close"
        assert "[DONE]" not in first.text
        second = client.post("/chat/completions", json=body)
        assert second.status_code == 200 and "[DONE]" in second.text
    assert len(server.requests) == 2


def test_cut_on_non_streamed_request(server: ScriptedServer) -> None:
    server.load({"calls": [{"text": "x", "fault": {"kind": "cut"}}]})
    with pytest.raises(openai.APIConnectionError):
        oai(server).chat.completions.create(model="m", messages=USER)


def test_stall_blocks_until_read_timeout_then_stop_is_fast(server: ScriptedServer) -> None:
    server.load({"calls": [{"text": "abcdefgh", "fault": {"kind": "stall", "after_chunks": 1}}]})
    received: list[str] = []
    with pytest.raises(openai.APITimeoutError):
        for chunk in oai_stream(oai(server, timeout=0.5)):
            for choice in chunk.choices:
                received.append(choice.delta.content or "")
    assert "".join(received) == "abcd"
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 3  # never waits for the stalled stream (generous: a loaded machine)


def test_stop_returns_fast_with_a_stalled_stream_open() -> None:
    scenario = {"calls": [{"text": "abcdefgh", "fault": {"kind": "stall", "after_chunks": 1}}]}
    server = ScriptedServer(scenario).start()
    first_chunk = threading.Event()
    outcome: list[object] = []

    def read() -> None:
        try:
            for event in ant_stream(ant(server)):
                if event.type == "content_block_delta":
                    first_chunk.set()
            outcome.append("finished")
        except Exception as exc:
            outcome.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert first_chunk.wait(5)
    reader.join(0.2)
    assert reader.is_alive()  # stalled: nothing more arrives
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 3  # never waits for the stalled stream (generous: a loaded machine)
    reader.join(5)
    assert not reader.is_alive()
    assert outcome and isinstance(outcome[0], Exception)  # the body was never completed


def test_stall_ends_after_stall_seconds(server: ScriptedServer) -> None:
    server.load({"calls": [{"text": "abcd", "fault": {"kind": "stall", "stall_seconds": 0.2}}]})
    with pytest.raises(openai.APIConnectionError):
        collect_openai(oai_stream(oai(server, timeout=10)))


def test_malformed_chunk_surfaces_as_error(server: ScriptedServer) -> None:
    server.load({"calls": [{"text": "abcdefgh", "fault": {"kind": "malformed", "after_chunks": 1}}] * 3})
    received: list[str] = []
    with pytest.raises(ValueError):  # json.JSONDecodeError from the SDK's SSE parsing
        for chunk in oai_stream(oai(server)):
            for choice in chunk.choices:
                received.append(choice.delta.content or "")
    assert "".join(received) == "abcd"

    with pytest.raises(ValueError):
        collect_anthropic(ant_stream(ant(server)))

    with pytest.raises(ValueError):  # non-streamed: the JSON body is truncated
        oai(server).chat.completions.create(model="m", messages=USER)


def test_malformed_chunk_then_the_stream_carries_on(server: ScriptedServer) -> None:
    server.load({"calls": [{"text": "abcdefgh", "fault": {"kind": "malformed", "after_chunks": 1}}]})
    with oai(server).chat.completions.with_streaming_response.create(
        model="m", messages=USER, stream=True
    ) as response:
        data = [line.removeprefix("data: ") for line in response.iter_lines() if line.startswith("data: ")]
    parsed, bad = [], []
    for item in data[:-1]:
        try:
            parsed.append(json.loads(item))
        except ValueError:
            bad.append(item)
    assert len(bad) == 1
    assert data[-1] == "[DONE]"
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in parsed) == "abcdefgh"


# ---------------------------------------------------------------------------------------------------
# Recording, cursor, fallback


def test_requests_are_recorded_in_order(server: ScriptedServer) -> None:
    server.load({"calls": ["one", "two"]})
    collect_openai(oai_stream(oai(server), tools=TOOLS, stream_options={"include_usage": True}))
    ant(server).messages.create(model="claude", max_tokens=50, system="be brief", messages=USER)
    first, second = server.requests
    assert first.api == "openai" and first.path == "/v1/chat/completions"
    assert first.body["messages"] == USER
    assert first.body["tools"] == TOOLS
    assert first.body["stream"] is True and first.stream
    assert first.headers["authorization"] == "Bearer test"
    assert first.call_index == 0
    assert second.api == "anthropic" and second.path == "/v1/messages"
    assert second.body["system"] == "be brief" and second.body["model"] == "claude"
    # anthropic 2.x sends the API key as a Bearer token (older versions used x-api-key)
    assert "test" in (
        second.headers.get("x-api-key"),
        second.headers.get("authorization", "").removeprefix("Bearer "),
    )
    assert "anthropic-version" in second.headers
    assert second.call_index == 1 and not second.stream
    assert first.time <= second.time
    assert server.calls_played == 2
    assert server.calls_remaining == 0


def test_fallback_and_exhausted_scenario(server: ScriptedServer) -> None:
    server.load({"name": "demo", "calls": ["first"], "fallback": {"text": "generic reply"}})
    client = oai(server)
    texts = [
        client.chat.completions.create(model="m", messages=USER).choices[0].message.content for _ in range(3)
    ]
    assert texts == ["first", "generic reply", "generic reply"]
    assert server.calls_played == 3

    server.load({"name": "short", "calls": ["only"]}, clear_requests=True)
    assert server.requests == [] and server.calls_played == 0
    assert client.chat.completions.create(model="m", messages=USER).choices[0].message.content == "only"
    with pytest.raises(openai.InternalServerError) as info:
        client.chat.completions.create(model="m", messages=USER)
    assert "scripted server: scenario 'short' has no more calls" in info.value.message
    with pytest.raises(anthropic.InternalServerError) as ainfo:
        ant(server).messages.create(model="m", max_tokens=5, messages=USER)
    assert "has no more calls" in str(ainfo.value)
    assert server.calls_played == 1
    assert len(server.requests) == 3


def test_wait_for_requests_and_concurrent_clients(server: ScriptedServer) -> None:
    server.load({"calls": [{"text": f"reply {i}", "delay": 0.001} for i in range(8)]})
    assert server.wait_for_requests(1, timeout=0.05) is False
    results: list[str] = []
    lock = threading.Lock()

    def worker() -> None:
        text = collect_openai(oai_stream(oai(server)))["text"]
        with lock:
            results.append(text)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    assert server.wait_for_requests(8, timeout=10)
    for t in threads:
        t.join(10)
    assert sorted(results) == sorted(f"reply {i}" for i in range(8))
    assert sorted(r.call_index for r in server.requests) == list(range(8))


def test_models_route_unknown_route_and_bad_json(server: ScriptedServer) -> None:
    server.load({"model": "scripted-model"})
    client = oai(server)
    assert [m.id for m in client.models.list()] == ["scripted-model"]
    assert [m.id for m in ant(server).models.list()] == ["scripted-model"]
    with pytest.raises(openai.NotFoundError):
        client.post("/no/such/route", cast_to=object, body={})
    with pytest.raises(openai.BadRequestError) as info:
        client.post(
            "/chat/completions",
            cast_to=object,
            content=b"{not json",
            options={"headers": {"Content-Type": "application/json"}},
        )
    assert "not valid JSON" in info.value.message
    with pytest.raises(openai.BadRequestError):
        client.post("/chat/completions", cast_to=object, body=[1, 2, 3])
    assert [r.body for r in server.requests] == [{}, {}]
    assert server.calls_played == 0


def test_routes_without_v1_prefix_and_chunked_request_body(server: ScriptedServer) -> None:
    server.load({"calls": ["a", "b"]})
    base = server.base_url
    client = openai.OpenAI(base_url=base, api_key="test", max_retries=0)
    assert client.chat.completions.create(model="m", messages=USER).choices[0].message.content == "a"
    payload = json.dumps({"model": "m", "messages": USER}).encode()
    response = client.post(
        "/chat/completions",
        cast_to=object,
        content=iter([payload[:10], payload[10:]]),  # sent with chunked transfer encoding
        options={"headers": {"Content-Type": "application/json"}},
    )
    assert response["choices"][0]["message"]["content"] == "b"
    assert server.requests[1].body["messages"] == USER
    assert [r.path for r in server.requests] == ["/chat/completions", "/chat/completions"]


# ---------------------------------------------------------------------------------------------------
# Scenarios


def test_invalid_scenario_names_the_bad_key(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("name: bad\ncalls:\n  - text: hi\n    chunk_sise: 3\n")
    with pytest.raises(ValidationError) as info:
        load_scenario(path)
    message = str(info.value)
    assert "calls.0.chunk_sise" in message
    assert "Extra inputs are not permitted" in message
    assert str(path) in message

    with pytest.raises(ValidationError, match="exactly one of 'status'"):
        load_scenario("calls:\n  - fault: {status: 429, kind: cut}\n")
    with pytest.raises(ValidationError, match="either 'arguments' or 'arguments_raw'"):
        load_scenario("calls:\n  - tool_calls: [{name: t, arguments: {}, arguments_raw: '{}'}]\n")
    with pytest.raises(ValidationError, match=r"fallback\.txt"):
        ScriptedServer("fallback: {txt: hi}")


def test_load_scenario_forms(tmp_path: Path) -> None:
    text = "name: demo\nmodel: m\ncalls:\n  - hello\n  - {text: bye, chunk_size: 2}\n"
    path = tmp_path / "demo.yaml"
    path.write_text(text)
    for source in (text, path, str(path)):
        scenario = load_scenario(source)
        assert scenario.name == "demo" and [c.text for c in scenario.calls] == ["hello", "bye"]
    built = Scenario(name="x", calls=[ModelCall(text="hi")])
    assert load_scenario(built) is built
    with pytest.raises(FileNotFoundError):
        load_scenario(str(tmp_path / "missing.yaml"))


def test_scenario_file_played_from_path(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("calls:\n  - text: from a file\n")
    with ScriptedServer(path) as server:
        assert collect_openai(oai_stream(oai(server)))["text"] == "from a file"


# ---------------------------------------------------------------------------------------------------
# Throughput


def test_twenty_thousand_chunk_stream(server: ScriptedServer) -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(20_000))
    server.load({"calls": [{"text": text, "chunk_size": 1}] * 2})
    result = collect_openai(oai_stream(oai(server)))
    assert result["text"] == text and result["deltas"] == 20_000
    assert collect_anthropic(ant_stream(ant(server)))["text"] == text


# ---------------------------------------------------------------------------------------------------
# CLI


def test_cli_serves_until_interrupted(tmp_path: Path) -> None:
    path = tmp_path / "cli.yaml"
    path.write_text("name: cli\ncalls:\n  - text: via the CLI\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "scripted", str(path), "--quiet"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        url = None
        for line in proc.stdout:
            if line.startswith("OpenAI base URL:"):
                url = line.split(":", 1)[1].strip()
                break
        assert url and url.startswith("http://127.0.0.1:")
        client = openai.OpenAI(base_url=url, api_key="test", max_retries=0)
        assert (
            client.chat.completions.create(model="m", messages=USER).choices[0].message.content
            == "via the CLI"
        )
        proc.send_signal(signal.SIGINT)
        assert proc.wait(10) == 0
        assert proc.stderr.read() == ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
