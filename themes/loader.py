"""Read theme files: our own format and Hermes' skin format, with errors that say where.

Two formats, told apart by their keys:

- **ours** (`name`, `description`, `dark`, `colors: {primary, ..., error}`, `spinner: {faces, verbs}`,
  `prompt_symbol`, `agent_name`, `tool_icons`); see `themes/builtin/default.yaml`.
- **Hermes' skins** (`~/.hermes/skins/*.yaml`: `colors: {ui_accent, banner_title, ...}`,
  `spinner: {thinking_faces, thinking_verbs, ...}`, `branding: {agent_name, prompt_symbol}`,
  `tool_emojis`, `tool_prefix`), mapped onto ours by `HERMES_COLOR_MAP`.

Either way, keys a file leaves out are inherited from the built-in `default` theme (from `daylight` when the
file describes a light theme), as Hermes does with its skins. Every problem is a `ThemeError` naming the
file, the line and the key; `load_all` collects them instead of raising, so one broken file never hides
the others.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError
from textual.color import Color, ColorParseError

from agent.api import YAML_ERRORS, FileRefused, load_yaml, read_bounded_text, yaml_problem
from themes.model import COLOR_KEYS, SpinnerSpec, ThemeSpec, luminance, normalize_hex

__all__ = [
    "HERMES_COLOR_MAP",
    "ThemeError",
    "builtin_themes",
    "is_hermes_skin",
    "load_all",
    "load_all_sourced",
    "load_theme_file",
    "normalize_hex",
    "theme_files",
    "user_theme_dirs",
]

try:  # libyaml is much faster; fall back to the pure-Python loader
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader

THEME_SUFFIXES = (".yaml", ".yml")
MAX_FILE_BYTES = 256 * 1024

# Our colour <- Hermes skin colour keys, first present wins.
HERMES_COLOR_MAP: dict[str, tuple[str, ...]] = {
    "primary": ("ui_accent", "banner_accent"),
    "secondary": ("banner_border", "input_rule"),
    "accent": ("banner_title", "ui_label"),
    "foreground": ("banner_text", "prompt", "status_bar_text"),
    "background": ("background",),
    "surface": ("completion_menu_bg",),
    "panel": ("status_bar_bg",),
    "success": ("ui_ok", "status_bar_good"),
    "warning": ("ui_warn", "status_bar_warn"),
    "error": ("ui_error", "status_bar_critical"),
}
_HERMES_TOP_KEYS = frozenset(
    {"branding", "tool_emojis", "light_colors", "dark_colors", "banner_logo", "banner_hero"}
)
_HERMES_SPINNER_KEYS = frozenset({"waiting_faces", "thinking_faces", "thinking_verbs"})
_HERMES_COLOR_KEYS = frozenset(k for keys in HERMES_COLOR_MAP.values() for k in keys) - {"background"}
_MERGED_SECTIONS = ("colors", "spinner", "tool_icons")

Loc = tuple[str | int, ...]


class ThemeError(Exception):
    """A theme file that could not be used: which file, which line (1-based), which key, and why."""

    def __init__(self, file: str | Path, line: int | None, key: str | None, message: str) -> None:
        super().__init__(file, line, key, message)
        self.file = str(file)
        self.line = line
        self.key = key
        self.message = message

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"

    def __repr__(self) -> str:
        return f"ThemeError({self.file!r}, {self.line!r}, {self.key!r}, {self.message!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ThemeError):
            return NotImplemented
        return (self.file, self.line, self.key, self.message) == (
            other.file,
            other.line,
            other.key,
            other.message,
        )

    def __hash__(self) -> int:
        return hash((self.file, self.line, self.key, self.message))


# ---------------------------------------------------------------------------------------------- locations


def _format_key(loc: Loc) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _key_lines(text: str) -> dict[Loc, int]:
    """Map every key path in a YAML document to the (1-based) line it is written on."""
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return {}
    lines: dict[Loc, int] = {}

    def walk(node: yaml.Node, path: Loc) -> None:
        lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.value)
                lines[(*path, key)] = key_node.start_mark.line + 1
                walk(value_node, (*path, key))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                walk(item, (*path, index))

    if root is not None:
        walk(root, ())
    return lines


def _line_for(lines: Mapping[Loc, int], loc: Loc) -> int | None:
    """The line of `loc`, or of its nearest ancestor that is written in the file."""
    for end in range(len(loc), 0, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return None


# ---------------------------------------------------------------------------------------------- reading


def _read_mapping(path: Path) -> tuple[dict[str, Any], str]:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ThemeError(path, None, None, f"the file is too large for a theme ({size} bytes)")
        text = read_bounded_text(path, limit=MAX_FILE_BYTES, errors="strict")
    except FileRefused as exc:
        raise ThemeError(path, None, None, f"cannot read the file ({exc.reason})") from None
    except UnicodeDecodeError as exc:
        raise ThemeError(path, None, None, f"the file is not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise ThemeError(path, None, None, f"cannot read the file ({exc.strerror or exc})") from None
    try:
        data = load_yaml(text)  # safe, alias expansion bounded
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = " ".join(p for p in (exc.context, exc.problem) if p) or "invalid YAML"
        raise ThemeError(path, line, None, f"invalid YAML: {problem}") from None
    except YAML_ERRORS as exc:
        # PyYAML raises ValueError while constructing some values (a date like 2020-13-45) and
        # RecursionError on very deep nesting: a broken file all the same.
        _where, what = yaml_problem(exc)
        raise ThemeError(path, None, None, f"invalid YAML: {what.removeprefix('valid YAML ')}") from None
    if data is None:
        raise ThemeError(path, None, None, "the file is empty")
    if not isinstance(data, dict):
        raise ThemeError(
            path, 1, None, f"expected a mapping of keys at the top level, got {type(data).__name__}"
        )
    return data, text


def is_hermes_skin(data: Mapping[str, Any]) -> bool:
    """True for Hermes' skin format (`branding`, `ui_accent`, `thinking_verbs`, ...), False for ours."""
    if any(key in data for key in _HERMES_TOP_KEYS):
        return True
    colors = data.get("colors")
    if isinstance(colors, dict) and any(key in _HERMES_COLOR_KEYS for key in colors):
        return True
    spinner = data.get("spinner")
    return isinstance(spinner, dict) and any(key in _HERMES_SPINNER_KEYS for key in spinner)


def _lenient_color(value: Any) -> Any:
    """Hermes accepts any colour its renderers do; turn names like `red` into hex, leave the rest to fail."""
    if isinstance(value, str) and not value.strip().startswith("#"):
        try:
            return Color.parse(value.strip()).hex[:7]
        except ColorParseError:
            return value
    return value


def _hermes_to_native(data: dict[str, Any]) -> tuple[dict[str, Any], dict[Loc, Loc]]:
    """Map a Hermes skin onto our keys. Returns the mapped data and {our key path: the Hermes key path}."""
    out: dict[str, Any] = {}
    origin: dict[Loc, Loc] = {}
    for key in ("name", "description", "dark", "tool_prefix", "prompt_symbol", "agent_name"):
        if key in data:
            out[key] = data[key]

    colors = data.get("colors")
    if colors is not None:
        if not isinstance(colors, dict):
            out["colors"] = colors  # fails validation with a message naming `colors`
        else:
            mapped: dict[str, Any] = {}
            for ours, theirs in HERMES_COLOR_MAP.items():
                if ours in colors:  # our own names win when a skin mixes both
                    mapped[ours] = colors[ours]
                    continue
                for hermes_key in theirs:
                    if hermes_key in colors:
                        mapped[ours] = _lenient_color(colors[hermes_key])
                        origin[("colors", ours)] = ("colors", hermes_key)
                        break
            out["colors"] = mapped

    spinner = data.get("spinner")
    if spinner is not None:
        if not isinstance(spinner, dict):
            out["spinner"] = spinner
        else:
            mapped_spinner: dict[str, Any] = {}
            if "faces" in spinner:
                mapped_spinner["faces"] = spinner["faces"]
            else:
                faces: list[Any] = []
                for source in ("thinking_faces", "waiting_faces"):
                    items = spinner.get(source)
                    if items is None:
                        continue
                    if not isinstance(items, list):
                        mapped_spinner["faces"] = items
                        origin[("spinner", "faces")] = ("spinner", source)
                        break
                    for index, face in enumerate(items):
                        if face not in faces:
                            origin[("spinner", "faces", len(faces))] = ("spinner", source, index)
                            faces.append(face)
                else:
                    if faces:
                        mapped_spinner["faces"] = faces
                        origin[("spinner", "faces")] = ("spinner", "thinking_faces")
            if "verbs" in spinner:
                mapped_spinner["verbs"] = spinner["verbs"]
            elif "thinking_verbs" in spinner:
                mapped_spinner["verbs"] = spinner["thinking_verbs"]
                origin[("spinner", "verbs")] = ("spinner", "thinking_verbs")
            if "wings" in spinner:
                mapped_spinner["wings"] = spinner["wings"]
            out["spinner"] = mapped_spinner

    branding = data.get("branding")
    if isinstance(branding, dict):
        for key in ("agent_name", "prompt_symbol"):
            if key in branding and key not in out:
                value = branding[key]
                out[key] = value.strip() if isinstance(value, str) else value
                origin[(key,)] = ("branding", key)
    elif branding is not None:
        raise ThemeError("", None, "branding", "expected a mapping of keys")

    icons = data.get("tool_icons", data.get("tool_emojis"))
    if icons is not None:
        out["tool_icons"] = icons
        if "tool_icons" not in data:
            origin[("tool_icons",)] = ("tool_emojis",)
    return out, origin


def _wants_light(data: Mapping[str, Any]) -> bool:
    """Whether a theme is light: `dark:` if given, else its background, else its foreground."""
    if isinstance(data.get("dark"), bool):
        return not data["dark"]
    colors = data.get("colors")
    if isinstance(colors, dict):
        for key, light_when_bright in (("background", True), ("foreground", False)):
            try:
                bright = luminance(colors[key]) > 0.4
            except (KeyError, ValueError):
                continue
            return bright if light_when_bright else not bright
    return False


def _merge(base: Mapping[str, Any] | None, data: Mapping[str, Any], stem: str) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    if base is not None:
        merged = {k: v for k, v in base.items() if k not in ("name", "description", "dark")}
    for key, value in data.items():
        previous = merged.get(key)
        if key in _MERGED_SECTIONS and isinstance(value, dict) and isinstance(previous, dict):
            merged[key] = {**previous, **value}
        else:
            merged[key] = value
    merged.setdefault("name", stem)
    if "dark" not in merged:
        merged["dark"] = not _wants_light(merged) if base is not None else True
    return merged


def _allowed_keys(loc: Loc) -> tuple[str, ...]:
    if len(loc) == 1:
        return tuple(ThemeSpec.model_fields)
    if loc[0] == "colors":
        return COLOR_KEYS
    if loc[0] == "spinner":
        return tuple(SpinnerSpec.model_fields)
    return ()


def _translate(loc: Loc, origin: Mapping[Loc, Loc]) -> Loc:
    for end in range(len(loc), 0, -1):
        if loc[:end] in origin:
            return origin[loc[:end]] + loc[end:]
    return loc


def _validation_error(
    path: Path, text: str, exc: ValidationError, origin: Mapping[Loc, Loc], stem: str, data: Mapping[str, Any]
) -> ThemeError:
    errors = exc.errors(include_url=False)
    first = errors[0]
    loc: Loc = _translate(tuple(first["loc"]), origin)
    message = str(first["msg"]).removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        allowed = _allowed_keys(tuple(first["loc"]))
        message = "unknown key" + (f" (expected one of: {', '.join(allowed)})" if allowed else "")
    elif first["type"] == "missing":
        message = "required key is missing"
    if loc == ("name",) and "name" not in data:
        message += f" (the name comes from the file name {stem!r}; set `name:` in the file)"
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return ThemeError(path, _line_for(_key_lines(text), loc), _format_key(loc), message)


def _spec_from_data(
    path: Path,
    data: dict[str, Any],
    text: str,
    *,
    default: ThemeSpec | None,
    light: ThemeSpec | None,
) -> ThemeSpec:
    stem = path.stem
    origin: dict[Loc, Loc] = {}
    if is_hermes_skin(data):
        try:
            data, origin = _hermes_to_native(data)
        except ThemeError as exc:
            line = _line_for(_key_lines(text), (exc.key,) if exc.key else ())
            raise ThemeError(path, line, exc.key, exc.message) from None
    base_spec = light if (light is not None and _wants_light(data)) else default
    base = base_spec.model_dump(mode="python") if base_spec is not None else None
    merged = _merge(base, data, stem)
    try:
        return ThemeSpec.model_validate(merged)
    except ValidationError as exc:
        raise _validation_error(path, text, exc, origin, stem, data) from None


def load_theme_file(path: str | Path) -> ThemeSpec:
    """Load one theme file (either format), inheriting missing keys from the built-in themes.

    Raises `ThemeError` naming the file, line and key of the first problem.
    """
    path = Path(path)
    data, text = _read_mapping(path)
    builtins = _builtin_specs()
    return _spec_from_data(path, data, text, default=builtins["default"], light=builtins.get("daylight"))


# ---------------------------------------------------------------------------------------------- discovery


def _builtin_dir() -> Path:
    return Path(__file__).resolve().parent / "builtin"


@functools.cache
def _builtin_specs() -> dict[str, ThemeSpec]:
    directory = _builtin_dir()
    default_path = directory / "default.yaml"
    data, text = _read_mapping(default_path)
    default = _spec_from_data(default_path, data, text, default=None, light=None)
    specs = {default.name: default}
    for path in sorted(directory.glob("*.yaml")):
        if path == default_path:
            continue
        data, text = _read_mapping(path)
        spec = _spec_from_data(path, data, text, default=default, light=None)
        specs[spec.name] = spec
    return specs


def builtin_themes() -> dict[str, ThemeSpec]:
    """The themes shipped with hermes-tui, by name (`default` first)."""
    return dict(_builtin_specs())


def user_theme_dirs(hermes_home: str | Path) -> list[Path]:
    """Where user themes live, lowest precedence first: Hermes' skins, then our own themes."""
    home = Path(hermes_home)
    return [home / "skins", home / "tui" / "themes"]


def is_theme_file(path: Path) -> bool:
    return path.suffix.lower() in THEME_SUFFIXES and not path.name.startswith(".")


def theme_files(dirs: Iterable[Path]) -> list[Path]:
    """The theme files in `dirs`, in precedence order (later files override earlier ones)."""
    files: list[Path] = []
    for directory in dirs:
        try:
            entries = sorted(p for p in directory.iterdir() if is_theme_file(p) and p.is_file())
        except OSError:
            continue
        files.extend(entries)
    return files


def load_all_sourced(
    hermes_home: str | Path,
) -> tuple[dict[str, ThemeSpec], dict[str, Path | None], list[ThemeError]]:
    """Built-in and user themes, the file each came from (None: built in), and the broken files."""
    themes = builtin_themes()
    sources: dict[str, Path | None] = dict.fromkeys(themes)
    errors: list[ThemeError] = []
    for path in theme_files(user_theme_dirs(hermes_home)):
        try:
            spec = load_theme_file(path)
        except ThemeError as exc:
            errors.append(exc)
            continue
        themes[spec.name] = spec
        sources[spec.name] = path
    return themes, sources, errors


def load_all(hermes_home: str | Path) -> tuple[dict[str, ThemeSpec], list[ThemeError]]:
    """Built-in themes overridden by the user's (`skins/`, then `tui/themes/`); broken files are reported."""
    themes, _sources, errors = load_all_sourced(hermes_home)
    return themes, errors
