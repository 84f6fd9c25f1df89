"""Where the agent's tools run: one `Environment` per session (local, docker, ssh).

Everything that touches the user's files or runs a process for the model goes through the session's
environment: the `terminal` tool (foreground and background), the file tools, `search_files`,
`execute_code`'s child, checkpoints and `/rollback`. The user's own `!shell` in the prompt does not: it is
their shell, on their machine.

`base` is the seam (the Protocol and its small value types); `local` is today's behaviour, with no process
and no import beyond what the tools already used; `open_environment` (in `factory`) builds the one a
session's settings ask for and refuses, with one line, a backend that cannot be used: a session never falls
back to the host silently. `sandbox` is the OS sandbox (bubblewrap) the local backend may run commands in
(`sandbox.mode`); it is imported only when one is configured.
"""

from agent.environments.base import DirEntry, Environment, EnvironmentUnavailable, FileInfo

__all__ = ["DirEntry", "Environment", "EnvironmentUnavailable", "FileInfo"]
