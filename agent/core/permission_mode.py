"""The permission modes as a value both front ends share (the TUI's mode key and `/mode`, `-z`, ACP's
`session/set_mode`): their names, how a name is read, the mode key's order, and what the model is told in
plan mode. Which tool calls each mode runs, asks or refuses is `agent.approval.modes`, the one policy."""

from __future__ import annotations

from enum import StrEnum


class PermissionMode(StrEnum):
    """What the session lets the agent do without asking. The order is the mode key's: default, ask, plan
    (Claude Code cycles default, accept edits, plan); `yolo` joins the cycle only when it was chosen once
    (`--yolo`, `/yolo`, the config), as Claude Code's bypass mode joins only with its flag."""

    DEFAULT = "default"
    ASK = "ask"
    PLAN = "plan"
    YOLO = "yolo"

    @property
    def describe(self) -> str:
        return _DESCRIPTIONS[self]


_DESCRIPTIONS = {
    PermissionMode.DEFAULT: "edits in the workspace and safe commands run; risky ones ask",
    PermissionMode.ASK: "every file edit and every command that is not read-only asks",
    PermissionMode.PLAN: "read only: the agent looks and proposes a plan; writes and commands are refused",
    PermissionMode.YOLO: "nothing asks (hard blocks stay blocked)",
}

MODE_NAMES = ", ".join(m.value for m in PermissionMode)


class UnknownMode(ValueError):
    """A mode name that is none of the modes: its message is the one line the user sees."""


def parse_mode(name: str) -> PermissionMode:
    """`name` as a mode (case, spaces, `-` and `_` ignored; Claude Code's `bypassPermissions` is yolo)."""
    key = name.strip().lower().replace("-", "").replace("_", "")
    found = _ALIASES.get(key)
    if found is None:
        shown = name.strip() or "(empty)"
        raise UnknownMode(f"unknown permission mode '{shown}'; the modes are: {MODE_NAMES}")
    return found


_ALIASES = {
    **{m.value: m for m in PermissionMode},
    "bypasspermissions": PermissionMode.YOLO,  # Claude Code's name for it
}


def initial_mode(permission_mode: str, yolo: bool) -> PermissionMode:
    """A new session's mode from its settings: `permission_mode` (`approvals.default_mode`,
    `--permission-mode`), or yolo when `--yolo` / `HERMES_YOLO_MODE` said so and no other mode was chosen."""
    try:
        mode = parse_mode(permission_mode)
    except UnknownMode:
        mode = PermissionMode.DEFAULT
    return PermissionMode.YOLO if yolo and mode is PermissionMode.DEFAULT else mode


def cycle_after(mode: PermissionMode, *, with_yolo: bool) -> PermissionMode:
    """The mode the mode key moves to from `mode`."""
    order = [PermissionMode.DEFAULT, PermissionMode.ASK, PermissionMode.PLAN]
    if with_yolo:
        order.append(PermissionMode.YOLO)
    if mode not in order:
        return order[0]
    return order[(order.index(mode) + 1) % len(order)]


PLAN_NOTE = (
    "<system-reminder>Plan mode is active: the user wants you to look and propose before anything is "
    "changed. Use only tools that read (read files, search, the web, session search, todo, clarify); "
    "writes, edits and commands are refused. Investigate, then end your turn with a concise, numbered "
    "plan of what you would change and why. Do not make the changes yet.</system-reminder>"
)
"""Added to each plan-mode user message on the wire (kept as its `api_content`, so later requests send it
again byte for byte and the prompt cache stays warm): the system prompt itself never changes with the mode."""


def plan_exit_note(mode: PermissionMode) -> str:
    """Added to the first message after plan mode: the earlier plan-mode notes no longer hold."""
    return (
        f"<system-reminder>Plan mode is off: the permission mode is now {mode.value}. You may make the "
        "changes now, within what this mode allows.</system-reminder>"
    )


def go_ahead_text(mode: PermissionMode) -> str:
    """The user message a plan card's "go" sends in the mode chosen."""
    return f"The plan is approved: go ahead and carry it out (permission mode is now {mode.value})."
