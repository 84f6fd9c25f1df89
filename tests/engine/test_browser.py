"""The browser toolset on Playwright and the system's Chromium, against pages served on loopback; the
model is the scripted server. Skipped where Playwright or Chromium is missing (`.ci/run` installs both)."""

from __future__ import annotations

import http.server
import json
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.browser.chromium import chromium_path, unavailable_reason
from agent.config.settings import Settings
from agent.web.url_policy import browser_refusal as refusal
from scripted import ScriptedServer
from tests.engine.helpers import make_agent, tool_results

COUNTER = b"""<html><head><title>Counter</title></head><body><h1>Counter</h1><p>count is 0</p>
<button onclick="document.querySelector('p').textContent='count is 1'">Add one</button></body></html>"""

needs_browser = pytest.mark.skipif(
    unavailable_reason(Settings()) is not None, reason=str(unavailable_reason(Settings()))
)


class _Pages(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/never":
            threading.Event().wait(60)  # a page that never loads
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(COUNTER)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def site() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def test_the_url_policy() -> None:
    assert refusal("http://127.0.0.1:8000/") is None
    assert refusal("http://localhost/") is None
    assert "file://" in (refusal("file:///etc/passwd") or "")
    assert "SSRF" in (refusal("http://169.254.169.254/latest/meta-data/") or "")
    assert "SSRF" in (refusal("http://[fe80::1]/") or "")
    assert "SSRF" in (refusal("http://100.100.100.200/") or "")
    assert refusal("chrome://settings") is not None and refusal("javascript:alert(1)") is not None


def test_without_chromium_the_toolset_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert chromium_path(None) is None
    why = unavailable_reason(Settings())
    if why is not None and "Playwright" not in why:
        assert (
            why
            == "no Chromium found on PATH: sudo apt-get install -y chromium (or set browser.executable_path)"
        )
    missing = unavailable_reason(Settings(browser_executable_path=str(tmp_path / "nope")))
    assert missing is not None and "nope" in missing


def _descendants() -> set[int]:
    """Our descendant processes still alive (from /proc)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_bytes()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2 :].split()
            if fields[0] not in (b"Z", b"X"):
                parents[int(entry)] = int(fields[1])
    found, frontier = set(), {os.getpid()}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _scenario(*calls: dict) -> str:
    steps = [
        {"tool_calls": [{"name": n, "arguments": a, "id": f"call_{i}"}]} for i, (n, a) in enumerate(calls)
    ]
    return json.dumps({"name": "browser", "calls": [*steps, {"text": "done"}]})


@needs_browser
def test_navigate_returns_refs_and_a_click_on_a_ref_changes_the_page(
    hermes_home: Path, tmp_path: Path, site: str
) -> None:
    before = _descendants()
    # the model clicks @e4, the ref the first snapshot gives the button (refs are numbered in page order)
    scenario = _scenario(
        ("browser_navigate", {"url": f"{site}/"}),
        ("browser_click", {"ref": "@e4"}),
        ("browser_snapshot", {"full": True}),
        ("browser_navigate", {"url": "file:///etc/passwd"}),
    )
    with ScriptedServer(scenario) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("press the button")
        requests = server.requests
        assert _descendants() - before, "the browser runs while the session is open"
        from agent.children.supervisor import SUPERVISOR

        labels = {c.label for c in SUPERVISOR.children()}
        assert {"browser driver (Playwright)", "browser (chromium)"} <= labels  # the reaper knows them
        agent.close()
        labels = {c.label for c in SUPERVISOR.children()}
        assert not labels & {"browser driver (Playwright)", "browser (chromium)"}
    assert result.exit_reason == "completed"
    results = {k: json.loads(v) for k, v in tool_results(requests[-1].body, "openai")}
    navigated = results["call_0"]
    assert navigated["success"] and navigated["title"] == "Counter"
    assert re.search(r'- button "Add one" \[ref=e4\]', navigated["snapshot"])
    assert "count is 0" in navigated["snapshot"] and navigated["element_count"] >= 4
    assert results["call_1"] == {"success": True, "clicked": "@e4"}
    assert "count is 1" in results["call_2"]["snapshot"]
    assert results["call_3"]["success"] is False and "file://" in results["call_3"]["error"]
    from agent.children.supervisor import SUPERVISOR

    reaper = {SUPERVISOR.reaper_pid}  # one per process, kept while it lives: not the browser's
    left = {pid: Path(f"/proc/{pid}/cmdline").read_bytes()[:200] for pid in _descendants() - before - reaper}
    assert not left, f"nothing of the browser is left after the session closes: {left}"


@needs_browser
def test_an_interrupt_stops_a_page_that_never_loads(hermes_home: Path, tmp_path: Path, site: str) -> None:
    from agent.core.events import ToolStarted

    scenario = _scenario(("browser_navigate", {"url": f"{site}/never"}))
    with ScriptedServer(scenario) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path)
        turn = threading.Thread(target=agent.run_conversation, args=("open it",))
        turn.start()
        deadline = threading.Event()
        for _ in range(300):
            if ui.of_type(ToolStarted):
                break
            deadline.wait(0.1)
        deadline.wait(1.0)
        agent.interrupt()
        turn.join(30)
        agent.close()
    assert not turn.is_alive()
    from agent.core.events import ToolFinished

    (finished,) = [e for e in ui.of_type(ToolFinished) if e.name == "browser_navigate"]
    assert finished.status == "cancelled" and "interrupted" in finished.result


@needs_browser
def test_a_page_that_never_loads_is_one_line_and_the_browser_goes_on(
    tmp_path: Path, site: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent.browser import session, tools
    from agent.toolkit.registry import ToolContext

    monkeypatch.setattr(session, "NAVIGATION_TIMEOUT_MS", 1500)
    ctx = ToolContext(
        cwd=tmp_path,
        session_id="s",
        call_id="c",
        interrupt=threading.Event(),
        hermes_home=tmp_path,
        settings=Settings(),
    )
    try:
        stuck = tools.browser_navigate(tools.NavigateArgs(url=f"{site}/never"), ctx)
        assert stuck.status == "error"
        error = json.loads(stuck.content)["error"]
        assert "\n" not in error and "1500" in error
        fine = tools.browser_navigate(tools.NavigateArgs(url=f"{site}/"), ctx)
        assert fine.status == "ok" and "count is 0" in json.loads(fine.content)["snapshot"]
    finally:
        tools.close_browser(ctx.state)


@needs_browser
def test_after_an_interrupted_navigation_the_next_call_works_at_once(tmp_path: Path) -> None:
    """Esc during a page that never loads: the browser's thread stops waiting too, so the session's next
    navigation does not queue behind the 30 s navigation timeout."""
    import time

    from agent.browser import tools
    from agent.toolkit.registry import ToolContext
    from agent.toolkit.state import SessionState
    from tests.web_standins import never_loading_site

    def context(interrupt: threading.Event) -> ToolContext:
        return ToolContext(
            cwd=tmp_path,
            session_id="s",
            call_id="c",
            interrupt=interrupt,
            hermes_home=tmp_path,
            settings=Settings(),
            state=state,
        )

    state = SessionState()
    with never_loading_site() as site:
        try:
            first = tools.browser_navigate(tools.NavigateArgs(url=f"{site.url}/"), context(threading.Event()))
            assert first.status == "ok"  # the browser is up: what follows times the navigation alone
            esc = threading.Event()
            # Esc once the page is really waiting on the load that never ends
            threading.Thread(target=lambda: site.waiting.wait(30) and esc.set(), daemon=True).start()
            stuck = tools.browser_navigate(tools.NavigateArgs(url=f"{site.url}/never"), context(esc))
            assert stuck.status == "cancelled" and "interrupted" in stuck.content
            started = time.monotonic()
            fine = tools.browser_navigate(tools.NavigateArgs(url=f"{site.url}/"), context(threading.Event()))
            took = time.monotonic() - started
            assert fine.status == "ok", fine.content
            assert json.loads(fine.content)["url"] == f"{site.url}/" and took < 3.0, took
            # the page is the good one, not the pending load committing later
            snap = tools.browser_snapshot(tools.SnapshotArgs(), context(threading.Event()))
            assert snap.status == "ok" and "Add one" in snap.content
        finally:
            tools.close_browser(state)
