"""Secrets masked wherever text leaves the engine (issue 33 item 7): the registry of known values filled
from the configuration, and the sinks that use it (tool results, error lines, MCP status, trajectories)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from agent.config.settings import load_settings
from agent.core.secrets import REDACTED, SECRETS, looks_secret_name, redact
from agent.toolkit.registry import Tool, ToolContext, ToolRegistry, ToolResult

PROVIDER_KEY = "prov-9f8e7d6c5b4a3210"
WEB_KEY = "websecret-1234567890abcdef"
MCP_HEADER = "hdr-secret-0a1b2c3d4e5f"
MCP_ENV = "envsecret-zz99yy88xx77"
CONFIG_KEY = "cfgsecret-5555aaaa6666"


@pytest.fixture(autouse=True)
def _fresh_registry() -> Any:
    SECRETS.clear()
    yield
    SECRETS.clear()


def test_load_settings_registers_every_secret_it_reads(hermes_home: Path) -> None:
    (hermes_home / "config.yaml").write_text(
        "model: {provider: custom, base_url: 'http://127.0.0.1:9/v1', default: m}\n"
        f"custom_providers: [{{name: x, api_key: {CONFIG_KEY}}}]\n"
        "mcp_servers:\n"
        f"  web: {{url: 'http://127.0.0.1:9/mcp', headers: {{Authorization: 'Bearer {MCP_HEADER}'}}}}\n"
        f"  local: {{command: x, env: {{SERVICE_TOKEN: {MCP_ENV}, MODE: production-mode}}}}\n"
    )
    (hermes_home / ".env").write_text(f"TAVILY_API_KEY={WEB_KEY}\n")
    load_settings(env={"HERMES_HOME": str(hermes_home), "OPENAI_API_KEY": PROVIDER_KEY})
    from agent.mcp.config import load_mcp_config

    load_mcp_config(hermes_home, env={})
    text = f"a {PROVIDER_KEY} b {WEB_KEY} c {CONFIG_KEY} d {MCP_HEADER} e {MCP_ENV} f production-mode"
    masked = redact(text)
    for secret in (PROVIDER_KEY, WEB_KEY, CONFIG_KEY, MCP_HEADER, MCP_ENV):
        assert secret not in masked
    assert "production-mode" in masked  # an env value under an ordinary name is not a secret
    assert masked.count(REDACTED) == 5


def test_shapes_are_masked_without_being_known() -> None:
    text = "key sk-abcdefghijklmnop1234 tvly-abcdefghijklmnop123 Authorization: Bearer abc123def456ghi"
    masked = redact(text)
    assert "abcdefghijklmnop1234" not in masked and "tvly-abcdefghijklmnop123" not in masked
    assert "abc123def456ghi" not in masked
    assert looks_secret_name("EXA_API_KEY") and looks_secret_name("x-api-key")
    assert not looks_secret_name("PATH") and not looks_secret_name("NODE_ENV")


def test_a_tool_error_quoting_the_key_is_masked_for_the_model_and_the_screen() -> None:
    from pydantic import BaseModel

    from agent.core.events import ToolFinished, ToolOutput
    from agent.core.messages import ToolCall
    from agent.toolkit.executor import ToolExecutor

    SECRETS.add(WEB_KEY)

    class Args(BaseModel):
        pass

    def backend(_args: Args, ctx: ToolContext) -> ToolResult:
        ctx.emit_output(f"calling with {WEB_KEY}\n")
        return ToolResult.error(f"401 Unauthorized: invalid API key {WEB_KEY!r}", data={"key": WEB_KEY})

    registry = ToolRegistry()
    registry.register(Tool(name="leaky", description="d", args_model=Args, handler=backend, toolset="web"))
    events: list[Any] = []

    class UI:
        def on_event(self, event: Any) -> None:
            events.append(event)

    def make_context(call: ToolCall) -> ToolContext:
        return ToolContext(
            cwd=Path("."), session_id="s", call_id=call.id, interrupt=threading.Event(), hermes_home=Path(".")
        )

    [done] = ToolExecutor(registry).run_batch(
        [ToolCall(id="c1", name="leaky", arguments="{}")],
        make_context=make_context,
        ui=UI(),
        interrupt=threading.Event(),
    )
    assert WEB_KEY not in done.result.content and REDACTED in done.result.content
    assert WEB_KEY not in json.dumps(done.result.data)
    shown = [e.chunk for e in events if isinstance(e, ToolOutput)] + [
        e.result for e in events if isinstance(e, ToolFinished)
    ]
    assert shown and all(WEB_KEY not in s for s in shown)


def test_a_provider_error_line_and_the_trajectory_mask_known_keys(tmp_path: Path) -> None:
    from agent.core.errors import ClassifiedError
    from agent.session.trajectory import TrajectoryWriter

    SECRETS.add(PROVIDER_KEY)
    error = ClassifiedError(
        reason="auth", message=f"Incorrect API key provided: {PROVIDER_KEY}", retryable=False, hint=""
    )
    assert PROVIDER_KEY not in error.user_line()
    writer = TrajectoryWriter(tmp_path, "s1")
    writer.record_call(1, "m", [{"role": "tool", "content": f"echo {PROVIDER_KEY}"}], [], {"text": "ok"})
    writer.flush()
    assert PROVIDER_KEY not in (tmp_path / "s1.jsonl").read_text()


def test_mcp_status_lines_mask_a_secret_in_the_command_line() -> None:
    from agent.mcp.manager import ServerStatus
    from agent.mcp.report import format_servers

    SECRETS.add(MCP_ENV)
    status = ServerStatus(
        name="x", state="failed", target=f"server --token {MCP_ENV}", error=f"bad {MCP_ENV}"
    )
    assert MCP_ENV not in format_servers([status])


def test_an_mcp_servers_stderr_reaches_its_log_masked(tmp_path: Path) -> None:
    """The SDK gives the child `errlog` as its stderr: what the child prints goes through the redactor,
    and the log is complete once the context closes (the manager reads its tail for the error line)."""
    import subprocess
    import sys

    from agent.mcp.stderr_log import RedactedStderrLog

    SECRETS.add(MCP_ENV)
    path = tmp_path / "mcp-x.log"
    with RedactedStderrLog(path) as errlog:
        script = (
            f"import sys; print('token is {MCP_ENV}', file=sys.stderr); print('last line', file=sys.stderr)"
        )
        subprocess.run([sys.executable, "-c", script], stderr=errlog, check=True)
    text = path.read_text()
    assert MCP_ENV not in text and f"token is {REDACTED}\n" in text and text.endswith("last line\n")
