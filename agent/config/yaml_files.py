"""YAML files people write: read a mapping from any bytes (the data, or one line saying what is wrong), and
save one top-level setting keeping the rest.

Config and scenario files are written by people (and sometimes by a crashed editor or a bad copy): they may
be binary, not UTF-8, nested ten thousand levels deep, use YAML's `!!python` tags, hold a date like
`2020-13-45` (PyYAML raises `ValueError` while *constructing* it), or a top level that is a list. Every one
of those must become a message naming the file and the problem, never a traceback; so this is the one
place that turns file bytes into a mapping, and it catches what PyYAML can raise, not just `YAMLError`.

Saving one top-level setting in `$HERMES_HOME/tui/config.yaml` (`skin: dark`, `model: ...`) keeps the
file's other keys and its comments where the layout allows: read-modify-write with an atomic replace
(created 0600). A file that is not valid YAML, or not a mapping, is left alone and reported: saving must
never destroy settings a person wrote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from agent.core.bounded_files import MAX_CONFIG_BYTES, MAX_DOTENV_BYTES, FileRefused, read_bytes, read_text
from agent.core.fileio import atomic_write_text

__all__ = [
    "MAX_YAML_BYTES",
    "MAX_YAML_EXPANSION",
    "YAML_ERRORS",
    "SettingNotSaved",
    "YamlAliasBomb",
    "YamlRead",
    "load_yaml",
    "read_yaml_mapping",
    "save_env_value",
    "save_setting",
    "yaml_problem",
]

MAX_YAML_BYTES = MAX_CONFIG_BYTES
"""A config or scenario file larger than this is refused unread (nobody writes 4 MiB of settings)."""
MAX_YAML_EXPANSION = 1_000_000
"""How many nodes aliases may add to a YAML document once expanded (the file's own nodes not counted):
real files reuse an anchor a few times; the 1 KB "billion laughs" front matter adds a billion, and
anything that then walks the data (str(), json.dumps, a validator) spends gigabytes on it."""


YAML_ERRORS: tuple[type[BaseException], ...] = (
    yaml.YAMLError,
    ValueError,  # a value PyYAML cannot construct (the date 2020-13-45); UnicodeDecodeError is one too
    TypeError,
    OverflowError,
    RecursionError,  # nesting thousands of levels deep
)
"""What `yaml.safe_load` can raise on text a person (or a broken editor) wrote: catch all of it."""


class YamlAliasBomb(yaml.YAMLError):
    """A document whose aliases expand past MAX_YAML_EXPANSION nodes (a YAMLError: reported as bad YAML)."""


def _children(node: Node) -> list[Node]:
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return list(node.value) if isinstance(node, SequenceNode) else []


def _walk(root: Node) -> tuple[int, int]:
    """(distinct nodes, nodes once every alias is expanded) of a composed document, counted without
    expanding anything: a depth-first walk entering each node once, a collection's size summed from its
    children's after them (a node reached again through itself, a cycle, counts once), stopping once the
    expansion passes the bound."""
    sizes: dict[int, int] = {}
    entered: set[int] = set()
    stack: list[tuple[Node, list[Node] | None]] = [(root, None)]
    while stack:
        node, children = stack.pop()
        if children is None:
            if id(node) in entered:
                continue
            entered.add(id(node))
            children = _children(node)
            stack.append((node, children))
            for child in children:
                if id(child) in entered:
                    continue
                if isinstance(child, ScalarNode):
                    entered.add(id(child))
                    sizes[id(child)] = 1
                else:
                    stack.append((child, None))
            continue
        total = 1 + sum(sizes.get(id(child), 1) for child in children)
        sizes[id(node)] = total
        if total - len(entered) > MAX_YAML_EXPANSION:
            return len(entered), total
    return len(entered), sizes.get(id(root), 1)


class _BoundedSafeLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The safe loader (libyaml's when present: ~10x faster) refusing an alias bomb after composing the
    document and before constructing any of it."""

    def construct_document(self, node: Node) -> Any:
        distinct, expanded = _walk(node)
        if expanded - distinct > MAX_YAML_EXPANSION:
            raise YamlAliasBomb(f"its aliases expand to over {MAX_YAML_EXPANSION:,} nodes (an alias bomb)")
        return super().construct_document(node)


def load_yaml(text: str) -> Any:
    """`yaml.safe_load(text)` with alias expansion bounded: the one way the app loads YAML it did not write.
    Raises what safe_load raises, and YamlAliasBomb."""
    return yaml.load(text, Loader=_BoundedSafeLoader)


@dataclass
class YamlRead:
    """The mapping read (empty when the file is missing or broken) and what was wrong, if anything.

    `where` locates the problem ("line 3", "(file)", "(top level)"); `problem` says what was expected."""

    data: dict[str, Any] = field(default_factory=dict)
    where: str = ""
    problem: str = ""
    found: str = ""

    @property
    def ok(self) -> bool:
        return not self.problem


def yaml_problem(exc: BaseException) -> tuple[str, str]:
    """(where, what) for an exception PyYAML raised while parsing or constructing a document."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}" if mark is not None else "(file)"
        what = " ".join(" ".join(p for p in (exc.context, exc.problem) if p).split()) or "invalid YAML"
        return where, f"valid YAML ({what})"
    if isinstance(exc, RecursionError):
        return "(file)", "valid YAML (nested too deeply)"
    return "(file)", f"valid YAML ({' '.join(str(exc).split())[:200]})"


def read_yaml_mapping(path: Path, *, missing_ok: bool = True) -> YamlRead:
    """The top-level mapping of the YAML file at `path`.

    A missing file is an empty mapping (`missing_ok`) or a problem. Keys that are not strings are dropped
    and reported (settings are named by strings; `1: 2` is a typo, not a setting)."""
    try:
        size = path.stat().st_size
        if size > MAX_YAML_BYTES:
            return YamlRead(where="(file)", problem=f"a config file under 4 MiB (it has {size:,} bytes)")
        raw = read_bytes(path, limit=MAX_YAML_BYTES)
    except FileRefused as exc:
        return YamlRead(where="(file)", problem=f"a regular file under 4 MiB ({exc.reason})")
    except (FileNotFoundError, NotADirectoryError):  # under a file: there is no such file either
        return YamlRead() if missing_ok else YamlRead(where="(file)", problem="an existing file")
    except OSError as exc:
        return YamlRead(where="(file)", problem=f"a readable file ({exc.strerror or exc})")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return YamlRead(where=f"line {line}", problem=f"UTF-8 text (byte 0x{raw[exc.start]:02x} is not)")
    if "\x00" in text:
        return YamlRead(where="(file)", problem="text (the file holds NUL bytes: it looks binary)")
    try:
        data = load_yaml(text)
    except YAML_ERRORS as exc:
        where, what = yaml_problem(exc)
        return YamlRead(where=where, problem=what)
    if data is None:
        return YamlRead()
    if not isinstance(data, dict):
        return YamlRead(where="(top level)", problem="a mapping of keys", found=type(data).__name__)
    bad = [key for key in data if not isinstance(key, str)]
    if bad:
        return YamlRead(
            data={k: v for k, v in data.items() if isinstance(k, str)},
            where=f"key {str(bad[0])[:40]!r}",
            problem="keys that are names (text), not numbers, lists or mappings",
        )
    return YamlRead(data=data)


class SettingNotSaved(Exception):
    """Why the setting was not saved (the file stays as it was)."""


_TOP_LEVEL_KEY = r"^{key}[ \t]*:(?![^\n#]*[{{\[|>&*])[^\n]*$"


def save_setting(path: Path, key: str, value: object) -> None:
    text = ""
    try:
        if path.exists():
            text = read_text(path, limit=MAX_YAML_BYTES, errors="strict")
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingNotSaved(f"cannot read the settings file ({exc})") from exc
    try:
        data = load_yaml(text) if text.strip() else {}
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
            lines = read_text(path, limit=MAX_DOTENV_BYTES).splitlines()
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
