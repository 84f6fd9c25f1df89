"""The scripted model server: real HTTP on loopback, OpenAI- and Anthropic-shaped.

`ScriptedServer` plays a `Scenario`, one scripted call per model request, and answers both
`POST /v1/chat/completions` (OpenAI chat completions) and `POST /v1/messages` (Anthropic messages),
streamed (SSE over chunked transfer encoding) or not. Standard library only (plus the pydantic
scenario models); safe to use from several threads.

```python
with ScriptedServer("scenario.yaml") as server:
    client = openai.OpenAI(base_url=server.openai_base_url, api_key="test")
    ...
    assert server.requests[0].body["messages"]
```

This module keeps the scenario's state (which calls were played, the requests received); the pieces
live beside it: `routes` (HTTP), `plan` (which call answers, laid out as pieces), `wire_openai` and
`wire_anthropic` (the two wire formats), `faults` (fault injection), `request` (`RecordedRequest`).
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .plan import Plan, make_plan, pick_call
from .request import Api, RecordedRequest, first_user_text
from .routes import ScriptedHTTPServer
from .scenario import ModelCall, Scenario, load_scenario

__all__ = ["RecordedRequest", "ScriptedServer", "first_user_text", "pick_call"]

logger = logging.getLogger(__name__)

_STOP_JOIN_SECONDS = 0.5
_IDLE_POLL_SECONDS = 5.0
"""How often the idle serve loop wakes by itself; `stop` does not wait for it (it knocks)."""


class ScriptedServer:
    """An HTTP server on 127.0.0.1 that answers model requests from a scenario.

    Routes: `POST /v1/chat/completions` (OpenAI), `POST /v1/messages` (Anthropic), both also without
    the `/v1` prefix, and `GET /v1/models`. Each model request plays the next call of the scenario
    (a call with `match` only for the conversation it names: see `pick_call`), then `fallback`, if any,
    then HTTP 500.

    `on_request(request)` is called when a model request arrives, `on_answered(request, finished_at)` when
    the last byte of its answer has been written (`time.monotonic()`, comparable across processes on
    Linux): benchmarks time what the client does between the two.
    """

    def __init__(
        self,
        scenario: Scenario | Path | str | dict[str, Any] | None = None,
        *,
        port: int = 0,
        on_request: Callable[[RecordedRequest], None] | None = None,
        on_answered: Callable[[RecordedRequest, float], None] | None = None,
    ) -> None:
        self._scenario = load_scenario(scenario) if scenario is not None else Scenario(name="empty")
        self._requested_port = port
        self._on_request = on_request
        self._on_answered = on_answered
        self._lock = threading.Lock()
        self._recorded = threading.Condition(self._lock)
        self._requests: list[RecordedRequest] = []
        self._taken: set[int] = set()  # indexes of `scenario.calls` already played
        self._played = 0
        self._tool_ids = 0
        self._serial = 0
        self._stopping = threading.Event()
        self._connections: dict[Any, threading.Thread] = {}
        self._httpd: ScriptedHTTPServer | None = None
        self._serve_thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> ScriptedServer:
        """Bind 127.0.0.1 (ephemeral port unless one was given) and serve in a background thread."""
        if self._httpd is not None:
            return self
        self._stopping.clear()
        self._httpd = ScriptedHTTPServer(("127.0.0.1", self._requested_port), self)
        self._serve_thread = threading.Thread(
            target=self._httpd.serve_forever,
            # The loop blocks until a connection comes (`stop` wakes it with one): polling every 50 ms was
            # most of an idle `--demo` app's CPU (66 ms per 20 s, more than Textual's input thread).
            kwargs={"poll_interval": _IDLE_POLL_SECONDS},
            name=f"scripted-server-{self.port}",
            daemon=True,
        )
        self._serve_thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and drop every open connection (stalled streams included). Returns promptly."""
        httpd = self._httpd
        if httpd is None:
            return
        self._stopping.set()
        self._shut_down(httpd)
        httpd.server_close()
        with self._lock:
            connections = list(self._connections.items())
        for sock, _thread in connections:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        deadline = time.monotonic() + _STOP_JOIN_SECONDS
        for _sock, thread in connections:
            thread.join(max(0.0, deadline - time.monotonic()))
        if self._serve_thread is not None:
            self._serve_thread.join(max(0.0, deadline - time.monotonic()))
        self._httpd = None
        self._serve_thread = None

    @staticmethod
    def _shut_down(httpd: ScriptedHTTPServer) -> None:
        """`shutdown()` waits for the serve loop to see its flag, which it does after its `select` returns:
        knock (one empty connection, dropped) until it has."""
        stopper = threading.Thread(target=httpd.shutdown, name="scripted-server-stop", daemon=True)
        stopper.start()
        deadline = time.monotonic() + _STOP_JOIN_SECONDS
        while stopper.is_alive() and time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", httpd.server_port), timeout=0.5).close()
            except OSError:
                pass
            stopper.join(0.05)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- addresses ---------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._httpd is not None

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("scripted server is not running: call start() or use it as a context manager")
        return self._httpd.server_port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.base_url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.base_url

    # -- scenario and records ----------------------------------------------------------------------

    @property
    def scenario(self) -> Scenario:
        return self._scenario

    def load(self, scenario: Scenario | Path | str | dict[str, Any], *, clear_requests: bool = False) -> None:
        """Play `scenario` from its first call on (requests in flight finish with their old call)."""
        new = load_scenario(scenario)
        with self._lock:
            self._scenario = new
            self._taken = set()
            self._played = 0
            self._tool_ids = 0
            if clear_requests:
                self._requests.clear()

    @property
    def requests(self) -> list[RecordedRequest]:
        """The model requests received so far, in arrival order (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def calls_played(self) -> int:
        """How many scripted calls (fallback included) have been answered since the last load."""
        with self._lock:
            return self._played

    @property
    def calls_remaining(self) -> int:
        """How many of `scenario.calls` have not been played yet (the fallback is not counted)."""
        with self._lock:
            return len(self._scenario.calls) - len(self._taken)

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> bool:
        """Block until at least `n` requests have been recorded; False if `timeout` passed first."""
        with self._recorded:
            return self._recorded.wait_for(lambda: len(self._requests) >= n, timeout)

    # -- used by the handler -----------------------------------------------------------------------

    def _record(
        self,
        path: str,
        headers: dict[str, str],
        body: dict[str, Any],
        raw: bytes,
        api: Api,
        call_index: int | None,
        arrived: float,
    ) -> RecordedRequest:
        request = RecordedRequest(path, headers, body, arrived, api, "POST", raw, call_index)
        with self._recorded:
            self._requests.append(request)
            self._recorded.notify_all()
        self._notify(request)
        return request

    def _notify(self, request: RecordedRequest) -> None:
        if self._on_request is not None:
            try:
                self._on_request(request)
            except Exception:
                logger.exception("scripted server: on_request callback failed")

    def _next_call(
        self,
        path: str,
        headers: dict[str, str],
        body: dict[str, Any],
        raw: bytes,
        api: Api,
        arrived: float,
        instead: ModelCall | None = None,
    ) -> tuple[ModelCall | None, Plan | None, RecordedRequest]:
        """Take the next call, record the request, and plan the answer (all under the lock). `instead`: the
        server kind's own answer (`server_kinds.tools_unseen`), played without taking a scenario call."""
        with self._recorded:
            scenario = self._scenario
            call_index: int | None = None
            call: ModelCall | None
            call_index = pick_call(scenario.calls, self._taken, body) if instead is None else None
            if instead is not None:
                call = instead
            elif call_index is not None:
                call = scenario.calls[call_index]
                self._taken.add(call_index)
            else:
                call = scenario.fallback
            plan = None
            if call is not None:
                self._played += 1
                self._serial += 1
                missing = sum(1 for tc in call.tool_calls if tc.id is None)
                first = self._tool_ids + 1
                self._tool_ids += missing
                plan = make_plan(
                    call,
                    model=scenario.model,
                    body=body,
                    serial=self._serial,
                    tool_ids=(f"call_{n}" for n in range(first, first + missing)),
                )
            request = RecordedRequest(path, headers, body, arrived, api, "POST", raw, call_index)
            self._requests.append(request)
            self._recorded.notify_all()
        self._notify(request)
        return call, plan, request

    def _answered(self, request: RecordedRequest) -> None:
        """The whole answer to `request` is written: benchmarks time "last byte sent -> on screen"."""
        if self._on_answered is not None:
            finished = time.monotonic()
            try:
                self._on_answered(request, finished)
            except Exception:
                logger.exception("scripted server: on_answered callback failed")

    def _track(self, sock: Any, thread: threading.Thread) -> None:
        with self._lock:
            self._connections[sock] = thread

    def _untrack(self, sock: Any, thread: threading.Thread) -> None:
        with self._lock:
            if self._connections.get(sock) is thread:
                del self._connections[sock]
