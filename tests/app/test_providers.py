"""Providers as Hermes names them: one table of base URLs and key variables; the legacy `fallback_model`;
a clear line for a provider that needs another protocol."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agent.config.settings import load_settings
from agent.core import providers
from hermes_tui.config_report import print_config
from scripted import ScriptedServer
from tests.cli_process import run_cli
from tests.engine.helpers import make_agent

# (provider, base URL, key variables in priority order, protocol), as Hermes 0.19's registry gives them
# (hermes_cli/auth.py PROVIDER_REGISTRY and plugins/model-providers/*). The URLs are data compared with
# `agent.core.providers`' table: nothing here connects to them (requests go to the scripted server only).
HERMES_TABLE = [
    ("openrouter", "https://openrouter.ai/api/v1", ("OPENROUTER_API_KEY",), "openai_chat"),
    (
        "anthropic",
        "https://api.anthropic.com",
        ("ANTHROPIC_API_KEY", "ANTHROPIC_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"),
        "anthropic",
    ),
    ("nous", "https://inference-api.nousresearch.com/v1", ("NOUS_API_KEY",), "openai_chat"),
    ("deepseek", "https://api.deepseek.com/v1", ("DEEPSEEK_API_KEY",), "openai_chat"),
    ("xai", "https://api.x.ai/v1", ("XAI_API_KEY",), "openai_chat"),
    ("zai", "https://api.z.ai/api/paas/v4", ("GLM_API_KEY", "ZAI_API_KEY", "Z_AI_API_KEY"), "openai_chat"),
    ("kimi-coding", "https://api.moonshot.ai/v1", ("KIMI_API_KEY", "KIMI_CODING_API_KEY"), "openai_chat"),
    ("minimax", "https://api.minimax.io/anthropic", ("MINIMAX_API_KEY",), "anthropic"),
    (
        "alibaba",
        "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
        ("DASHSCOPE_API_KEY",),
        "openai_chat",
    ),
    ("huggingface", "https://router.huggingface.co/v1", ("HF_TOKEN",), "openai_chat"),
    ("nvidia", "https://integrate.api.nvidia.com/v1", ("NVIDIA_API_KEY",), "openai_chat"),
    ("ollama-cloud", "https://ollama.com/v1", ("OLLAMA_API_KEY",), "openai_chat"),
    ("fireworks", "https://api.fireworks.ai/inference/v1", ("FIREWORKS_API_KEY",), "openai_chat"),
    ("lmstudio", "http://127.0.0.1:1234/v1", ("LM_API_KEY",), "openai_chat"),
]


@pytest.mark.parametrize(("name", "url", "keys", "protocol"), HERMES_TABLE)
def test_table_has_hermes_urls_and_key_variables(
    name: str, url: str, keys: tuple[str, ...], protocol: str
) -> None:
    spec = providers.lookup(name)
    assert spec is not None and spec.supported
    assert (spec.base_url, spec.key_env, spec.protocol) == (url, keys, protocol)


def test_gemini_goes_through_googles_openai_compatible_endpoint() -> None:
    spec = providers.lookup("gemini")
    assert spec is not None and spec.protocol == "openai_chat"
    assert spec.base_url == "https://generativelanguage.googleapis.com/v1beta/openai"
    assert spec.key_env == ("GOOGLE_API_KEY", "GEMINI_API_KEY")


ALIASES = [
    ("claude", "anthropic"),
    ("GLM", "zai"),
    ("grok", "xai"),
    ("google", "gemini"),
    ("ollama", "custom"),
    ("or", "openrouter"),
]


@pytest.mark.parametrize(("alias", "name"), ALIASES)
def test_hermes_aliases(alias: str, name: str) -> None:
    assert providers.canonical(alias) == name


@pytest.mark.parametrize("name", ["deepseek", "nous", "gemini", "xai", "zai"])
def test_a_hermes_config_naming_the_provider_works_with_its_key(tmp_path: Path, name: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(f"model:\n  default: some-model\n  provider: {name}\n")
    spec = providers.PROVIDERS[name]
    env = {"HERMES_HOME": str(home), spec.key_env[-1]: "sk-test-key"}
    loaded = load_settings({}, env=env)
    s = loaded.settings
    assert s.is_configured and s.unsupported_provider is None
    assert s.api_key is not None and s.api_key.get_secret_value() == "sk-test-key"
    assert loaded.sources["api_key"] == f"env {spec.key_env[-1]}"
    # xAI answers on the Responses API, as in Hermes (issue 30); the others on chat completions.
    expected = "codex_responses" if name == "xai" else "openai_chat"
    assert s.effective_base_url == spec.base_url and s.api_mode == expected


def test_an_alias_becomes_the_canonical_name_and_its_protocol(tmp_path: Path) -> None:
    env = {"HERMES_HOME": str(tmp_path), "ANTHROPIC_TOKEN": "tok"}
    s = load_settings({"provider": "claude", "model": "claude-sonnet-4-5"}, env=env).settings
    assert (s.provider, s.api_mode, s.is_configured) == ("anthropic", "anthropic", True)


def test_the_providers_base_url_variable_overrides_the_default(tmp_path: Path) -> None:
    env = {
        "HERMES_HOME": str(tmp_path),
        "DEEPSEEK_API_KEY": "k",
        "DEEPSEEK_BASE_URL": "http://127.0.0.1:9/v1",
    }
    loaded = load_settings({"provider": "deepseek", "model": "deepseek-chat"}, env=env)
    assert loaded.settings.effective_base_url == "http://127.0.0.1:9/v1"
    assert loaded.sources["base_url"] == "env DEEPSEEK_BASE_URL"


def test_a_known_provider_without_its_key_is_not_configured(tmp_path: Path) -> None:
    s = load_settings({"provider": "deepseek", "model": "deepseek-chat"}, env={"HERMES_HOME": str(tmp_path)})
    assert not s.settings.is_configured
    local = load_settings({"provider": "lmstudio", "model": "qwen3"}, env={"HERMES_HOME": str(tmp_path)})
    assert local.settings.is_configured  # a local server needs no key


def test_a_provider_with_a_key_but_no_model_is_told_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No OpenAI model name is guessed for a DeepSeek key: the missing model is named instead."""
    from hermes_tui.cli import main

    env = {"HERMES_HOME": str(tmp_path), "DEEPSEEK_API_KEY": "sk-test-key"}
    s = load_settings({"provider": "deepseek"}, env=env).settings
    assert not s.model and not s.is_configured
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["-z", "hi", "--provider", "deepseek"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        "hermes-tui: provider 'deepseek' has no model: set model.default in config.yaml or pass --model"
    )
    assert "sk-test-key" not in err


UNSUPPORTED = [
    ("copilot", "token exchange"),
    ("openai-codex", "Responses API"),
    ("codex", "Responses API"),
    ("qwen-oauth", "OAuth"),
]


@pytest.mark.parametrize(("name", "words"), UNSUPPORTED)
def test_a_provider_needing_another_protocol_gets_one_clear_line(
    tmp_path: Path, name: str, words: str
) -> None:
    env = {"HERMES_HOME": str(tmp_path), "OPENAI_API_KEY": "sk-x"}
    loaded = load_settings({"provider": name, "model": "m"}, env=env)
    line = loaded.settings.unsupported_provider
    assert line is not None and "not supported yet" in line and words in line
    assert f"'{providers.canonical(name)}'" in line
    assert not loaded.settings.is_configured
    out = io.StringIO()
    print_config(loaded, out)
    assert line in out.getvalue()


def test_headless_names_the_unsupported_provider(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("model:\n  default: anthropic.claude-v2\n  provider: bedrock\n")
    done = run_cli(
        ["-z", "hi"],
        env={"HERMES_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        timeout=60,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert lines == [
        "hermes-tui: provider 'bedrock' (AWS Bedrock) has no AWS credentials: set AWS_PROFILE, or "
        "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK (in the environment or "
        "$HERMES_HOME/.env)"
    ]


def test_legacy_fallback_model_dict_is_a_one_entry_chain(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "model: gpt-4o\nfallback_model:\n  provider: openrouter\n  model: anthropic/claude-sonnet-4\n"
    )
    loaded = load_settings({}, env={"HERMES_HOME": str(tmp_path)})
    chain = loaded.settings.fallback_providers
    assert [(e.provider, e.model) for e in chain] == [("openrouter", "anthropic/claude-sonnet-4")]
    assert loaded.sources["fallback_providers"].endswith("config.yaml")


def test_fallback_model_list_follows_fallback_providers_without_repeats(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "model: gpt-4o\n"
        "fallback_providers:\n  - {provider: deepseek, model: deepseek-chat}\n"
        "fallback_model:\n  - {provider: deepseek, model: deepseek-chat}\n"
        "  - {provider: glm, model: glm-4.6, api_key_env: MY_GLM_KEY}\n"
    )
    chain = load_settings({}, env={"HERMES_HOME": str(tmp_path)}).settings.fallback_providers
    assert [(e.provider, e.model, e.key_env) for e in chain] == [
        ("deepseek", "deepseek-chat", None),
        ("zai", "glm-4.6", "MY_GLM_KEY"),
    ]


def test_fallback_model_is_used_on_a_5xx(hermes_home: Path, tmp_path: Path) -> None:
    """A Hermes config's legacy `fallback_model`, read as a chain, takes over when the primary keeps
    answering 503 (the scripted server's fault), with the entry's own key variable."""
    with (
        ScriptedServer(
            {"name": "primary", "calls": [{"fault": {"status": 503, "message": "overloaded"}}]}
        ) as bad,
        ScriptedServer({"name": "fallback", "calls": [{"text": "the fallback answered"}]}) as good,
    ):
        (hermes_home / "config.yaml").write_text(
            "fallback_model:\n  provider: custom\n  model: backup-model\n"
            f"  base_url: {good.openai_base_url}\n  key_env: BACKUP_KEY\n"
        )
        chain = load_settings({}, env={"HERMES_HOME": str(hermes_home)}).settings.fallback_providers
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("BACKUP_KEY", "sk-backup")
            agent, _store, _ui = make_agent(bad, hermes_home, tmp_path, fallback_providers=chain)
            result = agent.run_conversation("hi")
        assert result.final_text == "the fallback answered"
        assert good.requests[0].body["model"] == "backup-model"
        assert good.requests[0].headers.get("authorization") == "Bearer sk-backup"
