"""The slash commands an editor offers (`available_commands_update`): those that work without our UI.

Pickers, screens and appearance stay in the TUI; what is left is a line of text in and a line out:
`/model [NAME]`, `/mode [NAME]`, `/yolo`, `/compress`, `/usage`, `/title TEXT`, `/help`. Enabled skills
are advertised too, under their own names: a `/skill-name` message is the engine's business (it is sent as
a turn). A prompt whose first word is one of the commands here runs it instead of a turn; any other text is
a turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from agent.api import MODE_NAMES, Agent, format_cost, format_tokens, parse_mode

if TYPE_CHECKING:
    from agent.api import SessionStoreProtocol


@dataclass(frozen=True)
class Command:
    name: str
    description: str
    hint: str = ""  # what the argument is; "" = none


COMMANDS = (
    Command("model", "Show the model, or switch the next turns to another: /model NAME", "model name"),
    Command("mode", "Show the permission mode, or switch it: /mode default|ask|plan|yolo", "mode"),
    Command("yolo", "Switch approving risky commands without asking on or off"),
    Command("compress", "Summarize the middle of the conversation to free the context window"),
    Command("usage", "Tokens and cost of this session"),
    Command("title", "Name this session: /title TEXT", "title"),
    Command("help", "List these commands"),
)
NAMES = frozenset(c.name for c in COMMANDS)


def available_commands(session: Agent) -> list[AvailableCommand]:
    out = [
        AvailableCommand(
            name=c.name,
            description=c.description,
            input=AvailableCommandInput(UnstructuredCommandInput(hint=c.hint)) if c.hint else None,
        )
        for c in COMMANDS
    ]
    try:
        skills = session.skill_commands(NAMES)
    except OSError:  # unreadable skill folders: the built-in commands still
        skills = {}
    for name, skill in sorted(skills.items()):
        out.append(AvailableCommand(name=name, description=skill.description or f"the {skill.name} skill"))
    return out


def parse(text: str) -> tuple[str, str] | None:
    """(command, argument) when the prompt is one of ours, else None (a turn)."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, arg = stripped[1:].partition(" ")
    return (name, arg.strip()) if name in NAMES else None


def run(session: Agent, store: SessionStoreProtocol, name: str, arg: str) -> str:
    """Run a command on the session's thread (`/compress` calls the model); its reply, one paragraph."""
    if name == "model":
        if not arg:
            return f"Model: {session.model}. /model NAME switches the next turns."
        session.switch_model(arg)
        return f"Model switched to {arg} for the next turn."
    if name == "mode":
        if arg:
            session.permission_mode = parse_mode(arg)  # UnknownMode: its line is the reply
        mode = session.permission_mode
        hint = "" if arg else f" /mode NAME switches ({MODE_NAMES})."
        return f"Permission mode: {mode.value}: {mode.describe}.{hint}"
    if name == "yolo":
        session.set_yolo(not session.yolo)
        return (
            "YOLO on: risky commands run without asking." if session.yolo else "YOLO off: risky commands ask."
        )
    if name == "compress":
        done = session.compress_now()
        return "Conversation compressed." if done else "Nothing to compress yet."
    if name == "usage":
        usage = session.session_usage
        cost = format_cost(session.session_cost.usd, session.session_cost.unknown_calls)
        return (
            f"This session: {format_tokens(usage.prompt_tokens)} in, "
            f"{format_tokens(usage.completion_tokens)} out, {cost}."
        )
    if name == "title":
        if not arg:
            return "/title TEXT names this session."
        shown = store.set_title(session.session_id, arg)
        return f"Session named {shown!r}."
    lines = [f"/{c.name}: {c.description}" for c in COMMANDS]
    return "\n".join(lines)
