"""`hermes-tui -z --sandbox ...` end to end on the scripted server with the real bubblewrap: a write in the
workspace runs without a question; a write outside it and a request to a loopback server the test starts
are refused (asked, and headless denies; or, in yolo, run inside the sandbox and fail) with a line naming
the sandbox; a sandbox that cannot be had stops the run before any tool. Skipped where bwrap cannot start."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.test_headless import _json_lines, _run
from tests.engine.environments.test_sandbox import needs_bwrap


@pytest.fixture
def places(tmp_path: Path) -> dict[str, Path]:
    """The workspace, the system temp dir the app sees (TMPDIR) and a home outside both: the test's
    tmp_path is itself under /tmp, so each gets a folder of its own."""
    found = {name: tmp_path / name for name in ("ws", "systemp", "home")}
    for path in found.values():
        path.mkdir()
    return found


@pytest.fixture
def loopback_server() -> Iterator[tuple[int, list[str]]]:
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"reached")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1], hits
    finally:
        server.shutdown()
        server.server_close()


def _scenario(tmp_path: Path, commands: list[str]) -> Path:
    calls = "".join(
        f"  - tool_calls: [{{name: terminal, arguments: {{command: {json.dumps(command)}}}, id: t{i}}}]\n"
        for i, command in enumerate(commands)
    )
    path = tmp_path / "sandbox.yaml"
    path.write_text("name: sandbox\ncalls:\n" + calls + "  - text: Done.\n")
    return path


def _results(stdout: str) -> list[str]:
    return [
        str(block["content"])
        for event in _json_lines(stdout)
        if event["type"] == "user"
        for block in event["message"]["content"]  # type: ignore[index]
    ]


def _sandboxed_run(
    places: dict[str, Path], hermes_home: Path, tmp_path: Path, commands: list[str], *extra: str
) -> list[str]:
    args = ["-z", "go", "--sandbox", "workspace-write", "--output-format", "stream-json", *extra]
    proc = _run(
        [*args, "--scenario", str(_scenario(tmp_path, commands))],
        places["ws"],
        hermes_home,
        extra_env={"HOME": str(places["home"]), "TMPDIR": str(places["systemp"])},
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    results = _results(proc.stdout)
    assert len(results) == len(commands), proc.stdout
    return results


@needs_bwrap
def test_workspace_write_headless(
    places: dict[str, Path], hermes_home: Path, tmp_path: Path, loopback_server: tuple[int, list[str]]
) -> None:
    port, hits = loopback_server
    url = f"http://127.0.0.1:{port}/"
    inside, outside, curl, python_fetch = _sandboxed_run(
        places,
        hermes_home,
        tmp_path,
        [
            "echo x > in.txt",
            "touch ~/outside",
            f"curl -sS {url}",
            f"python3 -c 'import urllib.request as u; print(u.urlopen(\"{url}\").read())'",
        ],
    )
    assert (places["ws"] / "in.txt").read_text() == "x\n" and "[exit code: 0]" in inside
    # asked (headless: denied), naming the sandbox
    assert not (places["home"] / "outside").exists()
    assert "BLOCKED" in outside and "writes outside the sandbox workspace-write" in outside
    assert "BLOCKED" in curl and "uses the network (curl): the sandbox workspace-write has none" in curl
    # not recognised as network: it ran inside the sandbox, where the connection failed, and says why
    assert "sandbox workspace-write: commands have no network" in python_fetch
    assert hits == []


@needs_bwrap
def test_yolo_keeps_commands_inside_the_sandbox(
    places: dict[str, Path], hermes_home: Path, tmp_path: Path, loopback_server: tuple[int, list[str]]
) -> None:
    """Yolo answers every question, but it never lets a command out of the sandbox: the write runs inside
    and fails there, with the line naming the sandbox."""
    port, hits = loopback_server
    outside, curl = _sandboxed_run(
        places, hermes_home, tmp_path, ["touch ~/outside", f"curl -sS http://127.0.0.1:{port}/"], "--yolo"
    )
    assert not (places["home"] / "outside").exists()
    assert "Read-only file system" in outside and "a write outside the sandbox was refused" in outside
    assert "commands have no network" in curl
    assert hits == []


def test_a_sandbox_that_cannot_be_had_stops_the_run(hermes_home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    scenario = _scenario(tmp_path, [f"touch {marker}"])
    (hermes_home / "config.yaml").write_text("sandbox:\n  mode: workspace\n")  # misspelt
    proc = _run(["-z", "go", "--scenario", str(scenario)], tmp_path, hermes_home)
    assert proc.returncode == 2 and not marker.exists()
    lines = [line for line in proc.stderr.splitlines() if "sandbox" in line]
    assert any("the session does not start" in line for line in lines), proc.stderr
    assert "Traceback" not in proc.stderr


def test_config_and_doctor_show_the_sandbox(hermes_home: Path, tmp_path: Path) -> None:
    import io

    from agent.config.settings import load_settings
    from hermes_tui.config_report import print_config
    from hermes_tui.doctor import run_doctor

    loaded = load_settings({"sandbox_mode": "workspace-write", "cwd": str(tmp_path)})
    out = io.StringIO()
    print_config(loaded, out)
    row = next(line for line in out.getvalue().splitlines() if line.startswith("sandbox (effective)"))
    assert "workspace-write (bubblewrap): writes only in" in row and "no network" in row
    misspelt = load_settings({"sandbox_mode": "workspace"})
    report = io.StringIO()
    assert run_doctor(misspelt, report) == 1
    assert "sandbox: " in report.getvalue() and "the session does not start" in report.getvalue()


@needs_bwrap
def test_doctor_checks_that_the_sandbox_starts(hermes_home: Path, tmp_path: Path) -> None:
    import io

    from agent.config.settings import load_settings
    from hermes_tui.doctor import run_doctor

    out = io.StringIO()
    code = run_doctor(load_settings({"sandbox_mode": "read-only", "cwd": str(tmp_path)}), out)
    assert code == 0, out.getvalue()
    assert "sandbox: read-only (bubblewrap): writes nowhere; no network: ok" in out.getvalue()
