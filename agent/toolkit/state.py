"""A session's tool state: what the tools keep between calls, owned by the `Session`, lent to every call.

The framework holds it without knowing the tools: a field whose type belongs to a tool's own package (the
skill library, a process registry) is `object` here and narrowed by the tool that reads it
(`agent.skills.tools.library_of`, `agent.tools.processes.registry_of`), so `toolkit` imports none of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["SessionState"]


@dataclass
class SessionState:
    todos: list[dict[str, str]] = field(default_factory=list)
    """The todo tool's list: {"id", "content", "status"} items, replaced whole by each `todo` call."""
    memory: dict[str, Any] = field(default_factory=dict)
    """The memory tool's limits and switches (Hermes' `memory.*`; `agent.tools.memory.memory_state`)."""
    skills: object | None = None
    """The session's `SkillLibrary` (it knows the disabled skills); None: a plain one per call."""
    processes: object | None = None
    """A `ProcessRegistry` of the session's own (tests); None: the process-wide `PROCESSES`."""
    browser: object | None = None
    """The session's `BrowserSession` once a browser tool started one (`agent.browser.tools`)."""
