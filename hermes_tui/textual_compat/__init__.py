"""The one boundary with Textual's and Rich's internals (docs/architecture.md, "The boundary with Textual").

Every private Textual/Rich name hermes-tui touches is in this package and nowhere else, listed in
`manifest.py` with what it works around, the versions it was verified on and the upstream report. The
rest of the app imports only what is exported here. `install()` (the app calls it before its driver
starts; `tests/conftest.py` once per test process) installs every fix or, on an unverified Textual or
Rich, none, and logs one line saying which are off; `hermes-tui doctor` prints `status().line()`.

Upgrading Textual: bump the pins in pyproject.toml and `VERIFIED` in `manifest.py`, run
`python -m pytest tests/compat` (the canary: every manifest name and signature), then
re-verify what it lists (DEVELOPERS.md, "Upgrading Textual").
"""

from __future__ import annotations

from hermes_tui.textual_compat import guard
from hermes_tui.textual_compat.bubbling import bubbles_on, parent_if_stop_is_ambiguous
from hermes_tui.textual_compat.command_palette import GuardedCommandPalette, can_page
from hermes_tui.textual_compat.frames import FrameSignal
from hermes_tui.textual_compat.guard import CompatStatus, active

__all__ = [
    "CompatStatus",
    "FrameSignal",
    "GuardedCommandPalette",
    "active",
    "bubbles_on",
    "can_page",
    "install",
    "parent_if_stop_is_ambiguous",
    "status",
]


def install(*, eager: bool = False) -> CompatStatus:
    """Install every fix or none (decided once per process); `eager` applies those for our widget classes
    now, importing their modules (tests), instead of as the modules are imported."""
    from hermes_tui.textual_compat.patches import PATCHES

    return guard.install(PATCHES, eager=eager)


def status() -> CompatStatus:
    """What `install()` decided (installing first if nothing has yet)."""
    return guard.current() or install()
