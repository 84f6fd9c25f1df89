"""The version guard: every patch of `textual_compat` is installed, or none is.

`install()` runs once per process (the app calls it before its driver starts, `tests/conftest.py` at
collection, so test order never decides which Textual a test runs against). It installs the patches only
when the installed Textual and Rich are exactly the versions in `manifest.VERIFIED` and every manifest name
that can be checked cheaply still resolves; otherwise it logs one line saying which fixes are off, and the
app runs on plain Textual (slower in places, with the bugs the patches fix, never broken). Patches that
attach to our own widget classes are applied as their modules are imported: `install()` is idempotent and
the chat screen calls it again once it has imported the transcript.
"""

from __future__ import annotations

import importlib
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_tui.textual_compat.manifest import MANIFEST, VERIFIED, PrivateName

__all__ = ["CompatStatus", "Patch", "active", "current", "install", "installed_version", "resolve"]

_log = logging.getLogger("hermes_tui.textual_compat")


@dataclass(frozen=True, slots=True)
class Patch:
    """One fix: `apply()` installs it (True when in place); `module` is the product module it patches,
    applied once that module is imported (None: a Textual module, applied at once)."""

    name: str
    fixes: str
    apply: Callable[[], bool]
    module: str | None = None


@dataclass
class CompatStatus:
    active: bool
    versions: dict[str, str]
    reason: str = ""
    applied: dict[str, bool] = field(default_factory=dict)
    fixes: dict[str, str] = field(default_factory=dict)

    def line(self) -> str:
        """One line for a log or `hermes-tui doctor`."""
        found = ", ".join(f"{name} {version}" for name, version in self.versions.items())
        if self.active:
            on = sum(self.applied.values())
            return f"Textual workarounds: {on} of {len(self.fixes)} active ({found}, verified)"
        verified = ", ".join(f"{name} {version}" for name, version in VERIFIED.items())
        off = ", ".join(sorted(self.fixes)) or "none"
        return f"Textual workarounds off ({self.reason}; found {found}, verified {verified}): {off}"


_status: CompatStatus | None = None


def installed_version(distribution: str) -> str:
    """The installed version of `distribution`, cheaply: the `NAME-VERSION.dist-info` folder beside the
    package is one stat for the verified version (importlib.metadata costs ~16 ms at startup)."""
    package = sys.modules.get(distribution) or importlib.import_module(distribution)
    site = Path(package.__file__ or "").parent.parent
    expected = VERIFIED.get(distribution)
    if expected is not None and (site / f"{distribution}-{expected}.dist-info").is_dir():
        others = list(site.glob(f"{distribution}-*.dist-info"))
        if len(others) == 1:
            return expected
    from importlib.metadata import version

    return version(distribution)


def resolve(entry: PrivateName) -> Any:
    """The object a manifest entry names (unwrapping our own patch), or raise AttributeError/ImportError.
    An instance attribute resolves to its class; the canary checks such names in the class's source."""
    module_name, _, qualname = entry.target.partition(":")
    target: Any = importlib.import_module(module_name)
    parts = qualname.split(".") if qualname else []
    if entry.instance:
        parts = parts[:-1]
    for part in parts:
        target = getattr(target, part)
    return getattr(target, "original", target)


def _versions() -> dict[str, str]:
    return {name: installed_version(name) for name in VERIFIED}


def _missing_names() -> list[str]:
    missing = []
    for entry in MANIFEST:
        try:
            resolve(entry)
        except (AttributeError, ImportError):
            missing.append(entry.target)
    return missing


def install(patches: list[Patch], *, eager: bool = False) -> CompatStatus:
    """Decide once whether the patches go in; apply those whose module is loaded (all, with `eager`)."""
    global _status
    if _status is None:
        versions = _versions()
        fixes = {patch.name: patch.fixes for patch in patches}
        if versions != VERIFIED:
            _status = CompatStatus(False, versions, "another version", fixes=fixes)
        elif missing := _missing_names():
            _status = CompatStatus(
                False, versions, f"{len(missing)} names gone: {', '.join(missing)}", fixes=fixes
            )
        else:
            _status = CompatStatus(True, versions, fixes=fixes)
        if not _status.active:
            _log.warning(_status.line())
    if _status.active:
        for patch in patches:
            if _status.applied.get(patch.name):
                continue
            if patch.module is not None and patch.module not in sys.modules:
                if not eager:
                    continue
                importlib.import_module(patch.module)
            _status.applied[patch.name] = patch.apply()
    return _status


def active() -> bool:
    """True once `install()` found the verified versions (then every patch is, or will be, in place)."""
    return _status is not None and _status.active


def current() -> CompatStatus | None:
    """What `install()` decided (None before it ran)."""
    return _status
