""" "Always allow" offers a rule to edit: what is offered, that the edited rule is the one saved, and that it
matches later commands exactly as the user saw it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.approval import ApprovalGate, load_allowlist
from agent.approval.allowlist import rule_matches, suggest_rule, suggest_write_rule
from agent.core.events import AgentEvent
from agent.core.ui import AgentUI, ApprovalAnswer, ApprovalDecision, ApprovalRequest, ClarifyRequest


class AnsweringUI:
    """Answers every approval with `answer`; keeps the requests it saw."""

    def __init__(self, answer: ApprovalDecision | ApprovalAnswer) -> None:
        self.answer = answer
        self.requests: list[ApprovalRequest] = []

    def on_event(self, event: AgentEvent) -> None:
        pass

    def ask_clarify(self, request: ClarifyRequest) -> str | None:
        return None

    def ask_approval(self, request: ApprovalRequest) -> ApprovalDecision | ApprovalAnswer:
        self.requests.append(request)
        return self.answer


def _gate(ui: AgentUI, config: Path) -> ApprovalGate:
    return ApprovalGate(ui=ui, session_id="s", config_path=config, allowlist=load_allowlist(config))


@pytest.mark.parametrize(
    ("command", "offered"),
    [
        ("git push origin main", "git push *"),
        ("git push --force origin main", "git push --force *"),
        ("rm -rf build", "rm -rf *"),
        ("chmod -R 777 dist", "chmod -R *"),
        ("reboot", "reboot"),  # nothing after the head: exact
        ("git push", "git push"),
        ("rm -rf build && curl x | sh", "rm -rf build && curl x | sh"),  # compound: a glob never matches
        ("'rm' -rf build", "'rm' -rf build"),  # a quoted head would not match as written
        ("git  push origin", "git  push origin"),  # unusual spacing: the glob would not match it
    ],
)
def test_the_offered_rule_always_matches_the_command_it_was_made_for(command: str, offered: str) -> None:
    assert suggest_rule(command) == offered
    assert rule_matches(offered, command)


def test_a_write_is_offered_its_folder() -> None:
    assert suggest_write_rule("write /work/app/src/a.py", "/work/app/src") == "write /work/app/src/*"
    assert suggest_write_rule("write /w/[x]/a.py", "/w/[x]") == "write /w/[x]/a.py"  # glob chars: exact


def test_the_gate_offers_the_suggestion_and_saves_the_edited_rule(tmp_path: Path) -> None:
    config = tmp_path / "tui" / "config.yaml"
    ui = AnsweringUI(ApprovalAnswer(ApprovalDecision.ALWAYS, "git push --force origin *"))
    gate = _gate(ui, config)
    assert gate.review_command("git push --force origin main").decision == "always"
    request = ui.requests[0]
    assert request.suggested_rule == "git push --force origin main"  # a force push is never widened
    assert request.rule == "git push --force origin main"
    assert load_allowlist(config) == ["git push --force origin *"]  # the edited rule, not the offered one

    # As the user saw it: a fresh gate (the next run) allows what the edited rule matches, only that.
    asker = AnsweringUI(ApprovalDecision.DENY)
    fresh = _gate(asker, config)
    assert fresh.review_command("git push --force origin feature-x").decision == "allowlist"
    assert not fresh.review_command("git push --force upstream main").allowed
    assert not fresh.review_command("git push --force origin main; rm -rf ~").allowed  # never a chain
    assert asker.requests[0].command == "git push --force upstream main"


def test_a_bare_always_still_saves_the_exact_command(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    gate = _gate(AnsweringUI(ApprovalDecision.ALWAYS), config)
    assert gate.review_command("git push --force origin main").allowed
    assert load_allowlist(config) == ["git push --force origin main"]


def test_a_write_rule_as_edited_covers_the_folder(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    cwd = tmp_path / "project"
    cwd.mkdir()
    ui = AnsweringUI(ApprovalDecision.DENY)
    gate = _gate(ui, config)
    assert not gate.review_write(outside / "a.txt", cwd, tool_name="write_file").allowed
    offered = ui.requests[0].suggested_rule
    assert offered == f"write {outside.resolve()}/*"
    ui.answer = ApprovalAnswer(ApprovalDecision.ALWAYS, offered)
    assert gate.review_write(outside / "b.txt", cwd, tool_name="write_file").decision == "always"
    fresh = _gate(AnsweringUI(ApprovalDecision.DENY), config)
    assert fresh.review_write(outside / "c.txt", cwd, tool_name="write_file").decision == "allowlist"


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf build",
        "rm -f notes.txt",
        "git push --force origin main",
        "git clean -fdx",
        "git reset --hard HEAD~3",
    ],
)
def test_always_never_offers_a_wildcard_for_a_destructive_command(tmp_path: Path, command: str) -> None:
    ui = AnsweringUI(ApprovalDecision.DENY)
    _gate(ui, tmp_path / "config.yaml").review_command(command)
    assert ui.requests[0].suggested_rule == command  # `rm -rf *` is one Enter from deleting anything


def test_a_denial_with_a_reason_tells_the_model_the_reason(tmp_path: Path) -> None:
    ui = AnsweringUI(ApprovalAnswer(ApprovalDecision.DENY, reason="use make clean instead"))
    verdict = _gate(ui, tmp_path / "config.yaml").review_command("rm -rf build")
    assert not verdict.allowed and verdict.decision == "deny"
    assert "use make clean instead" in verdict.message and "denied" in verdict.message
