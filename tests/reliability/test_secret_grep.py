"""Every secret the app knows, grepped for everywhere it could end up (issue 33 item 7, end to end).

A distinctive value in each place the app learns secrets: the provider key in the environment and another in
`config.yaml`, a stdio MCP server's `env` and an HTTP MCP server's `headers` (both loopback servers this test
starts, whose tool echoes what it was given and which prints its environment on stderr), a web backend key
(a loopback Tavily whose refusal quotes the key it got) and a `.env` value. Real turns run headless
(`hermes-tui -z`, a subprocess) against the scripted model server, whose model calls the tools that echo
them: `terminal` printing the config, `.env` and environment, `read_file` of `.env`, both MCP tools and
`web_search`. Then no secret may appear in: `state.db` (the raw bytes of the file and its WAL), the
Markdown and JSON exports, the trajectory file, the logs (every file under HERMES_HOME but the two the user
wrote the secrets into), `-z`'s stdout and stderr, and any request body the model server received (the
`Authorization` header is the one place a key belongs).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.core.secrets import SECRETS
from scripted import ScriptedServer
from tests.mcp_servers import fixture_server
from tests.reliability.campaign import ROOT, _env
from tests.web_standins import WebStandIn

pytestmark = pytest.mark.slow

SECRETS_BY_PLACE = {
    "provider key (environment)": "provenv-Q7w8e9r0t1y2",
    "provider key (config.yaml)": "cfgkey-A1s2d3f4g5h6",
    "MCP env": "mcpenv-Z9x8c7v6b5n4",
    "MCP header": "mcphdr-P0o9i8u7y6t5",
    "web backend key": "webkey-L1k2j3h4g5f6",
    ".env value": "dotenv-M1n2b3v4c5x6",
}

LEAKY_SERVER = """
import asyncio, os, sys
sys.path.insert(0, {root!r})
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from tests.mcp_fixture_server import _serve_http

server = MCPServer("leaky")


@server.tool(name="whoami", description="What this server was started with.")
def whoami(ctx: Context) -> str:
    headers = dict(ctx.headers or {{}})
    return f"token={{os.environ.get('SERVICE_TOKEN', '')}} headers={{headers}}"


print("starting with", {{k: v for k, v in os.environ.items() if "TOKEN" in k}}, file=sys.stderr, flush=True)
if sys.argv[1] == "stdio":
    server.run("stdio")
else:
    asyncio.run(_serve_http(server))
"""


@pytest.fixture(autouse=True)
def _fresh_registry() -> Iterator[None]:
    SECRETS.clear()
    yield
    SECRETS.clear()


@pytest.fixture
def http_mcp(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The leaky server on streamable HTTP; yields its URL and the script."""
    script = tmp_path / "leaky_server.py"
    script.write_text(LEAKY_SERVER.format(root=str(ROOT)))
    workdir = tmp_path / "leaky_server"  # its stdout and stderr, outside the home the test searches
    workdir.mkdir()
    with fixture_server(workdir, "http", script=script) as server:
        yield server.url, script


def _home(home: Path, server: ScriptedServer, web: WebStandIn, mcp_url: str, script: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    config = {
        "model": {
            "provider": "custom",
            "base_url": server.openai_base_url,
            "default": "scripted",
            "api_key": SECRETS_BY_PLACE["provider key (config.yaml)"],
        },
        "web": {"backend": "tavily", "tavily_base_url": f"{web.url}/tavily", "allow_private_urls": True},
        "mcp_servers": {
            "leaky": {
                "command": sys.executable,
                "args": [str(script), "stdio"],
                "env": {"SERVICE_TOKEN": SECRETS_BY_PLACE["MCP env"]},
            },
            "leakyhttp": {"url": mcp_url, "headers": {"X-Service-Key": SECRETS_BY_PLACE["MCP header"]}},
        },
    }
    (home / "config.yaml").write_text(json.dumps(config))
    (home / ".env").write_text(f"GITHUB_TOKEN={SECRETS_BY_PLACE['.env value']}\n")
    (home / "tui").mkdir(exist_ok=True)
    (home / "tui" / "config.yaml").write_text("save_trajectories: true\nauto_title: false\nmax_retries: 0\n")


def _scenario(home: Path) -> dict[str, object]:
    """The model asks for everything that would echo a secret, then answers."""
    dump = f"cat {home}/config.yaml {home}/.env; env | sort"
    calls = [
        {"name": "terminal", "arguments": {"command": dump}},
        {"name": "read_file", "arguments": {"path": str(home / ".env")}},
        {"name": "mcp_leaky_whoami", "arguments": {}},
        {"name": "mcp_leakyhttp_whoami", "arguments": {}},
        {"name": "web_search", "arguments": {"query": "octopus rna"}},
    ]
    return {"name": "secrets", "calls": [{"tool_calls": calls}, {"text": "All looked at."}]}


def _found(data: bytes) -> list[str]:
    return [place for place, secret in SECRETS_BY_PLACE.items() if secret.encode() in data]


def test_no_secret_reaches_the_db_exports_trajectory_logs_output_or_the_model(
    tmp_path: Path, http_mcp: tuple[str, Path]
) -> None:
    mcp_url, script = http_mcp
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    cwd.mkdir()
    with WebStandIn(quote_refused_key=True) as web, ScriptedServer(_scenario(home)) as server:
        _home(home, server, web, mcp_url, script)
        env = _env(home)
        env["OPENAI_API_KEY"] = SECRETS_BY_PLACE["provider key (environment)"]
        env["TAVILY_API_KEY"] = SECRETS_BY_PLACE["web backend key"]
        done = subprocess.run(
            [sys.executable, "-m", "hermes_tui.cli", "-z", "look at my setup", "--yolo"],
            cwd=cwd,
            env=env,
            capture_output=True,
            timeout=180,
        )
        bodies = [json.dumps(r.body).encode() for r in server.requests]
        tavily = [r for r in web.requests if r.path == "/tavily/search"]
    err = done.stderr.decode(errors="replace")
    assert done.returncode == 0, err[-2000:]
    assert b"All looked at." in done.stdout
    assert len(bodies) == 2, "the model was asked twice: the tools, then the answer"
    assert tavily, "the web backend was called"  # and refused the key, quoting it
    results = json.loads(bodies[1])["messages"]
    sent = "\n".join(str(m.get("content")) for m in results if m.get("role") == "tool")
    # The tools did echo: the masks are there, so the secrets were on their way.
    assert sent.count("[REDACTED]") >= 6, sent[:3000]
    assert "token=" in sent and "x-service-key" in sent.lower() and "401" in sent, sent[:3000]

    leaks: dict[str, list[str]] = {}

    def check(where: str, data: bytes) -> None:
        if found := _found(data):
            leaks[where] = found

    check("-z stdout", done.stdout)
    check("-z stderr", done.stderr)
    for i, body in enumerate(bodies):
        check(f"model request {i + 1} body", body)
    written = {home / "config.yaml", home / ".env"}  # the user's own files
    files = [p for p in home.rglob("*") if p.is_file() and p not in written]
    names = [str(p.relative_to(home)) for p in files]
    assert "tui/state.db" in names and any(n.startswith("tui/trajectories/") for n in names), names
    assert "tui/logs/mcp-leaky.log" in names, names  # the stdio server's stderr, which printed its env
    for path in files:  # state.db, its -wal and -shm, trajectories, logs, leftovers...
        check(str(path.relative_to(home)), path.read_bytes())

    # The exports, written as the app writes them (its registry filled from the same configuration).
    from agent.config.settings import load_settings
    from agent.mcp.config import load_mcp_config
    from agent.store import SessionStore
    from hermes_tui.export import write_export

    load_settings(env={k: v for k, v in env.items() if k != "PYTHONPATH"})
    load_mcp_config(home, env=env)
    store = SessionStore(home / "tui" / "state.db")
    try:
        [session] = store.list_sessions()
        for fmt, name in (("markdown", "export.md"), ("json", "export.json")):
            out = write_export(store, session.id, tmp_path / name, fmt)  # type: ignore[arg-type]
            check(f"{fmt} export", out.read_bytes())
    finally:
        store.close()
    assert not leaks, leaks
