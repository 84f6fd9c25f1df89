"""The permanent allowlist: `command_allowlist` in a YAML config, and how a rule matches a command.

A rule matches the exact command text, or as an fnmatch glob, but a glob only for a non-compound command (no
`; & | < > \\` $(` or newline), so a glob can never let a chain through. "always" offers a rule to edit
(`suggest_rule`: `git push *` for `git push origin main`) and saves what the user settled on; without an
edited rule it saves the exact command.
"""

from __future__ import annotations

import fnmatch
import logging
import re
import threading
from pathlib import Path
from typing import Any

import yaml

from agent.config.yaml_files import MAX_YAML_BYTES, YAML_ERRORS, load_yaml
from agent.core.bounded_files import read_text
from agent.core.fileio import atomic_write_text

log = logging.getLogger(__name__)

ALLOWLIST_KEY = "command_allowlist"
_FILE_LOCK = threading.Lock()
_COMPOUND_RE = re.compile(r"[\n;&|<>`]|\$\(")


def is_compound(command: str) -> bool:
    """Chains, pipes, redirects and substitutions: such commands never match an allowlist glob."""
    return bool(_COMPOUND_RE.search(command))


def allowlisted(rules: list[str], command: str, *, compound: bool) -> bool:
    text = command.strip()
    for rule in rules:
        if text == rule.strip():
            return True
        if not compound and fnmatch.fnmatchcase(text, rule.strip()):
            return True
    return False


def rule_matches(rule: str, subject: str) -> bool:
    """Does `rule` allow `subject` (a command, `write <path>`, a tool name), as the gate would decide?"""
    return bool(rule.strip()) and allowlisted([rule], subject, compound=is_compound(subject))


_SUBCOMMAND_RE = re.compile(r"[a-z][a-z0-9_.-]*")
_NOT_LITERAL_RE = re.compile(r"[*?\[\]'\"\\$]")


def suggest_rule(command: str) -> str:
    """The rule "always" offers for a command: its program, subcommand and leading flags, any operands
    (`git push *` for `git push origin main`, `rm -rf *` for `rm -rf build`). The exact command when a
    glob would not match it: a compound command (globs never match those), nothing after the head, quotes
    or glob characters in the head, unusual spacing."""
    text = command.strip()
    if is_compound(text):
        return text
    words = text.split()
    head, rest = words[:1], words[1:]
    if rest and _SUBCOMMAND_RE.fullmatch(rest[0]):
        head.append(rest.pop(0))
    while rest and rest[0].startswith("-"):
        head.append(rest.pop(0))
    if not rest or any(_NOT_LITERAL_RE.search(word) for word in head):
        return text
    rule = " ".join(head) + " *"
    return rule if rule_matches(rule, text) else text


def suggest_write_rule(subject: str, folder: str) -> str:
    """The rule "always" offers for a file write (`write /abs/path`): every write under its folder."""
    rule = f"write {folder.rstrip('/')}/*"
    if _NOT_LITERAL_RE.search(folder) or not rule_matches(rule, subject):
        return subject
    return rule


_UNREADABLE: tuple[type[BaseException], ...] = (OSError, *YAML_ERRORS)


def load_allowlist(config_path: Path | str | None) -> list[str]:
    """The `command_allowlist` rules saved in a YAML config file ([] when missing or unreadable)."""
    if config_path is None:
        return []
    path = Path(config_path)
    try:
        data = load_yaml(read_text(path, limit=MAX_YAML_BYTES, errors="strict"))
    except FileNotFoundError:
        return []
    except _UNREADABLE as exc:
        log.warning("approval: cannot read %s: %s", path, exc)
        return []
    if not isinstance(data, dict):
        return []
    rules = data.get(ALLOWLIST_KEY) or []
    if not isinstance(rules, list):
        return []
    return [r for r in rules if isinstance(r, str) and r.strip()]


def save_allowlist_rule(config_path: Path | str, rule: str) -> bool:
    """Append `rule` to `command_allowlist` in the YAML file: read-modify-write, other keys kept, atomic
    replace, mode 0600. Returns False (and leaves the file alone) if the file exists but is not a mapping."""
    path = Path(config_path)
    with _FILE_LOCK:
        data: dict[str, Any] = {}
        if path.exists():
            try:
                loaded = load_yaml(read_text(path, limit=MAX_YAML_BYTES, errors="strict"))
            except _UNREADABLE as exc:
                log.warning("approval: not saving the allow rule, cannot read %s: %s", path, exc)
                return False
            if loaded is None:
                loaded = {}
            if not isinstance(loaded, dict):
                log.warning("approval: not saving the allow rule, %s is not a mapping", path)
                return False
            data = loaded
        rules = data.get(ALLOWLIST_KEY)
        rules = [r for r in rules if isinstance(r, str)] if isinstance(rules, list) else []
        if rule not in rules:
            rules.append(rule)
        data[ALLOWLIST_KEY] = rules
        atomic_write_text(
            path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False)
        )
        return True
