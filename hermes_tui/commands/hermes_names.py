"""Hermes' slash commands that hermes-tui has under another name, or not at all (Hermes 0.19's
`hermes_cli/commands.py`). A Hermes user's habit gets a pointer instead of a look-alike guess (`/skin`
is not `/skills`), and a command with no equivalent says so plainly.

`tests/app/test_command_registry.py` checks that every pointer names a command that exists and that no entry
shadows one of ours.
"""

from __future__ import annotations

__all__ = ["HERMES_ELSEWHERE", "HERMES_ONLY"]

HERMES_ELSEWHERE: dict[str, str] = {
    "skin": "/theme",
    "reload-mcp": "/mcp reload",
    "queue": "Enter while a turn runs (it is queued; Alt+Up edits the queue)",
    "stop": "/ps (background processes: kill them there)",
    "history": "the transcript (PageUp, Ctrl+Home) or /export",
    "save": "/export",
    "commands": "/help",
    "toolsets": "/tools",
    "reload-skills": "/skills",
    "insights": "/usage",
    "paste": "/image --paste",
    "prompt": "Ctrl+G (edit the prompt in $EDITOR)",
    "approve": "the approval dialog (it asks when a command needs it)",
    "deny": "the approval dialog (it asks when a command needs it)",
    "version": "hermes-tui --version",
    "profile": "hermes-tui -p NAME (at launch)",
}
"""Hermes' name -> where the same thing is here."""

HERMES_ONLY: frozenset[str] = frozenset(
    {
        "agents",
        "background",
        "blueprint",
        "branch",
        "browser",
        "bundles",
        "busy",
        "codex-runtime",
        "curator",
        "debug",
        "fast",
        "footer",
        "goal",
        "handoff",
        "hatch",
        "indicator",
        "journey",
        "kanban",
        "learn",
        "memory",
        "moa",
        "pet",
        "redraw",
        "platform",
        "platforms",
        "reload",
        "restart",
        "sethome",
        "snapshot",
        "start",
        "statusbar",
        "subgoal",
        "subscription",
        "suggestions",
        "timestamps",
        "topic",
        "topup",
        "update",
        "verbose",
        "voice",
        "whoami",
    }
)
"""Hermes commands with no equivalent in hermes-tui: said so, never a look-alike suggested."""
