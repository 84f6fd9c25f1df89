"""MCP servers that misbehave as real ones do (stand-ins on stdio): output that is not JSON-RPC before and
between messages, a handshake that never completes, a crash mid-call, a death while idle; and the client's
manners: `initialize` first, introducing itself as hermes-tui."""

from __future__ import annotations

import json
import logging
import os
import signal
import ssl
import sys
import textwrap
import time
from pathlib import Path

import pytest

from agent.mcp import McpManager, load_mcp_config
from agent.mcp.manager import restart_delay
from agent.mcp.report import format_servers
from agent.toolkit.toolsets import ToolsetCatalog
from tests.app.test_mcp import by_name, manager_for, write_config
from tests.mcp_servers import FIXTURE, READY, fixture_server, stdio_entry

pytestmark = pytest.mark.slow


def _tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]


NOISY_RELAY = textwrap.dedent(
    """
    import subprocess, sys, threading
    sys.path.insert(0, sys.argv[1])
    from mcp_fixture_server import NOISE
    child = subprocess.Popen([sys.executable, *sys.argv[2:]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    def feed():
        for line in sys.stdin.buffer:
            child.stdin.write(line); child.stdin.flush()
        child.stdin.close()
    threading.Thread(target=feed, daemon=True).start()
    out = sys.stdout.buffer
    for line in child.stdout:
        out.write(line + NOISE)  # after every message: noise between messages
        out.flush()
    """
)


def test_output_that_is_not_json_rpc_is_skipped_with_one_line(
    hermes_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A banner, invalid UTF-8 and non-JSON-RPC JSON before the first message and between two: the
    server connects at once, its tools work, `/mcp` counts the lines, the log says it once, no traceback."""
    caplog.set_level(logging.DEBUG)
    relay = hermes_home / "relay.py"
    relay.write_text(NOISY_RELAY)
    fixture = stdio_entry()["args"]
    assert isinstance(fixture, list)
    args = [str(relay), str(Path(fixture[0]).parent), *fixture, "--noise"]
    write_config(hermes_home, {"fx": {"command": sys.executable, "args": args, "connect_timeout": 20}})
    started = time.monotonic()
    manager = manager_for(hermes_home)
    try:
        assert time.monotonic() - started < 20  # never waits out a timeout
        assert by_name(manager)["fx"].state == "connected"
        assert manager.call("fx", "echo", {"text": "hi"}).text == "echo: hi"
        assert manager.call("fx", "add", {"a": 2, "b": 3}).status == "ok"
        assert manager.call("fx", "echo", {"text": "still"}).text == "echo: still"
        status = by_name(manager)["fx"]
        assert status.noise_lines >= 12 and "fixture server 1.0 starting" in status.noise_sample
        assert "skipped" in format_servers([status]) and "not JSON-RPC" in format_servers([status])
    finally:
        manager.close()
    said = [r.getMessage() for r in caplog.records if "not JSON-RPC" in r.getMessage()]
    assert len(said) == 1 and "'fx'" in said[0]
    assert not _tracebacks(caplog)


def test_a_handshake_that_never_completes_times_out_in_one_line(hermes_home: Path, tmp_path: Path) -> None:
    # Shell one-liners, not Python: each line must be written before its server's handshake times out, and
    # on a loaded machine a Python server's start (its site-packages) once took longer than the 1 s, and
    # later the 4 s, it was given (the error then had no line to name). `sh` writes at once.
    servers = {
        "babbler": {
            "command": "/bin/sh",
            "args": ["-c", "echo 'Loading model weights...'; exec sleep 3600"],
            "connect_timeout": 2,
        },
        "mute": {
            "command": "/bin/sh",
            "args": ["-c", "echo 'waiting for a licence' >&2; exec sleep 3600"],
            "connect_timeout": 4,
        },
    }
    write_config(hermes_home, servers)
    manager = manager_for(hermes_home)
    try:
        babbled, muted = by_name(manager)["babbler"], by_name(manager)["mute"]
    finally:
        manager.close()
    assert babbled.state == "failed" and "handshake within 2 s" in babbled.error
    assert "Loading model weights" in babbled.error and "\n" not in babbled.error
    assert muted.state == "failed" and "waiting for a licence" in muted.error


def test_a_crash_mid_call_is_one_error_then_restarts_with_a_back_off(hermes_home: Path) -> None:
    write_config(hermes_home, {"fx": stdio_entry()})
    manager = manager_for(hermes_home)
    try:
        crashed = manager.call("fx", "crash", {})
        assert crashed.status == "error" and "started again on the next call" in crashed.text
        again = manager.call("fx", "crash", {})  # started again at once, and crashes again
        assert again.status == "error"
        refused = manager.call("fx", "echo", {"text": "x"})
        assert refused.status == "unavailable" and "exited 2 times in a row" in refused.text
        assert "started again in 1 s" in refused.text
        time.sleep(restart_delay(2) + 0.2)
        assert manager.call("fx", "echo", {"text": "back"}).text == "echo: back"
        status = by_name(manager)["fx"]
        assert status.state == "connected" and status.error == ""
        assert "closed the connection" in status.last_error or "exited" in status.last_error
        assert "last error:" in format_servers([status])
    finally:
        manager.close()
    assert [restart_delay(n) for n in (1, 2, 3, 4, 10)] == [0.0, 1.0, 2.0, 4.0, 30.0]


def test_a_server_killed_while_idle_is_noticed_and_restarted_by_the_next_call(hermes_home: Path) -> None:
    write_config(hermes_home, {"fx": stdio_entry()})
    seen: list[str] = []
    manager = McpManager(hermes_home, catalog=ToolsetCatalog(), on_change=lambda s: seen.append(s.state))
    manager.start(load_mcp_config(hermes_home))
    assert manager.wait_ready(READY)
    try:
        first = int(manager.call("fx", "pid", {}).text)
        os.kill(first, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while by_name(manager)["fx"].state != "exited" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert by_name(manager)["fx"].state == "exited"  # noticed while idle: /mcp says so
        again = manager.call("fx", "pid", {})
        assert again.status == "ok" and int(again.text) != first, again.text
    finally:
        manager.close()


RECORDER = textwrap.dedent(
    """
    import json, sys, time
    log = open(sys.argv[1], "a")
    grown = False
    for line in sys.stdin:
        msg = json.loads(line)
        log.write(line); log.flush()
        if "id" not in msg:
            continue
        method = msg.get("method")
        if method == "initialize":
            caps = {"tools": {}, "prompts": {"listChanged": True}, "resources": {"listChanged": True}}
            result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": caps,
                      "serverInfo": {"name": "old", "version": "1.0"}}
        elif method == "prompts/list":
            result = {"prompts": [{"name": "greet"}] + ([{"name": "farewell"}] if grown else [])}
        elif method == "resources/list":
            found = [{"uri": "note://1", "name": "first note"}]
            result = {"resources": found + ([{"uri": "note://2", "name": ""}] if grown else [])}
        elif method == "tools/list":
            tools = [{"name": "hello", "inputSchema": {"type": "object"}},
                     {"name": "grow", "inputSchema": {"type": "object"}},
                     {"name": "as_task", "inputSchema": {"type": "object"},
                      "execution": {"taskSupport": "required"}}]
            if grown:  # listed slowly: the call must wait for the listing, not race it
                time.sleep(0.5)
                tools.append({"name": "extra", "inputSchema": {"type": "object"}})
            result = {"tools": tools}
        elif method == "tools/call" and msg["params"]["name"] == "grow":
            grown = True  # told while the call runs, as the SDKs' servers do (the answer comes last)
            for kind in ("tools", "prompts", "resources"):
                note = {"jsonrpc": "2.0", "method": f"notifications/{kind}/list_changed"}
                print(json.dumps(note), flush=True)
            print(json.dumps({"jsonrpc": "2.0", "id": msg["id"],
                              "result": {"content": [{"type": "text", "text": "grown"}]}}), flush=True)
            continue
        else:
            print(json.dumps({"jsonrpc": "2.0", "id": msg["id"],
                              "error": {"code": -32602, "message": f"unknown method {method}"}}), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
    """
)


def test_initialize_comes_first_and_the_client_is_hermes_tui(hermes_home: Path, tmp_path: Path) -> None:
    """A server on an older SDK answers anything before `initialize` with -32602: the first request is
    the handshake, naming hermes-tui and its version."""
    script, log = tmp_path / "recorder.py", tmp_path / "requests.jsonl"
    script.write_text(RECORDER)
    write_config(hermes_home, {"old": {"command": sys.executable, "args": [str(script), str(log)]}})
    manager = manager_for(hermes_home)
    try:
        assert by_name(manager)["old"].state == "connected"
    finally:
        manager.close()
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert requests[0]["method"] == "initialize"
    assert not any(r.get("method") == "server/discover" for r in requests)
    info = requests[0]["params"]["clientInfo"]
    assert info["name"] == "hermes-tui" and info["version"] not in ("", "0")


def test_a_tool_added_at_run_time_is_offered_and_task_only_tools_are_not(
    hermes_home: Path, tmp_path: Path
) -> None:
    """`tools/list_changed` sent during a call reaches the tool list before the call returns (the request
    that follows the call offers the new tool); `prompts/` and `resources/list_changed` what `/mcp` shows."""
    from agent.mcp.report import server_lines

    script, log = tmp_path / "recorder.py", tmp_path / "requests.jsonl"
    script.write_text(RECORDER)
    write_config(hermes_home, {"old": {"command": sys.executable, "args": [str(script), str(log)]}})
    catalog = ToolsetCatalog()
    manager = manager_for(hermes_home, catalog)
    try:
        status = by_name(manager)["old"]
        assert status.tools == ("mcp_old_hello", "mcp_old_grow")
        assert "as_task (needs task support)" in status.skipped
        assert status.prompts == ("greet",) and status.resources == ("first note",)
        assert manager.call("old", "grow", {}).text == "grown"
        status = by_name(manager)["old"]  # at once: no waiting for the listing after the call
        assert status.tools == ("mcp_old_hello", "mcp_old_grow", "mcp_old_extra")
        assert status.prompts == ("greet", "farewell") and status.resources == ("first note", "note://2")
        shown = server_lines(status)
        assert "  prompts (2): greet, farewell" in shown and "  resources (2): first note, note://2" in shown
        offered = [t.name for tools in catalog.dynamic().values() for t in tools]
        assert "mcp_old_extra" in offered  # the next request's tool list
    finally:
        manager.close()


def test_env_references_as_hermes_reads_them_and_shell_defaults() -> None:
    from agent.mcp.config import parse_mcp_servers

    raw = {"s": {"url": "${HOST:-http://127.0.0.1:9}/mcp", "headers": {"a": "${env:KEY}", "b": "${GONE}"}}}
    (spec,) = parse_mcp_servers(raw, {"KEY": "k1"})
    assert getattr(spec, "url", None) == "http://127.0.0.1:9/mcp"
    assert getattr(spec, "headers", None) == {"a": "k1", "b": "${GONE}"}  # unset: kept as written
    (spec,) = parse_mcp_servers(raw, {"HOST": "http://h"})
    assert getattr(spec, "url", None) == "http://h/mcp"


def test_structured_content_is_sent_once(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from agent.mcp.results import render_result

    image = SimpleNamespace(type="image", data="aGk=", mime_type="image/png")
    text = SimpleNamespace(type="text", text="two files")
    repeated = {"content": [{"type": "image", "data": "aGk=" * 1000}]}
    with_blocks = render_result(SimpleNamespace(content=[text, image], structured_content=repeated), tmp_path)
    assert "aGk=aGk=" not in with_blocks.text and with_blocks.text.count("two files") == 1
    only_json = render_result(SimpleNamespace(content=[], structured_content={"n": 2}), tmp_path)
    assert '"n": 2' in only_json.text


def test_an_sse_entry_works(
    hermes_home: Path, tmp_path: Path, mcp_http: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hermes' `transport: sse` entries: the older HTTP+SSE transport, not streamable HTTP (a server of the
    test's own: no other test uses this transport). Neither HTTP transport reads the CA bundle again: their
    clients share the process's TLS context (`agent.core.tls`)."""
    import httpx2

    from agent.core.tls import shared_ssl_context

    shared_ssl_context(httpx2)  # made by whatever came first in this process
    loads: list[object] = []
    original = ssl.SSLContext.load_verify_locations

    def counted(self: ssl.SSLContext, *args: object, **kwargs: object) -> None:
        loads.append(args)
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    with fixture_server(tmp_path, "sse") as server:
        write_config(hermes_home, {"old": {"url": server.url, "transport": "sse"}, "new": {"url": mcp_http}})
        manager = manager_for(hermes_home)
        try:
            status = by_name(manager)["old"]
            assert status.state == "connected" and status.transport == "sse", status.error
            assert manager.call("old", "echo", {"text": "over sse"}).text == "echo: over sse"
            assert manager.call("new", "echo", {"text": "over http"}).text == "echo: over http"
        finally:
            manager.close()
    assert loads == []


def test_a_server_that_cannot_start_says_why_in_one_line(hermes_home: Path, tmp_path: Path) -> None:
    """The command is looked up on the PATH of the server's own `env:`, as a plain spawn does; what cannot
    run says why in the one line a failed spawn gave (the server starts through the gate on Linux)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    found = bin_dir / "fixture-server"
    found.write_text(f"#!/bin/sh\nexec {sys.executable} {FIXTURE} stdio\n")
    found.chmod(0o755)
    not_executable = tmp_path / "server.py"
    not_executable.write_text("print('never')\n")
    not_executable.chmod(0o644)
    path_env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    write_config(
        hermes_home,
        {
            "on_path": {"command": "fixture-server", "env": path_env},
            "missing": {"command": "no-such-mcp-server", "env": path_env},
            "absent": {"command": str(tmp_path / "gone")},
            "denied": {"command": str(not_executable)},
        },
    )
    manager = manager_for(hermes_home)
    try:
        status = by_name(manager)
        assert status["on_path"].state == "connected"
        assert status["missing"].error == "command not found: no-such-mcp-server"
        assert status["absent"].error == f"command not found: {tmp_path / 'gone'}"
        assert status["denied"].error == f"permission denied: {not_executable}"
    finally:
        manager.close()
