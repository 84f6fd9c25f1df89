"""The crash log (issue 41, item 5): secrets masked, one line naming it, and a line even when it cannot be
written. The whole path (a real exception in the app, exit code 1) is `tests/e2e/test_crash_exit.py`."""

from __future__ import annotations

from pathlib import Path

from hermes_tui.crash_log import write_crash_log

KEY = "sk-" + "a1b2c3d4" * 4


def test_the_log_masks_secrets_and_the_line_names_it(tmp_path: Path) -> None:
    text = f"Traceback (most recent call last):\n  api_key = '{KEY}'\nValueError: bad key {KEY}\n"
    line = write_crash_log(tmp_path, text)
    (log,) = (tmp_path / "tui" / "logs").glob("crash-*.log")
    assert KEY not in log.read_text() and "Traceback" in log.read_text()
    assert line.startswith("hermes-tui: internal error (ValueError: bad key sk-")
    assert KEY not in line and line.endswith(f"the traceback is in {log}") and "\n" not in line


def test_a_log_that_cannot_be_written_still_gives_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.write_text("a file where the folder should be")
    line = write_crash_log(home, "Traceback ...\nRuntimeError: boom\n")
    assert line.startswith("hermes-tui: internal error (RuntimeError: boom); the log could not be written (")
    assert "\n" not in line
