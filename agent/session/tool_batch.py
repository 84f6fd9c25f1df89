"""Running one reply's tool calls for a turn: each call's context, the batch's one checkpoint, each result
stored as it arrives."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.core.events import StatusNotice
from agent.core.messages import Message, ToolCall
from agent.session.host import TurnHost
from agent.toolkit.executor import ExecutedCall
from agent.toolkit.registry import ToolContext
from agent.transports.factory import make_transport

if TYPE_CHECKING:
    from pathlib import Path

    from agent.checkpoints import BatchCheckpoint, Checkpoint

__all__ = ["CHECKPOINT_META", "ROLLBACK_HINT", "run_tool_batch"]

ROLLBACK_HINT = " (/rollback to restore)"
"""How a checkpoint notice says it can be undone (a front end without /rollback leaves it out)."""
CHECKPOINT_META = "checkpoint"
"""The meta key of a tool result naming the checkpoint its batch took (the map from turns to checkpoints)."""


def run_tool_batch(session: TurnHost, calls: list[ToolCall]) -> None:
    environment = session.environment
    # Paths are the environment's: its own working directory when it is not this machine.
    cwd = session.settings.cwd if environment.is_local else environment.cwd
    batch = _batch_checkpoint(session, calls, cwd)

    def make_context(call: ToolCall) -> ToolContext:
        if batch is not None:
            batch.note(call)
        return ToolContext(
            cwd=cwd,
            session_id=session.session_id,
            call_id=call.id,
            interrupt=session.interrupt_event,
            hermes_home=session.settings.hermes_home,
            ui=session.ui,
            store=session.store,
            approvals=session.approvals,
            state=session.state,
            clarify_timeout=session.settings.clarify_timeout,
            checkpoint=(lambda: batch.before_mutation(call)) if batch is not None else (lambda: None),
            settings=session.settings,
            make_transport=make_transport,
            new_agent=type(session),
            tools=session.registry,
            environment=environment,
        )

    recorded: list[str] = []

    def on_result(done: ExecutedCall) -> None:
        meta = {
            "status": done.result.status,
            "duration": round(done.duration, 3),
            **_ui_data(done.result.data),
        }
        if batch is not None:
            batch.finished(done.call.id)
            taken = batch.checkpoint
            if taken is not None and not recorded:
                # Which checkpoint this turn took, kept with the conversation: a rewind past this message
                # restores it (`agent.session.rewind`). The call that took it has its result after it.
                recorded.append(taken.id)
                meta[CHECKPOINT_META] = taken.id
        session.append(
            Message(
                role="tool",
                content=done.result.content,
                tool_call_id=done.call.id,
                tool_name=done.call.name,
                meta=meta,
            )
        )

    from agent.hooks import ToolHookChain

    chain = ToolHookChain(session.plugins, session.hooks)
    done = session.executor.run_batch(
        calls,
        make_context=make_context,
        ui=session.ui,
        interrupt=session.interrupt_event,
        on_result=on_result,
        hooks=chain if (chain.has_hooks("before_tool") or chain.has_hooks("after_tool")) else None,
    )
    if session.trajectory is not None:
        session.trajectory.record_tool_results(done)


def _batch_checkpoint(session: TurnHost, calls: list[ToolCall], cwd: Path) -> BatchCheckpoint | None:
    """The batch's one checkpoint, taken by the first approved call that changes files."""
    if session.checkpoints is None:
        return None
    from agent.checkpoints import BatchCheckpoint

    def saved(checkpoint: Checkpoint) -> None:
        text = f"Checkpoint saved: {checkpoint.summary}{ROLLBACK_HINT}"
        session.ui.on_event(StatusNotice(kind="info", text=text))

    return BatchCheckpoint(session.checkpoints, calls, cwd=cwd, on_saved=saved)


def _ui_data(data: dict[str, Any]) -> dict[str, Any]:
    """The part of a tool's UI data worth keeping for a resumed transcript (diffs, exit codes, todos)."""
    return {key: data[key] for key in ("diff", "exit_code", "todos", "path", "images") if key in data}
