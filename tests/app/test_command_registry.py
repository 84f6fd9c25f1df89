"""The command registry without an App: parsing, aliases, plugins and skills joining, the lists users see."""

from __future__ import annotations

import pytest

from hermes_tui.commands import BUILTIN_COMMANDS, CommandRegistry, SlashCommand, new_registry
from hermes_tui.commands.plugins import PluginCommand


def test_parse_finds_commands_by_name_and_alias_with_their_argument() -> None:
    registry = new_registry()
    command, arg, typed = registry.parse("  /Model  gpt-4o ")
    assert command is registry.find("model") and arg == "gpt-4o" and typed == "model"
    assert registry.parse("/exit")[0] is registry.find("quit")
    assert registry.parse("/resume")[2] == "sessions"
    assert registry.parse("/nope x") == (None, "x", "nope")
    assert registry.parse("//not a command") == (None, "", "")
    assert registry.parse("plain text") == (None, "", "")


def test_a_plugin_joins_without_taking_a_built_in_name() -> None:
    registry = new_registry()
    registry.set_plugins([PluginCommand("forecast", "A forecast"), PluginCommand("help", "Hijack")])
    assert [c.name for c in registry.plugins] == ["forecast"]
    assert registry.find("help") in BUILTIN_COMMANDS
    command, arg, _ = registry.parse("/forecast Oslo")
    assert isinstance(command, PluginCommand) and arg == "Oslo"
    assert registry.commands()[-1] is command  # the palette lists it after the built-in ones
    registry.set_plugins([])  # another session, without the plugin
    assert registry.find("forecast") is None


def test_completions_and_help_list_builtins_in_order_then_skills_and_plugins_by_name() -> None:
    registry = new_registry()
    registry.set_skills({"zebra": "Deploy the zebra", "axolotl": "Feed it"})
    registry.set_plugins([PluginCommand("forecast", "A forecast")])
    completions = registry.completions()
    assert completions[: len(BUILTIN_COMMANDS)] == [(f"/{c.name}", c.help) for c in BUILTIN_COMMANDS]
    assert completions[len(BUILTIN_COMMANDS) :] == [
        ("/axolotl", "Feed it"),
        ("/forecast", "A forecast"),
        ("/zebra", "Deploy the zebra"),
    ]
    rows = registry.help_rows()
    assert ("Commands", "/new", "Start a new session  (ctrl+n)") in rows
    assert ("Skills", "/axolotl", "Feed it") in rows and ("Plugins", "/forecast", "A forecast") in rows
    assert registry.reserved_names() >= {"help", "?", "quit", "q", "exit"}


def test_two_commands_of_one_name_are_refused() -> None:
    def nothing(ctx: object, arg: str) -> None:
        return None

    with pytest.raises(ValueError, match="/clear"):
        CommandRegistry([*BUILTIN_COMMANDS, SlashCommand("wipe", "Wipe", nothing, aliases=("clear",))])


def test_a_command_without_an_argument_is_run_with_none() -> None:
    seen: list[str] = []
    command = SlashCommand("ping", "Ping", lambda ctx, arg: seen.append(arg))
    command.run(None, "ignored")  # type: ignore[arg-type]
    with_arg = SlashCommand("echo", "Echo", lambda ctx, arg: seen.append(arg), takes_argument=True)
    with_arg.run(None, "this")  # type: ignore[arg-type]
    assert seen == ["", "this"]


def test_an_unknown_command_suggests_the_closest_names() -> None:
    registry = new_registry()
    assert "Did you mean /compress" in registry.unknown("compres")
    assert "Did you mean /sessions" in registry.unknown("sesions")
    assert registry.unknown("zzzqqq") == "Unknown command /zzzqqq. Type /help for the list."


def test_the_peers_command_names_run_ours() -> None:
    registry = new_registry()
    found = {name: registry.find(name) for name in ("compact", "undo", "retry", "title", "status", "clear")}
    assert {name: c.name if c else None for name, c in found.items()} == {
        "compact": "compress",
        "undo": "undo",
        "retry": "retry",
        "title": "title",
        "status": "status",
        "clear": "clear",
    }


def test_hermes_command_names_point_to_ours_or_say_there_is_none() -> None:
    from hermes_tui.commands.hermes_names import HERMES_ELSEWHERE, HERMES_ONLY

    registry = new_registry()
    assert registry.unknown("skin") == "Unknown command /skin: Hermes' /skin is /theme here."
    assert "/mcp reload" in registry.unknown("reload-mcp")
    assert "/ps" in registry.unknown("stop") and "/export" in registry.unknown("history")
    assert "queued" in registry.unknown("queue")
    for name in ("branch", "background", "goal"):
        line = registry.unknown(name)
        assert "no equivalent in hermes-tui" in line and "Did you mean" not in line
    ours = registry.reserved_names()
    assert not (set(HERMES_ELSEWHERE) | HERMES_ONLY) & ours, "a command we have is not Hermes-only"
    for where in HERMES_ELSEWHERE.values():  # every pointer to a slash command names one that runs
        if where.startswith("/"):
            assert registry.find(where[1:].split()[0]) is not None, where
    assert not set(HERMES_ELSEWHERE) & HERMES_ONLY


def test_a_command_typed_in_full_is_the_first_suggestion() -> None:
    """`/mode` + Enter runs `/mode`, not `/model` (listed before it, and a prefix match of it)."""
    from widgets.prompt.input import match_commands

    completions = new_registry().completions()
    assert [name for name, _ in match_commands(completions, "/mode")][:2] == ["/mode", "/model"]
    assert [name for name, _ in match_commands(completions, "/mod")][:2] == ["/model", "/mode"]
