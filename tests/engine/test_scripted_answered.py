"""The scripted server reports when an answer's last byte is written (benchmarks time the client from it)."""

from __future__ import annotations

import threading

import openai
import pytest

from scripted import RecordedRequest, ScriptedServer


def test_on_answered_follows_each_complete_answer_and_not_a_cut_one() -> None:
    answered: list[tuple[RecordedRequest, float]] = []
    seen = threading.Event()

    def on_answered(request: RecordedRequest, finished_at: float) -> None:
        answered.append((request, finished_at))
        seen.set()

    calls = [
        {"text": "first reply", "chunk_size": 3},
        {"text": "cut short", "fault": {"kind": "cut", "after_chunks": 1}},
    ]
    with ScriptedServer({"name": "t", "calls": calls}, on_answered=on_answered) as server:
        client = openai.OpenAI(base_url=server.openai_base_url, api_key="k", max_retries=0)
        stream = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], stream=True
        )
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
        assert text == "first reply"
        assert seen.wait(5)
        with pytest.raises(openai.APIError):
            for _ in client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "again"}], stream=True
            ):
                pass
        assert server.wait_for_requests(2)
    assert [r.call_index for r, _ in answered] == [0]
    request, finished_at = answered[0]
    assert finished_at >= request.time
