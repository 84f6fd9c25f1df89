"""execute_code and the browser in a real terminal (issue 32): a script's nested tool calls and the
browser's actions show in the tool panels, Esc stops a long script and a page that never loads within
about a second, and after Ctrl+Q nothing the app started runs (by the test's HERMES_HOME in any process's
environment: the script, its children, the Playwright driver, Chromium and its crash handlers)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agent.browser.chromium import unavailable_reason
from agent.config.settings import Settings
from scripted import ScriptedServer
from tests.e2e.tmux_harness import Tmux, app_command, app_env, needs_tmux, scripted_args
from tests.reliability.orphans import marked
from tests.reliability.procs import cmdline
from tests.waiting import QUIET, eventually, wait_until
from tests.web_standins import never_loading_site

pytestmark = [
    *needs_tmux,
    pytest.mark.skipif(
        unavailable_reason(Settings()) is not None, reason=str(unavailable_reason(Settings()))
    ),
]

NESTED = (
    "from hermes_tools import read_file, terminal\n"
    "print(read_file('notes.txt')['total_lines'])\n"
    "print(terminal('echo nested-echo')['output'])\n"
)
LONG = "import time\nprint('sleeping', flush=True)\ntime.sleep(600)\n"


def _call(name: str, **arguments: object) -> dict[str, object]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def _esc_stops(tmux: Tmux, running: str, done: str) -> float:
    """Esc once `running` shows; seconds until a line with `running` also says `done`."""
    tmux.wait_for(running, timeout=60)
    time.sleep(QUIET)  # not a wait for a condition: Esc while the child runs, not as it starts
    pressed = time.monotonic()
    tmux.keys("Escape")
    tmux.wait_until(
        lambda shown: any(running in line and done in line for line in shown.splitlines()),
        f"{running!r} never said {done!r}",
        timeout=10,
    )
    return time.monotonic() - pressed


def test_scripts_and_the_browser_in_the_panels_esc_stops_them_and_quit_leaves_nothing(
    tmp_path: Path, hermes_home: Path
) -> None:
    (tmp_path / "notes.txt").write_text("one\ntwo\nthree\n")
    with never_loading_site() as site:
        scenario = {
            "name": "tool-children",
            "calls": [
                _call("execute_code", code=NESTED),
                {"text": "Script one done."},
                {"text": "Scripts and pages"},  # the session's title, asked after the first turn
                _call("browser_navigate", url=f"{site.url}/"),
                _call("browser_click", ref="@e4"),
                {"text": "Clicked it."},
                _call("execute_code", code=LONG),  # interrupted: the turn ends without a reply
                _call("browser_navigate", url=f"{site.url}/never"),
            ],
        }
        server = ScriptedServer(scenario).start()
        command = app_command(tmp_path, *scripted_args(server.base_url), "--cwd", str(tmp_path), "--yolo")
        tmux = Tmux((140, 50), command, app_env(hermes_home))
        tmux_pid = int(tmux._run("display", "-p", "#{pid}").strip() or 0)  # the terminal itself
        try:
            tmux.wait_for("Message Hermes")
            tmux.keys("run the script", "Enter")
            shown = tmux.wait_for("Script one done.", timeout=60)
            wait_until(lambda: len(server.requests) >= 3, "the title call never came")
            assert "read_file" in shown and "terminal" in shown, shown  # the nested calls, in the panel
            tmux.keys("click the button", "Enter")
            shown = tmux.wait_for("Clicked it.", timeout=90)
            assert "browser_navigate" in shown and "browser_click" in shown, shown
            tmux.keys("sleep long", "Enter")
            # The preview's head, which fits the panel's header at any terminal width (the CI's tmux may
            # not give the session the size asked for).
            took = _esc_stops(tmux, "print('sleeping'", "cancelled")
            assert took < 2.0, f"the script took {took:.1f} s to stop"
            assert "interrupted" in tmux.screen()  # the script's panel says so
            tmux.keys("open the slow page", "Enter")
            took = _esc_stops(tmux, "/never", "cancelled")
            assert took < 2.0, f"the page took {took:.1f} s to stop"
            print("BROWSER-ESC\n" + tmux.screen())
            assert marked(hermes_home), "the browser runs while the app does"
            tmux.keys("C-q")
            left: dict[int, str] = {}

            def all_gone() -> bool:
                """Named as they were seen: one may end between the listing and a later read."""
                left.clear()
                left.update({pid: cmdline(pid)[:100] for pid in marked(hermes_home) if pid != tmux_pid})
                return not left

            assert eventually(all_gone, timeout=20), f"running 20 s after Ctrl+Q: {left}"
        finally:
            tmux.close()
            server.stop()
