"""`hermes-tui -z PROMPT`: one turn with no TUI. The answer goes to stdout, a trace of tools to stderr.

Exit 0 when the turn completed (or ended on its budget with a summary), 1 with a one-line error otherwise
(a reply that broke off, was cut at the output limit, went to thinking or was empty: whatever it wrote is
still printed, the line says why it is not whole), 130 on Ctrl+C. Risky commands are denied unless
`--yolo`: nobody is there to approve them.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from contextlib import ExitStack
from typing import TextIO

from agent.config import LoadedSettings
from agent.events import AgentEvent, StatusNotice, StreamStalled, ToolFinished, ToolStarted
from agent.exit_reasons import is_success
from agent.ui import ApprovalDecision, ApprovalRequest, ClarifyRequest


class HeadlessUI:
    def __init__(self, err: TextIO = sys.stderr) -> None:
        self.err = err
        self._lock = threading.Lock()
        self._summaries: dict[str, str] = {}

    def _line(self, text: str) -> None:
        with self._lock:
            print(text, file=self.err, flush=True)

    def on_event(self, event: AgentEvent) -> None:
        if isinstance(event, ToolStarted):
            self._summaries[event.call_id] = event.summary
        elif isinstance(event, ToolFinished):
            summary = self._summaries.pop(event.call_id, "")
            self._line(f"┊ {event.name}: {summary} ({event.status}, {event.duration:.1f}s)")
        elif isinstance(event, StatusNotice) and event.kind in ("warn", "retry", "error", "info"):
            self._line(f"┊ {event.text}")
        elif isinstance(event, StreamStalled):
            self._line(f"┊ no data from the model for {event.seconds:.0f} s")

    def ask_clarify(self, request: ClarifyRequest) -> str | None:
        self._line(f"┊ clarify (no answer in headless mode): {request.question}")
        return None

    def ask_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        self._line(
            f"┊ denied (headless; use --yolo to allow): {request.command} — {', '.join(request.reasons)}"
        )
        return ApprovalDecision.DENY


def run_headless(args: argparse.Namespace, loaded: LoadedSettings) -> int:
    from agent.loop import Agent
    from agent.store.library import open_library

    settings = loaded.settings
    for problem in loaded.problems:
        print(f"hermes-tui: config: {problem}", file=sys.stderr)
    with ExitStack() as stack:
        if args.demo or args.scenario:
            from agent.scripted import DEMO_MODEL, ScriptedServer, demo_scenario_path, scripted_settings

            server = stack.enter_context(ScriptedServer(args.scenario or demo_scenario_path()))
            settings = scripted_settings(server, settings, model=settings.model if args.model else DEMO_MODEL)
        if settings.unsupported_provider:
            print(f"hermes-tui: {settings.unsupported_provider}", file=sys.stderr)
            return 2
        if not settings.model and (settings.api_key is not None or settings.base_url):
            print(
                f"hermes-tui: provider {settings.provider!r} has no model: set model.default in "
                "config.yaml or pass --model",
                file=sys.stderr,
            )
            return 2
        if not settings.is_configured:
            print(
                "hermes-tui: no model provider configured: set OPENAI_API_KEY (or ANTHROPIC_API_KEY, "
                "OPENROUTER_API_KEY), pass --base-url/--model, or try --demo",
                file=sys.stderr,
            )
            return 2
        from agent.mcp.session import connected_servers

        mcp = stack.enter_context(connected_servers(settings.hermes_home))
        for status in mcp.status() if mcp is not None else []:
            if status.state in ("failed", "invalid"):
                print(f"hermes-tui: MCP server '{status.name}': {status.error}", file=sys.stderr)
        store = open_library(settings.state_db, settings.hermes_home)  # ours, and Hermes' history beside
        stack.callback(store.close)
        agent = Agent(settings, ui=HeadlessUI(), store=store, source="headless")
        stack.callback(agent.close)
        if args.continue_last or args.resume:
            info = store.resolve(args.resume) if args.resume else store.latest_session(str(settings.cwd))
            if info is None:
                print(f"hermes-tui: no session found for {args.resume or 'this directory'}", file=sys.stderr)
                if store.hermes_problem:
                    print(f"hermes-tui: {store.hermes_problem}", file=sys.stderr)
                return 2
            agent.resume(info.id)  # a Hermes session continues in our copy of it

        previous = signal.getsignal(signal.SIGINT)

        def on_sigint(signum: int, frame: object) -> None:
            agent.interrupt()

        prompt = args.prompt
        if "@" in prompt:
            from agent.mentions import expand_mentions

            expansion = expand_mentions(prompt, settings.cwd)
            prompt = expansion.text
            for attachment in expansion.attachments:
                if attachment.block:
                    print(f"┊ @ {attachment.label}", file=sys.stderr)
            for problem in expansion.problems:
                print(f"hermes-tui: {problem}", file=sys.stderr)
        signal.signal(signal.SIGINT, on_sigint)
        try:
            result = agent.run_conversation(prompt)
        finally:
            signal.signal(signal.SIGINT, previous)
        if result.final_text:
            print(result.final_text.rstrip("\n"))
        if is_success(result.exit_reason):
            return 0
        if result.exit_reason == "interrupted":
            print("hermes-tui: interrupted", file=sys.stderr)
            return 130
        detail = result.error.user_line() if result.error else result.exit_reason
        print(f"hermes-tui: {detail}", file=sys.stderr)
        return 1
