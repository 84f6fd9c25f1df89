"""What a client can get wrong, and what the agent must never do: bad JSON, non-objects, unknown methods
and sessions are JSON-RPC errors and the connection goes on; stdout carries only protocol; a missing SDK
is one line naming the install command. Also the editor's controls: commands, modes, the model option
(with the module's shared agent, `shared_agent`; the rest is about the process and starts its own)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block

from scripted import ScriptedServer
from tests.acp.harness import ROOT, agent_env, write_home
from tests.acp.shared_agent import SharedAgent
from tests.waiting import TIMEOUT

pytestmark = pytest.mark.slow


class RawAgent:
    """`hermes-tui acp` spoken to line by line, to send what no SDK would."""

    def __init__(self, home: Path, cwd: Path, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hermes_tui.cli", "acp"],
            cwd=cwd,
            env=env or {**agent_env(home), "PATH": os.environ["PATH"]},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.raw: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.raw.append(line)
            self.lines.put(line)

    def send(self, line: bytes | dict[str, Any]) -> None:
        data = json.dumps(line).encode() if isinstance(line, dict) else line
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def reply(self) -> dict[str, Any]:
        """The next message that is a response (notifications skipped)."""
        while True:
            message = json.loads(self.lines.get(timeout=TIMEOUT))
            if "method" not in message:
                return message

    def close(self) -> tuple[int, str]:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=TIMEOUT)
        assert self.proc.stderr is not None
        return code, self.proc.stderr.read().decode()


def test_bad_input_gets_json_rpc_errors_and_the_connection_goes_on(tmp_path: Path) -> None:
    with ScriptedServer({"name": "none", "calls": []}) as server:
        agent = RawAgent(write_home(tmp_path, server), tmp_path)
        agent.send(b"this is not json")
        assert agent.reply()["error"]["code"] == -32700
        agent.send(b"[1, 2, 3]")
        assert agent.reply()["error"]["code"] == -32600
        agent.send(b'"a string"')
        assert agent.reply()["error"]["code"] == -32600
        agent.send({"jsonrpc": "2.0", "id": 7, "method": "no/such/method", "params": {}})
        answer = agent.reply()
        assert (answer["id"], answer["error"]["code"]) == (7, -32601)
        agent.send({"jsonrpc": "2.0", "id": 8, "method": "initialize", "params": {"protocolVersion": 1}})
        answer = agent.reply()
        assert answer["id"] == 8 and answer["result"]["agentCapabilities"]["loadSession"] is True
        agent.send(
            {"jsonrpc": "2.0", "id": 9, "method": "session/prompt", "params": {"prompt": "not blocks"}}
        )
        assert agent.reply()["error"]["code"] == -32602
        prompt = {"sessionId": "no-such-session", "prompt": [{"type": "text", "text": "hi"}]}
        agent.send({"jsonrpc": "2.0", "id": 10, "method": "session/prompt", "params": prompt})
        answer = agent.reply()
        assert answer["id"] == 10 and answer["error"]["code"] == -32002
        agent.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "nobody"}})
        agent.send(
            {
                "jsonrpc": "2.0",
                "id": 11,
                "method": "session/new",
                "params": {"cwd": "relative/dir", "mcpServers": []},
            }
        )
        assert agent.reply()["error"]["code"] == -32602
        agent.send(
            {
                "jsonrpc": "2.0",
                "id": 12,
                "method": "session/load",
                "params": {"cwd": str(tmp_path), "sessionId": "nope", "mcpServers": []},
            }
        )
        assert agent.reply()["error"]["code"] == -32002
        code, stderr = agent.close()
    assert code == 0
    assert "Traceback" not in stderr
    for line in agent.raw:  # nothing but protocol on stdout
        assert json.loads(line)["jsonrpc"] == "2.0"


def test_a_missing_sdk_is_one_line_naming_the_install(tmp_path: Path) -> None:
    blocker = tmp_path / "blocked"
    (blocker / "acp").mkdir(parents=True)
    (blocker / "acp" / "__init__.py").write_text("raise ImportError('no acp here')\n")
    env = {**agent_env(tmp_path / "home"), "PATH": os.environ["PATH"], "PYTHONPATH": f"{blocker}:{ROOT}"}
    proc = subprocess.run(
        [sys.executable, "-m", "hermes_tui.cli", "acp"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        "hermes-tui acp: the Agent Client Protocol SDK is not installed: pip install 'hermes-tui[acp]'"
    ]


def test_the_agent_never_imports_textual(tmp_path: Path) -> None:
    """`hermes-tui acp` draws nothing: none of the TUI's imports (it starts fast, with a small footprint)."""
    probe = (
        "import atexit, runpy, sys\n"
        "def report():\n"
        "    drawn = any(m.split('.')[0] in ('textual', 'widgets') for m in sys.modules)\n"
        "    sys.__stderr__.write(f'TEXTUAL {drawn}\\n')\n"
        "atexit.register(report)\n"
        "sys.argv = ['hermes-tui', 'acp']\n"
        "runpy.run_module('hermes_tui.cli', run_name='__main__')\n"
    )
    with ScriptedServer({"name": "none", "calls": [{"text": "hi"}]}) as server:
        home = write_home(tmp_path, server)
        proc = subprocess.run(
            [sys.executable, "-c", probe],
            cwd=tmp_path,
            env={**agent_env(home), "PATH": os.environ["PATH"]},
            input=json.dumps(
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
            )
            + "\n",
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    assert proc.returncode == 0, proc.stderr
    assert "TEXTUAL False" in proc.stderr
    assert (home / "tui" / "logs" / "acp.log").read_text().count("initialize") == 1  # logs go to the file


async def test_commands_modes_and_the_model_option(shared_agent: SharedAgent, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    scenario = {
        "name": "controls",
        "models": ["other-model"],
        "calls": [
            {"tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {victim}"}}]},
            {"text": "ok"},
        ],
    }
    conn, client = shared_agent.play(scenario)
    new = await conn.new_session(cwd=str(tmp_path))
    sid = new.session_id
    assert new.modes is not None and new.modes.current_mode_id == "default"
    assert [m.id for m in new.modes.available_modes] == ["default", "ask", "plan", "yolo"]
    assert new.config_options[0].category == "model"
    commands = await client.wait_for(lambda: client.of(sid, "available_commands_update"), "the commands")
    names = [c.name for c in commands[0].available_commands]
    assert names[:7] == ["model", "mode", "yolo", "compress", "usage", "title", "help"]
    assert (await conn.prompt(session_id=sid, prompt=[text_block("/model")])).stop_reason == "end_turn"
    assert "Model: scripted" in client.text(sid)
    options = await conn.set_config_option(config_id="model", session_id=sid, value="other-model")
    assert options.config_options[0].current_value == "other-model"
    with pytest.raises(RequestError) as refused:
        await conn.set_session_mode(session_id=sid, mode_id="nonsense")
    assert refused.value.code == -32602 and "nonsense" in str(refused.value.data)
    await conn.set_session_mode(session_id=sid, mode_id="yolo")
    assert (await conn.prompt(session_id=sid, prompt=[text_block("clean")])).stop_reason == "end_turn"
    assert not victim.exists() and client.permissions == []  # yolo: not asked
    assert shared_agent.server.requests[-1].body["model"] == "other-model"


def test_a_store_it_cannot_open_is_one_line_and_exit_1(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "tui" / "state.db").mkdir(parents=True)  # a folder where the database should be
    proc = subprocess.run(
        [sys.executable, "-m", "hermes_tui.cli", "acp"],
        cwd=tmp_path,
        env={**agent_env(home), "PATH": os.environ["PATH"]},
        input="",
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith("hermes-tui acp: ") and "state.db" in line


def test_input_the_loop_cannot_watch_still_ends(hermes_home: Path, tmp_path: Path) -> None:
    """`hermes-tui acp < /dev/null > /dev/null` (character devices epoll refuses) and requests from a regular
    file answered into another: read on a thread and written in place, so the end of input ends the agent
    with 0 (on `/dev/null` it used to wait for good)."""
    env = {**agent_env(hermes_home), "PATH": os.environ["PATH"]}
    command = [sys.executable, "-m", "hermes_tui.cli", "acp"]
    with open(os.devnull, "rb") as empty, open(os.devnull, "wb") as nowhere:
        ended = subprocess.run(
            command,
            cwd=tmp_path,
            env=env,
            stdin=empty,
            stdout=nowhere,
            stderr=subprocess.PIPE,
            timeout=TIMEOUT,
        )
    assert ended.returncode == 0, ended.stderr
    requests, answers = tmp_path / "requests.jsonl", tmp_path / "answers.jsonl"
    requests.write_text(
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
        + "\n"
    )
    with requests.open("rb") as source, answers.open("wb") as sink:
        answered = subprocess.run(
            command, cwd=tmp_path, env=env, stdin=source, stdout=sink, stderr=subprocess.PIPE, timeout=TIMEOUT
        )
    assert answered.returncode == 0, answered.stderr
    [answer] = [json.loads(line) for line in answers.read_text().splitlines()]
    assert answer["id"] == 1 and answer["result"]["protocolVersion"] == 1
