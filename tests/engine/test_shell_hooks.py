"""Shell hooks (Hermes' `hooks:`, a project's Claude Code hooks) on the scripted server: a pre_tool_call
hook blocks `rm` and the model reads why; a hook that hangs, fails or prints garbage is one line and the turn
goes on; consent is asked once and remembered in our own file; headless without consent does not run it."""

from __future__ import annotations

import json
import shlex
import sys
import textwrap
from pathlib import Path

from agent.core.events import StatusNotice, ToolFinished
from agent.core.ui import ApprovalDecision
from scripted import ScriptedServer
from tests.engine.helpers import last_user_text, make_agent, tool_results
from tests.recording_ui import RecordingUI

NO_RM = """
import json, sys
event = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(event) + "\\n")
if "rm " in (event.get("tool_input") or {}).get("command", ""):
    print(json.dumps({"decision": "block", "reason": "rm is forbidden in this project"}))
"""


def script(tmp_path: Path, name: str, body: str, *args: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(body))
    return shlex.join([sys.executable, str(path), *args])


def notices(ui: RecordingUI) -> list[str]:
    return [n.text for n in ui.of_type(StatusNotice)]


def rm_turn(victim: Path) -> list[dict]:
    return [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {victim}"}}]},
        {"text": "I was stopped."},
    ]


def test_a_pre_tool_call_hook_blocks_rm_and_the_model_reads_why(hermes_home: Path, tmp_path: Path) -> None:
    victim = tmp_path / "keep"
    victim.mkdir()
    log = tmp_path / "seen.jsonl"
    hooks = {
        "pre_tool_call": [{"command": script(tmp_path, "no_rm", NO_RM, str(log)), "matcher": "terminal"}]
    }
    with ScriptedServer({"name": "t", "calls": rm_turn(victim)}) as server:
        agent, _store, ui = make_agent(
            server, hermes_home, tmp_path, hooks=hooks, hooks_auto_accept=True, yolo=True
        )
        result = agent.run_conversation("clean up")
        [(_id, content)] = tool_results(server.requests[1].body, "openai")
    agent.close()
    assert victim.exists()
    assert result.final_text == "I was stopped."
    assert "rm is forbidden in this project" in content and "blocked by a hook" in content
    [finished] = ui.of_type(ToolFinished)
    assert finished.status == "denied"
    [event] = [json.loads(line) for line in log.read_text().splitlines()]
    assert event["hook_event_name"] == "pre_tool_call" and event["tool_name"] == "terminal"
    assert event["tool_input"] == {"command": f"rm -rf {victim}"} and event["session_id"] == agent.session_id
    assert event["cwd"] == str(tmp_path)
    # consent was given by hooks_auto_accept, and kept in our file, never in Hermes'
    saved = json.loads((hermes_home / "tui" / "hooks_allowlist.json").read_text())["approvals"]
    assert [(e["event"], e["command"]) for e in saved] == [
        ("pre_tool_call", hooks["pre_tool_call"][0]["command"])
    ]
    assert not (hermes_home / "shell-hooks-allowlist.json").exists()


def test_a_hook_past_its_timeout_is_one_line_and_the_turn_goes_on(hermes_home: Path, tmp_path: Path) -> None:
    slow = script(tmp_path, "slow", "import time\ntime.sleep(60)\n")
    hooks = {"pre_tool_call": [{"command": slow, "timeout": 1}]}
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": "echo ran > out.txt"}}]},
        {"text": "done"},
    ]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, ui = make_agent(
            server, hermes_home, tmp_path, hooks=hooks, hooks_auto_accept=True, yolo=True
        )
        result = agent.run_conversation("go")
    agent.close()
    assert result.final_text == "done"
    assert (tmp_path / "out.txt").read_text().strip() == "ran"
    [line] = [n for n in notices(ui) if "hook" in n]
    assert "no answer within 1 s" in line and "\n" not in line


def test_a_failing_or_garbage_hook_is_one_line_each(hermes_home: Path, tmp_path: Path) -> None:
    hooks = {
        "pre_tool_call": [
            {"command": script(tmp_path, "garbage", "print('<<not json>>')\n")},
            {"command": script(tmp_path, "fails", "import sys\nsys.stderr.write('boom\\n')\nsys.exit(3)\n")},
            {"command": str(tmp_path / "missing-hook.sh")},
        ],
    }
    calls = [{"tool_calls": [{"name": "terminal", "arguments": {"command": "echo hi"}}]}, {"text": "done"}]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, ui = make_agent(
            server, hermes_home, tmp_path, hooks=hooks, hooks_auto_accept=True, yolo=True
        )
        result = agent.run_conversation("go")
    agent.close()
    assert result.final_text == "done"
    [finished] = ui.of_type(ToolFinished)
    assert finished.status == "ok"
    lines = [n for n in notices(ui) if "hook" in n]
    assert len(lines) == 3
    assert (
        "not a JSON object" in lines[0] and "exited 3 (boom)" in lines[1] and "command not found" in lines[2]
    )


def test_prompt_submit_context_reaches_the_wire_not_the_stored_message(
    hermes_home: Path, tmp_path: Path
) -> None:
    ctx = script(
        tmp_path, "ctx", "import json\nprint(json.dumps({'context': 'Deploys are frozen today.'}))\n"
    )
    with ScriptedServer({"name": "t", "calls": [{"text": "ok"}]}) as server:
        agent, _store, _ui = make_agent(
            server, hermes_home, tmp_path, hooks={"pre_llm_call": [{"command": ctx}]}, hooks_auto_accept=True
        )
        agent.run_conversation("ship it")
        sent = last_user_text(server.requests[0].body, "openai")
    agent.close()
    assert "ship it" in sent and "Deploys are frozen today." in sent
    assert agent.messages[0].content == "ship it"


def test_consent_is_asked_once_and_remembered(hermes_home: Path, tmp_path: Path) -> None:
    log = tmp_path / "seen.jsonl"
    hooks = {"pre_tool_call": [{"command": script(tmp_path, "no_rm", NO_RM, str(log))}]}
    victim = tmp_path / "keep"
    victim.mkdir()
    # "no": not run, one line, the call goes ahead
    with ScriptedServer({"name": "t", "calls": rm_turn(victim)}) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path, hooks=hooks, yolo=True)
        agent.run_conversation("clean up")
    agent.close()
    [asked] = ui.approval_requests
    assert asked.subject == "shell hook" and asked.command == hooks["pre_tool_call"][0]["command"]
    assert not log.exists() and not victim.exists()
    assert any("was not approved: not run" in n for n in notices(ui))
    # "always": run, and the next session does not ask again
    victim.mkdir()
    for approval in (ApprovalDecision.ALWAYS, ApprovalDecision.DENY):
        with ScriptedServer({"name": "t", "calls": rm_turn(victim)}) as server:
            ui = RecordingUI(approval=approval)
            agent, _store, ui = make_agent(server, hermes_home, tmp_path, ui=ui, hooks=hooks, yolo=True)
            agent.run_conversation("clean up")
        agent.close()
        assert victim.exists()
    assert len(log.read_text().splitlines()) == 2
    assert ui.approval_requests == []  # the second session ran it without asking


def test_headless_without_consent_says_so_and_does_not_run_it(hermes_home: Path, tmp_path: Path) -> None:
    log = tmp_path / "seen.jsonl"
    hooks = {"pre_tool_call": [{"command": script(tmp_path, "no_rm", NO_RM, str(log))}]}
    ui = RecordingUI()
    ui.interactive = False
    calls = [{"tool_calls": [{"name": "terminal", "arguments": {"command": "echo hi"}}]}] * 2 + [
        {"text": "ok"}
    ]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path, ui=ui, hooks=hooks, yolo=True)
        agent.run_conversation("go")
    agent.close()
    assert not log.exists() and ui.approval_requests == []
    [line] = [n for n in notices(ui) if "hook" in n]
    assert "not approved yet: not run" in line and "hooks_auto_accept" in line


def test_config_problems_are_one_line_each(hermes_home: Path, tmp_path: Path) -> None:
    hooks = {
        "pre_tool_cal": [{"command": "true"}],
        "subagent_stop": [{"command": "true"}],
        "pre_llm_call": ["x"],
    }
    with ScriptedServer({"name": "t", "calls": [{"text": "ok"}]}) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path, hooks=hooks)
        result = agent.run_conversation("hi")
    agent.close()
    assert result.final_text == "ok"
    lines = notices(ui)
    assert any("hooks.pre_tool_cal: unknown event (did you mean pre_tool_call?)" in n for n in lines)
    assert any("hooks.subagent_stop: hermes-tui does not fire" in n for n in lines)
    assert any("hooks.pre_llm_call[0]: expected a mapping" in n for n in lines)


def test_a_projects_claude_code_hook_blocks_after_its_own_consent(hermes_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".git").mkdir()
    deny = script(tmp_path, "deny", "import sys\nsys.stderr.write('no deletes here')\nsys.exit(2)\n")
    settings = {
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": deny}]}]}
    }
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    victim = project / "keep"
    victim.mkdir()
    with ScriptedServer({"name": "t", "calls": rm_turn(victim)}) as server:
        ui = RecordingUI(approval=ApprovalDecision.SESSION)
        agent, _store, ui = make_agent(server, hermes_home, project, ui=ui, hooks_auto_accept=True, yolo=True)
        agent.run_conversation("clean up")
        [(_id, content)] = tool_results(server.requests[1].body, "openai")
    agent.close()
    assert victim.exists() and "no deletes here" in content
    [asked] = ui.approval_requests  # hooks_auto_accept covers config.yaml's hooks, not a repository's
    assert str(project / ".claude" / "settings.json") in asked.reasons[0]


def test_esc_stops_a_running_hook(hermes_home: Path, tmp_path: Path) -> None:
    import threading

    from tests.waiting import wait_for_file

    started = tmp_path / "started"
    slow = script(
        tmp_path,
        "slow",
        "import sys, time\nopen(sys.argv[1], 'w').write('up')\ntime.sleep(120)\n",
        str(started),
    )
    hooks = {"pre_tool_call": [{"command": slow, "timeout": 120}]}
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": "echo ran > out.txt"}}]},
        {"text": "x"},
    ]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, ui = make_agent(
            server, hermes_home, tmp_path, hooks=hooks, hooks_auto_accept=True, yolo=True
        )
        result: list[object] = []
        turn = threading.Thread(target=lambda: result.append(agent.run_conversation("go")))
        turn.start()
        wait_for_file(started)
        agent.interrupt()
        turn.join(timeout=60)
    agent.close()
    assert not turn.is_alive()
    assert any("stopped by the interrupt" in n for n in notices(ui))
    assert not (tmp_path / "out.txt").exists()


def test_post_tool_call_observes_the_result_with_secrets_masked(hermes_home: Path, tmp_path: Path) -> None:
    from pydantic import SecretStr

    log = tmp_path / "seen.jsonl"
    observe = script(
        tmp_path, "observe", "import sys\nopen(sys.argv[1], 'a').write(sys.stdin.read() + '\\n')\n", str(log)
    )
    hooks = {"post_tool_call": [{"command": observe, "matcher": "term.*"}]}
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": "echo key=sk-hooks-secret-123"}}]},
        {"text": "done"},
    ]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, _ui = make_agent(
            server,
            hermes_home,
            tmp_path,
            hooks=hooks,
            hooks_auto_accept=True,
            yolo=True,
            api_key=SecretStr("sk-hooks-secret-123"),
        )
        agent.run_conversation("go")
    agent.close()
    [event] = [json.loads(line) for line in log.read_text().splitlines()]
    assert event["hook_event_name"] == "post_tool_call" and event["tool_name"] == "terminal"
    assert event["extra"]["status"] == "ok" and "key=" in event["extra"]["result"]
    assert event["extra"]["result"].startswith("key=[REDACTED]")  # the input stays as the model wrote it


def test_claude_prompt_and_session_start_hooks_add_context(hermes_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    prompt = script(tmp_path, "prompt", "print('The staging database is read-only.')\n")
    start = script(
        tmp_path,
        "start",
        "import json\nprint(json.dumps({'hookSpecificOutput': {'additionalContext': 'Branch: feat/x'}}))\n",
    )
    settings = {
        "hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": prompt}]}],
            "SessionStart": [{"hooks": [{"type": "command", "command": start}]}],
            "Notification": [{"hooks": [{"type": "command", "command": "true"}]}],
        }
    }
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    with ScriptedServer({"name": "t", "calls": [{"text": "ok"}, {"text": "ok"}]}) as server:
        ui = RecordingUI(approval=ApprovalDecision.SESSION)
        agent, _store, ui = make_agent(server, hermes_home, project, ui=ui)
        agent.run_conversation("deploy")
        agent.run_conversation("again")
        first = last_user_text(server.requests[0].body, "openai")
        second = last_user_text(server.requests[1].body, "openai")
    agent.close()
    assert "The staging database is read-only." in first and "Branch: feat/x" in first
    assert "The staging database is read-only." in second and "Branch: feat/x" not in second  # once
    assert len(ui.approval_requests) == 2  # each command asked about once
    assert any("hooks.Notification: no hermes-tui event matches it" in n for n in notices(ui))


def test_the_listing_says_where_each_hook_comes_from_and_whether_it_runs(
    hermes_home: Path, tmp_path: Path
) -> None:
    hooks = {"pre_tool_call": [{"command": "~/no-rm.sh", "matcher": "terminal", "timeout": 5}]}
    with ScriptedServer({"name": "t", "calls": [{"text": "ok"}]}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, hooks=hooks)
        listing = agent.hook_listing()
        agent.close()
        bare, _store, _ui = make_agent(server, hermes_home, tmp_path)
        empty = bare.hook_listing()
        bare.close()
    assert listing.splitlines() == [
        "Shell hooks (1):",
        "  pre_tool_call [terminal]  ~/no-rm.sh  (5 s, asks on first use)",
        f"    from {hermes_home / 'config.yaml'}",
    ]
    assert empty.startswith("No shell hooks.")
