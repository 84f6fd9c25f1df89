"""Textual's LinuxDriver input thread dies on bytes that are not valid UTF-8.

Feeds `b"aa\\xe9\\xe9bb"` (Latin-1 text, as a terminal in the wrong locale pastes it) through the real
`LinuxDriver._run_input_thread`, reading from a pipe instead of the terminal. No terminal needed.
Exit 1 and "BUG: ..." if the thread raises (the app would panic), exit 0 if the text arrives.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading

import textual
from textual import events
from textual.drivers.linux_driver import LinuxDriver

PAYLOAD = b"aa\xe9\xe9bb"


class StubApp:
    """What the driver touches of the app: `call_later` (used to report a crash) and sender identity."""

    def __init__(self) -> None:
        self.panics: list[BaseException | None] = []

    def panic(self, *renderables: object) -> None:  # pragma: no cover - only named, never run here
        pass

    def call_later(self, callback: object, *args: object) -> None:
        # Called from the driver's `except BaseException:` block: the exception is the current one.
        self.panics.append(sys.exc_info()[1])


class RecordingDriver(LinuxDriver):
    def __init__(self, app: StubApp, fileno: int) -> None:
        super().__init__(app)  # type: ignore[arg-type]
        self.fileno = fileno
        self.received: list[str] = []

    def process_message(self, message: object) -> None:
        if isinstance(message, events.Key) and message.character:
            self.received.append(message.character)


async def main() -> int:
    read_end, write_end = os.pipe()
    os.write(write_end, PAYLOAD)
    app = StubApp()
    driver = RecordingDriver(app, read_end)
    thread = threading.Thread(target=driver._run_input_thread)
    thread.start()
    await asyncio.sleep(0.5)
    driver.exit_event.set()
    thread.join(5)
    os.close(write_end)
    os.close(read_end)
    print(f"textual {textual.__version__}, input bytes {PAYLOAD!r}")
    if app.panics:
        exc = app.panics[0]
        print(f"BUG: the input thread raised and asked the app to panic: {type(exc).__name__}: {exc}")
        print(f"     keys received before the crash: {''.join(driver.received)!r}")
        return 1
    print(f"fixed: keys received {''.join(driver.received)!r}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
