"""Plugins under faults (issue 33's 32 cases): a plugin whose import, `register` or hook raises any of the
`BaseException`s that are not `Exception`s (`KeyboardInterrupt`, `SystemExit`, `GeneratorExit`), hangs in
a hook or its import, or ends the process with `os._exit`: the turn and the app go on, and one line names
the plugin and the fault (a notice; `-z`: stderr). The user's own Ctrl+C still interrupts.

In process (the agent's turn with each fault, 27 cases), then as a user runs it (`-z` in a subprocess: each
kind with every place at once, a hung hook, `os._exit` in an import and in a hook followed by the next
start, a real SIGINT during a slow import).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from agent.core.events import StatusNotice
from agent.plugins import PluginManager
from scripted import ScriptedServer
from tests.cli_process import run_cli
from tests.engine.helpers import make_agent

ROOT = Path(__file__).resolve().parents[2]

KINDS = {
    "KeyboardInterrupt": "raise KeyboardInterrupt('from the plugin')",
    "SystemExit": "raise SystemExit(3)",
    "GeneratorExit": "raise GeneratorExit('from the plugin')",
}
PLACES = (
    "import",
    "register",
    "pre_llm_call",
    "before_tool",
    "after_tool",
    "on_turn_end",
    "hermes:on_session_start",
    "hermes:pre_tool_call",
    "hermes:transform_llm_output",
)
CALLS = [
    {"tool_calls": [{"name": "terminal", "arguments": {"command": "echo fine"}}]},
    {"text": "all good"},
]


def _plugin_name(kind: str, place: str) -> str:
    return f"{kind.lower()}_{place.replace('hermes:', 'h_')}"


def install(home: Path, name: str, place: str, body: str) -> None:
    """A plugin named `name` that runs `body` at `place`."""
    plugins = home / "plugins"
    plugins.mkdir(parents=True, exist_ok=True)
    if place.startswith("hermes:"):
        folder = plugins / name
        folder.mkdir()
        (folder / "plugin.yaml").write_text(f"name: {name}\n")
        hook = place.removeprefix("hermes:")
        source = (
            f"def register(ctx):\n    ctx.register_hook({hook!r}, fault)\n\ndef fault(**kw):\n    {body}\n"
        )
        (folder / "__init__.py").write_text(source)
        return
    if place == "import":
        source = f"{body}\n"
    elif place == "register":
        source = f"def register(ctx):\n    {body}\n"
    else:
        hook = f"def register(ctx):\n    ctx.register_hook({place!r}, fault)\n\n"
        source = f"{hook}def fault(*a, **kw):\n    {body}\n"
    (plugins / f"{name}.py").write_text(source)


def hermes_names(names: list[str]) -> list[str]:
    return [n for n in names if "_h_" in n]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_fault_of_each_kind_in_each_place_disables_the_plugin_in_one_line(
    hermes_home: Path, tmp_path: Path, kind: str, place: str
) -> None:
    name = _plugin_name(kind, place)
    install(hermes_home, name, place, KINDS[kind])
    install(hermes_home, "steady", "pre_llm_call", "return 'steady context'")
    with ScriptedServer({"name": "t", "calls": CALLS}) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path, plugins_enabled=hermes_names([name]))
        result = agent.run_conversation("go")
        first, second = (r.body["messages"] for r in server.requests)
    assert result.exit_reason == "completed" and result.final_text == "all good"
    assert "fine" in next(m for m in second if m["role"] == "tool")["content"]  # the tool ran
    assert first[-1]["content"].endswith("steady context")  # the other plugin kept working
    lines = [e.text for e in ui.events if isinstance(e, StatusNotice) and name in e.text]
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"Plugin {name} failed") and kind in lines[0]
    assert "\n" not in lines[0] and "Traceback" not in lines[0]
    plugin = next(p for p in agent.plugins.plugins if p.name == name)
    assert not plugin.loaded and kind in (plugin.error or "")
    assert "Traceback" in (hermes_home / "tui" / "logs" / "plugins.log").read_text()
    assert not list((hermes_home / "tui" / "plugin_calls").glob("*.json"))  # every call's marker gone


def test_a_hung_hook_is_abandoned_reported_and_its_plugin_disabled(hermes_home: Path, tmp_path: Path) -> None:
    install(hermes_home, "sleepy", "before_tool", "import time; time.sleep(60)")
    with ScriptedServer({"name": "t", "calls": CALLS}) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path, plugin_hook_timeout=0.3)
        started = time.monotonic()
        result = agent.run_conversation("go")
        took = time.monotonic() - started
    assert result.exit_reason == "completed" and result.final_text == "all good"
    assert took < 20  # abandoned, not waited for
    lines = [e.text for e in ui.events if isinstance(e, StatusNotice) and "sleepy" in e.text]
    assert lines == [
        "Plugin sleepy failed in before_tool: did not return within 0.3 s (abandoned); plugin disabled"
    ]
    assert not agent.plugins.has_hooks("before_tool")


def test_a_hung_import_is_abandoned_with_one_line(hermes_home: Path) -> None:
    install(hermes_home, "stuck", "import", "import time; time.sleep(60)")
    install(hermes_home, "fine", "on_turn_end", "return None")
    told: list[tuple[str, str, str]] = []
    manager = PluginManager(
        hermes_home, entry_points=False, on_error=lambda *a: told.append(a), load_timeout=0.3
    )
    manager.load()
    assert told == [("stuck", "load", "did not finish loading within 0.3 s (abandoned)")]
    assert [(p.name, p.loaded) for p in manager.plugins] == [("fine", True), ("stuck", False)]


def test_a_plugin_tool_and_command_raising_base_exceptions_are_one_error_each(hermes_home: Path) -> None:
    folder = hermes_home / "plugins" / "rude"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text("name: rude\n")
    (folder / "__init__.py").write_text(
        textwrap.dedent(
            """
            def register(ctx):
                ctx.register_tool("rude_tool", "rude", {"name": "rude_tool", "parameters": {}}, tool)
                ctx.register_command("rude", command)

            def tool(args, **kw):
                raise SystemExit(4)

            def command(raw):
                raise KeyboardInterrupt("not the user's")
            """
        )
    )
    manager = PluginManager(hermes_home, entry_points=False, enabled=["rude"])
    manager.load()
    import threading

    from agent.toolkit.registry import ToolContext

    tool = manager._tools["rude_tool"].as_tool()
    ctx = ToolContext(
        cwd=hermes_home, call_id="c", interrupt=threading.Event(), hermes_home=hermes_home, session_id="s"
    )
    result = tool.handler(tool.args_model(), ctx)
    assert result.status == "error" and "SystemExit: 4" in result.content
    assert (
        manager.run_command("rude", "")
        == "/rude failed (rude): KeyboardInterrupt: not the user's (" + str(folder / "__init__.py") + ":10)"
    )
    manager.close()


# ---------------------------------------------------------------------------------------------- as a user


def _z(
    home: Path, cwd: Path, *, timeout: float = 90, extra: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    scenario = cwd / "scenario.json"
    scenario.write_text(json.dumps({"name": "t", "calls": CALLS}))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"HERMES_HOME": str(home), "PYTHONPATH": str(ROOT)})
    return run_cli(
        ["-z", "go", "--yolo", "--scenario", str(scenario), *extra], cwd=cwd, env=env, timeout=timeout
    )


def _config(home: Path, **plugins: object) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(json.dumps({"plugins": plugins}))


@pytest.mark.parametrize("kind", list(KINDS))
def test_headless_runs_on_with_one_line_per_faulty_plugin(
    hermes_home: Path, tmp_path: Path, kind: str
) -> None:
    names = []
    for place in PLACES:
        names.append(_plugin_name(kind, place))
        install(hermes_home, names[-1], place, KINDS[kind])
    _config(hermes_home, enabled=hermes_names(names))
    proc = _z(hermes_home, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "all good"
    assert "Traceback" not in proc.stderr
    for name in names:
        lines = [line for line in proc.stderr.splitlines() if name in line]
        assert len(lines) == 1, (name, proc.stderr)
        assert kind in lines[0]


def test_headless_abandons_a_hung_hook(hermes_home: Path, tmp_path: Path) -> None:
    install(hermes_home, "sleepy", "pre_llm_call", "import time; time.sleep(120)")
    _config(hermes_home, hook_timeout=0.5)
    proc = _z(hermes_home, tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "all good"
    lines = [line for line in proc.stderr.splitlines() if "sleepy" in line]
    assert lines == [
        "┊ Plugin sleepy failed in pre_llm_call: did not return within 0.5 s (abandoned); plugin disabled"
    ]


@pytest.mark.parametrize("place", ["import", "pre_llm_call"])
def test_os_exit_in_a_plugin_is_reported_and_the_plugin_kept_out_next_time(
    hermes_home: Path, tmp_path: Path, place: str
) -> None:
    install(hermes_home, "exiter", place, "import os; os._exit(7)")
    first = _z(hermes_home, tmp_path)
    assert first.returncode == 7  # nothing can stop os._exit: the next start tells it
    second = _z(hermes_home, tmp_path)
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == "all good"
    lines = [line for line in second.stderr.splitlines() if "exiter" in line]
    assert len(lines) == 1 and lines[0].startswith("┊ Plugin exiter: it ended the app"), second.stderr
    assert f"({place} running" in lines[0]
    third = _z(hermes_home, tmp_path)  # still kept out: it has not changed
    assert third.returncode == 0 and "Plugin exiter: it ended the app" in third.stderr
    # Once its file changes (fixed), it loads again.
    install_path = hermes_home / "plugins" / "exiter.py"
    install_path.unlink()
    install(hermes_home, "exiter", place, "return None" if place != "import" else "VALUE = 1")
    fixed = _z(hermes_home, tmp_path)
    assert fixed.returncode == 0 and "ended the app" not in fixed.stderr


def test_a_real_ctrl_c_during_a_slow_plugin_import_still_interrupts(
    hermes_home: Path, tmp_path: Path
) -> None:
    started = tmp_path / "started"
    install(
        hermes_home,
        "slow",
        "import",
        f"import pathlib, time; pathlib.Path({str(started)!r}).touch(); time.sleep(30)",
    )
    _config(hermes_home, load_timeout=60)
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"name": "t", "calls": CALLS}))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"HERMES_HOME": str(hermes_home), "PYTHONPATH": str(ROOT)})
    proc = subprocess.Popen(
        [sys.executable, "-m", "hermes_tui.cli", "-z", "go", "--scenario", str(scenario)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), "the plugin never started importing"
        os.kill(proc.pid, signal.SIGINT)
        _out, err = proc.communicate(timeout=10)  # not the 30 s of the import, nor the 60 s limit
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "hermes-tui: interrupted" in err and "Traceback" not in err
    assert "Plugin slow" not in err  # the user's Ctrl+C is not the plugin's fault
