"""Session titles: one small request to the (scripted) model, and a fallback that needs no model."""

from __future__ import annotations

import time

import pytest

from agent.session.titles import clean_title, fallback_title, generate_title
from agent.transports.openai_chat import OpenAIChatTransport
from scripted import ScriptedServer


def factory_for(server: ScriptedServer):
    return lambda: OpenAIChatTransport(model="m", base_url=server.openai_base_url, api_key="k")


def test_generate_title_asks_for_a_short_title_without_tools() -> None:
    with ScriptedServer({"name": "t", "calls": [{"text": "Fixing the migration bug"}]}) as server:
        title = generate_title(
            factory_for(server), "the alembic migration fails on startup", "Let me run the tests."
        )
        assert title == "Fixing the migration bug"
        (request,) = server.requests
    body = request.body
    assert "tools" not in body
    assert body["max_tokens"] <= 64
    assert body["messages"][0]["role"] == "system" and "3 to 7 words" in body["messages"][0]["content"]
    prompt = body["messages"][-1]["content"]
    assert "the alembic migration fails on startup" in prompt and "Let me run the tests." in prompt


def test_generate_title_cleans_what_the_model_says() -> None:
    reply = '<think>short and clear</think>\n**Title: "Postgres docker compose setup."**\nextra line'
    with ScriptedServer({"name": "t", "calls": [{"text": reply}]}) as server:
        assert generate_title(factory_for(server), "write a compose file", "Here it is") == (
            "Postgres docker compose setup"
        )


def test_generate_title_returns_none_on_errors() -> None:
    with ScriptedServer({"name": "t", "calls": [{"fault": {"status": 500}}]}) as server:
        assert generate_title(factory_for(server), "hello", "hi") is None
    with ScriptedServer({"name": "t", "calls": [{"text": "  \n ... \n"}]}) as server:
        assert generate_title(factory_for(server), "hello", "hi") is None

    def broken_factory():
        raise RuntimeError("no provider configured")

    assert generate_title(broken_factory, "hello", "hi") is None
    assert generate_title(lambda: None, "hello", "hi") is None
    # Nothing to title: no request at all.
    with ScriptedServer({"name": "t", "calls": [{"text": "Anything"}]}) as server:
        assert generate_title(factory_for(server), "   ", "hi") is None
        assert server.requests == []


def test_generate_title_gives_up_after_the_timeout() -> None:
    scenario = {"name": "t", "calls": [{"text": "Too late", "fault": {"kind": "stall", "stall_seconds": 30}}]}
    with ScriptedServer(scenario) as server:
        started = time.monotonic()
        assert generate_title(factory_for(server), "hello", "hi", timeout=0.5) is None
        assert time.monotonic() - started < 3


def test_generate_title_closes_the_transport_it_was_given() -> None:
    closed: list[bool] = []

    class Stub:
        def stream(self, request, sink, interrupt):
            from agent.transports.base import ModelResponse

            return ModelResponse(text="A fine title")

        def close(self) -> None:
            closed.append(True)

    assert generate_title(Stub, "q", "a") == "A fine title"
    assert closed == [True]
    assert generate_title(Stub, "q", "a", close=False) == "A fine title"
    assert closed == [True]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Fixing the migration bug", "Fixing the migration bug"),
        ("'Quoted title.'", "Quoted title"),
        ("# Heading title", "Heading title"),
        ("title: lower prefix", "lower prefix"),
        (
            "one two three four five six seven eight nine ten eleven twelve",
            "one two three four five six seven eight nine ten",
        ),
        ("", None),
        ("\u202egnirts\u202c title", "gnirts title"),
    ],
)
def test_clean_title(raw: str, expected: str | None) -> None:
    assert clean_title(raw) == expected


def test_fallback_title() -> None:
    assert fallback_title("\n\n  fix   the\tbug  \nsecond line") == "fix the bug"
    assert fallback_title("") == ""
    assert fallback_title(" \n\t\n") == ""
    long = fallback_title("word " * 40)
    assert len(long) <= 100 and long.endswith("…") and long.startswith("word word")
    assert "  " not in long
    assert fallback_title("x" * 300) == "x" * 99 + "…"
    assert fallback_title("ctrl\x1b[31m chars\x07") == "ctrl[31m chars"
