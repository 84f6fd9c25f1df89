"""Reading a streamed reply's body, for every wire protocol: its bytes into batches of decoded events, and
the failures along the way into the exceptions the SDK's own stream raises.

A protocol says only what one event is (`EventParser`: the decoded event, `SKIP`, `DONE`, or an exception
for an error event, made by `api_error` / `status_error`); `read_batches` does the rest the same way for
all: one batch per network read, what came before a failure yielded first (the deltas shown are exactly
those received), a read timeout as the SDK's `APITimeoutError`, a connection broken mid-body as
`StreamIncompleteError` (a cut reply, retried by the loop), and the response closed whatever happens.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Iterator
from typing import Any, Protocol

from agent.core.errors import StreamIncompleteError
from agent.transports.sse import ServerSentEvent, SSEDecoder

SKIP: Any = object()
"""What an `EventParser` returns for an event that carries nothing (a ping, an empty data line)."""
DONE: Any = object()
"""What an `EventParser` returns for the protocol's end marker (`[DONE]`): nothing after it is read."""

EventParser = Callable[[ServerSentEvent], Any]
"""One event's decoded JSON, `SKIP` or `DONE`; raises for an event that reports an error."""


class EventDecoder(Protocol):
    """Bytes in, events out: SSE (`SSEDecoder`), or Bedrock's AWS event-stream frames."""

    def feed(self, chunk: bytes) -> list[ServerSentEvent]: ...

    def finish(self) -> list[ServerSentEvent]: ...


def transport_errors(sdk: Any) -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]:
    """(timeouts, other transport failures) of the HTTP library under `sdk`, as the SDK itself classifies
    them when it reads a stream (it maps them to its APITimeoutError / APIConnectionError)."""
    helpers = getattr(sdk, "_httpx2", None)
    if helpers is not None and hasattr(helpers, "timeout_exceptions"):
        return tuple(helpers.timeout_exceptions()), tuple(helpers.request_exceptions())
    base = getattr(sdk, "_base_client", None)
    http: Any = getattr(base, "httpx2", None) or getattr(base, "httpx", None)  # the SDK's module, by name
    if http is None:
        import httpx

        http = httpx
    return (http.TimeoutException,), (http.RequestError,)


def read_batches(
    response: Any,
    sdk: Any,
    parse: EventParser,
    *,
    decoder: EventDecoder | None = None,
    on_done: Callable[[], None] | None = None,
) -> Iterator[list[Any]]:
    """The events of `response`'s body (SSE unless `decoder` says otherwise) as `parse` decodes them, one
    list per network read. `on_done` is called when `parse` finds the end marker."""
    timeouts, failures = transport_errors(sdk)
    decoder = decoder or SSEDecoder()
    try:
        try:
            for raw in response.iter_bytes():
                events = decoder.feed(raw)
                if events and (yield from _parsed(events, parse)):
                    if on_done is not None:
                        on_done()
                    return
            if (yield from _parsed(decoder.finish(), parse)) and on_done is not None:
                on_done()
        except timeouts as err:
            raise sdk.APITimeoutError(request=response.request) from err
        except failures as err:
            raise StreamIncompleteError(f"the connection broke while the reply streamed ({err})") from err
    finally:
        response.close()


def _parsed(events: list[ServerSentEvent], parse: EventParser) -> Generator[list[Any], None, bool]:
    """Yield what `events` decode to as one list (what came before a failing event, then the failure);
    True when the end marker was among them."""
    batch: list[Any] = []
    done = False
    for sse in events:
        try:
            item = parse(sse)
        except Exception:
            if batch:
                yield batch
            raise
        if item is DONE:
            done = True
            break
        if item is not SKIP:
            batch.append(item)
    if batch:
        yield batch
    return done


def api_error(sdk: Any, response: Any, error: Any) -> Exception:
    """An OpenAI-protocol stream's error object (chat completions, Responses) as the `openai` SDK's stream
    raises it: `APIError` with the error's message, classified afterwards like any provider error."""
    message = error.get("message") if isinstance(error, dict) else None
    if not isinstance(message, str) or not message:
        message = "An error occurred during streaming"
    made: Exception = sdk.APIError(message=message, request=response.request, body=error)
    return made


def status_error(client: Any, response: Any, data: str) -> Exception:
    """An Anthropic stream's `error` event as the `anthropic` SDK's stream raises it: the client's own
    mapping from an error body to its status-error classes (overloaded, rate limit, ...)."""
    body: Any = data
    try:
        body = json.loads(data)
        message = f"{body}"
    except Exception:
        message = data or f"Error code: {response.status_code}"
    make = getattr(client, "_make_status_error", None)
    if make is not None:
        made: Exception = make(message, body=body, response=response)
        return made
    import anthropic

    return anthropic.APIStatusError(message, response=response, body=body)
