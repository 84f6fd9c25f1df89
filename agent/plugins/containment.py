"""Plugin code runs contained: whatever it raises (any `BaseException`: `KeyboardInterrupt`, `SystemExit`,
`GeneratorExit` included) or however long it hangs, the caller gets an `Outcome`, never the exception.

Each call runs in a daemon thread of its own and the caller waits for it, up to a limit. Two things follow:
- A `KeyboardInterrupt` raised inside the thread is the plugin's own (`raise KeyboardInterrupt`): Python
  delivers a real SIGINT to the main thread only. A real Ctrl+C reaches the caller's wait, on the main
  thread, and interrupts it as it always did: the user's Ctrl+C is never taken for a plugin fault.
- A call that does not return in time is abandoned (the thread is a daemon: it never holds the process
  open at exit) and reported; the manager disables its plugin, so it is never called again.

Before the call a marker naming the plugin is written (`in_flight`), and removed after: a plugin that ends
the process itself (`os._exit`, a crash in C code) leaves its marker, which the next start reads. The
traceback of every fault goes to `$HERMES_HOME/tui/logs/plugins.log`, never to the screen.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.plugins.in_flight import InFlight

__all__ = ["Containment", "Outcome"]


@dataclass
class Outcome:
    """How a contained call ended: its value, the exception it raised, or `timed_out` (still running)."""

    value: Any = None
    error: BaseException | None = None
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None and not self.timed_out


class Containment:
    """Runs one agent's plugin code (see the module doc); `log_path` receives the tracebacks."""

    def __init__(self, hermes_home: Path) -> None:
        self.in_flight = InFlight(hermes_home / "tui" / "plugin_calls")
        self.log_path = hermes_home / "tui" / "logs" / "plugins.log"
        self._log_lock = threading.Lock()

    def run(self, plugin: str, what: str, call: Callable[[], Any], *, timeout: float | None) -> Outcome:
        """`call()` in its own thread; `timeout` None waits as long as it takes (a tool's handler, a slash
        command: the user's Esc bounds those)."""
        outcome = Outcome()
        finished = threading.Event()
        marker = self.in_flight.enter(plugin, what)

        def body() -> None:
            try:
                outcome.value = call()
            except BaseException as exc:  # the plugin's, whatever it is: see the module doc
                outcome.error = exc
            finally:
                finished.set()
                self.in_flight.leave(marker)

        thread = threading.Thread(target=body, name=f"plugin-{plugin}", daemon=True)
        thread.start()
        try:
            done = finished.wait(timeout)  # a real Ctrl+C on the main thread interrupts this wait
        except BaseException:
            self.in_flight.leave(marker)  # the user interrupted: the plugin did not end the app
            raise
        if not done:
            self.in_flight.leave(marker)  # reported now; the process ending later is not the plugin's doing
            outcome.timed_out = True
        return outcome

    def log(self, plugin: str, what: str, outcome: Outcome, *, timeout: float | None = None) -> None:
        """The fault, with its traceback, appended to the plugin log (quietly: the report matters more)."""
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        if outcome.error is not None:
            detail = "".join(traceback.format_exception(outcome.error))
        else:
            detail = f"did not return within {timeout:g} s (abandoned)\n"
        try:
            with self._log_lock:
                self.log_path.parent.mkdir(parents=True, exist_ok=True)
                with self.log_path.open("a", encoding="utf-8", errors="backslashreplace") as log:
                    log.write(f"{stamp} plugin {plugin} ({what}):\n{detail}\n")
        except OSError:
            pass
