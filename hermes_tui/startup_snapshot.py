"""What the first frame needs, kept from the last run, so it can be drawn before the configuration is read.

Reading the configuration and the themes costs pydantic and YAML (~125 ms before a first frame that takes
the bare Textual app ~230 ms in all). The first frame only needs the active theme's colours, the prompt's
symbol and the model's name: `$HERMES_HOME/tui/startup.json` keeps those from the last run. With it, the
command line starts the app at once (`hermes_tui.app.FastStart`); the configuration is read right after the
first frame, the keys typed meanwhile wait in order, and whatever changed since (another theme, another
model) replaces what the snapshot showed. Without it (the first run, or an unreadable file) the first frame
is drawn from the defaults (`DEFAULT_SNAPSHOT`: the built-in default theme, its prompt symbol, no model
name yet), the same way: there is one start. The snapshot is written once the chat is up.

It is a cache, not configuration: any file that is not exactly what this module writes is ignored (no
pydantic here, it is what the snapshot avoids importing), and a write that fails is silent.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.theme import Theme

VERSION = 1
SNAPSHOT_BYTES = 64 * 1024
"""The snapshot is a few hundred bytes; anything larger (or not a regular file) is not ours."""
_THEME_COLOURS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)


@dataclass(frozen=True)
class StartupSnapshot:
    theme: Theme
    prompt_symbol: str
    model: str
    sdk: str = ""
    """The model SDK the last run's session used (`agent.api.sdk_module`): imported as soon as the first frame
    is drawn, before the configuration is read (`agent.api.import_sdk`); "" when unknown."""


DEFAULT_SNAPSHOT = StartupSnapshot(
    # The built-in `default` theme's colours (themes/builtin/default.yaml; a test checks they agree): the
    # first frame of a first run must not read YAML to get them.
    theme=Theme(
        name="default",
        primary="#E0A526",
        secondary="#CD7F32",
        accent="#F2C14E",
        foreground="#EDE6D3",
        background="#16140F",
        surface="#1E1B15",
        panel="#2A251C",
        success="#8FBC6B",
        warning="#F0883E",
        error="#E8604C",
        dark=True,
    ),
    prompt_symbol="❯",
    model="",
    sdk="openai",
)
"""What the first frame shows when no run has left a snapshot yet. Its SDK is OpenAI's: most providers speak
its protocol, and a wrong guess (an Anthropic configuration, or none yet) costs a background import."""


def snapshot_path(hermes_home: Path) -> Path:
    return hermes_home / "tui" / "startup.json"


def snapshot_or_default(hermes_home: Path) -> StartupSnapshot:
    """The last run's snapshot, else the defaults' (the first frame is drawn from one or the other)."""
    return read_snapshot(hermes_home) or DEFAULT_SNAPSHOT


def read_snapshot(hermes_home: Path) -> StartupSnapshot | None:
    try:
        from agent.api import read_bounded_bytes

        data = json.loads(read_bounded_bytes(snapshot_path(hermes_home), limit=SNAPSHOT_BYTES))
        return _from_json(data)
    except (OSError, ValueError, TypeError, KeyError):
        return None


def write_snapshot(hermes_home: Path, snapshot: StartupSnapshot) -> None:
    """Atomically, and only when it changed (every launch would otherwise rewrite the same bytes)."""
    path = snapshot_path(hermes_home)
    text = json.dumps(_to_json(snapshot), indent=1, sort_keys=True)
    try:
        if path.is_file() and path.read_bytes() == text.encode("utf-8"):
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = path.with_name(f".{path.name}.{os.getpid()}")
        scratch.write_text(text, encoding="utf-8")
        os.replace(scratch, path)
    except (OSError, UnicodeDecodeError):
        pass


def _to_json(snapshot: StartupSnapshot) -> dict[str, Any]:
    theme = snapshot.theme
    return {
        "version": VERSION,
        "theme": {
            "name": theme.name,
            "dark": theme.dark,
            "luminosity_spread": theme.luminosity_spread,
            "text_alpha": theme.text_alpha,
            "variables": dict(theme.variables),
            **{key: getattr(theme, key) for key in _THEME_COLOURS},
        },
        "prompt_symbol": snapshot.prompt_symbol,
        "model": snapshot.model,
        "sdk": snapshot.sdk,
    }


def _from_json(data: Any) -> StartupSnapshot | None:
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return None
    theme, symbol, model = data["theme"], data["prompt_symbol"], data["model"]
    sdk = data.get("sdk", "")  # absent from the snapshots of earlier versions
    if not (isinstance(theme, dict) and isinstance(symbol, str) and isinstance(model, str)):
        return None
    if not isinstance(sdk, str):
        return None
    colours = {key: theme.get(key) for key in _THEME_COLOURS}
    variables = theme.get("variables", {})
    if not (
        isinstance(theme.get("name"), str)
        and isinstance(colours["primary"], str)
        and all(value is None or isinstance(value, str) for value in colours.values())
        and isinstance(theme.get("dark"), bool)
        and isinstance(theme.get("luminosity_spread"), float | int)
        and isinstance(theme.get("text_alpha"), float | int)
        and isinstance(variables, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in variables.items())
    ):
        return None
    optional: dict[str, Any] = {key: colours[key] for key in _THEME_COLOURS if key != "primary"}
    built = Theme(
        name=theme["name"],
        primary=colours["primary"],
        dark=theme["dark"],
        luminosity_spread=float(theme["luminosity_spread"]),
        text_alpha=float(theme["text_alpha"]),
        variables=dict(variables),
        **optional,
    )
    try:
        built.to_color_system()  # a colour Textual cannot parse would fail in the middle of the first frame
    except Exception:
        return None
    return StartupSnapshot(theme=built, prompt_symbol=symbol, model=model, sdk=sdk)
