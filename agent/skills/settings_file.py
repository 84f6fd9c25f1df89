"""Saving `skills.disabled` in Hermes' own config.yaml, so Hermes and this app agree on what is off.

Read-modify-write with an atomic replace that keeps the file's mode (0600 for a new file). The edit touches
only the `disabled:` line of the `skills:` section (added, or the section appended) so every other line stays
as written, comments included; only a layout that edit cannot handle is written back as a whole mapping
(checked by parsing the result). A file that is not a YAML mapping is left alone and reported.
"""

from __future__ import annotations

import re
import stat
from pathlib import Path
from typing import Any

import yaml

from agent.config.yaml_files import MAX_YAML_BYTES, YAML_ERRORS, load_yaml
from agent.core.bounded_files import read_text
from agent.core.fileio import atomic_write_text


def _dump(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False)


def _edited(text: str, names: list[str]) -> str | None:
    """`text` with `skills.disabled` set by a line edit, or None when the layout is not a simple block."""
    flow = "disabled: " + yaml.safe_dump(list(names), default_flow_style=True, allow_unicode=True).strip()
    lines = text.splitlines(keepends=True)
    heads = [i for i, ln in enumerate(lines) if re.match(r"^skills[ \t]*:[ \t]*(#.*)?$", ln.rstrip("\n"))]
    if not heads:
        if re.search(r"^skills[ \t]*:", text, re.MULTILINE):
            return None  # `skills: {...}` on one line
        prefix = text if not text or text.endswith("\n") else text + "\n"
        return prefix + f"skills:\n  {flow}\n"
    if len(heads) != 1:
        return None
    start = heads[0] + 1
    end = start
    while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t")):
        end += 1
    block = lines[start:end]
    indents = [len(ln) - len(ln.lstrip()) for ln in block if ln.strip() and not ln.lstrip().startswith("#")]
    indent = " " * (min(indents) if indents else 2)
    for offset, line in enumerate(block):
        if re.match(rf"^{indent}disabled[ \t]*:", line):
            first = start + offset
            last = first + 1
            while last < end and re.match(rf"^{indent}[ \t]*- |^{indent}[ \t]+\S", lines[last]):
                last += 1
            return "".join([*lines[:first], f"{indent}{flow}\n", *lines[last:]])
    return "".join([*lines[:start], f"{indent}{flow}\n", *lines[start:]])


def save_disabled_skills(config_path: Path, names: list[str]) -> str | None:
    """Set `skills.disabled` to `names`; returns a one-line error, or None when saved."""
    try:
        text = read_text(config_path, limit=MAX_YAML_BYTES, errors="strict") if config_path.exists() else ""
        mode = stat.S_IMODE(config_path.stat().st_mode) if config_path.exists() else 0o600
    except (OSError, UnicodeDecodeError) as exc:
        return f"{config_path}: not saved, the file cannot be read ({exc})"
    try:
        data = load_yaml(text) if text.strip() else {}
    except YAML_ERRORS:
        return f"{config_path}: not saved, the file is not valid YAML; fix it first"
    data = {} if data is None else data
    if not isinstance(data, dict):
        return f"{config_path}: not saved, the file is not a mapping of keys"
    section = data.get("skills")
    if section is not None and not isinstance(section, dict):
        return f"{config_path}: not saved, 'skills' is not a mapping"
    expected = {**data, "skills": {**(section or {}), "disabled": list(names)}}
    new_text = _edited(text, names)
    try:
        if new_text is None or yaml.safe_load(new_text) != expected:
            new_text = _dump(expected)
    except YAML_ERRORS:
        new_text = _dump(expected)
    try:
        atomic_write_text(config_path, new_text, mode=mode)
    except OSError as exc:
        return f"{config_path}: not saved ({exc.strerror or exc})"
    return None
