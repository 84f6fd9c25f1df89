"""The manual says what the code does: its tables are made from the code or checked against it.

- `docs/providers.md`: the providers tables are rendered from `agent/core/providers.py` (and the protocol a
  provider is spoken in from `Settings.api_mode`, the one place that decides it).
- `docs/keys.md`: the keys tables from `hermes_tui/commands/keys.py` (`KEY_GROUPS`, what `/help` shows)
  and the commands table from `BUILTIN_COMMANDS` (names, aliases, keys, help lines).
- `docs/configuration.md`: every row of its settings table names a real setting, the Hermes keys that set
  it and its default as the settings model has them, and every setting a user can set has a row.
- The README: its keys are real keys, its links lead to files of the repository, and it stays short
  (at most `README_MAX_WORDS` words, no paragraph over `PARAGRAPH_MAX_WORDS`).

A generated table sits between `<!-- generated: NAME -->` and `<!-- end: NAME -->`; after a change to the
code, `python tests/test_docs.py` writes the new tables into the docs (then read the diff).
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__":  # run as a script: import the checkout's packages
    sys.path.insert(0, str(ROOT))

from agent.config import settings as settings_module  # noqa: E402
from agent.config.settings import Settings  # noqa: E402
from agent.core.providers import PROVIDERS, ProviderSpec  # noqa: E402
from hermes_tui.commands import BUILTIN_COMMANDS  # noqa: E402
from hermes_tui.commands.keys import KEY_GROUPS  # noqa: E402

DOCS = ROOT / "docs"
README = ROOT / "README.md"
README_MAX_WORDS = 1200
PARAGRAPH_MAX_WORDS = 120

# ----------------------------------------------------------------------------------------------- rendering


def key_label(key: str) -> str:
    """Textual's key name as people write it: `ctrl+n` -> `Ctrl+N`, `f1` -> `F1`."""
    return "+".join(part.upper() if len(part) <= 2 else part.capitalize() for part in key.split("+"))


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


_PROTOCOL_LABELS = {
    "openai_chat": "chat completions",
    "anthropic": "Anthropic messages",
    "codex_responses": "Responses",
}
_PLATFORM_LABELS = {"bedrock": " on AWS Bedrock", "vertex": " on Google Vertex AI"}


def _protocol(spec: ProviderSpec) -> str:
    mode = Settings(provider=spec.name, model="m").api_mode
    return _PROTOCOL_LABELS[mode] + _PLATFORM_LABELS.get(spec.platform, "")


def _code_list(names: tuple[str, ...] | list[str]) -> str:
    return ", ".join(f"`{name}`" for name in names)


def render_supported_providers(table: Mapping[str, ProviderSpec] = PROVIDERS) -> str:
    rows = [
        "| provider | aliases | protocol | key variables (the first set wins) | base URL variable |",
        "|---|---|---|---|---|",
    ]
    for spec in table.values():
        if not spec.supported:
            continue
        keys = _code_list(spec.key_env) or ("none needed" if not spec.needs_key else "")
        if spec.platform:
            keys = (_code_list(spec.key_env) + ", else " if spec.key_env else "") + "the cloud's credentials"
        rows.append(
            f"| `{spec.name}` | {_code_list(spec.aliases)} | {_protocol(spec)} | {keys} | "
            f"{f'`{spec.base_url_env}`' if spec.base_url_env else ''} |"
        )
    return "\n".join(rows)


def render_unsupported_providers() -> str:
    rows = ["| provider | aliases | why not yet |", "|---|---|---|"]
    for spec in PROVIDERS.values():
        if spec.supported:
            continue
        rows.append(f"| `{spec.name}` | {_code_list(spec.aliases)} | {_cell(spec.unsupported)} |")
    return "\n".join(rows)


def render_key_groups() -> str:
    parts = []
    for group, keys in KEY_GROUPS:
        rows = [f"### {group}", "", "| key | what it does |", "|---|---|"]
        rows += [f"| {_cell(key)} | {_cell(what)} |" for key, what in keys]
        parts.append("\n".join(rows))
    return "\n\n".join(parts)


def render_commands() -> str:
    rows = ["| command | aliases | key | what it does |", "|---|---|---|---|"]
    for command in BUILTIN_COMMANDS:
        aliases = ", ".join(f"`/{alias}`" for alias in command.aliases)
        arg = " ARG" if command.takes_argument else ""
        key = key_label(command.key) if command.key else ""
        rows.append(f"| `/{command.name}{arg}` | {aliases} | {key} | {_cell(command.help)} |")
    return "\n".join(rows)


def render_environment() -> str:
    rows = ["| variable | setting |", "|---|---|"]
    rows += [f"| `{var}` | `{name}` |" for var, name in settings_module._ENV_SETTINGS.items()]
    return "\n".join(rows)


def render_toolsets() -> str:
    from agent.session.catalogue import builtin_tools

    groups: dict[str, list[str]] = {}
    for tool in builtin_tools():
        groups.setdefault(tool.toolset, []).append(tool.name)
    rows = ["| toolset | tools |", "|---|---|"]
    rows += [f"| `{toolset}` | {_code_list(names)} |" for toolset, names in groups.items()]
    return "\n".join(rows)


GENERATED: dict[tuple[str, str], Callable[[], str]] = {
    ("tools.md", "toolsets"): render_toolsets,
    ("configuration.md", "environment"): render_environment,
    ("providers.md", "supported-providers"): render_supported_providers,
    ("providers.md", "unsupported-providers"): render_unsupported_providers,
    ("keys.md", "key-groups"): render_key_groups,
    ("keys.md", "commands"): render_commands,
}


def _block(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- generated: {name} -->\n)(.*?)\n?(<!-- end: {name} -->)", re.S)


def generated_block(text: str, name: str) -> str | None:
    match = _block(name).search(text)
    return match.group(2) if match else None


def write_generated() -> list[str]:
    """Rewrite every generated block from the code; returns the files changed."""
    changed = []
    for (page, name), render in GENERATED.items():
        path = DOCS / page
        text = path.read_text(encoding="utf-8")
        table = render()
        new = _block(name).sub(lambda m, table=table: m.group(1) + table + "\n" + m.group(3), text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(f"{page} ({name})")
    return changed


# --------------------------------------------------------------------------------------- generated tables


@pytest.mark.parametrize(("page", "name"), list(GENERATED), ids=[name for _, name in GENERATED])
def test_a_generated_table_is_what_the_code_says(page: str, name: str) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    block = generated_block(text, name)
    assert block is not None, f"docs/{page} has no <!-- generated: {name} --> block"
    assert block == GENERATED[(page, name)](), (
        f"docs/{page}'s {name} table differs from the code: run `python tests/test_docs.py` and read the diff"
    )


def test_a_changed_provider_fails_the_providers_table() -> None:
    """The comparison can fail: a provider whose key variable changed no longer matches the page."""
    text = (DOCS / "providers.md").read_text(encoding="utf-8")
    changed = {**PROVIDERS}
    changed["deepseek"] = dataclasses.replace(changed["deepseek"], key_env=("DEEPSEEK_KEY",))
    assert generated_block(text, "supported-providers") == render_supported_providers()
    assert generated_block(text, "supported-providers") != render_supported_providers(changed)


def test_the_commands_table_lists_every_builtin_command_and_key() -> None:
    block = generated_block((DOCS / "keys.md").read_text(encoding="utf-8"), "commands") or ""
    for command in BUILTIN_COMMANDS:
        assert f"`/{command.name}" in block
        if command.key:
            assert key_label(command.key) in block


# ------------------------------------------------------------------------------------- the settings table

INTERNAL_SETTINGS = {
    "hermes_home": "HERMES_HOME or --hermes-home, not a config key",
    "cwd": "the working directory, --cwd",
    "api_key": "API keys live in the environment or $HERMES_HOME/.env, never in config.yaml",
    "api_key_source": "where the key came from, for messages",
    "model_chosen": "set by --model",
    "permission_mode_chosen": "set by --permission-mode and --yolo",
    "reasoning_choice": "set by --reasoning and /reasoning",
    "web": "the `web:` section, its own table in docs/tools.md",
    "vision": "`auxiliary.vision`, in docs/tools.md",
    "terminal": "the `terminal:` section (backend, docker_*, ssh_*), its own table in docs/environments.md",
}
"""Settings that are not a key of `tui/config.yaml` a user writes, and why."""

_MODEL_KEYS = {
    "model": "model.default",
    "provider": "model.provider",
    "base_url": "model.base_url",
    "wire_api": "model.api_mode",
    "context_window": "model.context_length",
}


def hermes_keys(name: str) -> set[str]:
    """The keys of Hermes' config.yaml that set the setting `name` (`settings._HERMES_KEYS`, `model.*`)."""
    keys = {key for key, setting in settings_module._HERMES_KEYS.items() if setting == name}
    if name in _MODEL_KEYS:
        keys.add(_MODEL_KEYS[name])
    if name == "model":
        keys.add("model")
    if name == "fallback_providers":
        keys.add("fallback_model")
    if name == "personalities":
        keys |= {"agent.personalities", "personalities"}
    return keys


def default_text(name: str) -> str:
    """A setting's default as the table writes it (YAML-ish)."""
    field = Settings.model_fields[name]
    value: Any = field.get_default(call_default_factory=True)
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return f'"{value}"' if value == "" else value
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{}"
    return str(value)


_ROW = re.compile(r"^\| `(?P<key>[a-z_]+)` \|(?P<hermes>[^|]*)\|(?P<default>[^|]*)\|", re.M)


def settings_rows() -> Iterator[tuple[str, set[str], str]]:
    text = (DOCS / "configuration.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- checked: settings -->\n(.*?)<!-- end: settings -->", text, re.S)
    block = match.group(1) if match else ""
    for match in _ROW.finditer(block):
        hermes = set(re.findall(r"`([^`]+)`", match["hermes"]))
        yield match["key"], hermes, match["default"].strip().strip("`")


def settings_table_problems(default_of: Callable[[str], str] = default_text) -> list[str]:
    problems = []
    documented = set()
    for key, hermes, default in settings_rows():
        documented.add(key)
        if key not in Settings.model_fields:
            problems.append(f"{key}: no such setting")
            continue
        if hermes != hermes_keys(key):
            in_code = sorted(hermes_keys(key))
            problems.append(f"{key}: Hermes keys {sorted(hermes)} in the docs, {in_code} in code")
        if default != default_of(key):
            problems.append(f"{key}: default {default!r} in the docs, {default_of(key)!r} in code")
    missing = set(Settings.model_fields) - set(INTERNAL_SETTINGS) - documented
    problems += [f"{name}: no row (default {default_of(name)})" for name in sorted(missing)]
    return problems


def test_the_settings_table_matches_the_settings_model() -> None:
    assert list(settings_rows()), "docs/configuration.md has no settings table"
    assert not settings_table_problems(), "docs/configuration.md:\n" + "\n".join(settings_table_problems())


def test_a_wrong_default_fails_the_settings_table() -> None:
    problems = settings_table_problems(lambda name: "999" if name == "max_retries" else default_text(name))
    assert problems == ["max_retries: default '3' in the docs, '999' in code"]


# --------------------------------------------------------------------------------------- the command line


def test_every_command_line_option_is_in_the_docs() -> None:
    from hermes_tui.cli import SUBCOMMANDS, build_parser

    text = "\n".join(page.read_text(encoding="utf-8") for page in DOCS.glob("*.md"))
    actions = build_parser()._actions
    options = {name for action in actions for name in action.option_strings} - {"-h", "--help"}
    missing = sorted(o for o in options if not re.search(rf"`{re.escape(o)}[ `=]", text))
    assert not missing, f"options no page of docs/ names: {missing} (docs/command-line.md lists them)"
    assert all(f"hermes-tui {command}" in text for command in SUBCOMMANDS)


# ------------------------------------------------------------------------------------------------ README


def _paragraphs(text: str) -> list[str]:
    """Prose paragraphs: blank-line separated, each list item one of its own; code blocks and tables left
    out."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    out = []
    for chunk in re.split(r"\n\s*\n", text):
        items: list[list[str]] = []
        for line in chunk.splitlines():
            if line.lstrip().startswith("|"):
                continue
            if not items or re.match(r"\s*(?:[-*]|\d+\.) ", line):
                items.append([])
            items[-1].append(line)
        out += [" ".join(item) for item in items]
    return out


def words(text: str) -> int:
    return len(re.sub(r"<!--.*?-->|!\[[^\]]*\]\([^)]*\)", " ", text, flags=re.S).split())


def test_the_readme_is_short() -> None:
    text = README.read_text(encoding="utf-8")
    assert words(text) <= README_MAX_WORDS
    long = [p[:60] for p in _paragraphs(text) if words(p) > PARAGRAPH_MAX_WORDS]
    assert not long, f"README paragraphs over {PARAGRAPH_MAX_WORDS} words: {long}"


def test_the_word_count_sees_a_long_paragraph() -> None:
    long = " ".join(["word"] * (PARAGRAPH_MAX_WORDS + 1))
    half = " ".join(["word"] * (PARAGRAPH_MAX_WORDS // 2 + 1))
    assert [p for p in _paragraphs(f"# t\n\n{long}\n\nshort") if words(p) > PARAGRAPH_MAX_WORDS]
    assert [p for p in _paragraphs(f"# t\n\n- {half}\n  {half}\n- b") if words(p) > PARAGRAPH_MAX_WORDS]
    assert not [p for p in _paragraphs(f"# t\n\n- {half}\n- {half}") if words(p) > PARAGRAPH_MAX_WORDS]


def known_keys() -> set[str]:
    keys = {key_label(c.key) for c in BUILTIN_COMMANDS if c.key}
    for _, rows in KEY_GROUPS:
        for key, _ in rows:
            keys |= {part.strip() for part in re.split(r" / |, then |, ", key)}
    return keys


def test_the_readme_keys_are_real_keys() -> None:
    text = README.read_text(encoding="utf-8")
    table = re.search(r"## Keys\n(.*?)(?:\n## |\Z)", text, re.S)
    assert table, "the README has no ## Keys section"
    keys = re.findall(r"^\| (?:`)?([^|`]+?)(?:`)? \|", table.group(1), re.M)
    keys = [k for k in keys if k not in ("key", "---")]
    assert len(keys) >= 10
    unknown = [k for k in keys if not {part.strip() for part in re.split(r" / |, ", k)} <= known_keys()]
    assert not unknown, f"README keys not in KEY_GROUPS or a command's key: {unknown}"


def _links(path: Path) -> Iterator[str]:
    for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text(encoding="utf-8")):
        if "://" not in target and not target.startswith("#"):
            yield target.split("#")[0]


PENDING_PAGES = {
    "environments.md",
    "permissions.md",
    "acp.md",
    "hooks.md",
    "rewind.md",
}
"""Pages other branches of issues 42-45 add: linked before they land (the lead checks them after merging)."""


def test_the_docs_links_lead_to_files_of_the_repository() -> None:
    broken = []
    for page in [README, *sorted(DOCS.glob("*.md"))]:
        for target in _links(page):
            if Path(target).name in PENDING_PAGES:
                continue
            if not (page.parent / target).resolve().exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not broken, "\n".join(broken)


if __name__ == "__main__":
    for changed in write_generated():
        print(f"rewrote docs/{changed}")
