"""One TLS context per process for the SDK clients and the MCP SDK's HTTP clients.

An SDK client builds its HTTP transport as it is made, and the transport loads the system's CA bundle into
a new `ssl.SSLContext`: 25-30 ms of CPU each time on a 2-core machine, spent again by every client a
process makes (each session and `/new`, a model switch, a subagent, each ACP session, the app's prewarm).
The context is the same for all of them (the SDK's default trust: the system store, or `SSL_CERT_FILE` /
`SSL_CERT_DIR`), and an `SSLContext` may be shared by any number of connections and threads. So it is
built once, by the SDK's own HTTP library with its defaults, and every client is handed it through the
SDK's public `DefaultHttpxClient`, which keeps the SDK's other transport defaults (connection limits,
redirects, Anthropic's TCP keep-alive). The MCP SDK's HTTP transports (streamable HTTP, SSE) make a client
per server connection, each app and session: those get the same context (`shared_ssl_context`).
"""

from __future__ import annotations

import importlib
import threading
from typing import Any

__all__ = ["sdk_http_client", "shared_ssl_context"]

_LOCK = threading.Lock()
_CONTEXTS: dict[str, Any] = {}
"""The shared context, by the name of the HTTP library that made it (both SDKs use the same one today)."""


def sdk_http_client(sdk: Any) -> Any:
    """A new `sdk.DefaultHttpxClient` on the process's shared TLS context (for the client's `http_client`)."""
    return sdk.DefaultHttpxClient(verify=_shared_context(sdk))


def _shared_context(sdk: Any) -> Any:
    return shared_ssl_context(_http_library(sdk))


def shared_ssl_context(library: Any) -> Any:
    """The process's TLS context made by the HTTP library `library` (the module: `httpx2`) with its
    defaults, for its clients' `verify`."""
    with _LOCK:  # two threads building their first clients at once build one context
        context = _CONTEXTS.get(library.__name__)
        if context is None:
            context = _CONTEXTS[library.__name__] = library.create_ssl_context()
        return context


def _http_library(sdk: Any) -> Any:
    """The HTTP library the SDK's client is made of (`httpx2` for the current SDKs, `httpx` before): found
    from `DefaultHttpxClient`'s base class, so an SDK on either keeps its own library's trust defaults."""
    for base in sdk.DefaultHttpxClient.__mro__:
        if base.__name__ == "Client":
            return importlib.import_module(base.__module__.partition(".")[0])
    raise TypeError(f"{sdk.__name__}.DefaultHttpxClient is not an HTTPX client")
