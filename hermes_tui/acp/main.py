"""`hermes-tui acp`: the command. stdout carries the protocol and nothing else; the log is a file.

Before anything else runs, the protocol takes its own copy of stdout's descriptor and descriptor 1 is
pointed at stderr: a plugin's `print`, a library's warning or a child that inherits stdout can then never
put a byte into the protocol. The log is `$HERMES_HOME/tui/logs/acp.log` (secrets masked by the settings'
filter). Exit codes: 0 when the client closes stdin (every turn stopped, every session released, what a
tool left running in the background stopped); 128+N after signal N (SIGTERM, SIGHUP, SIGINT: the same
orderly end); 1 with one line on stderr when the agent cannot start (no SDK: the line names the install
command; a session store it cannot write) or an exception escapes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Callable
from contextlib import ExitStack
from functools import partial
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.api import LoadedSettings, SessionStoreProtocol, Settings

INSTALL = "pip install 'hermes-tui[acp]'"
EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
LOG_BYTES = 5 * 1024 * 1024

log = logging.getLogger("hermes_tui.acp")


def _say(line: str) -> None:
    print(f"hermes-tui acp: {line}", file=sys.stderr, flush=True)


def _take_stdout() -> tuple[int, int]:
    """(stdin's and the protocol's own stdout descriptors); descriptor 1 and `sys.stdout` become stderr."""
    sys.stdout.flush()
    protocol_out = os.dup(1)
    protocol_in = os.dup(0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol_in, protocol_out


def _start_log(home: Path) -> Path:
    folder = home / "tui" / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "acp.log"
    handler = RotatingFileHandler(path, maxBytes=LOG_BYTES, backupCount=2, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return path


def run_acp(args: argparse.Namespace, load: Callable[[], LoadedSettings]) -> int:
    try:
        import acp  # noqa: F401
    except ImportError:
        _say(f"the Agent Client Protocol SDK is not installed: {INSTALL}")
        return 1
    from agent.api import hermes_home

    protocol_in, protocol_out = _take_stdout()
    try:
        log_path = _start_log(hermes_home())
    except OSError as exc:
        _say(f"cannot write the log under {hermes_home()}: {exc.strerror or exc}")
        return 1
    try:
        return _serve(args, load, protocol_in, protocol_out)
    except Exception:
        log.exception("hermes-tui acp failed")
        _say(f"internal error; the traceback is in {log_path}")
        return 1


def _serve(args: argparse.Namespace, load: Callable[[], LoadedSettings], in_fd: int, out_fd: int) -> int:
    from agent.api import StoreError, open_library, serve_collector
    from hermes_tui.gc_policy import GcPolicy

    serve_collector(GcPolicy().burst)  # no app owns the collector here: the engine's bursts are this one's
    loaded = load()
    for problem in loaded.problems:
        log.warning("config: %s", problem)
    settings = loaded.settings
    with ExitStack() as stack:
        if args.demo or args.scenario:
            from scripted import DEMO_MODEL, ScriptedServer, demo_scenario_path, scripted_settings

            server = stack.enter_context(ScriptedServer(args.scenario or demo_scenario_path()))
            settings = scripted_settings(server, settings, model=settings.model if args.model else DEMO_MODEL)
        try:
            store = open_library(settings.state_db, settings.hermes_home)
        except StoreError as exc:
            _say(exc.user_line())
            return 1
        stack.callback(store.close)
        if store.read_only:  # sessions exist to be saved: never run ones that cannot be
            _say(store.read_only)
            return 1
        stack.callback(_stop_background, store)
        from agent.api import McpManager, load_mcp_config, mcp_ready_within

        config = load_mcp_config(settings.hermes_home)
        servers_ready: Callable[[], object] | None = None
        if config.servers:  # the user's own servers: every session's; a session waits for them once
            mcp = McpManager(settings.hermes_home)
            mcp.start(config)
            stack.callback(mcp.close)
            servers_ready = partial(mcp.wait_ready, mcp_ready_within(config))
        # The SDK and the turn's modules load beside the handshake (the first prompt then finds them), with
        # the collector still off until they are (`GcPolicy.startup_ends`).
        from agent.api import import_prewarm_modules, start_warm_thread

        import_prewarm_modules()  # on this thread first (`agent.session.prewarm` says why)
        start_warm_thread(_warm, settings, name="acp-prewarm")  # not a daemon: `agent/core/warm_thread.py`
        log.info("serving ACP on stdio (model %s, home %s)", settings.model, settings.hermes_home)
        received = asyncio.run(_connection(settings, store, servers_ready, in_fd, out_fd))
        if received is not None:
            log.info("stopped by %s", signal.Signals(received).name)
            return 128 + received
        log.info("the client closed the connection")
    return 0


def _warm(settings: Settings) -> None:
    from agent.api import prewarm_engine
    from hermes_tui.gc_policy import GcPolicy

    try:
        prewarm_engine(settings)
    finally:
        GcPolicy.startup_ends()


async def _connection(
    settings: Settings,
    store: SessionStoreProtocol,
    servers_ready: Callable[[], object] | None,
    in_fd: int,
    out_fd: int,
) -> int | None:
    """Serve until the client closes stdin, or a signal (SIGTERM, SIGHUP, SIGINT: an editor closing the
    agent) ends it the same orderly way; returns that signal's number, or None."""
    from acp.agent.connection import AgentSideConnection

    from hermes_tui.acp.agent import HermesAcpAgent
    from hermes_tui.acp.wire import JsonRpcLines, stdio_streams

    reader, writer = await stdio_streams(in_fd, out_fd)
    agent = HermesAcpAgent(settings, store, servers_ready)
    conn = AgentSideConnection(
        agent, JsonRpcLines(reader, writer), listening=False, use_unstable_protocol=True
    )
    listening = asyncio.ensure_future(conn.listen())
    loop = asyncio.get_running_loop()
    received: list[int] = []

    def stop(number: int) -> None:
        received.append(number)
        listening.cancel()

    for sig in EXIT_SIGNALS:
        loop.add_signal_handler(sig, stop, int(sig))
    try:
        with contextlib.suppress(asyncio.CancelledError):
            await listening
    finally:
        for sig in EXIT_SIGNALS:
            loop.remove_signal_handler(sig)
        await agent.shutdown()
        await conn.close()
    return received[0] if received else None


def _stop_background(store: SessionStoreProtocol) -> None:
    """Background processes a tool started do not outlive the agent: stopped, and noted in their sessions."""
    from agent.api import PROCESSES, note_left_running

    stopped = PROCESSES.shutdown()
    for info in stopped:
        log.info("%s", info.stopped_line())
    note_left_running(store, stopped)
