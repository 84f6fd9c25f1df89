"""Hermes-format plugins (plugin.yaml + register(ctx)) load through the same loader as ours: the tool is
offered and its result reaches the model, `pre_tool_call` blocks, the command runs; `plugins.enabled`
decides as in Hermes; what we do not support is listed with the reason."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from agent.core.events import ToolStarted
from agent.plugins import HERMES_ENTRY_POINT_GROUP, PluginInfo, PluginManager, format_plugin_list
from scripted import ScriptedServer
from tests.cli_process import run_cli
from tests.engine.helpers import install_distribution, make_agent, tool_results

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "hermes_plugins"


def install(home: Path, name: str, where: Path | None = None) -> Path:
    target = (where or home / "plugins") / name
    shutil.copytree(FIXTURES / name, target)
    return target


def info(manager: PluginManager, name: str) -> PluginInfo:
    return next(p for p in manager.plugins if p.name == name)


def seen() -> list[tuple]:
    return sys.modules["hermes_plugins.weather"].SEEN


def test_the_tool_is_offered_and_its_result_reaches_the_model(hermes_home: Path, tmp_path: Path) -> None:
    install(hermes_home, "weather")
    calls = [
        {"tool_calls": [{"name": "weather_forecast", "arguments": {"city": "Paris"}}]},
        {"text": "It is sunny in Paris."},
    ]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, plugins_enabled=["weather"])
        result = agent.run_conversation("weather in Paris?")
        first, second = (r.body for r in server.requests)
    assert result.final_text == "It is sunny in Paris."
    offered = {t["function"]["name"]: t["function"] for t in first["tools"]}
    assert offered["weather_forecast"]["description"] == "Today's forecast for a city"
    assert offered["weather_forecast"]["parameters"]["required"] == ["city"]
    [(_call_id, content)] = tool_results(second, "openai")
    assert json.loads(content) == {"city": "Paris", "forecast": "sunny, 21 °C"}
    handler = next(entry for entry in seen() if entry[0] == "handler")
    assert handler[1] == {"city": "Paris"} and {"task_id", "session_id"} <= set(handler[2])
    post = [entry for entry in seen() if entry[0] == "post_tool_call"]
    assert post == [("post_tool_call", "weather_forecast", "ok", content)]
    loaded = info(agent.plugins, "weather")
    assert (loaded.api, loaded.tools, loaded.commands) == ("hermes", ["weather_forecast"], ["forecast"])
    assert agent.plugins.tool_icons == {"weather_forecast": "🌤"}
    agent.close()


def test_pre_tool_call_blocks_and_the_model_reads_why(hermes_home: Path, tmp_path: Path) -> None:
    install(hermes_home, "weather")
    victim = tmp_path / "keep"
    victim.mkdir()
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {victim}"}}]},
        {"text": "I was stopped."},
    ]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path, plugins_enabled=["weather"], yolo=True)
        agent.run_conversation("clean up")
        [(_id, content)] = tool_results(server.requests[1].body, "openai")
    assert victim.exists()
    [started] = ui.of_type(ToolStarted)
    assert started.summary == f"rm -rf {victim}"  # the panel says what was blocked
    assert content == "Tool call blocked by plugin 'weather': the weather plugin never lets rm -rf run"
    pre = next(entry for entry in seen() if entry[0] == "pre_tool_call")
    assert {"session_id", "task_id", "tool_call_id", "turn_id"} <= set(pre[2])
    assert [e[2] for e in seen() if e[0] == "post_tool_call"] == ["blocked"]
    agent.close()


def test_the_command_runs(hermes_home: Path) -> None:
    install(hermes_home, "weather")
    manager = PluginManager(hermes_home, entry_points=False, enabled=["weather"])
    manager.load()
    assert manager.commands["forecast"].description == "Today's forecast for a city"
    assert manager.run_command("forecast", "Oslo") == "Forecast for Oslo: snow, -3 °C"
    manager.close()


@pytest.mark.parametrize(
    ("enabled", "disabled", "why"),
    [
        (None, [], "not enabled: add 'weather' to plugins.enabled in config.yaml"),
        (["other"], [], "not enabled: add 'weather' to plugins.enabled"),
        (["weather"], ["weather"], "disabled in config.yaml (plugins.disabled)"),
    ],
)
def test_plugins_enabled_decides_as_in_hermes(
    hermes_home: Path, tmp_path: Path, enabled: list[str] | None, disabled: list[str], why: str
) -> None:
    install(hermes_home, "weather")
    with ScriptedServer({"name": "t", "calls": [{"text": "ok"}]}) as server:
        agent, _store, _ui = make_agent(
            server, hermes_home, tmp_path, plugins_enabled=enabled, plugins_disabled=disabled
        )
        agent.run_conversation("hi")
        offered = {t["function"]["name"] for t in server.requests[0].body["tools"]}
    assert "weather_forecast" not in offered
    weather = info(agent.plugins, "weather")
    assert not weather.loaded and weather.status == "off" and weather.off is not None and why in weather.off
    assert "hermes_plugins.weather" not in sys.modules or not agent.plugins.commands
    assert "○ weather  off" in format_plugin_list(agent.plugins.plugins)


def test_config_yaml_plugins_keys_are_read(hermes_home: Path) -> None:
    from agent.config.settings import load_settings

    (hermes_home / "config.yaml").write_text("plugins:\n  enabled: [weather]\n  disabled: [noisy]\n")
    s = load_settings({}, env={"HERMES_HOME": str(hermes_home)}).settings
    assert (s.plugins_enabled, s.plugins_disabled) == (["weather"], ["noisy"])


def test_an_unsupported_api_is_listed_with_the_reason(hermes_home: Path) -> None:
    install(hermes_home, "gateway-bridge")
    manager = PluginManager(hermes_home, entry_points=False, enabled=["gateway-bridge"])
    manager.load()
    bridge = info(manager, "gateway-bridge")
    assert bridge.loaded and bridge.hooks == ["on_session_start"]
    assert bridge.unsupported == [
        "register_platform: gateway platforms (Telegram, Discord, ...): hermes-tui is a terminal app",
        "register_cli_command: `hermes <subcommand>` commands: hermes-tui has its own command line",
        "hook subagent_stop: hermes-tui never fires it (no such event here)",
    ]
    text = format_plugin_list(manager.plugins)
    assert "(Hermes plugin)" in text and "not supported: register_platform" in text


def test_project_plugins_only_when_enabled_by_the_variable(hermes_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    install(hermes_home, "weather", project / ".hermes" / "plugins")
    for env, expected in (({}, []), ({"HERMES_ENABLE_PROJECT_PLUGINS": "1"}, ["weather"])):
        manager = PluginManager(hermes_home, entry_points=False, enabled=["weather"], cwd=project, env=env)
        manager.load()
        assert [p.name for p in manager.plugins if p.loaded] == expected
        manager.close()


def test_hermes_entry_points_are_hermes_plugins(
    hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "hermes_pip_plugin.py").write_text(
        textwrap.dedent(
            """
            def register(ctx):
                ctx.register_hook("transform_llm_output", lambda response_text, **kw: response_text.upper())
                ctx.register_hook("post_llm_call", lambda **kw: SEEN.append(sorted(kw)))
                ctx.register_hook("on_session_end", lambda **kw: SEEN.append(("end", kw["completed"])))
            SEEN = []
            """
        )
    )
    install_distribution(
        site, "hermes-pip-plugin", {HERMES_ENTRY_POINT_GROUP: {"pipped": "hermes_pip_plugin"}}
    )
    monkeypatch.syspath_prepend(str(site))
    with ScriptedServer({"name": "t", "calls": [{"text": "quiet words"}]}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, plugins_enabled=["pipped"])
        result = agent.run_conversation("hi")
    assert result.final_text == "QUIET WORDS"
    from agent.core.events import TurnFinished

    finished = _ui.of_type(TurnFinished)[-1]
    assert finished.final_text == "QUIET WORDS" and finished.rewritten
    seen_by_plugin = sys.modules["hermes_pip_plugin"].SEEN
    assert "assistant_response" in seen_by_plugin[0] and "conversation_history" in seen_by_plugin[0]
    assert seen_by_plugin[1] == ("end", True)


def test_hermes_tui_plugins_exits_non_zero_and_prints_each_error_once(hermes_home: Path) -> None:
    plugin_dir = hermes_home / "plugins"
    plugin_dir.mkdir(parents=True)
    (plugin_dir / "broken.py").write_text("import no_such_module_anywhere_xyz\n")
    (plugin_dir / "fine.py").write_text("def on_turn_end(result):\n    pass\n")
    done = run_cli(["plugins"], env={"HERMES_HOME": str(hermes_home), "PATH": "/usr/bin:/bin"}, timeout=60)
    assert done.returncode == 1
    both = done.stdout + done.stderr
    assert both.count("No module named 'no_such_module_anywhere_xyz'") == 1
    assert "2 plugins: 1 loaded, 1 failed" in done.stdout
    ok = run_cli(
        ["plugins"], env={"HERMES_HOME": str(hermes_home / "elsewhere"), "PATH": "/usr/bin:/bin"}, timeout=60
    )
    assert ok.returncode == 0 and ok.stdout.startswith("No plugins.")
