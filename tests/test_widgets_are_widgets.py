"""`widgets/` holds widgets: every module directly in it defines a Widget (or Screen) subclass.

What is not a widget lives with its concept, in a package of `widgets/` named for it (the transcript's entry
models and layout in `widgets/transcript/`, the prompt's paste store in `widgets/prompt/`, the timing
constants in `widgets/support/`...), so a module's place says what it is.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest
from textual.widget import Widget

ROOT = Path(__file__).resolve().parents[1]


def modules_without_a_widget(directory: Path, package: str) -> list[str]:
    """The modules directly in `directory` (the package `package`) that define no Widget subclass (a
    Screen is one); sub-packages are not looked at."""
    found = []
    for path in sorted(directory.glob("*.py")):
        if path.name == "__init__.py":
            continue
        name = f"{package}.{path.stem}"
        module = importlib.import_module(name)
        defined = [
            value
            for value in vars(module).values()
            if inspect.isclass(value) and value.__module__ == name and issubclass(value, Widget)
        ]
        if not defined:
            found.append(name)
    return found


def test_every_module_directly_in_widgets_defines_a_widget() -> None:
    assert modules_without_a_widget(ROOT / "widgets", "widgets") == []


def test_the_rule_reports_a_module_that_only_imports_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check can fail: a plain module, or one that only imports a widget, is reported; a widget's, a
    screen's and a sub-package's modules are not."""
    package = tmp_path / "stray_widgets"
    (package / "inner").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "inner" / "__init__.py").write_text("")
    (package / "inner" / "plain.py").write_text("VALUE = 1\n")
    (package / "plain.py").write_text("from textual.widgets import Static\n\nVALUE = 1\n")
    (package / "widget.py").write_text(
        "from textual.widgets import Static\n\n\nclass Shown(Static):\n    pass\n"
    )
    (package / "screen.py").write_text(
        "from textual.screen import ModalScreen\n\n\nclass Asked(ModalScreen):\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert modules_without_a_widget(package, "stray_widgets") == ["stray_widgets.plain"]
