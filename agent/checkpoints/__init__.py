"""Checkpoints: copies of the files a tool call is about to change, so `/rollback` can put them back.

Modules: plan (what a call will change, read through `agent.shell` like the approval gate reads it),
snapshot (copy it), restore (put it back), model (the data), manager (the per-session store and the
once-per-batch checkpoint the loop hands to its tools).
"""

from agent.checkpoints.manager import BatchCheckpoint, CheckpointManager
from agent.checkpoints.model import Checkpoint, CheckpointFile, RestoreReport, SnapshotPlan
from agent.checkpoints.plan import (
    FILE_MUTATING_TOOLS,
    MAX_TARGETS,
    TERMINAL_TOOLS,
    CommandPlan,
    is_destructive_command,
    plan_checkpoint,
    plan_command,
    targets_for_terminal,
)

__all__ = [
    "FILE_MUTATING_TOOLS",
    "MAX_TARGETS",
    "TERMINAL_TOOLS",
    "BatchCheckpoint",
    "Checkpoint",
    "CheckpointFile",
    "CheckpointManager",
    "CommandPlan",
    "RestoreReport",
    "SnapshotPlan",
    "is_destructive_command",
    "plan_checkpoint",
    "plan_command",
    "targets_for_terminal",
]
