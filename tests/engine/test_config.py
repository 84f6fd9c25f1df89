"""Configuration: Hermes' files, ours, environment, flags, in that order; clear errors, never a crash."""

from __future__ import annotations

from pathlib import Path

from agent.config.settings import load_settings


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_precedence_file_env_flag(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _write(
        home / "config.yaml",
        "model:\n  default: from-file\n  provider: openrouter\n  base_url: http://file/v1\n"
        "agent:\n  max_turns: 40\n",
    )
    env = {"HERMES_HOME": str(home), "OPENROUTER_API_KEY": "sk-or-env"}
    loaded = load_settings({}, env=env)
    s = loaded.settings
    assert (s.model, s.provider, s.base_url, s.max_iterations) == (
        "from-file",
        "openrouter",
        "http://file/v1",
        40,
    )
    assert s.api_key is not None and s.api_key.get_secret_value() == "sk-or-env"
    assert loaded.sources["model"].endswith("config.yaml")
    env["HERMES_MODEL"] = "from-env"
    assert load_settings({}, env=env).settings.model == "from-env"
    flagged = load_settings({"model": "from-flag", "api_key": "sk-flag"}, env=env)
    assert flagged.settings.model == "from-flag" and flagged.sources["model"] == "flag --model"
    assert flagged.settings.api_key.get_secret_value() == "sk-flag"


def test_model_as_a_plain_string_and_dotenv(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _write(
        home / "config.yaml",
        "model: gpt-4o-mini\napprovals:\n  mode: off\n  timeout: 60\ncommand_allowlist: ['make test']\n",
    )
    _write(home / ".env", "# keys\nexport OPENAI_API_KEY='sk-from-dotenv'\n")
    s = load_settings({}, env={"HERMES_HOME": str(home)}).settings
    assert s.model == "gpt-4o-mini" and s.provider == "openai"
    assert s.api_key.get_secret_value() == "sk-from-dotenv"
    assert s.approvals_mode == "off" and s.approvals_timeout == 60 and s.command_allowlist == ["make test"]


def test_tui_config_overrides_hermes_config(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _write(home / "config.yaml", "display:\n  skin: ares\n")
    _write(home / "tui" / "config.yaml", "skin: poseidon\nmax_retries: 1\n")
    s = load_settings({}, env={"HERMES_HOME": str(home)}).settings
    assert s.skin == "poseidon" and s.max_retries == 1


def test_validation_errors_name_file_key_value_and_expectation(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _write(home / "config.yaml", "agent:\n  max_turns: lots\n")
    _write(home / "tui" / "config.yaml", "stale_timeout: -5\nnotify: loudly\nwhat_is_this: 1\n")
    loaded = load_settings({}, env={"HERMES_HOME": str(home)})
    problems = {p.key: p for p in loaded.problems}
    assert (
        problems["agent.max_turns"].file.endswith("config.yaml")
        and problems["agent.max_turns"].value == "lots"
    )
    assert "int" in problems["agent.max_turns"].expected
    assert "greater than 0" in problems["stale_timeout"].expected
    assert "notify" in problems and "what_is_this" in problems
    assert loaded.settings.max_iterations == 90 and loaded.settings.stale_timeout == 180  # defaults kept
    text = str(problems["agent.max_turns"])
    assert "agent.max_turns" in text and "lots" in text


def test_broken_yaml_is_reported_with_its_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _write(home / "config.yaml", "model:\n  default: x\n  provider: [unclosed\n")
    loaded = load_settings({}, env={"HERMES_HOME": str(home)})
    assert loaded.problems and loaded.problems[0].key.startswith("line ")


def test_api_key_in_tui_config_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _write(home / "tui" / "config.yaml", "api_key: sk-should-not-be-here\n")
    loaded = load_settings({}, env={"HERMES_HOME": str(home)})
    assert loaded.settings.api_key is None
    assert all("sk-should-not-be-here" not in str(p) for p in loaded.problems)


def test_anthropic_base_url_selects_the_anthropic_transport(tmp_path: Path) -> None:
    s = load_settings(
        {"base_url": "https://api.minimax.io/anthropic", "model": "m"}, env={"HERMES_HOME": str(tmp_path)}
    ).settings
    assert s.api_mode == "anthropic"


def test_expand_diffs_is_on_by_default_and_read_as_hermes_names_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert load_settings({}, env={"HERMES_HOME": str(home)}).settings.expand_diffs is True
    _write(home / "config.yaml", "display:\n  expand_diffs: false\n")
    loaded = load_settings({}, env={"HERMES_HOME": str(home)})
    assert loaded.settings.expand_diffs is False and not loaded.problems
    _write(home / "tui" / "config.yaml", "expand_diffs: true\n")
    assert load_settings({}, env={"HERMES_HOME": str(home)}).settings.expand_diffs is True
    _write(home / "tui" / "config.yaml", "expand_diffs: sometimes\n")
    problems = load_settings({}, env={"HERMES_HOME": str(home)}).problems
    assert [problem.key for problem in problems] == ["expand_diffs"]
