"""The program a tmux pane runs for `tmux_harness.app_command`: it asks this xdist worker's warm process
(`tests/cli_process.py`) to fork `hermes-tui ARGS` onto the pane's terminal, then stands in for the app in
the pane until the app ends, and exits as the app did.

A real `python -m hermes_tui.cli` in a pane first imports Textual, the app and the OpenAI SDK, about 1.5 s
of CPU each time, some fifty times a suite run; the app forked from the warm process has them already. It
gets the pane's terminal as its stdin, stdout and stderr, the pane's environment (TERM, TMUX, the test's
HERMES_HOME) and working directory, in a session of its own; this program forwards to it the signals the
terminal sends its pane (SIGWINCH on a resize, SIGHUP when the terminal goes away, SIGINT, SIGTERM,
SIGCONT). Tests about the app's own start (keys typed while it imports, what it prints then) run the real
command instead.

Usage: `python -m tests.e2e.pane_app SOCKET ARGS...` (SOCKET from `cli_process.panes_socket()`).
"""

from __future__ import annotations

import os
import signal
import socket
import sys

from tests.cli_process import receive, send

FORWARDED = (signal.SIGWINCH, signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGCONT)


def main() -> None:
    path, args = sys.argv[1], sys.argv[2:]
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(path)
    env = dict(os.environ)
    send(connection, {"args": args, "cwd": os.getcwd(), "env": env}, [0, 1, 2])
    started, _ = receive(connection)
    if started is None or not isinstance(started.get("pid"), int):
        sys.exit("pane_app: the warm process did not start the app")
    pid = int(started["pid"])

    def forward(signum: int, _frame: object) -> None:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass

    for signum in FORWARDED:
        signal.signal(signum, forward)
    ended, _ = receive(connection)  # interrupted system calls are retried (PEP 475) after each forward
    if ended is None or not isinstance(ended.get("returncode"), int):
        sys.exit("pane_app: the warm process ended before the app did")
    code = int(ended["returncode"])
    if code < 0:  # ended by a signal: end by the same one, so the pane's shell sees 128 + N as it would
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.exit(code)


if __name__ == "__main__":
    main()
