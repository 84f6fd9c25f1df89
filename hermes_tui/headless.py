"""`hermes-tui -z PROMPT`: one turn with no TUI. The answer goes to stdout, a trace of tools to stderr.

Exit 0 when the turn completed (or ended on its budget with a summary), 1 with a one-line error otherwise
(a reply that broke off, was cut at the output limit, went to thinking or was empty: whatever it wrote is
still printed, the line says why it is not whole), 2 when the command line cannot run (an empty prompt, no
such session), 130 on Ctrl+C. Risky commands are denied unless `--yolo`: nobody is there to approve them.

Terminal safety: the model chooses what a command, a question or an answer contains, and a terminal obeys
escapes (set the title, write the clipboard with OSC 52, reset, move the cursor). So every stderr line shows
controls as visible `\\xNN` tokens, always; the answer on stdout does too when stdout is a terminal, and is
written byte-exact (UTF-8) when piped, where a program, not a terminal, reads it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import threading
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from agent.api import (
    ROLLBACK_HINT,
    AgentEvent,
    ApprovalDecision,
    ApprovalRequest,
    ClarifyRequest,
    LoadedSettings,
    StatusNotice,
    StreamStalled,
    ToolFinished,
    ToolStarted,
    is_success,
    reply_marker,
)
from hermes_tui import exit_signals
from hermes_tui.gc_policy import GcPolicy
from hermes_tui.typed_path import typed_path
from widgets.support.text_safety import visible_controls

_TERMINATING = (signal.SIGTERM, signal.SIGHUP)


def _say(line: str, err: TextIO | None = None) -> None:
    """One stderr line, controls shown (a line may quote the model, a tool, a file or a provider).
    `sys.stderr` is looked up at each call: it may have been replaced since import (a test's capture)."""
    print(visible_controls(line, keep="\t"), file=err or sys.stderr, flush=True)


def _answer(text: str, out: TextIO) -> None:
    """The answer on stdout: visible controls on a terminal, the exact text when piped."""
    if not text:
        return
    text = text if text.endswith("\n") else text + "\n"
    if out.isatty():
        out.write(visible_controls(text))
        out.flush()
        return
    out.flush()
    buffer = getattr(out, "buffer", None)
    if buffer is None:
        out.write(text)
    else:
        buffer.write(text.encode("utf-8", "surrogateescape"))
    out.flush()


if TYPE_CHECKING:
    from agent.api import PermissionMode, SessionStoreProtocol, TurnResult
    from hermes_tui.headless_json import JsonEvents

FAILURE_CHARS = 200


def _failure_reason(result: str) -> str:
    """A failed call's reason in one line: Hermes-style JSON's `error`, else the result's first line
    (without the usual `Error: `): nobody sees the tool panel in a headless run."""
    text = result.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("error"), str):
            text = data["error"]
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    line = line.removeprefix("Error: ")
    return line if len(line) <= FAILURE_CHARS else line[: FAILURE_CHARS - 1] + "…"


class HeadlessUI:
    interactive = False  # nobody answers: MCP elicitation is declined, sampling runs as in Hermes

    def __init__(
        self,
        err: TextIO | None = None,
        json_events: JsonEvents | None = None,
        *,
        quiet: bool = False,
        yolo: bool = False,
    ) -> None:
        # --yolo with another mode (`--permission-mode ask --yolo`): what that mode asks is approved
        self.yolo = yolo
        self.err = err if err is not None else sys.stderr  # the stderr of the moment, not of import time
        self.json_events = json_events  # the run's JSON (stdout with --output-format, --usage-file's totals)
        # No tool trace on stderr: -Q, or the trace is on stdout as JSON.
        self.quiet = quiet or (json_events is not None and json_events.out is not None)
        self._lock = threading.Lock()
        self._summaries: dict[str, str] = {}

    def _line(self, text: str) -> None:
        with self._lock:
            _say(text, self.err)

    def on_event(self, event: AgentEvent) -> None:
        if self.json_events is not None:
            self.json_events.on_event(event)
        if self.quiet and isinstance(event, (ToolStarted, ToolFinished)):
            return  # stderr keeps the notices for whoever watches the run
        if isinstance(event, ToolStarted):
            self._summaries[event.call_id] = event.summary
        elif isinstance(event, ToolFinished):
            summary = self._summaries.pop(event.call_id, "")
            why = f": {_failure_reason(event.result)}" if event.status == "error" else ""
            if event.status == "denied" and event.data.get("decision") == "plan_mode":
                why = ": refused by plan mode"
            self._line(f"┊ {event.name}: {summary} ({event.status}, {event.duration:.1f}s){why}")
        elif isinstance(event, StatusNotice) and event.kind in ("warn", "retry", "error", "info"):
            self._line(f"┊ {event.text.removesuffix(ROLLBACK_HINT)}")
        elif isinstance(event, StreamStalled):
            self._line(f"┊ no data from the model for {event.seconds:.0f} s")

    def ask_clarify(self, request: ClarifyRequest) -> str | None:
        self._line(f"┊ clarify (no answer in headless mode): {request.question}")
        return None

    def ask_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        if self.yolo:
            self._line(f"┊ approved (--yolo): {request.command} — {', '.join(request.reasons)}")
            return ApprovalDecision.ONCE
        if self.json_events is not None:
            self.json_events.approval_denied(request, "headless; use --yolo to allow")
        self._line(
            f"┊ denied (headless; use --yolo to allow): {request.command} — {', '.join(request.reasons)}"
        )
        return ApprovalDecision.DENY


def _claude_mode_name(mode: PermissionMode) -> str:
    """The init event's `permissionMode`, in Claude Code's names (nobody is asked in `-z`: what would ask
    is refused, `dontAsk`)."""
    return {"yolo": "bypassPermissions", "plan": "plan"}.get(mode.value, "dontAsk")


def run_headless(args: argparse.Namespace, loaded: LoadedSettings) -> int:
    from agent.api import Agent, ImageError, StoreError, open_library, save_image

    for stream in (sys.stdout, sys.stderr):  # a C locale must not turn a reply's "é" into a traceback
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    from hermes_tui.piped_input import CAP, read_piped, with_piped

    piped = read_piped(sys.stdin.buffer) if sys.stdin is not None else None
    if piped is not None and piped.binary:
        _say("hermes-tui: stdin is not text (binary data): not sent; pass a file with @path or --image")
        return 2
    if piped is not None and piped.cut:
        _say(f"hermes-tui: stdin is longer than {CAP // 1024} KB: the first {CAP // 1024} KB are sent")
    if not args.prompt.strip() and piped is None:
        _say("hermes-tui: -z needs a prompt (it is empty): hermes-tui -z 'what to do'")
        return 2
    settings = loaded.settings
    for problem in loaded.problems:
        _say(f"hermes-tui: config: {problem}")
    with ExitStack() as stack:
        if args.demo or args.scenario:
            from scripted import DEMO_MODEL, ScriptedServer, demo_scenario_path, scripted_settings

            server = stack.enter_context(ScriptedServer(args.scenario or demo_scenario_path()))
            settings = scripted_settings(server, settings, model=settings.model if args.model else DEMO_MODEL)
        if settings.unsupported_provider:
            _say(f"hermes-tui: {settings.unsupported_provider}")
            return 2
        if not settings.model and (settings.api_key is not None or settings.base_url):
            _say(
                f"hermes-tui: provider {settings.provider!r} has no model: set model.default in "
                "config.yaml or pass --model"
            )
            return 2
        from agent.api import reasoning_unsent

        unsent = reasoning_unsent(settings) if getattr(args, "reasoning", None) else ""
        if unsent:  # asked for on this command line, and the endpoint takes none
            _say(f"hermes-tui: {unsent}")
        if not settings.is_configured:
            _say(
                "hermes-tui: no model provider configured: set OPENAI_API_KEY (or ANTHROPIC_API_KEY, "
                "OPENROUTER_API_KEY), pass --base-url/--model, or try --demo"
            )
            return 1
        from agent.api import environment_problem

        if cannot := environment_problem(settings, loaded.problems):  # before any tool could run
            _say(f"hermes-tui: {cannot}")
            return 2
        try:
            store = open_library(settings.state_db, settings.hermes_home)  # ours, and Hermes' history beside
        except StoreError as exc:
            _say(f"hermes-tui: {exc.user_line()}")
            return 1
        stack.callback(store.close)
        from agent.api import leftovers_path, leftovers_summary, take_leftovers

        cleaned = leftovers_summary(take_leftovers(leftovers_path(settings.hermes_home)))
        if cleaned:
            _say(f"hermes-tui: {cleaned}")
        if store.read_only:  # a headless turn exists to be saved: never run one that cannot be
            _say(f"hermes-tui: {store.read_only}")
            return 1
        try:
            images = [save_image(Path(name), settings.hermes_home) for name in args.image]
        except ImageError as exc:
            _say(f"hermes-tui: --image: {exc}")
            return 2
        from agent.api import connected_mcp_servers as connected_servers

        mcp = stack.enter_context(connected_servers(settings.hermes_home))
        for status in mcp.status() if mcp is not None else []:
            if status.state in ("failed", "invalid"):
                _say(f"hermes-tui: MCP server '{status.name}': {status.error}")
        events = None
        structured = getattr(args, "output_format", "text") != "text"
        if structured or getattr(args, "usage_file", None):
            from hermes_tui.headless_json import JsonEvents

            events = JsonEvents(
                sys.stdout if structured else None,
                streaming=args.output_format == "stream-json",
                model=settings.model,
                cwd=str(settings.cwd),
                tools=[],
                mcp_servers=[
                    {"name": status.name, "status": status.state} for status in (mcp.status() if mcp else [])
                ],
                permission_mode="bypassPermissions" if settings.yolo else "dontAsk",
            )
        try:
            ui = HeadlessUI(json_events=events, quiet=getattr(args, "quiet", False), yolo=settings.yolo)
            # The first message's title, never a model-made one: the title's request runs beside the turn's
            # end, and a one-shot process ends with its answer, so the request was either never made or cut
            # off at exit, depending on timing (Hermes' one-shot makes none either).
            agent = Agent(
                settings.model_copy(update={"auto_title": False}), ui=ui, store=store, source="headless"
            )
            from agent.api import prewarm_engine

            prewarm_engine(settings)  # the SDK and the turn's modules, loaded with the collector still off
            GcPolicy.startup_ends()
        except KeyboardInterrupt:  # the user's Ctrl+C while plugins load (a plugin's own is contained)
            _say("hermes-tui: interrupted")
            return 130
        stack.callback(agent.close)
        from agent.api import EnvironmentUnavailable

        try:
            agent.environment  # noqa: B018 - terminal.backend opened (or refused) before anything runs
        except EnvironmentUnavailable as exc:
            _say(f"hermes-tui: {exc}")
            return 1
        if getattr(args, "toolsets", None):  # -t names a toolset that does not exist: say which, run nothing
            unknown = [p for p in agent.toolsets.problems() if p.startswith("toolsets:")]
            if unknown:
                _say(f"hermes-tui: -t/--toolsets: {'; '.join(p.removeprefix('toolsets: ') for p in unknown)}")
                return 2
        if events is not None:
            events.tools = sorted(agent.toolsets.active_names())
        stack.callback(_stop_background, store)
        if args.continue_last or args.resume:
            from hermes_tui.resume_lookup import session_to_resume

            if args.resume:  # one match, or none / several listed on stderr
                info = session_to_resume(store, args.resume, sys.stderr)
            else:
                info = store.latest_session(str(settings.cwd))
            if info is None:
                if not args.resume:
                    _say("hermes-tui: no session found for this directory")
                if store.hermes_problem:
                    _say(f"hermes-tui: {store.hermes_problem}")
                return 2
            try:
                agent.resume(info.id)  # a Hermes session continues in our copy of it
            except StoreError as exc:  # another process writes to it: one writer per session
                _say(f"hermes-tui: {exc.user_line()}")
                return 1
        if events is not None:  # the mode after a resume (a session keeps the one it was left in)
            events.permission_mode = _claude_mode_name(agent.permission_mode)

        previous = signal.getsignal(signal.SIGINT)

        def on_sigint(signum: int, frame: object) -> None:
            agent.interrupt()

        prompt = args.prompt
        if "@" in prompt:
            from agent.api import expand_mentions

            expansion = expand_mentions(
                prompt, settings.cwd, web=settings.web, interrupt=agent.interrupt_event
            )
            prompt = expansion.text
            for attachment in expansion.attachments:
                if attachment.block:
                    _say(f"┊ @ {attachment.label}")
            for mention_problem in expansion.problems:
                _say(f"hermes-tui: {mention_problem}")
        if piped is not None:  # after the mentions: an `@` inside piped code is not a file to attach
            prompt = with_piped(prompt, piped)
        signal.signal(signal.SIGINT, on_sigint)
        # SIGTERM and SIGHUP end the turn as Ctrl+C does (the turn kept as interrupted, background
        # processes stopped on the way out); a turn that does not end in time is cut short.
        try:
            with exit_signals.handled(
                lambda code: agent.interrupt(), signals=_TERMINATING, via_loop=False, restore=False
            ) as received:
                result = agent.run_conversation(prompt, images)
        finally:
            signal.signal(signal.SIGINT, previous)
        terminated = received()
        code, detail = _outcome(result, terminated)
        # After SIGHUP the terminal may be gone: nothing left to write to is not an error then.
        with contextlib.suppress(OSError) if terminated is not None else contextlib.nullcontext():
            if events is not None:
                report = events.result(result, exit_code=code, error=detail)
                if args.usage_file:
                    _write_usage_file(Path(args.usage_file), events.usage_report(report, settings.provider))
            if events is None or events.out is None:
                _answer(result.final_text, sys.stdout)
            if detail:
                _say(f"hermes-tui: {detail}")
        return code


def _write_usage_file(path: Path, report: dict[str, object]) -> None:
    """`--usage-file`: a write that fails is one line; it never changes the run's exit code (as Hermes)."""
    from agent.api import atomic_write_text

    try:
        path = typed_path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(report, indent=2) + "\n")
    except OSError as exc:
        _say(f"hermes-tui: --usage-file {path}: {exc.strerror or exc}")


def _outcome(result: TurnResult, terminated: int | None) -> tuple[int, str | None]:
    """The exit code of a finished turn and the one line saying why it is not 0 (None when it is)."""
    if terminated is not None:
        return 128 + terminated, f"stopped by {signal.Signals(terminated).name}"
    if is_success(result.exit_reason):
        return 0, None
    if result.exit_reason == "interrupted":
        return 130, "interrupted"
    detail = result.error.user_line() if result.error else result.exit_reason
    if result.final_text and reply_marker(result.exit_reason):
        # What streamed before the call failed for good is on stdout as it came (a pipe gets exactly
        # the text); this line says it is partial, never passed off as whole.
        detail += " (the reply printed is partial)"
    return 1, detail


def _stop_background(store: SessionStoreProtocol) -> None:
    """Background processes do not outlive `-z`: stop them and say so (on stderr and in the session)."""
    from agent.api import PROCESSES, note_left_running

    stopped = PROCESSES.shutdown()
    for info in stopped:
        _say(f"hermes-tui: {info.stopped_line()}")
    for info in PROCESSES.kept_running():
        _say(f"hermes-tui: {info.kept_line()}")
    note_left_running(store, stopped)
