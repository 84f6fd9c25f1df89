"""Dangerous-command detection and the approval gate.

* `detect(command)` reads a shell command through `agent.shell` (tolerantly: it never raises on bad
  quoting) and reports which risky patterns it contains. Each `Match` has a stable `key` (what session
  approvals remember) and a human-readable `reason`; HARD keys are refused even in yolo mode.
* `ApprovalGate` decides whether a tool call may run: hard block, user deny rules, yolo/off, permanent
  allowlist, session approvals, and otherwise a (serialized) prompt through `AgentUI.ask_approval`.
  `Verdict.decision` is a `Decision`.

Modules: reasons (the keys), paths (which paths are sensitive), rules (the checks, as tables), detect,
allowlist (YAML load/save, glob matching), gate.
"""

from agent.approval.allowlist import ALLOWLIST_KEY, is_compound, load_allowlist, save_allowlist_rule
from agent.approval.detect import Detection, detect
from agent.approval.gate import ApprovalGate, Decision, Verdict
from agent.approval.paths import PathPolicy
from agent.approval.reasons import DESTRUCTIVE_KEYS, HARD_KEYS, REASONS, Match

__all__ = [
    "ALLOWLIST_KEY",
    "DESTRUCTIVE_KEYS",
    "HARD_KEYS",
    "REASONS",
    "ApprovalGate",
    "Decision",
    "Detection",
    "Match",
    "PathPolicy",
    "Verdict",
    "detect",
    "is_compound",
    "load_allowlist",
    "save_allowlist_rule",
]
