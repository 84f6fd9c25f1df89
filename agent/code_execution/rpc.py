"""The parent's end of a script's tool channel: a Unix socket only the script's token may use.

In the OS sandbox (`paired=True`) the script cannot open a Unix socket (the sandbox's seccomp filter), so the
channel is a connected socket pair made here: the script inherits its end (`child_fd`, `HERMES_RPC_FD`).

One connection (the script's `hermes_tools` module), newline-delimited JSON requests `{tool, args, token}`
answered one at a time in order. What may be called is checked here: the token, the allow-list (the
sandbox tools the session offers) and the call limit; the call itself is `dispatch`'s (the session's
registry and approval gate, `agent.code_execution.inner_calls`). Runs in its own thread until the script
closes the connection or `close()` is called.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["Dispatch", "RpcServer"]

Dispatch = Callable[[str, dict[str, Any]], dict[str, Any]]
ACCEPT_SLICE = 0.05


class RpcServer:
    def __init__(
        self,
        socket_path: Path,
        dispatch: Dispatch,
        *,
        allowed: frozenset[str],
        max_calls: int,
        paired: bool = False,
    ) -> None:
        self.socket_path = socket_path
        self.dispatch = dispatch
        self.allowed = allowed
        self.max_calls = max_calls
        self.token = secrets.token_urlsafe(32)
        self.calls = 0
        self._stop = threading.Event()
        self._paired: socket.socket | None = None
        self._child_end: socket.socket | None = None
        self._server: socket.socket | None = None
        if paired:
            self._paired, self._child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        else:
            self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._server.bind(str(socket_path))
            os.chmod(socket_path, 0o600)
            self._server.listen(1)
            self._server.settimeout(ACCEPT_SLICE)
        self._thread = threading.Thread(target=self._serve, name="execute_code-rpc", daemon=True)

    @property
    def child_fd(self) -> int | None:
        """The script's end of a paired channel, for it to inherit (None: it connects to `socket_path`)."""
        return self._child_end.fileno() if self._child_end is not None else None

    def start(self) -> None:
        self._thread.start()

    def close(self, wait: float = 3.0) -> None:
        """Stop serving (the script has ended): a call in progress finishes first, up to `wait` seconds."""
        self._stop.set()
        self._thread.join(wait)
        for end in (self._server, self._paired, self._child_end):
            if end is not None:
                end.close()

    def _serve(self) -> None:
        conn = self._paired
        while conn is None and self._server is not None and not self._stop.is_set():
            try:
                conn, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
        if conn is None:
            return
        with conn:
            conn.settimeout(ACCEPT_SLICE)
            buf = b""
            while not self._stop.is_set():
                try:
                    chunk = conn.recv(65536)
                except TimeoutError:
                    continue
                except OSError:
                    return
                if not chunk:
                    return
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if line.strip():
                        reply = json.dumps(self._answer(line), ensure_ascii=False, default=str) + "\n"
                        try:
                            conn.sendall(reply.encode())
                        except OSError:
                            return

    def _answer(self, line: bytes) -> dict[str, Any]:
        try:
            request = json.loads(line.decode())
        except (ValueError, UnicodeDecodeError) as exc:
            return {"error": f"Invalid RPC request: {exc}"}
        if not isinstance(request, dict):
            return {"error": "Invalid RPC request: not a JSON object"}
        token = str(request.get("token") or "").encode()
        if not secrets.compare_digest(token, self.token.encode()):
            return {"error": "Unauthorized RPC request"}
        name = str(request.get("tool", ""))
        args = request.get("args")
        if name not in self.allowed:
            available = ", ".join(sorted(self.allowed)) or "(none)"
            return {"error": f"Tool '{name}' is not available in execute_code. Available: {available}"}
        if self.calls >= self.max_calls:
            return {
                "error": f"Tool call limit reached ({self.max_calls}). "
                "No more tool calls allowed in this execution."
            }
        self.calls += 1
        try:
            return self.dispatch(name, args if isinstance(args, dict) else {})
        except Exception as exc:  # a bug behind the tool: the script gets an error, not a hang
            return {"error": f"{name} failed: {type(exc).__name__}: {exc}"}
