"""Save one top-level setting in `$HERMES_HOME/tui/config.yaml` (`skin: dark`, `model: ...`), keeping the
file's other keys and its comments where the layout allows.

Read-modify-write with an atomic replace (created 0600). A file that is not valid YAML, or not a mapping,
is left alone and reported: saving must never destroy settings a person wrote.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from agent.fileio import atomic_write_text
from agent.yaml_file import YAML_ERRORS

__all__ = ["SettingNotSaved", "save_env_value", "save_setting"]


class SettingNotSaved(Exception):
    """Why the setting was not saved (the file stays as it was)."""


_TOP_LEVEL_KEY = r"^{key}[ \t]*:(?![^\n#]*[{{\[|>&*])[^\n]*$"


def save_setting(path: Path, key: str, value: object) -> None:
    text = ""
    try:
        if path.exists():
            text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingNotSaved(f"cannot read the settings file ({exc})") from exc
    try:
        data = yaml.safe_load(text) if text.strip() else {}
    except YAML_ERRORS as exc:
        raise SettingNotSaved("the settings file is not valid YAML; fix it first") from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SettingNotSaved("the settings file is not a mapping of keys")
    new_text = _set_top_level_key(text, key, value)
    try:
        check = yaml.safe_load(new_text) if new_text else None
    except YAML_ERRORS:
        check = None
    expected = {**data, key: value}
    if check != expected:  # an unusual layout (flow mapping, multi-line value): rewrite the whole file
        new_text = yaml.safe_dump(expected, sort_keys=False, allow_unicode=True)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, new_text)
    except OSError as exc:
        raise SettingNotSaved(exc.strerror or str(exc)) from exc


def _set_top_level_key(text: str, key: str, value: object) -> str:
    """Replace the line of a top-level `key: scalar`, or append one; other lines stay as they were."""
    line = yaml.safe_dump({key: value}, allow_unicode=True, default_flow_style=False).rstrip("\n")
    pattern = re.compile(_TOP_LEVEL_KEY.format(key=re.escape(key)), re.MULTILINE)
    if len(pattern.findall(text)) == 1:
        return pattern.sub(lambda _m: line, text, count=1)
    if re.search(rf"^{re.escape(key)}[ \t]*:", text, re.MULTILINE):
        return ""  # present but not as one simple line: the caller rewrites the whole file
    if text and not text.endswith("\n"):
        text += "\n"
    return text + line + "\n"


def save_env_value(path: Path, name: str, value: str) -> None:
    """Set `NAME=value` in a .env file (`$HERMES_HOME/.env`, where Hermes keeps API keys), replacing an
    existing line for NAME and keeping every other line; the file is private (0600)."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or "\n" in value or "\r" in value:
        raise SettingNotSaved(f"not a valid .env entry: {name}")
    lines: list[str] = []
    try:
        if path.exists():
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        raise SettingNotSaved(f"cannot read {path} ({exc.strerror or exc})") from exc
    entry = f"{name}={value}"
    pattern = re.compile(rf"^\s*(?:export\s+)?{re.escape(name)}\s*=")
    replaced: list[str] = []
    for line in lines:
        if not pattern.match(line):
            replaced.append(line)
        elif entry not in replaced:
            replaced.append(entry)  # where the old value was; a second old line is dropped
    if entry not in replaced:
        replaced.append(entry)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, "\n".join(replaced) + "\n")
    except OSError as exc:
        raise SettingNotSaved(exc.strerror or str(exc)) from exc
