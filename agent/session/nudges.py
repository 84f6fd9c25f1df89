"""Reminders to learn: save to memory every N user turns, save a skill after a turn of many tool calls.

Hermes counts the same things (`memory.nudge_interval` user turns since the memory tool was last used;
`skills.creation_nudge_interval` tool iterations since `skill_manage` was) and then runs a background review.
Here the reminder rides along with a user message, on the wire only: it is never stored, so the transcript,
search and a resumed session show only what the user typed.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.core.messages import Message

MEMORY_NUDGE = (
    "[System: Review the conversation so far and consider saving to memory if appropriate. Has the user "
    "revealed things about themselves (their persona, preferences or personal details) or expectations about "
    "how you should behave or work? If something stands out, save it with the memory tool; if nothing is "
    "worth saving, carry on. Do not mention this reminder.]"
)
SKILL_NUDGE = (
    "[System: The previous task took many tool calls. If a non-trivial technique, fix, workaround or "
    "workflow came out of it that a future session would benefit from, save it as a skill with skill_manage "
    "(or patch the skill you used if it was wrong or missing a step); if nothing is worth saving, carry on. "
    "Do not mention this reminder.]"
)


def _user_turns(messages: Sequence[Message]) -> int:
    return sum(1 for m in messages if m.role == "user" and not m.meta.get("synthetic"))


class LearningNudges:
    """The two counters of one session. Used by the agent thread only."""

    def __init__(self, memory_interval: int, skill_interval: int) -> None:
        self.memory_interval = memory_interval
        self.skill_interval = skill_interval
        self.turns_since_memory = 0
        self.iterations_since_skill = 0
        self.skill_due = False

    def hydrate(self, messages: Sequence[Message]) -> None:
        """A resumed session continues its memory count where it was (as Hermes does)."""
        if self.memory_interval > 0:
            self.turns_since_memory = _user_turns(messages) % self.memory_interval

    def at_turn_start(self, *, memory_offered: bool, skills_offered: bool) -> list[str]:
        """The reminders for this turn's user message (wire only)."""
        out: list[str] = []
        if self.memory_interval > 0 and memory_offered:
            self.turns_since_memory += 1
            if self.turns_since_memory >= self.memory_interval:
                self.turns_since_memory = 0
                out.append(MEMORY_NUDGE)
        if self.skill_due and skills_offered:
            out.append(SKILL_NUDGE)
        self.skill_due = False
        return out

    def at_turn_end(self, turn: Sequence[Message], *, skills_offered: bool) -> None:
        """Count the turn's tool iterations; using the memory or skill tool resets its counter."""
        called = {c.name for m in turn if m.role == "assistant" for c in m.tool_calls}
        if "memory" in called:
            self.turns_since_memory = 0
        if self.skill_interval <= 0 or not skills_offered:
            return
        if "skill_manage" in called:
            self.iterations_since_skill = 0
            return
        self.iterations_since_skill += sum(1 for m in turn if m.role == "assistant" and m.tool_calls)
        if self.iterations_since_skill >= self.skill_interval:
            self.iterations_since_skill = 0
            self.skill_due = True
