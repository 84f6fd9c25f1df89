"""Command line: `hermes-tui [options]` opens the TUI; `-z PROMPT` runs one headless turn; subcommands.

Kept import-light: the TUI path imports Textual only, the SDKs are imported by the agent worker on first
use, so the first frame is not delayed by ~1.5 s of SDK imports.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hermes_tui import early_input
from hermes_tui.gc_policy import GcPolicy
from hermes_tui.typed_path import typed_path

if TYPE_CHECKING:
    from agent.api import LoadedSettings

SUBCOMMANDS = ("config", "sessions", "plugins", "usage", "mcp", "doctor", "cron", "acp")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hermes-tui")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree without installing
        return "unknown"


class _VersionAction(argparse.Action):
    """`--version`, the installed package's version looked up only when asked: `importlib.metadata` and the
    package's metadata cost ~20 ms of every start (the TUI's first frame, each `-z` run) otherwise."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        print(f"{parser.prog} {_version()}")
        parser.exit()


class _Parser(argparse.ArgumentParser):
    """Knows which of its options take a value, so the subcommand can be found after global options
    (`hermes-tui -p work config`: `work` is the profile, `config` the subcommand)."""

    def __init__(self, **kwargs: Any) -> None:
        self.value_options: set[str] = set()  # before the base adds -h through add_argument
        self.long_options: set[str] = set()
        super().__init__(**kwargs)

    def add_argument(self, *names: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*names, **kwargs)
        self.long_options.update(n for n in action.option_strings if n.startswith("--"))
        if action.option_strings and action.nargs != 0:
            self.value_options.update(action.option_strings)
        return action

    def split_subcommand(self, argv: list[str]) -> tuple[str | None, list[str], list[str]]:
        """The subcommand and the arguments before and after it, as Claude Code's CLI (commander) reads
        them: the first word that is neither an option nor an option's value names a subcommand when it
        is exactly one (`--model X usage`); any other word is the prompt (`"config the linter"`). After
        `--` every word is the prompt (`hermes-tui -- config` sends "config"), as for any Unix command."""
        i = 0
        while i < len(argv):
            word = argv[i]
            if word == "--":
                break
            if word.startswith("-") and word != "-":
                i += 2 if "=" not in word and self._takes_value(word) else 1
                continue
            if word in SUBCOMMANDS:
                return word, argv[:i], argv[i + 1 :]
            break
        return None, argv, []

    def _takes_value(self, option: str) -> bool:
        if option in self.value_options:
            return True
        if option.startswith("--"):  # argparse takes an unambiguous prefix (`--mod X`)
            matches = [name for name in self.long_options if name.startswith(option)]
            return len(matches) == 1 and matches[0] in self.value_options
        return False


def build_parser() -> _Parser:
    p = _Parser(
        prog="hermes-tui",
        description="A terminal UI for a Hermes-style tool-using agent.",
        epilog="Subcommands: `hermes-tui config` prints the effective configuration; "
        "`hermes-tui sessions` opens the session browser; `hermes-tui plugins` lists plugins; "
        "`hermes-tui usage` prints tokens and cost of the last 30 days; "
        "`hermes-tui mcp` connects the MCP servers and shows their state and tools; "
        "`hermes-tui doctor` checks HERMES_HOME and the session store (backs up and rebuilds a damaged one); "
        "`hermes-tui cron list|run|daemon` lists the scheduled jobs, runs the due ones now, or every minute; "
        "`hermes-tui acp` is the agent for editors (Zed, JetBrains, Neovim) over the Agent Client Protocol "
        "on stdio (docs/acp.md). "
        "Options may come before a subcommand (`hermes-tui -p work config`); a prompt that is exactly a "
        "subcommand's name goes after `--` (`hermes-tui -- config`).",
    )
    p.add_argument(
        "message", nargs="?", metavar="PROMPT", help="open the TUI and send this as the first message"
    )
    p.add_argument(
        "-z",
        "--prompt",
        "-q",
        "--query",
        "--oneshot",
        metavar="PROMPT",
        help="run one turn without the TUI and print the answer ('-' reads the prompt from stdin); "
        "-q/--query and --oneshot are Hermes' names for it",
    )
    p.add_argument(
        "-Q",
        "--quiet",
        action="store_true",
        help="with -z: no tool trace on stderr, only the answer (and one-line errors), as Hermes' -Q",
    )
    p.add_argument(
        "--usage-file",
        metavar="PATH",
        help="with -z: write a JSON usage report (tokens, cost, model, api_calls) to PATH after the run, "
        "failed runs included, as Hermes does",
    )
    p.add_argument(
        "--output-format",
        choices=("text", "json", "stream-json"),
        default="text",
        help="with -z: text (the answer), json (one result object at the end) or stream-json (one JSON "
        "event per line as the turn runs, as Claude Code's; see docs/headless.md)",
    )
    p.add_argument(
        "--image",
        action="append",
        default=[],
        metavar="FILE",
        help="attach an image to the prompt (repeatable; with -z or to the TUI's first message)",
    )
    p.add_argument("--version", action=_VersionAction, help="show the version and exit")
    p.add_argument("--demo", action="store_true", help="use the built-in scripted demo model (no network)")
    p.add_argument("--scenario", metavar="FILE", help="play this scenario file on the scripted model server")
    p.add_argument("--model", "-m", help="model name")
    p.add_argument("--provider", help="provider as Hermes names it (openrouter, nous, gemini, custom, ...)")
    p.add_argument("--base-url", help="OpenAI-compatible (or /anthropic) base URL")
    p.add_argument("--api-key", help="API key (else the provider's key variable, e.g. OPENROUTER_API_KEY)")
    p.add_argument(
        "--yolo",
        action="store_true",
        help="approve risky commands without asking (hard-blocked ones stay blocked)",
    )
    p.add_argument(
        "--permission-mode",
        metavar="MODE",
        help="start in this permission mode: default, ask (every edit and command that is not read-only "
        "asks), plan (read only: the agent proposes a plan) or yolo (nothing asks); a resumed session "
        "keeps its own unless this is given (config: approvals.default_mode)",
    )
    p.add_argument(
        "--sandbox",
        metavar="MODE",
        help="run commands in an OS sandbox (bubblewrap): off, read-only, workspace-write (writes only in "
        "the working directory and the temp dir); no network unless sandbox.network is true",
    )
    p.add_argument(
        "--reasoning",
        metavar="LEVEL",
        help="how hard the model thinks this run: none, minimal, low, medium, high, xhigh, max, ultra "
        "(wins over agent.reasoning_effort and agent.reasoning_overrides)",
    )
    p.add_argument(
        "--max-iterations",
        "--max-turns",
        dest="max_iterations",
        type=int,
        metavar="N",
        help="model calls allowed per turn, then the model summarizes (default 90; --max-turns is Hermes' "
        "name)",
    )
    p.add_argument(
        "-t",
        "--toolsets",
        metavar="LIST",
        help="the toolsets offered this run, comma-separated, instead of the configured ones (e.g. "
        "file,terminal; /tools lists them; Hermes' -t): fewer tools leave a small model's window to the "
        "conversation",
    )
    p.add_argument(
        "--checkpoints",
        action="store_true",
        help="accepted for Hermes' command lines: checkpoints are always taken here (/rollback restores)",
    )
    p.add_argument(
        "-s",
        "--skills",
        action="append",
        metavar="NAMES",
        help="Hermes' skill preload: not available here (a one-line error); send /SKILL-NAME instead",
    )
    p.add_argument("--cwd", help="working directory for the session (default: the current directory)")
    p.add_argument(
        "--accept-hooks",
        action="store_true",
        help="config.yaml's shell hooks run without asking first this run (Hermes' flag; hooks_auto_accept)",
    )
    p.add_argument(
        "-w",
        "--worktree",
        nargs="?",
        const="",
        metavar="NAME",
        help="run the session in the git worktree <repo>/.worktrees/NAME on branch hermes/NAME (created, or "
        "reused), as Hermes' -w; removed at the end if the session changed nothing (NAME: a fresh one)",
    )
    p.add_argument(
        "-c", "--continue", dest="continue_last", action="store_true", help="continue the latest session here"
    )
    p.add_argument("-r", "--resume", metavar="ID_OR_TITLE", help="resume a session by id, id prefix or title")
    p.add_argument("--hermes-home", help="override $HERMES_HOME (default ~/.hermes)")
    p.add_argument(
        "-p",
        "--profile",
        metavar="NAME",
        help="use Hermes' profile NAME ($HERMES_HOME/profiles/NAME); default: the active_profile Hermes set",
    )
    return p


def _flags(args: argparse.Namespace) -> dict[str, Any]:
    flags: dict[str, Any] = {
        "model": args.model,
        "provider": args.provider,
        "base_url": args.base_url,
        "api_key": args.api_key,
        "max_iterations": args.max_iterations,
        "hermes_home": args.hermes_home,
        "reasoning_choice": getattr(args, "reasoning", None),
        "sandbox_mode": getattr(args, "sandbox", None),
    }
    if args.yolo:
        flags["yolo"] = True
    if getattr(args, "permission_mode", None):
        flags["permission_mode"] = args.permission_mode
    elif args.yolo:
        flags["permission_mode"] = "yolo"
    if getattr(args, "accept_hooks", False):
        flags["hooks_auto_accept"] = True
    if getattr(args, "toolsets", None):
        flags["toolsets"] = [name.strip() for name in args.toolsets.split(",") if name.strip()]
    if args.cwd:
        flags["cwd"] = str(typed_path(args.cwd).resolve())
    return flags


def _needs_settings_first(args: argparse.Namespace) -> bool:
    """What must be settled before the terminal is taken: a session to find (none, or several, are
    listed on stderr)."""
    return bool(args.resume or args.continue_last)


NO_TERMINAL = (
    "hermes-tui: no terminal on {stream}: the TUI needs one; to run without it use -z PROMPT "
    "(-z - reads the prompt from stdin)"
)


def missing_terminal() -> str | None:
    """Which of stdin and stdout is not a terminal (None when both are). Under cron, CI, `nohup` or
    `< /dev/null` a full-screen app never gets a key and its input thread spun on end of file."""
    for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout)):
        try:
            if stream is None or not os.isatty(stream.fileno()):
                return name
        except (OSError, ValueError):  # closed, or not a real file
            return name
    return None


def _fast_start(args: argparse.Namespace) -> int:
    """The TUI's one start: the first frame drawn from the last run's startup snapshot, or from the
    defaults when there is none; the configuration is read right after it (`hermes_tui.startup_snapshot`)."""
    from agent.api import hermes_home
    from hermes_tui.startup_snapshot import snapshot_or_default

    snapshot = snapshot_or_default(hermes_home())

    def load() -> LoadedSettings:
        from agent.api import load_settings

        return load_settings(_flags(args))

    from hermes_tui.app import run_fast_app

    try:
        return run_fast_app(args, snapshot, load)
    finally:
        GcPolicy.process_ends()


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _run(list(sys.argv[1:] if argv is None else argv))
    finally:
        early_input.release()  # whatever happened before the app took the terminal (a bad flag, an error)


def _run(argv: list[str]) -> int:
    parser = build_parser()
    command, before, after = parser.split_subcommand(argv)
    cron = None
    if command == "cron":
        from hermes_tui.cron_cli import cron_action

        cron, after = cron_action(after)
    argv = before + after
    args = parser.parse_args(argv)
    if args.prompt is None:
        for flag, given in (
            ("--output-format", args.output_format != "text"),
            ("-Q/--quiet", args.quiet),
            ("--usage-file", args.usage_file),
        ):
            if given:
                print(f"hermes-tui: {flag} is for -z PROMPT (the TUI shows the turn itself)", file=sys.stderr)
                return 2
    if args.skills:
        print(
            "hermes-tui: --skills (preloading skills) is not available here: send /SKILL-NAME as the prompt "
            "or in the TUI to use one",
            file=sys.stderr,
        )
        return 2
    if args.permission_mode is not None:
        from agent.api import UnknownMode, parse_mode

        try:
            args.permission_mode = parse_mode(args.permission_mode).value
        except UnknownMode as exc:
            print(f"hermes-tui: --permission-mode: {exc}", file=sys.stderr)
            return 2
    if args.hermes_home:
        os.environ["HERMES_HOME"] = str(typed_path(args.hermes_home))
    from agent.api import ProfileError, profile_home

    try:
        profile = profile_home(args.profile, os.environ)
    except ProfileError as exc:
        print(f"hermes-tui: {exc}", file=sys.stderr)
        return 2
    if profile is not None:  # as Hermes does: every module (and every subprocess) sees the profile's home
        os.environ["HERMES_HOME"] = str(profile)
        args.hermes_home = str(profile)

    if args.scenario:  # any bytes in the file: one line naming it and the problem, never a traceback
        from scripted import ScenarioError, load_scenario_file

        try:
            args.scenario = load_scenario_file(args.scenario)  # the server plays the checked scenario
        except ScenarioError as exc:
            print(f"hermes-tui: cannot load scenario {exc}", file=sys.stderr)
            return 2

    worktree = None
    if args.worktree is not None:
        if command not in (None, "sessions"):
            print(f"hermes-tui: -w is for a session (the TUI or -z), not `{command}`", file=sys.stderr)
            return 2
        from agent.api import WorktreeError, open_worktree

        try:
            worktree = open_worktree(typed_path(args.cwd or os.getcwd()), args.worktree)
        except WorktreeError as exc:
            print(f"hermes-tui: {exc}", file=sys.stderr)
            return 2
        print(
            f"hermes-tui: worktree {worktree.path} (branch {worktree.branch}, "
            f"{'new' if worktree.created else 'reused'})",
            file=sys.stderr,
        )
        args.cwd = str(worktree.cwd)
        args.worktree = worktree.name  # a fresh name too (`-w` alone), for the exit's resume hint
        os.chdir(worktree.cwd)  # what reads the process's folder (a shell, a relative path) is there too
    try:
        return _dispatch(command, args, cron)
    finally:
        if worktree is not None:
            from agent.api import finish_worktree

            os.chdir(worktree.repo_root)
            print(f"hermes-tui: {finish_worktree(worktree)}", file=sys.stderr)


def _dispatch(command: str | None, args: argparse.Namespace, cron: Any) -> int:
    """What the command line asks for, once the profile, the scenario and the worktree are settled."""
    if command in (None, "sessions") and args.prompt is None:
        missing = missing_terminal()
        if missing is not None:
            print(NO_TERMINAL.format(stream=missing), file=sys.stderr)
            return 2
        GcPolicy.startup_begins()  # until the app's first frame (`hermes_tui.gc_policy`)
        early_input.hold()
    if command is None and args.prompt is None and not _needs_settings_first(args):
        return _fast_start(args)
    from agent.api import load_settings

    if command == "acp":  # its log file is set up first, so the settings' secret filter covers it
        from hermes_tui.acp.main import run_acp

        GcPolicy.startup_begins()  # until its engine is loaded (`hermes_tui.gc_policy`)
        try:
            return run_acp(args, lambda: load_settings(_flags(args)))
        finally:
            GcPolicy.process_ends()
    loaded = load_settings(_flags(args))
    if command == "config":
        from hermes_tui.config_report import print_config

        print_config(loaded)
        return 0
    if command == "doctor":
        from hermes_tui.doctor import run_doctor

        return run_doctor(loaded)
    if command == "plugins":
        from agent.api import PluginManager, format_plugin_list

        settings = loaded.settings
        manager = PluginManager(
            settings.hermes_home,
            enabled=settings.plugins_enabled,
            disabled=settings.plugins_disabled,
            cwd=settings.cwd,
            hook_timeout=settings.plugin_hook_timeout,
            load_timeout=settings.plugin_load_timeout,
        )
        manager.load()
        print(format_plugin_list(manager.plugins, plugin_dir=manager.plugin_dir))
        manager.close()
        return 1 if manager.failed else 0
    if command == "usage":
        from agent.api import StoreError, open_library
        from agent.api import gather_usage as gather
        from agent.api import render_usage_text as render_text

        settings = loaded.settings
        try:
            library = open_library(settings.state_db, settings.hermes_home)
        except StoreError as exc:
            print(f"hermes-tui: {exc.user_line()}", file=sys.stderr)
            return 1
        with library:
            print(render_text(gather(library)))
        return 0
    if cron is not None or args.prompt is not None:
        from agent.api import serve_collector

        serve_collector(GcPolicy().burst)  # no app to own the collector: the engine's bursts are this one's
    if cron is not None:
        from hermes_tui.cron_cli import run_cron

        return run_cron(cron, args, loaded)
    if command == "mcp":
        from agent.api import print_mcp_servers

        return print_mcp_servers(loaded.settings.hermes_home)
    if args.prompt is not None and args.message is not None:
        print("hermes-tui: give the prompt once: -z PROMPT (headless) or PROMPT (the TUI)", file=sys.stderr)
        return 2
    if args.prompt == "-":
        args.prompt = sys.stdin.read()
    if args.prompt is not None:
        from hermes_tui.headless import run_headless

        GcPolicy.startup_begins()  # until its engine is loaded (`hermes_tui.gc_policy`)
        try:
            return run_headless(args, loaded)
        finally:
            GcPolicy.process_ends()
    try:
        from hermes_tui.app import run_app
    except ImportError as exc:  # pragma: no cover - the TUI is part of the package
        GcPolicy.process_ends()
        print(f"hermes-tui: the TUI is not available ({exc})", file=sys.stderr)
        return 2
    try:
        return run_app(
            args,
            loaded,
            open_sessions=command == "sessions",
            reload_settings=lambda: load_settings(_flags(args)),
        )
    finally:
        GcPolicy.process_ends()  # whatever happened before the first frame


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
