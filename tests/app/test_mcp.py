"""MCP servers end to end: a real server written with the `mcp` SDK (tests/mcp_fixture_server.py), reached
through `McpManager` and the agent loop. A test about the client (naming, filters, results, approvals, the
agent loop) uses the worker's shared server on streamable HTTP (`mcp_http`, tests/mcp_servers.py); one about
the server's process (exit and restart, a hang it survives, no orphan, reload, `hermes-tui mcp`) and the
stdio path end to end start their own on stdio."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from agent.children.groups import group_alive
from agent.core.ui import ApprovalDecision
from agent.mcp import McpManager, load_mcp_config
from agent.toolkit.toolsets import CATALOG, ToolsetCatalog
from scripted import ScriptedServer
from tests.engine.helpers import make_agent, tool_results
from tests.mcp_servers import READY, http_entry, stdio_entry
from tests.recording_ui import RecordingUI

pytestmark = pytest.mark.slow


def write_config(home: Path, servers: dict[str, dict]) -> None:
    (home / "config.yaml").write_text(json.dumps({"mcp_servers": servers}))


def manager_for(home: Path, catalog: ToolsetCatalog | None = None) -> McpManager:
    manager = McpManager(home, catalog=catalog or ToolsetCatalog())
    manager.start(load_mcp_config(home))
    assert manager.wait_ready(READY)
    return manager


def by_name(manager: McpManager) -> dict:
    return {s.name: s for s in manager.status()}


def test_tools_are_named_per_server_and_filters_apply(hermes_home: Path, mcp_http: str) -> None:
    write_config(
        hermes_home,
        {
            "fx": http_entry(mcp_http),
            "only": http_entry(mcp_http, tools={"include": ["echo", "add"]}),
            "less": http_entry(mcp_http, tools={"exclude": ["hang", "crash"]}),
            "off": stdio_entry(enabled=False),
            "broken": {"args": ["no command"]},
        },
    )
    catalog = ToolsetCatalog()
    manager = manager_for(hermes_home, catalog)
    try:
        status = by_name(manager)
        assert status["fx"].state == "connected"
        assert "mcp_fx_echo" in status["fx"].tools and "mcp_fx_hang" in status["fx"].tools
        assert set(status["only"].tools) == {"mcp_only_echo", "mcp_only_add"}
        assert "mcp_less_echo" in status["less"].tools
        assert not {"mcp_less_hang", "mcp_less_crash"} & set(status["less"].tools)
        assert {"hang", "crash"} <= set(status["less"].skipped)
        assert status["off"].state == "disabled" and not status["off"].tools
        assert status["broken"].state == "invalid" and "command" in status["broken"].error
        offered = {t.name: t for tools in catalog.dynamic().values() for t in tools}
        echo = offered["mcp_fx_echo"].schema()["function"]
        assert echo["parameters"]["properties"]["text"]["type"] == "string"
        assert "text" in echo["parameters"].get("required", [])
        assert "Echo" in echo["description"]
    finally:
        manager.close()
    assert catalog.dynamic() == {}


def test_results_of_every_kind_become_text(hermes_home: Path) -> None:
    """On stdio, as users configure most servers: the stdio path end to end."""
    write_config(hermes_home, {"fx": stdio_entry()})
    manager = manager_for(hermes_home)
    try:
        assert manager.call("fx", "echo", {"text": "hi"}).text == "echo: hi"
        added = manager.call("fx", "add", {"a": 2, "b": 3})
        assert added.status == "ok" and "5" in added.text
        picture = manager.call("fx", "picture", {})
        assert picture.status == "ok" and "a tiny picture" in picture.text
        saved = [word.strip("()[],") for word in picture.text.split() if word.strip("()[],").endswith(".png")]
        assert saved and Path(saved[0]).is_file()
        assert "resource body" in manager.call("fx", "document", {}).text
        failed = manager.call("fx", "fail", {"reason": "badly"})
        assert failed.status == "error" and "fail" in failed.text
        last = by_name(manager)["fx"].last_call
        assert last is not None and last.tool == "fail" and last.status == "error"
    finally:
        manager.close()


def test_streamable_http_server_on_loopback(hermes_home: Path, mcp_http: str) -> None:
    write_config(hermes_home, {"web": http_entry(mcp_http, headers={"X-Test": "1"})})
    manager = manager_for(hermes_home)
    try:
        status = by_name(manager)["web"]
        assert status.state == "connected", status.error
        assert status.transport == "http" and "mcp_web_add" in status.tools
        assert "7" in manager.call("web", "add", {"a": 3, "b": 4}).text
    finally:
        manager.close()


def test_a_server_that_exits_is_reported_and_restarted_by_the_next_call(hermes_home: Path) -> None:
    write_config(hermes_home, {"fx": stdio_entry()})
    seen: list[str] = []
    manager = McpManager(hermes_home, catalog=ToolsetCatalog(), on_change=lambda s: seen.append(s.state))
    manager.start(load_mcp_config(hermes_home))
    assert manager.wait_ready(READY)
    try:
        first = manager.call("fx", "pid", {}).text
        crashed = manager.call("fx", "crash", {})
        assert crashed.status == "error"
        assert "closed the connection" in crashed.text and "started again" in crashed.text
        assert "exited" in seen
        again = manager.call("fx", "pid", {})
        assert again.status == "ok" and again.text != first, again.text
        assert by_name(manager)["fx"].state == "connected"
    finally:
        manager.close()


def test_a_call_that_never_answers_times_out_and_the_server_keeps_working(hermes_home: Path) -> None:
    write_config(hermes_home, {"fx": stdio_entry(timeout=1)})
    manager = manager_for(hermes_home)
    try:
        hung = manager.call("fx", "hang", {})
        assert hung.status == "timeout" and "did not answer hang within 1 s" in hung.text
        assert manager.call("fx", "echo", {"text": "still here"}).text == "echo: still here"
    finally:
        manager.close()


def test_an_interrupt_cancels_a_running_call(hermes_home: Path, mcp_http: str) -> None:
    write_config(hermes_home, {"fx": http_entry(mcp_http)})
    manager = manager_for(hermes_home)
    interrupt = threading.Event()
    try:
        timer = threading.Timer(0.3, interrupt.set)
        timer.start()
        report = manager.call("fx", "hang", {}, interrupt=interrupt)
        assert report.status == "cancelled" and "cancelled by user interrupt" in report.text
    finally:
        manager.close()


def test_a_server_that_never_connects_fails_with_a_reason(
    hermes_home: Path, tmp_path: Path, mcp_http: str
) -> None:
    silent = tmp_path / "silent.py"
    silent.write_text("import time\ntime.sleep(3600)\n")
    write_config(
        hermes_home,
        {
            "silent": {"command": sys.executable, "args": [str(silent)], "connect_timeout": 1},
            "missing": {"command": str(tmp_path / "no-such-server")},
            "fx": http_entry(mcp_http),
        },
    )
    manager = manager_for(hermes_home)
    try:
        status = by_name(manager)
        assert status["silent"].state == "failed" and "connect_timeout" in status["silent"].error
        assert status["missing"].state == "failed" and "not found" in status["missing"].error
        assert status["fx"].state == "connected"
    finally:
        manager.close()


def scenario(*calls: dict) -> str:
    return json.dumps({"name": "mcp", "calls": list(calls)})


def call(name: str, call_id: str, **arguments: object) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments, "id": call_id}]}


def test_the_model_is_offered_mcp_tools_and_reads_their_results(
    hermes_home: Path, tmp_path: Path, mcp_http: str
) -> None:
    write_config(hermes_home, {"fx": http_entry(mcp_http, timeout=1)})
    manager = manager_for(hermes_home, CATALOG)
    calls = [
        call("mcp_fx_echo", "c1", text="from the model"),
        call("mcp_fx_hang", "c2"),
        {"text": "done"},
    ]
    try:
        with ScriptedServer(scenario(*calls)) as server:
            agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
            result = agent.run_conversation("use the server")
            requests = server.requests
        agent.close()
    finally:
        manager.close()
    assert result.exit_reason == "completed" and result.final_text == "done"
    offered = {t["function"]["name"] for t in requests[0].body["tools"]}
    assert {"mcp_fx_echo", "mcp_fx_hang", "terminal"} <= offered
    results = dict(tool_results(requests[2].body, "openai"))
    assert results["c1"] == "echo: from the model"
    assert "did not answer hang within 1 s" in results["c2"]


def test_a_destructive_tool_asks_first_and_a_refusal_reaches_the_model(
    hermes_home: Path, tmp_path: Path, mcp_http: str
) -> None:
    write_config(hermes_home, {"fx": http_entry(mcp_http), "trusted": http_entry(mcp_http, approval="never")})
    manager = manager_for(hermes_home, CATALOG)
    ui = RecordingUI(approval=ApprovalDecision.DENY)
    calls = [call("mcp_fx_write_note", "c1", text="x"), call("mcp_trusted_write_note", "c2", text="y")]
    try:
        with ScriptedServer(scenario(*calls, {"text": "ok"})) as server:
            agent, _store, ui = make_agent(server, hermes_home, tmp_path, ui=ui)
            agent.run_conversation("write notes")
            requests = server.requests
        agent.close()
    finally:
        manager.close()
    asked = [r.command for r in ui.approval_requests]
    assert len(asked) == 1 and asked[0].startswith("mcp_fx_write_note")
    assert "denied" in dict(tool_results(requests[1].body, "openai"))["c1"].lower()
    assert dict(tool_results(requests[2].body, "openai"))["c2"] == "wrote 1 characters"


LEFT_RUNNING = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from agent.mcp import McpManager, load_mcp_config
    from agent.toolkit.toolsets import ToolsetCatalog

    home = Path(sys.argv[1])
    manager = McpManager(home, catalog=ToolsetCatalog())
    manager.start(load_mcp_config(home))
    assert manager.wait_ready(60)
    print(manager.call("fx", "pid", {}).text, flush=True)
    raise SystemExit(0)  # no close(): the exit itself must stop the server
    """
)


def test_no_server_process_outlives_the_process_that_started_it(hermes_home: Path) -> None:
    write_config(hermes_home, {"fx": stdio_entry()})
    out = subprocess.run(
        [sys.executable, "-c", LEFT_RUNNING, str(hermes_home)],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.returncode == 0, out.stderr
    pid = int(out.stdout.strip().splitlines()[-1])
    assert _ends(pid), f"the MCP server {pid} outlived the app"


def _ends(pid: int, timeout: float = 10.0) -> bool:
    """Whether process `pid` is gone (or a zombie) within `timeout`: a SIGKILL lands asynchronously."""
    deadline = time.monotonic() + timeout
    while group_alive(pid) or not _dead(pid):
        if time.monotonic() > deadline:
            return False
        threading.Event().wait(0.05)
    return True


def _dead(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_reload_applies_a_changed_configuration(hermes_home: Path) -> None:
    write_config(hermes_home, {"fx": stdio_entry()})
    manager = manager_for(hermes_home)
    try:
        write_config(hermes_home, {"fx": stdio_entry(tools={"include": ["echo"]}), "two": stdio_entry()})
        manager.reload(load_mcp_config(hermes_home), force=False)
        assert manager.wait_ready(READY)
        status = by_name(manager)
        assert status["fx"].tools == ("mcp_fx_echo",)
        assert status["two"].state == "connected"
        assert manager.call("two", "echo", {"text": "x"}).text == "echo: x"
    finally:
        manager.close()


def test_the_mcp_subcommand_connects_and_reports_every_server(
    hermes_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from hermes_tui.cli import main

    write_config(hermes_home, {"fx": stdio_entry(), "bad": {"command": str(tmp_path / "nothing-here")}})
    code = main(["mcp"])
    out = capsys.readouterr().out
    assert code == 1  # one server could not connect
    assert "MCP servers: 1 of 2 connected" in out
    assert "fx: connected" in out and "mcp_fx_echo" in out
    assert "bad: failed" in out and "command not found" in out
    write_config(hermes_home, {})
    assert main(["mcp"]) == 0
    assert "No MCP servers configured" in capsys.readouterr().out
