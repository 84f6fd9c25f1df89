"""The approval gate: whether a command or file write may run, asking the user (one prompt at a time).

The session's permission mode (`agent.approval.modes`, `permission_mode`) comes first: plan mode refuses
edits, commands and actions without a question (`review_mode`, and again in `review_write` /
`review_command`); ask mode adds a reason to every edit and every command that is not read-only, so they
reach the question below. Then, in order: hard block (even in yolo), the user's deny rules, yolo / mode off,
nothing risky,
the permanent allowlist, this session's approvals, in smart mode a reviewing model's verdict
(`agent.approval.smart`: approve, deny, or escalate to the user), and otherwise a prompt through
`AgentUI.ask_approval`.
With an OS sandbox (`sandbox`), what it contains runs without asking and what must leave it asks
(`agent.approval.sandbox_bounds`); only the user's own answer lets a call out (never the allowlist, yolo or
the reviewing model): `Verdict.outside_sandbox`.
`review_write` asks about the text `write <resolved path>`, which is also the rule "always" saves for it.
User deny globs are matched against the whole command and against every simple command found in it (also
inside `sh -c` and `$(...)`).
"""

from __future__ import annotations

import fnmatch
import json
import logging
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent.approval.allowlist import (
    allowlisted,
    is_compound,
    load_allowlist,
    save_allowlist_rule,
    suggest_rule,
    suggest_write_rule,
)
from agent.approval.detect import Detection, detect, detection_of
from agent.approval.modes import (
    Rule,
    access_of,
    is_read_only_command,
    plan_refusal,
    programs_of,
    rule_for,
)
from agent.approval.paths import PathPolicy, write_key
from agent.approval.reasons import DESTRUCTIVE_KEYS, REASONS, Match
from agent.approval.rules import Collector
from agent.approval.smart import SmartApprover, SmartVerdict
from agent.core.events import StatusNotice
from agent.core.permission_mode import PermissionMode
from agent.core.ui import AgentUI, ApprovalAnswer, ApprovalDecision, ApprovalRequest

if TYPE_CHECKING:  # the sandbox's module is imported only when a session has one
    from agent.approval.sandbox_bounds import SandboxBounds

log = logging.getLogger(__name__)


class Decision(StrEnum):
    SAFE = "safe"
    YOLO = "yolo"
    ALLOWLIST = "allowlist"
    SESSION = "session"
    ONCE = "once"
    ALWAYS = "always"
    BLOCKED = "blocked"
    DENIED_BY_RULE = "denied_by_rule"
    DENY = "deny"
    TIMEOUT = "timeout"
    INTERRUPTED = "interrupted"
    SMART_APPROVE = "smart_approve"  # the reviewing model approved it (this once)
    SMART_DENY = "smart_deny"  # the reviewing model refused it
    PLAN_MODE = "plan_mode"  # refused without a question: the session is in plan mode

    @property
    def allowed(self) -> bool:
        return self in _ALLOWED


_ALLOWED = frozenset(
    {
        Decision.SAFE,
        Decision.YOLO,
        Decision.ALLOWLIST,
        Decision.SESSION,
        Decision.ONCE,
        Decision.ALWAYS,
        Decision.SMART_APPROVE,
    }
)
ESCALATED = "the reviewing model left this to you (smart approval)"
"""The reason added to an escalated request: shown on the question and recorded with the user's answer."""


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    decision: Decision
    reasons: list[str]
    message: str  # the text for the model when refused; "" when allowed
    # Approved by the user to leave the OS sandbox: this call runs outside it.
    outside_sandbox: bool = False


class ApprovalStore(Protocol):
    def record_approval(self, session_id: str, command: str, reasons: list[str], decision: str) -> None: ...


def _normalize_mode(mode: object) -> str:
    """The config loader validates `approvals.mode`; this only guards direct construction."""
    if mode is False:
        return "off"
    m = str(mode or "manual").strip().lower()
    if m in ("off", "false", "no", "0"):
        return "off"
    return "smart" if m == "smart" else "manual"


def _resolve(p: Path) -> Path:
    try:
        return p.resolve()
    except (OSError, RuntimeError):
        return Path(os.path.abspath(p))


_NEVER_WIDENED = DESTRUCTIVE_KEYS | {"git_force_push", "git_branch_delete"}
"""Effects whose "always" rule is the exact command: `rm -rf build` must not be offered as `rm -rf *`, nor
`git push --force origin main` as `git push --force *` (a rule the user saves in one keystroke)."""


def _never_widened(det: Detection) -> bool:
    return any(key in _NEVER_WIDENED for key in det.keys)


def _diff_text(make: Callable[[], str] | None) -> str:
    if make is None:
        return ""
    try:
        return make()
    except Exception:  # the question still asks, without the diff
        log.exception("approval: could not make the edit's diff")
        return ""


def _brief(arguments: Mapping[str, Any]) -> str:
    """A call's arguments on one line, as the question and the record show them."""
    text = json.dumps(dict(arguments), ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    return text if len(text) <= 300 else text[:299] + "…"


def _outside_message(det: Detection) -> str:
    what = "; ".join(m.reason for m in det.matches if m.key.startswith("sandbox_"))
    return (
        f"BLOCKED: this {what}. Only the user's approval in a dialog lets a call out of the sandbox "
        "(not yolo or approvals off). Work inside the workspace, or tell the user what you need."
    )


def _interrupted_message(noun: str, what: str) -> str:
    return (
        f"BLOCKED: The approval request for this {noun} was cancelled because the user interrupted ({what}). "
        "Do NOT retry it; wait for the user's next instruction."
    )


class ApprovalGate:
    """Decides whether a command or file write may run; asks the user (one prompt at a time) when needed.

    hermes_home: Hermes' real home (from the settings): writes into it are protected whether a command names
    it as `$HERMES_HOME`, `~/.hermes` or its resolved path."""

    def __init__(
        self,
        *,
        ui: AgentUI,
        session_id: str,
        mode: str = "manual",
        allowlist: list[str] | None = None,
        deny: list[str] | None = None,
        config_path: Path | None = None,
        store: ApprovalStore | None = None,
        timeout: float = 300.0,
        interrupt: threading.Event | None = None,
        hermes_home: Path | None = None,
        smart: SmartApprover | None = None,
        sandbox: SandboxBounds | None = None,
    ) -> None:
        self.ui = ui
        self.session_id = session_id
        self.mode = _normalize_mode(mode)
        self.config_path = Path(config_path) if config_path is not None else None
        # allowlist=None with a config file: start from the rules saved there
        self.allowlist: list[str] = (
            list(allowlist) if allowlist is not None else load_allowlist(self.config_path)
        )
        self.deny: list[str] = list(deny or [])
        self.store = store
        self.timeout = timeout
        self.interrupt = interrupt
        self.permission_mode = PermissionMode.DEFAULT
        self.policy = PathPolicy.for_home(hermes_home)
        self.smart = smart  # used in smart mode; without one, smart mode asks the user like manual
        self.sandbox = sandbox  # the session's OS sandbox: what it contains runs without asking
        self._session_keys: set[str] = set()
        self._state_lock = threading.Lock()
        self._prompt_lock = threading.Lock()

    # ---- public ------------------------------------------------------------------------------------------

    @property
    def yolo(self) -> bool:
        """The `yolo` permission mode (kept as a flag for the callers that only switch it on and off)."""
        return self.permission_mode is PermissionMode.YOLO

    @yolo.setter
    def yolo(self, on: bool) -> None:
        if on:
            self.permission_mode = PermissionMode.YOLO
        elif self.permission_mode is PermissionMode.YOLO:
            self.permission_mode = PermissionMode.DEFAULT

    @property
    def asks_every_action(self) -> bool:
        """Ask mode: `review_mode` asked before the call, so a tool's own question would ask twice."""
        return self.permission_mode is PermissionMode.ASK

    def review_mode(
        self, tool_name: str, arguments: Mapping[str, Any], *, read_only: bool = False
    ) -> Verdict | None:
        """What the permission mode says about a call before it runs: a refusal (plan mode), the user's
        answer (ask mode, for an action that is neither an edit nor a command: those ask in their own
        review, with the diff or the command), or None: the call runs and its tool's own review applies."""
        mode = self.permission_mode
        access = access_of(tool_name, arguments, read_only=read_only)
        rule = rule_for(mode, access)
        if rule is Rule.RUN:
            return None
        if rule is Rule.REFUSE:
            return self._plan_refusal(f"{tool_name} ({access.value})", f"{tool_name} {_brief(arguments)}")
        return self.review_tool_call(tool_name, _brief(arguments), REASONS["ask_action"])

    def detect(self, command: str, cwd: Path | None = None) -> Detection:
        return detect(command, policy=self.policy.at(cwd))

    def review_command(
        self, command: str, *, tool_name: str = "terminal", cwd: Path | None = None
    ) -> Verdict:
        """`cwd`: where the command runs (relative paths into Hermes' home, /etc, ... count as such)."""
        if self.permission_mode is PermissionMode.PLAN:
            return self._plan_refusal("running a command", command)
        det = self.detect(command, cwd)
        if self.permission_mode is PermissionMode.ASK and not is_read_only_command(command):
            # keyed by the programs it runs: "this session" then covers `npm ...`, not every command
            asked = Match(f"ask_command:{programs_of(command)}", REASONS["ask_command"])
            det = Detection(det.hard_blocked, [*det.matches, asked], det.segments, det.paths)
        if self.sandbox is not None and not det.hard_blocked:
            return self._review_sandboxed(command, det, tool_name=tool_name, cwd=cwd)
        return self._review(
            command,
            det,
            tool_name=tool_name,
            compound=is_compound(command),
            deny_texts=[command.strip(), *det.segments],
            noun="command",
            suggested_rule=command.strip() if _never_widened(det) else suggest_rule(command),
        )

    def _review_sandboxed(self, command: str, det: Detection, *, tool_name: str, cwd: Path | None) -> Verdict:
        """A command in the OS sandbox: what the sandbox contains is not asked about; leaving it asks."""
        from agent.approval.sandbox_bounds import CONTAINED_KEYS, escapes
        from agent.shell import analyze

        where = Path(cwd) if cwd is not None else Path.cwd()
        assert self.sandbox is not None
        try:
            leaving = escapes(analyze(command), self.sandbox, where)
        except Exception:  # an analyser bug: the sandbox still bounds the command
            log.exception("approval: could not analyse command %r for the sandbox", command[:200])
            leaving = []
        if leaving:
            # Outside the sandbox nothing is contained: every reason the gate found counts again.
            escape = Detection(False, [*det.matches, *leaving], det.segments, det.paths)
            return self._review_escape(command, escape, tool_name=tool_name, noun="command")
        kept = [m for m in det.matches if m.key not in CONTAINED_KEYS]
        return self._review(
            command,
            Detection(False, kept, det.segments, det.paths),
            tool_name=tool_name,
            compound=is_compound(command),
            deny_texts=[command.strip(), *det.segments],
            noun="command",
            suggested_rule=command.strip() if _never_widened(det) else suggest_rule(command),
        )

    def _review_escape(
        self,
        command: str,
        det: Detection,
        *,
        tool_name: str,
        noun: str,
        diff: Callable[[], str] | None = None,
    ) -> Verdict:
        """A call that must leave the sandbox: the user's deny rules, this session's sandbox approvals, else
        the user's answer; never the allowlist, the reviewing model, or yolo (which keep a command inside:
        the sandbox then refuses what it must)."""
        from agent.approval.sandbox_bounds import OUTSIDE_NOTE

        deny_texts = [command.strip(), *det.segments]
        ruled = self._by_policy(command, det, noun=noun, deny_texts=deny_texts)
        if ruled is not None and not ruled.allowed:
            return ruled
        if ruled is not None:  # yolo or approvals off: inside the sandbox, where a write or connection fails
            if noun != "file write":
                return ruled
            return self._refuse(command, det.reasons, Decision.BLOCKED, _outside_message(det))
        if self._session_covers(det.keys):
            return self._allow(command, det.reasons, Decision.SESSION, outside=True)
        reasons = [*det.reasons, OUTSIDE_NOTE]
        while not self._prompt_lock.acquire(timeout=0.05):
            if self._interrupted():
                msg = _interrupted_message(noun, "; ".join(reasons))
                return self._refuse(command, reasons, Decision.INTERRUPTED, msg)
        try:
            verdict = self._prompt(
                command,
                reasons,
                det.keys,
                tool_name=tool_name,
                compound=False,
                noun=noun,
                allow_rule=command,
                subject=f"{noun} outside the sandbox",
                allow_permanent=False,
                diff=diff,
            )
        finally:
            self._prompt_lock.release()
        if verdict.allowed:
            return Verdict(True, verdict.decision, verdict.reasons, "", outside_sandbox=True)
        return verdict

    def review_write(
        self, path: Path, cwd: Path, *, tool_name: str, diff: Callable[[], str] | None = None
    ) -> Verdict:
        """`diff`: makes what the edit changes, called only when a question is asked (which shows it; ask
        mode always asks)."""
        raw = Path(os.path.expanduser(str(path)))
        base = Path(cwd)
        full = raw if raw.is_absolute() else base / raw
        resolved = _resolve(full)
        cwd_resolved = _resolve(base)
        col = Collector(self.policy)
        for candidate in (str(resolved), str(path)):
            key = write_key(candidate, self.policy)
            if key:
                col.add(key, candidate)
        command = f"write {resolved}"
        if self.permission_mode is PermissionMode.PLAN:
            return self._plan_refusal("editing a file", command)
        if self.permission_mode is PermissionMode.ASK:
            col.add("ask_edit")
        if self.sandbox is not None:
            from agent.approval.sandbox_bounds import CONTAINED_KEYS

            det = detection_of(col, (str(resolved),))
            if not self.sandbox.allows_write(resolved):
                leaving = Match("sandbox_write", f"writes outside the {self.sandbox.label}: {resolved}")
                escape = Detection(False, [*det.matches, leaving], det.segments, det.paths)
                return self._review_escape(command, escape, tool_name=tool_name, noun="file write", diff=diff)
            inside = [m for m in det.matches if m.key not in CONTAINED_KEYS]
            det = Detection(False, inside, det.segments, det.paths)
        else:
            if not (resolved == cwd_resolved or resolved.is_relative_to(cwd_resolved)):
                col.add("write_outside_cwd")
            det = detection_of(col, (str(resolved),))
        return self._review(
            command,
            det,
            tool_name=tool_name,
            compound=False,
            deny_texts=[command],
            noun="file write",
            suggested_rule=suggest_write_rule(command, str(resolved.parent)),
            diff=diff,
        )

    def review_tool_call(
        self, tool_name: str, arguments: str, reason: str, *, subject: str | None = None
    ) -> Verdict:
        """A call of a tool that is neither a shell command nor a file write (an MCP server's tool, or its
        sampling request, `subject` saying which).

        The user sees `tool_name arguments`; "this session" approves every call of `tool_name` for the
        session and "always" saves the rule `tool_name` (deny and allow rules match the tool's name as a
        glob too, so `mcp_github_*` covers a whole server)."""
        command = f"{tool_name} {arguments}".strip()
        key = f"tool:{tool_name}"
        det = Detection(False, [Match(key, reason, False)])
        return self._review(
            command,
            det,
            tool_name=tool_name,
            compound=False,
            deny_texts=[tool_name, command],
            noun="tool call",
            allow_rule=tool_name,
            subject=subject or ("MCP tool call" if tool_name.startswith("mcp_") else "tool call"),
        )

    def approve_session(self, keys: list[str] | tuple[str, ...]) -> None:
        with self._state_lock:
            self._session_keys.update(keys)

    @property
    def session_keys(self) -> frozenset[str]:
        with self._state_lock:
            return frozenset(self._session_keys)

    # ---- internals ---------------------------------------------------------------------------------------

    def _record(self, command: str, reasons: list[str], decision: Decision) -> None:
        if self.store is None:
            return
        try:
            self.store.record_approval(self.session_id, command, list(reasons), decision.value)
        except Exception:
            log.exception("approval: could not record the decision")

    def _allowlisted(self, command: str, compound: bool) -> bool:
        with self._state_lock:
            rules = list(self.allowlist)
        return allowlisted(rules, command, compound=compound)

    def _session_covers(self, keys: list[str]) -> bool:
        with self._state_lock:
            return bool(keys) and all(k in self._session_keys for k in keys)

    def _deny_rule(self, texts: list[str]) -> str | None:
        for rule in self.deny:
            for t in texts:
                if t and (t == rule or fnmatch.fnmatchcase(t, rule)):
                    return rule
        return None

    def _interrupted(self) -> bool:
        return self.interrupt is not None and self.interrupt.is_set()

    def _review(
        self,
        command: str,
        det: Detection,
        *,
        tool_name: str,
        compound: bool,
        deny_texts: list[str],
        noun: str,
        allow_rule: str | None = None,
        subject: str = "command",
        suggested_rule: str = "",
        diff: Callable[[], str] | None = None,
    ) -> Verdict:
        """`allow_rule`: what the allowlist is matched against and a bare "always" saves (default: the
        command); `suggested_rule`: the rule offered for editing (default: `allow_rule`)."""
        allow_rule = command if allow_rule is None else allow_rule
        ruled = self._by_policy(command, det, noun=noun, deny_texts=deny_texts)
        if ruled is not None:
            return ruled
        reasons = det.reasons
        if self._allowlisted(allow_rule, compound):
            return self._allow(command, reasons, Decision.ALLOWLIST)
        if self._session_covers(det.keys):
            return self._allow(command, reasons, Decision.SESSION)
        if self._interrupted():
            return self._refuse(
                command, reasons, Decision.INTERRUPTED, _interrupted_message(noun, "; ".join(reasons))
            )
        if self.mode == "smart" and self.smart is not None and noun == "command":
            judged = self._smart_review(command, reasons, noun)
            if judged is not None:
                return judged
            reasons = [*reasons, ESCALATED]
        # one prompt at a time; wait in slices so an interrupt is noticed while another prompt is open
        while not self._prompt_lock.acquire(timeout=0.05):
            if self._interrupted():
                what = "; ".join(reasons)
                return self._refuse(command, reasons, Decision.INTERRUPTED, _interrupted_message(noun, what))
        try:
            return self._prompt(
                command,
                reasons,
                det.keys,
                tool_name=tool_name,
                compound=compound,
                noun=noun,
                allow_rule=allow_rule,
                subject=subject,
                suggested_rule=suggested_rule,
                diff=diff,
            )
        finally:
            self._prompt_lock.release()

    def _by_policy(self, command: str, det: Detection, *, noun: str, deny_texts: list[str]) -> Verdict | None:
        """What is decided without asking anyone: a hard block, the user's deny rules, yolo (or approvals
        off), nothing dangerous found. None: the allowlist, the session or the user decides."""
        reasons = det.reasons
        if det.hard_blocked:
            hard = [m.reason for m in det.matches if m.hard]
            msg = (
                f"BLOCKED: This {noun} is blocked by policy ({'; '.join(hard)}). It must never be run, "
                "not even with the user's approval: do NOT retry it, rephrase it, or try to achieve the same "
                "result another way. Tell the user what you wanted to do instead."
            )
            return self._refuse(command, hard, Decision.BLOCKED, msg)
        rule = self._deny_rule(deny_texts)
        if rule is not None:
            why = [*reasons, f"matches the user's deny rule '{rule}'"]
            msg = (
                f"BLOCKED: This {noun} matches the user's deny rule '{rule}'. Do NOT retry it or try to "
                "achieve the same result another way; ask the user what they want instead."
            )
            return self._refuse(command, why, Decision.DENIED_BY_RULE, msg)
        if self.yolo or self.mode == "off":
            if det.matches:
                self._record(command, reasons, Decision.YOLO)
            return Verdict(True, Decision.YOLO, reasons, "")
        if not det.matches:
            return Verdict(True, Decision.SAFE, [], "")
        return None

    def _smart_review(self, command: str, reasons: list[str], noun: str) -> Verdict | None:
        """Smart mode's model judges the command; None: it escalated to the user."""
        assert self.smart is not None
        verdict = self.smart.review(command, reasons, self.interrupt)
        self._announce(verdict, command)
        if verdict is SmartVerdict.APPROVE:
            return self._allow(command, reasons, Decision.SMART_APPROVE)
        if verdict is SmartVerdict.DENY:
            what = "; ".join(reasons)
            msg = (
                f"BLOCKED by smart approval: this {noun} was judged genuinely dangerous ({what}). "
                "Do NOT retry it or try to achieve the same result another way; tell the user what you "
                "wanted to do."
            )
            return self._refuse(command, reasons, Decision.SMART_DENY, msg)
        return None

    def _prompt(
        self,
        command: str,
        reasons: list[str],
        keys: list[str],
        *,
        tool_name: str,
        compound: bool,
        noun: str,
        allow_rule: str,
        subject: str,
        suggested_rule: str = "",
        diff: Callable[[], str] | None = None,
        allow_permanent: bool = True,
    ) -> Verdict:
        what = "; ".join(reasons)
        # the previous prompt may have approved this ("this session" / "always")
        if allow_permanent and self._allowlisted(allow_rule, compound):
            return self._allow(command, reasons, Decision.ALLOWLIST)
        if self._session_covers(keys):
            return self._allow(command, reasons, Decision.SESSION)
        if self._interrupted():
            return self._refuse(command, reasons, Decision.INTERRUPTED, _interrupted_message(noun, what))
        request = ApprovalRequest(
            command=command,
            reasons=tuple(reasons),
            pattern_keys=tuple(keys),
            timeout=self.timeout,
            tool_name=tool_name,
            rule=allow_rule.strip(),
            suggested_rule=suggested_rule.strip() or allow_rule.strip(),
            allow_permanent=allow_permanent,
            cancel=self.interrupt if self.interrupt is not None else threading.Event(),
            subject=subject,
            diff=_diff_text(diff),
        )
        reply = self._ask(request)
        answer = reply.decision
        if self._interrupted():
            return self._refuse(command, reasons, Decision.INTERRUPTED, _interrupted_message(noun, what))
        if answer is ApprovalDecision.ONCE:
            return self._allow(command, reasons, Decision.ONCE)
        if answer is ApprovalDecision.SESSION:
            self.approve_session(keys)
            return self._allow(command, reasons, Decision.SESSION)
        if answer is ApprovalDecision.ALWAYS:
            self.approve_session(keys)
            self._remember(reply.rule.strip() or allow_rule.strip())  # the rule as the user edited it
            return self._allow(command, reasons, Decision.ALWAYS)
        if answer is ApprovalDecision.TIMEOUT:
            msg = (
                f"BLOCKED: The user did not respond to the approval request for this {noun} within "
                f"{self.timeout:g} s ({what}). Silence is not consent: do NOT retry it, do NOT rephrase "
                "it, and do NOT attempt the same outcome another way."
            )
            return self._refuse(command, reasons, Decision.TIMEOUT, msg)
        if reply.reason:
            msg = (
                f"BLOCKED: The user denied this {noun} ({what}) and said why: {reply.reason!r}. Do NOT retry "
                "it; take what they said into account."
            )
        else:
            msg = (
                f"BLOCKED: The user denied this {noun} ({what}). Do NOT retry it or try to achieve the same "
                "result another way; ask the user what they want instead."
            )
        return self._refuse(command, reasons, Decision.DENY, msg)

    def _announce(self, verdict: SmartVerdict, command: str) -> None:
        """The reviewing model's verdict, in the transcript."""
        line = " ".join(command.split())
        if len(line) > 80:
            line = line[:79] + "…"
        says = {
            SmartVerdict.APPROVE: ("info", "approved"),
            SmartVerdict.DENY: ("warn", "denied"),
            SmartVerdict.ESCALATE: ("warn", "left the decision to you for"),
        }[verdict]
        try:
            self.ui.on_event(StatusNotice(kind=says[0], text=f"Smart approval {says[1]}: {line}"))
        except Exception:
            log.exception("approval: could not show the smart verdict")

    def _remember(self, rule: str) -> None:
        with self._state_lock:
            if rule not in self.allowlist:
                self.allowlist.append(rule)
        if self.config_path is not None:
            try:
                save_allowlist_rule(self.config_path, rule)
            except Exception:
                log.exception("approval: could not save the allow rule to %s", self.config_path)

    def _ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        try:
            raw = self.ui.ask_approval(request)
            if isinstance(raw, ApprovalAnswer):
                return raw
            if isinstance(raw, ApprovalDecision):
                return ApprovalAnswer(raw)
            return ApprovalAnswer(ApprovalDecision(str(raw).strip().lower()))
        except Exception:
            log.exception("approval: the UI failed to answer; denying")
            return ApprovalAnswer(ApprovalDecision.DENY)

    def _allow(
        self, command: str, reasons: list[str], decision: Decision, *, outside: bool = False
    ) -> Verdict:
        self._record(command, reasons, decision)
        return Verdict(True, decision, reasons, "", outside_sandbox=outside)

    def _plan_refusal(self, what: str, command: str) -> Verdict:
        return self._refuse(command, ["plan mode"], Decision.PLAN_MODE, plan_refusal(what))

    def _refuse(self, command: str, reasons: list[str], decision: Decision, message: str) -> Verdict:
        self._record(command, reasons, decision)
        return Verdict(False, decision, reasons, message)
