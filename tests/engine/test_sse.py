"""Server-sent events decoded from raw bytes, however the network splits them."""

from __future__ import annotations

import pytest

from agent.transports.sse import ServerSentEvent, SSEDecoder

STREAM = (
    b": keep-alive comment\n"
    b'data: {"a": 1}\n\n'
    b"event: content_block_delta\n"
    b'data: {"b": "two\xc3\xa9"}\n\n'
    b"data: line one\n"
    b"data:line two\n\n"
    b"data: [DONE]\n\n"
)
EXPECTED = [
    ServerSentEvent(None, '{"a": 1}'),
    ServerSentEvent("content_block_delta", '{"b": "twoé"}'),
    ServerSentEvent(None, "line one\nline two"),
    ServerSentEvent(None, "[DONE]"),
]


def decode(chunks: list[bytes]) -> list[ServerSentEvent]:
    decoder = SSEDecoder()
    out: list[ServerSentEvent] = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    out.extend(decoder.finish())
    return out


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
def test_every_split_point_gives_the_same_events(newline: bytes) -> None:
    stream = STREAM.replace(b"\n", newline)
    assert decode([stream]) == EXPECTED
    for cut in range(1, len(stream)):
        assert decode([stream[:cut], stream[cut:]]) == EXPECTED, f"split at byte {cut}"
    assert decode([stream[i : i + 1] for i in range(len(stream))]) == EXPECTED


def test_one_read_returns_every_event_it_completed() -> None:
    decoder = SSEDecoder()
    burst = b"".join(b"data: %d\n\n" % i for i in range(500))
    events = decoder.feed(burst + b"data: 50")
    assert [e.data for e in events] == [str(i) for i in range(500)]
    assert [e.data for e in decoder.feed(b"0\n\n")] == ["500"]


def test_an_unterminated_last_event_is_dropped_at_the_end() -> None:
    assert decode([b"data: complete\n\ndata: cut sh"]) == [ServerSentEvent(None, "complete")]


def test_an_event_with_only_a_name_still_dispatches_and_blank_lines_alone_do_not() -> None:
    assert decode([b"\n\n\nevent: ping\n\n\n"]) == [ServerSentEvent("ping", "")]
