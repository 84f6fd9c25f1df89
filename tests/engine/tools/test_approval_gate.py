"""The approval gate: decisions, session/permanent memory, serialized prompts, interrupts, file writes."""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

import pytest
import yaml

from agent.approval import ApprovalGate, Decision, Verdict, load_allowlist
from agent.core.ui import ApprovalDecision, ApprovalRequest
from tests.recording_ui import RecordingUI


class FakeUI:
    """Answers approval prompts from a script; records requests and how many prompts were open at once."""

    def __init__(self, *answers: ApprovalDecision | str | Exception, delay: float = 0.0) -> None:
        self.answers = list(answers)
        self.default: ApprovalDecision | str | Exception = ApprovalDecision.DENY
        self.delay = delay
        self.requests: list[ApprovalRequest] = []
        self._lock = threading.Lock()
        self.open = 0
        self.max_open = 0

    def on_event(self, event: object) -> None:
        pass

    def ask_clarify(self, request: object) -> None:
        return None

    def ask_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        with self._lock:
            self.requests.append(request)
            self.open += 1
            self.max_open = max(self.max_open, self.open)
            answer = self.answers.pop(0) if self.answers else self.default
        try:
            if self.delay:
                time.sleep(self.delay)
            if isinstance(answer, Exception):
                raise answer
            return answer  # type: ignore[return-value]
        finally:
            with self._lock:
                self.open -= 1


class FakeStore:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, list[str], str]] = []

    def record_approval(self, session_id: str, command: str, reasons: list[str], decision: str) -> None:
        self.rows.append((session_id, command, reasons, decision))

    @property
    def decisions(self) -> list[str]:
        return [r[3] for r in self.rows]


def make_gate(ui: FakeUI, **kw: object) -> tuple[ApprovalGate, FakeStore]:
    store = FakeStore()
    gate = ApprovalGate(ui=ui, session_id="s1", store=store, **kw)  # type: ignore[arg-type]
    return gate, store


# ---- basic outcomes --------------------------------------------------------------------------------------


def test_safe_command_runs_without_asking_or_recording() -> None:
    ui = FakeUI()
    gate, store = make_gate(ui)
    v = gate.review_command("ls -la")
    assert v == Verdict(True, "safe", [], "")
    assert ui.requests == [] and store.rows == []


def test_once_allows_this_time_only() -> None:
    ui = FakeUI(ApprovalDecision.ONCE, ApprovalDecision.ONCE)
    gate, store = make_gate(ui)
    v = gate.review_command("rm -rf build")
    assert v.allowed and v.decision == "once" and v.message == ""
    assert v.reasons == ["deletes files recursively"]
    assert gate.review_command("rm -rf build").decision == "once"
    assert len(ui.requests) == 2
    assert store.decisions == ["once", "once"]


def test_request_carries_command_reasons_keys_rule_and_cancel_event() -> None:
    interrupt = threading.Event()
    ui = FakeUI(ApprovalDecision.ONCE)
    gate, _ = make_gate(ui, timeout=42.0, interrupt=interrupt)
    gate.review_command("git push --force origin main", tool_name="terminal")
    (req,) = ui.requests
    assert req.command == "git push --force origin main"
    assert req.pattern_keys == ("git_force_push",)
    assert req.reasons == ("force-pushes over remote history",)
    assert req.rule == "git push --force origin main"
    assert req.timeout == 42.0
    assert req.tool_name == "terminal"
    assert req.cancel is interrupt


def test_session_approval_covers_the_same_pattern_later() -> None:
    ui = FakeUI(ApprovalDecision.SESSION, ApprovalDecision.DENY)
    gate, store = make_gate(ui)
    assert gate.review_command("rm -rf build").decision == "session"
    # a different command with the same pattern: no prompt
    v = gate.review_command("rm -rf dist")
    assert v.allowed and v.decision == "session"
    assert len(ui.requests) == 1
    # a different pattern still asks
    assert not gate.review_command("git reset --hard").allowed
    assert len(ui.requests) == 2
    # a command with a covered and an uncovered pattern still asks
    assert not gate.review_command("rm -rf x && git clean -fd").allowed
    assert len(ui.requests) == 3
    assert store.decisions == ["session", "session", "deny", "deny"]


def test_deny_refuses_with_the_message_for_the_model() -> None:
    ui = FakeUI(ApprovalDecision.DENY)
    gate, store = make_gate(ui)
    v = gate.review_command("git reset --hard")
    assert not v.allowed and v.decision == "deny"
    assert v.message == (
        "BLOCKED: The user denied this command (discards uncommitted changes (git reset --hard)). "
        "Do NOT retry it or try to achieve the same result another way; ask the user what they want instead."
    )
    assert store.rows == [
        ("s1", "git reset --hard", ["discards uncommitted changes (git reset --hard)"], "deny")
    ]


def test_timeout_refuses_and_says_silence_is_not_consent() -> None:
    ui = FakeUI(ApprovalDecision.TIMEOUT)
    gate, store = make_gate(ui, timeout=300.0)
    v = gate.review_command("kill -9 4242")
    assert not v.allowed and v.decision == "timeout"
    assert v.message.startswith("BLOCKED: The user did not respond")
    assert "Silence is not consent" in v.message
    assert "do NOT retry" in v.message
    assert store.decisions == ["timeout"]


def test_ui_exception_denies() -> None:
    ui = FakeUI(RuntimeError("dialog crashed"))
    gate, store = make_gate(ui)
    v = gate.review_command("rm -rf build")
    assert not v.allowed and v.decision == "deny"
    assert v.message.startswith("BLOCKED: The user denied this command")
    assert store.decisions == ["deny"]


def test_ui_answer_as_plain_string_is_accepted_and_garbage_denies() -> None:
    ui = FakeUI("once", "maybe")
    gate, _ = make_gate(ui)
    assert gate.review_command("rm -rf a").decision == "once"
    assert gate.review_command("rm -rf b").decision == "deny"


# ---- permanent allowlist ---------------------------------------------------------------------------------


def test_always_persists_to_yaml_and_a_new_gate_allows_without_asking(tmp_path: Path) -> None:
    config = tmp_path / "tui" / "config.yaml"
    config.parent.mkdir()
    config.write_text("theme: dracula\ncommand_allowlist:\n  - make deploy\n", encoding="utf-8")
    ui = FakeUI(ApprovalDecision.ALWAYS)
    gate, store = make_gate(ui, config_path=config, allowlist=load_allowlist(config))
    v = gate.review_command("git push --force origin main")
    assert v.allowed and v.decision == "always"
    assert store.decisions == ["always"]

    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    assert data["theme"] == "dracula"  # other keys kept
    assert data["command_allowlist"] == ["make deploy", "git push --force origin main"]
    assert stat.S_IMODE(os.stat(config).st_mode) == 0o600
    assert not [p for p in config.parent.iterdir() if p.name.endswith(".tmp")]

    # the same gate: allowlisted (also remembered for the session)
    assert gate.review_command("git push --force origin main").allowed
    assert len(ui.requests) == 1

    # a fresh gate (next run) loaded from the file: no prompt
    ui2 = FakeUI()
    gate2, store2 = make_gate(ui2, config_path=config, allowlist=load_allowlist(config))
    v2 = gate2.review_command("git push --force origin main")
    assert v2.allowed and v2.decision == "allowlist"
    assert ui2.requests == []
    assert store2.decisions == ["allowlist"]
    # but a different force push is not covered by an exact rule
    assert not gate2.review_command("git push --force origin other").allowed
    assert len(ui2.requests) == 1


def test_always_creates_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "home" / "tui" / "config.yaml"
    gate, _ = make_gate(FakeUI(ApprovalDecision.ALWAYS), config_path=config)
    assert gate.review_command("rm -rf build").decision == "always"
    assert load_allowlist(config) == ["rm -rf build"]
    assert stat.S_IMODE(os.stat(config).st_mode) == 0o600


def test_always_does_not_clobber_an_unreadable_config(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("key: [unclosed\n", encoding="utf-8")
    gate, _ = make_gate(FakeUI(ApprovalDecision.ALWAYS), config_path=config)
    assert gate.review_command("rm -rf build").allowed
    assert config.read_text(encoding="utf-8") == "key: [unclosed\n"
    assert load_allowlist(config) == []
    # still remembered in memory for this gate
    assert gate.review_command("rm -rf build").decision in ("allowlist", "session")


def test_load_allowlist_tolerates_missing_and_odd_files(tmp_path: Path) -> None:
    assert load_allowlist(None) == []
    assert load_allowlist(tmp_path / "missing.yaml") == []
    odd = tmp_path / "odd.yaml"
    odd.write_text("- a\n- b\n", encoding="utf-8")
    assert load_allowlist(odd) == []
    mixed = tmp_path / "mixed.yaml"
    mixed.write_text("command_allowlist: [ok, 3, null, '  ']\n", encoding="utf-8")
    assert load_allowlist(mixed) == ["ok"]


def test_allowlist_globs_never_match_compound_commands() -> None:
    ui = FakeUI()
    gate, _ = make_gate(ui, allowlist=["rm -rf build*", "git push --force; ls"])
    assert gate.review_command("rm -rf build/cache").decision == "allowlist"
    # a glob must not let a chained command through
    assert not gate.review_command("rm -rf build; rm -rf src").allowed
    assert not gate.review_command("rm -rf build && curl x | sh").allowed
    # an exact rule is exactly what the user approved, compound or not
    assert gate.review_command("git push --force; ls").decision == "allowlist"
    assert len(ui.requests) == 2


# ---- blocks, deny rules, yolo ----------------------------------------------------------------------------


@pytest.mark.parametrize("yolo", [False, True])
@pytest.mark.parametrize("mode", ["manual", "off"])
def test_hard_blocked_never_reaches_the_ui(yolo: bool, mode: str) -> None:
    ui = FakeUI(ApprovalDecision.ALWAYS)
    gate, store = make_gate(ui, mode=mode, allowlist=["rm -rf /"])
    gate.yolo = yolo
    gate.approve_session(["delete_root"])
    for cmd in ("rm -rf /", ":(){ :|:& };:", "sudo reboot", "dd if=/dev/zero of=/dev/sda"):
        v = gate.review_command(cmd)
        assert not v.allowed and v.decision == "blocked", cmd
        assert v.message.startswith("BLOCKED: This command is blocked by policy")
        assert "another way" in v.message
    assert ui.requests == []
    assert store.decisions == ["blocked"] * 4


def test_yolo_and_mode_off_approve_risky_commands_and_record_them() -> None:
    ui = FakeUI()
    gate, store = make_gate(ui)
    gate.yolo = True
    v = gate.review_command("rm -rf build")
    assert v.allowed and v.decision == "yolo" and v.reasons == ["deletes files recursively"]
    assert gate.review_command("ls").allowed
    gate.yolo = False
    assert not gate.review_command("rm -rf build").allowed  # back to asking (and the fake UI denies)
    assert len(ui.requests) == 1

    ui_off = FakeUI()
    gate_off, store_off = make_gate(ui_off, mode="off")
    assert gate_off.review_command("git reset --hard").decision == "yolo"
    assert ui_off.requests == []
    assert store.decisions == ["yolo", "deny"]
    assert store_off.decisions == ["yolo"]


def test_smart_mode_is_treated_as_manual() -> None:
    ui = FakeUI(ApprovalDecision.ONCE)
    gate, _ = make_gate(ui, mode="smart")
    assert gate.review_command("rm -rf build").decision == "once"
    assert len(ui.requests) == 1


def test_user_deny_rules_block_unconditionally() -> None:
    ui = FakeUI(ApprovalDecision.ONCE)
    gate, store = make_gate(ui, deny=["git push*", "*terraform destroy*"])
    gate.yolo = True
    v = gate.review_command("git push origin main")  # safe by itself, but the user denies it
    assert not v.allowed and v.decision == "denied_by_rule"
    assert "deny rule 'git push*'" in v.message and "Do NOT retry" in v.message
    # matched inside a chain too
    assert not gate.review_command("make && git push").allowed
    assert not gate.review_command("cd infra; terraform destroy -auto-approve").allowed
    assert gate.review_command("git status").allowed
    assert ui.requests == []
    assert store.decisions == ["denied_by_rule"] * 3


# ---- concurrency and interrupts --------------------------------------------------------------------------


def test_concurrent_prompts_are_serialized() -> None:
    ui = FakeUI(ApprovalDecision.ONCE, ApprovalDecision.ONCE, delay=0.15)
    gate, store = make_gate(ui)
    results: list[Verdict] = []
    start = threading.Barrier(2)

    def worker(cmd: str) -> None:
        start.wait()
        results.append(gate.review_command(cmd))

    threads = [threading.Thread(target=worker, args=(c,)) for c in ("rm -rf a", "git reset --hard")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert len(ui.requests) == 2
    assert ui.max_open == 1
    assert sorted(v.decision for v in results) == ["once", "once"]
    assert store.decisions == ["once", "once"]


def test_session_answer_on_the_first_prompt_covers_the_waiting_second() -> None:
    ui = FakeUI(ApprovalDecision.SESSION, delay=0.15)
    gate, _ = make_gate(ui)
    results: list[Verdict] = []
    start = threading.Barrier(2)

    def worker(cmd: str) -> None:
        start.wait()
        results.append(gate.review_command(cmd))

    threads = [threading.Thread(target=worker, args=(c,)) for c in ("rm -rf a", "rm -rf b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert len(ui.requests) == 1
    assert sorted(v.decision for v in results) == ["session", "session"]


def test_interrupt_set_refuses_without_asking() -> None:
    interrupt = threading.Event()
    interrupt.set()
    ui = FakeUI(ApprovalDecision.ONCE)
    gate, store = make_gate(ui, interrupt=interrupt)
    v = gate.review_command("rm -rf build")
    assert not v.allowed and v.decision == "interrupted"
    assert v.message.startswith("BLOCKED:") and "interrupted" in v.message
    assert ui.requests == []
    assert store.decisions == ["interrupted"]
    assert gate.review_command("ls").allowed  # safe commands are not the gate's business


def test_interrupt_while_waiting_for_another_prompt() -> None:
    interrupt = threading.Event()
    entered = threading.Event()

    class BlockingUI(FakeUI):
        def ask_approval(self, request: ApprovalRequest) -> ApprovalDecision:
            self.requests.append(request)
            entered.set()
            request.cancel.wait(5)  # a real UI returns when cancel is set
            return ApprovalDecision.DENY

    ui = BlockingUI()
    gate, _ = make_gate(ui, interrupt=interrupt)
    results: dict[str, Verdict] = {}
    first = threading.Thread(target=lambda: results.__setitem__("a", gate.review_command("rm -rf a")))
    first.start()
    assert entered.wait(5)
    second = threading.Thread(target=lambda: results.__setitem__("b", gate.review_command("git clean -fd")))
    second.start()
    time.sleep(0.1)
    interrupt.set()
    first.join(5)
    second.join(5)
    assert results["a"].decision == "interrupted"
    assert results["b"].decision == "interrupted"
    assert len(ui.requests) == 1


# ---- file writes -----------------------------------------------------------------------------------------


def test_write_inside_cwd_passes(tmp_path: Path) -> None:
    ui = FakeUI()
    gate, store = make_gate(ui)
    (tmp_path / "src").mkdir()
    assert gate.review_write(Path("src/main.py"), tmp_path, tool_name="write_file").decision == "safe"
    assert gate.review_write(tmp_path / "new.txt", tmp_path, tool_name="write_file").allowed
    assert ui.requests == [] and store.rows == []


def test_write_outside_cwd_asks(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    ui = FakeUI(ApprovalDecision.ONCE, ApprovalDecision.DENY)
    gate, store = make_gate(ui)
    v = gate.review_write(Path("../elsewhere.txt"), cwd, tool_name="write_file")
    assert v.allowed and v.decision == "once"
    (req,) = ui.requests
    assert req.reasons == ("writes outside the working directory",)
    assert req.pattern_keys == ("write_outside_cwd",)
    assert req.tool_name == "write_file"
    assert str(tmp_path / "elsewhere.txt") in req.command
    v2 = gate.review_write(Path("/tmp/x.txt"), cwd, tool_name="patch")
    assert not v2.allowed and v2.message.startswith("BLOCKED: The user denied this file write")
    assert store.decisions == ["once", "deny"]


def test_write_through_a_symlink_out_of_cwd_asks(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    outside = tmp_path / "outside"
    cwd.mkdir()
    outside.mkdir()
    (cwd / "link").symlink_to(outside, target_is_directory=True)
    ui = FakeUI(ApprovalDecision.DENY)
    gate, _ = make_gate(ui)
    v = gate.review_write(Path("link/file.txt"), cwd, tool_name="write_file")
    assert not v.allowed
    assert ui.requests[0].pattern_keys == ("write_outside_cwd",)


def test_sensitive_write_inside_cwd_asks(tmp_path: Path) -> None:
    ui = FakeUI(ApprovalDecision.SESSION)
    gate, _ = make_gate(ui)
    v = gate.review_write(Path(".env"), tmp_path, tool_name="write_file")
    assert v.allowed and v.decision == "session"
    assert ui.requests[0].pattern_keys == ("env_file_write",)
    # the session approval covers the next .env write
    assert gate.review_write(Path("sub/.env.local"), tmp_path, tool_name="write_file").decision == "session"
    assert len(ui.requests) == 1
    assert gate.review_write(Path(".env.example"), tmp_path, tool_name="write_file").decision == "safe"


def test_write_outside_cwd_and_sensitive_lists_both(tmp_path: Path) -> None:
    ui = FakeUI(ApprovalDecision.DENY)
    gate, _ = make_gate(ui)
    gate.review_write(Path("~/.ssh/authorized_keys"), tmp_path, tool_name="write_file")
    assert set(ui.requests[0].pattern_keys) == {"ssh_write", "write_outside_cwd"}


def test_write_to_a_block_device_is_blocked(tmp_path: Path) -> None:
    ui = FakeUI(ApprovalDecision.ONCE)
    gate, store = make_gate(ui)
    gate.yolo = True
    v = gate.review_write(Path("/dev/sda"), tmp_path, tool_name="write_file")
    assert not v.allowed and v.decision == "blocked"
    assert ui.requests == []
    assert store.decisions == ["blocked"]


def test_store_is_optional_and_its_errors_do_not_break_the_gate() -> None:
    class BrokenStore:
        def record_approval(self, *args: object) -> None:
            raise OSError("disk full")

    ui = FakeUI(ApprovalDecision.ONCE)
    gate = ApprovalGate(ui=ui, session_id="s", store=BrokenStore())
    assert gate.review_command("rm -rf x").decision == "once"
    gate_none = ApprovalGate(ui=FakeUI(ApprovalDecision.ONCE), session_id="s")
    assert gate_none.review_command("rm -rf x").allowed


# ---- decisions, Hermes' home, sudo -S --------------------------------------------------------------------


def test_the_decision_is_an_enum_and_the_store_gets_its_value() -> None:
    ui = FakeUI(ApprovalDecision.ONCE)
    gate, store = make_gate(ui)
    v = gate.review_command("rm -rf build")
    assert v.decision is Decision.ONCE and v.decision.allowed
    assert not Decision.DENY.allowed and Decision.SAFE.allowed
    assert store.rows[0][3] == "once" and type(store.rows[0][3]) is str


def test_writes_into_hermes_home_ask_however_it_is_named(tmp_path: Path) -> None:
    real = tmp_path / "profiles" / "work"
    real.mkdir(parents=True)
    link = tmp_path / "hermes"
    link.symlink_to(real, target_is_directory=True)
    ui = FakeUI()
    gate, _ = make_gate(ui, hermes_home=link)
    for command in (
        "tee $HERMES_HOME/config.yaml < new.yaml",
        f"sed -i s/manual/off/ {link}/config.yaml",
        f"perl -pi -e s/a/b/ {real}/config.yaml",  # the resolved path
        f"echo 'mode: off' > {real}/tui/config.yaml",
    ):
        v = gate.review_command(command)
        assert not v.allowed and ui.requests[-1].pattern_keys == ("hermes_config_write",), command
    assert gate.review_command(f"cat {real}/config.yaml").decision == "safe"
    write = gate.review_write(real / "tui" / "config.yaml", real, tool_name="write_file")
    assert not write.allowed and ui.requests[-1].pattern_keys == ("hermes_config_write",)


def test_sudo_reading_the_password_from_stdin_is_refused_even_in_yolo() -> None:
    ui = FakeUI(ApprovalDecision.ALWAYS)
    gate, store = make_gate(ui)
    gate.yolo = True
    v = gate.review_command("echo hunter2 | sudo -S apt-get install jq")
    assert not v.allowed and v.decision == "blocked"
    assert "sudo password through stdin" in v.message
    assert ui.requests == [] and store.decisions == ["blocked"]
    assert gate.review_command("sudo apt-get install jq").decision == "yolo"


def test_the_agent_gives_the_gate_its_hermes_home(hermes_home: Path, tmp_path: Path) -> None:
    from scripted import ScriptedServer
    from tests.engine.helpers import make_agent

    config = hermes_home / "tui" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("approvals:\n  mode: manual\n")
    command = f"sed -i s/manual/off/ {config}"
    calls = [{"tool_calls": [{"name": "terminal", "arguments": {"command": command}}]}, {"text": "ok"}]
    ui = RecordingUI(approval=ApprovalDecision.DENY)
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, ui=ui)
        agent.run_conversation("turn approvals off")
    assert [r.pattern_keys for r in ui.approval_requests] == [("hermes_config_write",)]
    assert config.read_text() == "approvals:\n  mode: manual\n"


# ---- Hermes' home when no one names it ---------------------------------------------------------------


def test_without_a_home_given_the_process_hermes_home_is_protected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent.approval import detect

    custom = tmp_path / "work-profile"
    monkeypatch.setenv("HERMES_HOME", str(custom))
    assert detect(f"sed -i 's/mode: manual/mode: off/' {custom}/config.yaml").keys == ["hermes_config_write"]
    assert detect(f"echo x > {custom}-notes.txt").keys == []
    gate, _ = make_gate(FakeUI())
    assert not gate.review_command(f"tee {custom}/config.yaml < new.yaml").allowed


def test_a_relative_write_from_inside_a_custom_hermes_home_asks(tmp_path: Path) -> None:
    custom = tmp_path / "profile"
    custom.mkdir()
    ui = FakeUI()
    gate, _ = make_gate(ui, hermes_home=custom)
    verdict = gate.review_command("sed -i 's/mode: manual/mode: off/' config.yaml", cwd=custom)
    assert not verdict.allowed and ui.requests[0].reasons == ("writes Hermes configuration",)
    assert gate.review_command("sed -i s/a/b/ config.yaml", cwd=tmp_path).allowed
    assert gate.review_command("cd profile && sed -i s/a/b/ config.yaml", cwd=tmp_path).allowed is False
