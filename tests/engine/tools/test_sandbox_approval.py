"""The approval gate with an OS sandbox (`agent.approval.sandbox_bounds`): what the sandbox contains runs
without a dialog, what must leave it asks and names the sandbox, only the user's answer lets a call out,
hard blocks stay hard, file writes keep to the same bounds."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.approval import ApprovalGate, Decision
from agent.core.ui import ApprovalDecision
from agent.environments.sandbox import Sandbox, SandboxMode
from tests.engine.tools.test_approval_gate import FakeUI, make_gate


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


def sandboxed(
    ui: FakeUI,
    ws: Path,
    mode: SandboxMode = SandboxMode.WORKSPACE_WRITE,
    *,
    network: bool = False,
    **kw: object,
) -> ApprovalGate:
    gate, _ = make_gate(ui, **kw)
    gate.sandbox = Sandbox(mode, ws, temp=ws.parent / "temp", network=network)
    return gate


@pytest.mark.parametrize(
    "command",
    [
        "echo x > in.txt",
        "sudo systemctl restart nginx",  # contained: no capabilities, no host processes
        "kill -9 1234",
        "pkill node",
        "echo ZWNobyBoaQ== | base64 -d | sh",
        "chmod +x build.sh && ./build.sh",
        "python3 - <<'EOF'\nprint(1)\nEOF",
    ],
)
def test_contained_commands_run_without_a_dialog(ws: Path, command: str) -> None:
    ui = FakeUI()
    verdict = sandboxed(ui, ws).review_command(command, cwd=ws)
    assert verdict.allowed and not verdict.outside_sandbox, verdict
    assert ui.requests == []


def test_the_same_commands_ask_without_a_sandbox(ws: Path) -> None:
    gate, _ = make_gate(FakeUI())
    assert not gate.review_command("sudo systemctl restart nginx", cwd=ws).allowed


@pytest.mark.parametrize(
    ("command", "key", "words"),
    [
        ("touch ~/outside", "sandbox_write", "writes outside the sandbox workspace-write"),
        ("echo x > /etc/motd", "sandbox_write", "/etc/motd"),
        ("curl -s http://127.0.0.1:8000/", "sandbox_network", "uses the network (curl)"),
        ("git push origin main", "sandbox_network", "(git)"),
        ("pip install requests", "sandbox_network", "(pip)"),
    ],
)
def test_leaving_the_sandbox_asks_naming_it(ws: Path, command: str, key: str, words: str) -> None:
    ui = FakeUI(ApprovalDecision.ONCE)
    verdict = sandboxed(ui, ws).review_command(command, cwd=ws)
    assert verdict.allowed and verdict.outside_sandbox
    (request,) = ui.requests
    assert key in request.pattern_keys
    assert any(words in r for r in request.reasons), request.reasons
    assert any("outside the sandbox, for this call only" in r for r in request.reasons)
    assert request.subject == "command outside the sandbox" and not request.allow_permanent


def test_denied_escape_is_refused(ws: Path) -> None:
    """Headless `-z` answers every question with deny."""
    ui = FakeUI(ApprovalDecision.DENY)
    verdict = sandboxed(ui, ws).review_command("touch ~/outside", cwd=ws)
    assert not verdict.allowed and verdict.decision is Decision.DENY
    assert "sandbox" in " ".join(verdict.reasons)


def test_network_allowed_means_no_question(ws: Path) -> None:
    ui = FakeUI()
    gate = sandboxed(ui, ws, network=True)
    verdict = gate.review_command("curl -s http://example.com/", cwd=ws)
    assert verdict.allowed and not verdict.outside_sandbox and ui.requests == []


def test_workspace_harm_still_asks_and_stays_inside(ws: Path) -> None:
    ui = FakeUI(ApprovalDecision.ONCE)
    verdict = sandboxed(ui, ws).review_command("rm -rf build", cwd=ws)
    assert verdict.allowed and not verdict.outside_sandbox
    assert ui.requests[0].pattern_keys == ("recursive_delete",)


def test_hard_blocks_stay_hard(ws: Path) -> None:
    ui = FakeUI(ApprovalDecision.ONCE)
    verdict = sandboxed(ui, ws).review_command("rm -rf /", cwd=ws)
    assert not verdict.allowed and verdict.decision is Decision.BLOCKED and ui.requests == []


def test_allowlist_and_yolo_never_let_a_call_out(ws: Path) -> None:
    ui = FakeUI()
    gate = sandboxed(ui, ws, allowlist=["curl *"])
    gate.yolo = True
    verdict = gate.review_command("curl -s http://127.0.0.1/", cwd=ws)
    assert verdict.allowed and not verdict.outside_sandbox  # runs inside, where the connection fails
    gate.yolo = False
    ui.default = ApprovalDecision.DENY
    assert not gate.review_command("curl -s http://127.0.0.1/", cwd=ws).allowed  # asked despite the rule
    assert len(ui.requests) == 1


def test_session_answer_covers_later_escapes_of_that_kind(ws: Path) -> None:
    ui = FakeUI(ApprovalDecision.SESSION)
    gate = sandboxed(ui, ws)
    assert gate.review_command("curl -s http://a/", cwd=ws).outside_sandbox
    again = gate.review_command("wget http://b/", cwd=ws)
    assert again.allowed and again.outside_sandbox and len(ui.requests) == 1
    ui.default = ApprovalDecision.DENY
    assert not gate.review_command("touch ~/outside", cwd=ws).allowed  # a write is another kind


def test_file_writes_keep_to_the_bounds(ws: Path) -> None:
    ui = FakeUI(ApprovalDecision.DENY)
    gate = sandboxed(ui, ws)
    inside = gate.review_write(Path("notes.md"), ws, tool_name="write_file")
    assert inside.allowed and ui.requests == []
    outside = gate.review_write(Path.home() / "outside.md", ws, tool_name="write_file")
    assert not outside.allowed
    assert ui.requests[0].subject == "file write outside the sandbox"
    gate.yolo = True
    blocked = gate.review_write(Path.home() / "outside.md", ws, tool_name="write_file")
    assert not blocked.allowed and "sandbox" in blocked.message


def test_read_only_asks_for_every_write(ws: Path) -> None:
    ui = FakeUI(ApprovalDecision.DENY)
    gate = sandboxed(ui, ws, SandboxMode.READ_ONLY)
    assert not gate.review_command("echo x > in.txt", cwd=ws).allowed
    assert not gate.review_write(Path("in.txt"), ws, tool_name="write_file").allowed
    assert all("sandbox read-only" in " ".join(r.reasons) for r in ui.requests)
    assert gate.review_command("ls -la && cat README.md", cwd=ws).allowed  # reading needs nothing


def test_an_escape_names_every_risk_it_takes_outside(ws: Path) -> None:
    """`sudo` is contained inside the sandbox, not outside it: a command that leaves names it again."""
    ui = FakeUI(ApprovalDecision.SESSION)
    gate = sandboxed(ui, ws)
    assert gate.review_command("sudo apt-get install -y jq", cwd=ws).outside_sandbox
    (request,) = ui.requests
    assert set(request.pattern_keys) == {"sudo", "sandbox_network"}
    # "this session" covered both: a network command without sudo is let out, one with it too
    assert gate.review_command("curl -s http://a/", cwd=ws).outside_sandbox
    ui.default = ApprovalDecision.DENY
    assert not gate.review_command("echo x | sudo tee /etc/motd", cwd=ws).allowed  # a write: asked
    assert len(ui.requests) == 2


def test_the_permission_mode_comes_first(ws: Path) -> None:
    """The sandbox decides what it contains, not what the user asked to see: ask mode still asks inside
    it, plan mode refuses before it is looked at."""
    from agent.core.permission_mode import PermissionMode

    ui = FakeUI(ApprovalDecision.ONCE)
    gate = sandboxed(ui, ws)
    gate.permission_mode = PermissionMode.ASK
    verdict = gate.review_command("echo x > in.txt", cwd=ws)
    assert verdict.allowed and not verdict.outside_sandbox
    assert any(key.startswith("ask_command") for key in ui.requests[0].pattern_keys)
    gate.permission_mode = PermissionMode.PLAN
    assert not gate.review_command("touch ~/outside", cwd=ws).allowed and len(ui.requests) == 1
