"""Every app in the UI tests resolves component styles as `HermesApp` does (installed once, not depending on
which test happened to build a `HermesApp` first in this worker)."""

from __future__ import annotations

from hermes_tui import component_styles

component_styles.install()
