"""Subagents: the `delegate_task` tool (`tool`), one child's run (`child`), the seam to the loop
(`protocols`). Children's events reach the UI as `ChildStarted` / `ChildEvent` / `ChildFinished`
(agent.core.events), addressed to the parent's `delegate_task` call."""
