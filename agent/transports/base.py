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
from agent.core.tls import sdk_http_client
from agent.transports.endpoint import stale_timeout_for_context
from agent.transports.think_scrubber import ThinkScrubber

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


class Accumulator(Protocol):
    """Folds one call's decoded events into its response, feeding the sink as they come."""

    def handle(self, batch: list[Any]) -> None: ...

    def response(self) -> ModelResponse: ...


class StallAware(Protocol):
    """Optional sink methods: `on_stall(seconds)` once a call has sent nothing for `STALL_NOTICE_AFTER`
    seconds, `on_resume()` when data comes again after that."""

    def on_stall(self, seconds: float) -> None: ...

    def on_resume(self) -> None: ...


class DeltaRuns:
    """What every protocol's accumulator does with a reply's text and reasoning deltas: text through a
    `ThinkScrubber` (a `<think>` block written into it is reasoning), consecutive deltas of one kind given to
    the sink as one call at `flush` (once per network read: a fast stream costs the agent thread one event
    per read, not per token), and both kept whole for the response (`text`, `reasoning`)."""

    def __init__(self, sink: StreamSink) -> None:
        self.sink = sink
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self._scrubber = ThinkScrubber()
        self._run: list[str] = []
        self._run_is_reasoning = False

    def content(self, text: object) -> None:
        """Reply text as the model wrote it (it may hold `<think>` blocks)."""
        if text and isinstance(text, str):
            for is_reasoning, piece in self._scrubber.feed(text):
                self._add(is_reasoning, piece)

    def thinking(self, text: object) -> None:
        """Reasoning the protocol sends as such."""
        if text and isinstance(text, str):
            self._add(True, text)

    def _add(self, is_reasoning: bool, text: str) -> None:
        if self._run and is_reasoning != self._run_is_reasoning:
            self.flush()
        self._run_is_reasoning = is_reasoning
        self._run.append(text)

    def flush(self) -> None:
        """Give the sink what has come since the last flush (the end of a read, or a tool call starts)."""
        run = self._run
        if not run:
            return
        self._run = []
        text = run[0] if len(run) == 1 else "".join(run)
        if self._run_is_reasoning:
            self.reasoning.append(text)
            self.sink.on_reasoning(text)
        else:
            self.text.append(text)
            self.sink.on_text(text)

    def finish(self) -> None:
        """The reply ended: what the scrubber still held (a tag's possible start) goes out too."""
        for is_reasoning, piece in self._scrubber.finish():
            self._add(is_reasoning, piece)
        self.flush()


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
        need. The HTTP client shares the process's TLS context (`agent.core.tls`)."""
        return {
            "base_url": self.base_url,
            "api_key": self._api_key or "not-needed",
            "max_retries": 0,
            "timeout": self._timeout(sdk),
            "http_client": sdk_http_client(sdk),
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

    def stale_timeout_for(self, request: ModelRequest) -> float:
        """The endpoint's stale-stream timeout, longer for a large request (its prefill takes longer)."""
        return stale_timeout_for_context(self.stale_timeout, approx_tokens(request.messages))

    def read_reply(
        self,
        request: ModelRequest,
        kwargs: dict[str, Any],
        sdk: Any,
        send: Callable[[dict[str, Any]], Any],
        iterate: Callable[[Any], Iterator[list[Any]]],
        acc: Accumulator,
        sink: StreamSink,
        interrupt: threading.Event,
    ) -> None:
        """One call, the same way for every protocol: `send(kwargs)` opens the raw streaming response (the
        SDK's read timeout raised to the request's stale timeout when that is longer than the endpoint's),
        and `pump` feeds what `iterate` reads from it to `acc`."""
        stale_timeout = self.stale_timeout_for(request)
        if stale_timeout > self.stale_timeout:
            kwargs = {**kwargs, "timeout": self._timeout(sdk, stale_timeout)}
        pump(
            lambda: send(kwargs),
            iterate,
            acc.handle,
            acc.response,
            interrupt=interrupt,
            stale_timeout=stale_timeout,
            on_idle=getattr(sink, "on_idle", None),
            sink=sink,
        )

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


class _ReaderThread:
    """The daemon thread that sends one request and reads its body: `open_stream()`, then each item of
    `iterate(stream)` onto `items` as ("chunk", item), then ("end", None), or ("error", exc). Once
    abandoned it puts nothing more and closes the stream (never on the agent thread: closing can block on
    a dead socket)."""

    def __init__(self, open_stream: Callable[[], Any], iterate: Callable[[Any], Iterator[Any]]) -> None:
        self.items: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self.stream: Any = None
        self._cancelled = threading.Event()
        self._open_stream, self._iterate = open_stream, iterate
        threading.Thread(target=self._run, name="model-stream", daemon=True).start()

    def _run(self) -> None:
        try:
            self.stream = self._open_stream()
            if self._cancelled.is_set():
                return
            for chunk in self._iterate(self.stream):
                self.items.put(("chunk", chunk))
                if self._cancelled.is_set():
                    return
            self.items.put(("end", None))
        except BaseException as exc:
            if not self._cancelled.is_set():
                self.items.put(("error", exc))
        finally:
            if self._cancelled.is_set():
                self._close_quietly()

    def _close_quietly(self) -> None:
        if self.stream is None:
            return
        try:
            self.stream.close()
        except Exception:
            pass

    def abandon(self) -> None:
        self._cancelled.set()
        threading.Thread(target=self._close_quietly, name="model-stream-close", daemon=True).start()


class _Quiet:
    """How long the stream has sent nothing; tells a `StallAware` sink once it goes quiet and wakes up."""

    def __init__(self, sink: Any) -> None:
        self._on_stall = getattr(sink, "on_stall", None)
        self._on_resume = getattr(sink, "on_resume", None)
        self._stalled = False
        self._last = time.monotonic()

    def waited(self) -> float:
        return time.monotonic() - self._last

    def still_quiet(self, waited: float) -> None:
        if not self._stalled and waited >= STALL_NOTICE_AFTER:
            self._stalled = True
            if self._on_stall is not None:
                self._on_stall(waited)

    def data(self) -> None:
        self._last = time.monotonic()
        if self._stalled:
            self._stalled = False
            if self._on_resume is not None:
                self._on_resume()


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
    reader = _ReaderThread(open_stream, iterate)
    quiet = _Quiet(sink)
    while True:
        if interrupt.is_set():
            reader.abandon()
            raise PartialInterrupt(snapshot())
        try:
            kind, item = reader.items.get(timeout=POLL_SLICE)
        except queue.Empty:
            if on_idle is not None:
                on_idle()
            waited = quiet.waited()
            if waited > stale_timeout:
                reader.abandon()
                raise StaleStreamError(f"no data for {waited:.0f} s") from None
            quiet.still_quiet(waited)
            continue
        quiet.data()
        while kind == "chunk":  # everything already queued, unless the user interrupts
            try:
                handle(item)
            except BaseException:  # the sink failed (the store's disk is full): stop reading
                reader.abandon()
                raise
            if interrupt.is_set():
                break
            try:
                kind, item = reader.items.get_nowait()
            except queue.Empty:
                break
        if kind == "end":
            return reader.stream
        if kind == "error":
            raise item
