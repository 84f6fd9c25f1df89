"""`hermes-tui acp` as a subprocess on pipes, forked from the worker's warm process (`tests.cli_process`).

Started from scratch, each agent imported the ACP SDK, the OpenAI SDK and the engine again: ~1.5 s of CPU
before it answered `initialize`, two dozen times a suite run. Forked, it is the same command (`python -m
hermes_tui.cli acp`, its own pid, environment, working directory and stdio) on the same pipes. Around it,
what the SDK's `spawn_agent_process` does: its default environment under the test's, and at the end stdin
closed, a grace for the agent to end by itself, then SIGTERM, then SIGKILL. `AgentProcess` has the parts of
`asyncio.subprocess.Process` the tests use.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import IO

from acp.transports import default_environment

from tests.cli_process import Spawned, spawn_cli

ROOT = Path(__file__).resolve().parents[2]
PRELOAD = (
    "acp",
    *(f"hermes_tui.acp.{path.stem}" for path in sorted((ROOT / "hermes_tui" / "acp").glob("*.py"))),
)
"""What `hermes-tui acp` imports besides what a `-z` run does: the warm process imports it once."""
LIMIT = 2**16
"""A line's limit on the agent's stdout, as `asyncio.create_subprocess_exec` (the SDK's spawn) sets it."""


class AgentProcess:
    """The agent: its pid, its stdin and stdout streams, and its exit status once it ended."""

    def __init__(self, spawned: Spawned, stdin: asyncio.StreamWriter, stdout: asyncio.StreamReader) -> None:
        self.pid = spawned.pid
        self.stdin = stdin
        self.stdout = stdout
        self.returncode: int | None = None
        self._ended = asyncio.ensure_future(spawned.ended())
        self._ended.add_done_callback(self._note)

    def _note(self, ended: asyncio.Future[int]) -> None:
        if not ended.cancelled() and ended.exception() is None:
            self.returncode = ended.result()

    async def wait(self) -> int:
        return await asyncio.shield(self._ended)

    def send_signal(self, number: int) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, number)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def forget(self) -> None:
        if not self._ended.done():
            self._ended.cancel()


@contextlib.asynccontextmanager
async def agent_process(
    args: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    stderr: IO[bytes],
    shutdown_timeout: float,
) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter, AgentProcess]]:
    """`hermes-tui ARGS` with its stdin and stdout on pipes, stderr on `stderr`; on exit, as the SDK's
    spawn ends it."""
    loop = asyncio.get_running_loop()
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    try:
        spawned = spawn_cli(
            args,
            cwd=cwd,
            env={**default_environment(), **env},
            stdin=stdin_r,
            stdout=stdout_w,
            stderr=stderr.fileno(),
            preload=PRELOAD,
        )
    except BaseException:
        os.close(stdin_w)
        os.close(stdout_r)
        raise
    finally:
        os.close(stdin_r)
        os.close(stdout_w)
    reader = asyncio.StreamReader(limit=LIMIT, loop=loop)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader, loop=loop),
        open(stdout_r, "rb", buffering=0),  # noqa: SIM115 (the transport closes it)
    )
    write_transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.streams.FlowControlMixin(loop=loop),
        open(stdin_w, "wb", buffering=0),  # noqa: SIM115 (the transport closes it)
    )
    writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
    process = AgentProcess(spawned, writer, reader)
    try:
        yield reader, writer, process
    finally:
        try:
            if not write_transport.is_closing():
                with contextlib.suppress(OSError, RuntimeError):
                    writer.write_eof()
            writer.close()
            try:
                await asyncio.wait_for(process.wait(), shutdown_timeout)
            except TimeoutError:
                process.terminate()
                try:
                    await asyncio.wait_for(process.wait(), shutdown_timeout)
                except TimeoutError:
                    process.kill()
                    await process.wait()
        finally:
            process.forget()
            read_transport.close()
