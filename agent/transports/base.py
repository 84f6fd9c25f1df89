"""What every transport shares: the request/response shapes, the sink for live deltas, the pump, and the
SDK clients built ahead of the first request.

The pump runs the SDK's blocking request and the reading of its body in a daemon reader thread and hands
what each network read decoded (one batch) to the agent thread through a queue. The agent thread waits in
50 ms slices, so an interrupt is seen within one slice even when the provider sends nothing (a blocking
socket read cannot be interrupted otherwise), and a stream that sends nothing for `stale_timeout` seconds
is abandoned as a retryable timeout.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent.config.reasoning import Reasoning
from agent.core.errors import InterruptedByUser, StaleStreamError
from agent.core.messages import ToolCall, Usage
from agent.core.prebuilt import Prebuilt

POLL_SLICE = 0.05
STALL_NOTICE_AFTER = 15.0
"""Seconds without data after which the sink hears `on_stall` (the UI says "no data for 15 s")."""


@dataclass
class ModelRequest:
    messages: list[dict[str, Any]]  # chat-completions shaped, already sanitized
    tools: list[dict[str, Any]]  # chat-completions function specs; [] = no tools
    max_tokens: int | None = None
    # What the user asked of the model's thinking for this call (None: the provider's default); each
    # transport sends it in its protocol's form (`agent.transports.reasoning`).
    reasoning: Reasoning | None = None


@dataclass
class ModelResponse:
    text: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage | None = None
    # The provider's reasoning items kept verbatim for replay (Hermes' `reasoning_details`): Anthropic's
    # thinking blocks with their signatures and redacted blocks, OpenRouter's `reasoning_details`.
    reasoning_details: list[dict[str, Any]] = field(default_factory=list)


class StreamSink(Protocol):
    """Receives live deltas on the agent thread, in order."""

    def on_text(self, text: str) -> None: ...

    def on_reasoning(self, text: str) -> None: ...

    def on_tool_start(self, index: int, call_id: str, name: str) -> None: ...

    def on_idle(self) -> None:
        """Called every poll slice with no data: time-based work (checkpoints) happens here too."""
        ...


class StallAware(Protocol):
    """Optional sink methods: `on_stall(seconds)` once a call has sent nothing for `STALL_NOTICE_AFTER`
    seconds, `on_resume()` when data comes again after that."""

    def on_stall(self, seconds: float) -> None: ...

    def on_resume(self) -> None: ...


def approx_tokens(messages: list[dict[str, Any]]) -> int:
    """A request's size in tokens, roughly (4 characters a token), cheap enough for every call."""
    return sum(len(str(m.get("content") or "")) for m in messages) // 4


class SilentSink:
    """For side calls (summaries, titles): the live deltas go nowhere, only the final response counts."""

    def on_text(self, text: str) -> None:
        pass

    def on_reasoning(self, text: str) -> None:
        pass

    def on_tool_start(self, index: int, call_id: str, name: str) -> None:
        pass

    def on_idle(self) -> None:
        pass


class EitherEvent:
    """Set when either event is (the transport polls `is_set`): a side call's own deadline, or the user's
    interrupt of the turn it serves."""

    def __init__(self, own: threading.Event, outer: threading.Event | None = None) -> None:
        self._own, self._outer = own, outer

    def is_set(self) -> bool:
        return self._own.is_set() or (self._outer is not None and self._outer.is_set())


class SideCallTimeout(TimeoutError):
    """A side call (`complete_once`) took longer than its `timeout`."""


def complete_once(
    transport_factory: Callable[[], Transport],
    request: ModelRequest,
    *,
    timeout: float,
    interrupt: threading.Event | None = None,
) -> ModelResponse:
    """One model call off the conversation (a smart-approval review, an MCP server's sampling request) on a
    transport of its own, closed afterwards, its deltas dropped: the response, or `SideCallTimeout` after
    `timeout` seconds, `InterruptedByUser` on the interrupt, the transport's own errors otherwise.
    Blocking: call it from a worker thread."""
    stop = threading.Event()
    timer = threading.Timer(max(0.0, float(timeout)), stop.set)
    timer.daemon = True
    transport = None
    try:
        transport = transport_factory()
        timer.start()
        try:
            response = transport.stream(request, SilentSink(), EitherEvent(stop, interrupt))  # type: ignore[arg-type]
        except InterruptedByUser:
            if stop.is_set() and not (interrupt is not None and interrupt.is_set()):
                raise SideCallTimeout(f"no answer within {timeout:g} s") from None
            raise
        if stop.is_set() and not (interrupt is not None and interrupt.is_set()):
            raise SideCallTimeout(f"no answer within {timeout:g} s")
        return response
    finally:
        timer.cancel()
        if transport is not None:
            try:
                transport.close()
            except Exception:  # closing a finished client must not turn an answer into an error
                pass


_PREWARMED: Prebuilt[tuple[Any, ...], Any] = Prebuilt()
"""SDK clients built ahead of time, by configuration; the first transport with that configuration takes its
client from here (waiting for one still being built) instead of paying for the import and the construction
on the first request."""


WRITE_TIMEOUT = 60.0
"""Seconds a request body may take to send (a large context over a slow link)."""


class SDKClientHolder:
    """Owns one lazily created SDK client (created on first use, closed with the transport), and what
    every transport builds it from: the base URL, the key and the two timeouts."""

    base_url: str | None
    _api_key: str | None
    stale_timeout: float
    connect_timeout: float

    def __init__(self) -> None:
        self._client: Any = None
        self._lock = threading.Lock()

    def _create_client(self) -> Any:
        raise NotImplementedError

    def _timeout(self, sdk: Any, stale_timeout: float | None = None) -> Any:
        """The SDK's `Timeout` (openai's and anthropic's have one shape): a read may wait a little longer
        than the stale-stream timeout, which the pump enforces itself and reports as such."""
        stale = self.stale_timeout if stale_timeout is None else stale_timeout
        return sdk.Timeout(
            connect=self.connect_timeout, read=stale + 5, write=WRITE_TIMEOUT, pool=self.connect_timeout
        )

    def _sdk_options(self, sdk: Any) -> dict[str, Any]:
        """The client constructor's common arguments. No SDK retries: the loop retries, with interruptible
        backoff and user-visible notices. The SDKs refuse an empty key, which a local server does not
        need."""
        return {
            "base_url": self.base_url,
            "api_key": self._api_key or "not-needed",
            "max_retries": 0,
            "timeout": self._timeout(sdk),
        }

    def use_api_key(self, key: str) -> None:
        """Send the next requests with `key` (the credential pool moved on): the client built with the old
        key is closed and the next request builds one with the new key."""
        with self._lock:
            if key == self._api_key:
                return
            self._api_key = key
            client, self._client = self._client, None
        if client is not None:
            try:
                client.close()
            except Exception:
                pass

    def _client_key(self) -> tuple[Any, ...]:
        """Everything `_create_client` builds the client from: equal keys, interchangeable clients."""
        raise NotImplementedError

    def _warm_client(self, client: Any) -> None:
        """Touch what the first request would load lazily (the SDK imports its resources on first use)."""

    def _get_client(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = _PREWARMED.take(self._client_key(), self._create_client)
            return self._client

    def prewarm(self) -> None:
        """Import the SDK and build a client for this configuration now (call it off the UI thread, after
        the first frame): the first transport with the same configuration then sends its first request
        without waiting for either (`import anthropic` alone takes over a second), or, when Enter came
        first, waits for this one instead of building a second beside it."""
        _PREWARMED.build(self._client_key(), self._warmed_client)

    def _warmed_client(self) -> Any:
        client = self._create_client()
        self._warm_client(client)
        return client

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                try:
                    self._client.close()
                except Exception:
                    pass
                self._client = None


class Transport(Protocol):
    name: str

    def stream(self, request: ModelRequest, sink: StreamSink, interrupt: threading.Event) -> ModelResponse:
        """Stream one model call. Raises InterruptedByUser (carrying the partial response), StaleStreamError,
        or the SDK's own exceptions (classified by agent.core.errors)."""
        ...

    def close(self) -> None: ...


class PartialInterrupt(InterruptedByUser):
    """Interrupted mid-stream; `partial` holds what had arrived."""

    def __init__(self, partial: ModelResponse):
        super().__init__("interrupted by user")
        self.partial = partial


_END = object()


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


def pump(
    open_stream: Callable[[], Any],
    iterate: Callable[[Any], Iterator[Any]],
    handle: Callable[[Any], None],
    snapshot: Callable[[], ModelResponse],
    *,
    interrupt: threading.Event,
    stale_timeout: float,
    on_idle: Callable[[], None] | None = None,
    sink: Any = None,
) -> Any:
    """Run `open_stream()` and `iterate(stream)` in a reader thread; call `handle(item)` here for each item
    `iterate` yields (a transport yields one batch per network read, so a burst costs few calls here).

    A `sink` with `on_stall` / `on_resume` (`StallAware`) is told when the stream goes quiet and wakes up.

    Returns the opened stream object (for transports that need a final message from it).
    """
    items: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
    cancelled = threading.Event()
    holder: dict[str, Any] = {}

    def close_quietly() -> None:
        stream = holder.get("stream")
        if stream is None:
            return
        try:
            stream.close()
        except Exception:
            pass

    def reader() -> None:
        try:
            stream = open_stream()
            holder["stream"] = stream
            if cancelled.is_set():
                return
            for chunk in iterate(stream):
                items.put(("chunk", chunk))
                if cancelled.is_set():
                    return
            items.put(("end", _END))
        except BaseException as exc:
            if not cancelled.is_set():
                items.put(("error", exc))
        finally:
            if cancelled.is_set():
                close_quietly()

    thread = threading.Thread(target=reader, name="model-stream", daemon=True)
    thread.start()

    def abandon() -> None:
        cancelled.set()
        # Closing can block on a dead socket: never on the agent thread.
        threading.Thread(target=close_quietly, name="model-stream-close", daemon=True).start()

    on_stall = getattr(sink, "on_stall", None)
    on_resume = getattr(sink, "on_resume", None)
    stalled = False
    last_chunk = time.monotonic()
    while True:
        if interrupt.is_set():
            abandon()
            raise PartialInterrupt(snapshot())
        try:
            kind, item = items.get(timeout=POLL_SLICE)
        except queue.Empty:
            if on_idle is not None:
                on_idle()
            waited = time.monotonic() - last_chunk
            if waited > stale_timeout:
                abandon()
                raise StaleStreamError(f"no data for {waited:.0f} s") from None
            if not stalled and waited >= STALL_NOTICE_AFTER:
                stalled = True
                if on_stall is not None:
                    on_stall(waited)
            continue
        last_chunk = time.monotonic()
        if stalled:
            stalled = False
            if on_resume is not None:
                on_resume()
        while True:
            if kind == "chunk":
                try:
                    handle(item)
                except BaseException:  # the sink failed (the store's disk is full): stop reading
                    abandon()
                    raise
            elif kind == "end":
                return holder.get("stream")
            else:
                raise item
            if interrupt.is_set():
                break
            try:
                kind, item = items.get_nowait()
            except queue.Empty:
                break
