"""`tests/` is laid out like the code: a test's folder says which layer it may import.

- `tests/engine/`: the engine (`agent/`) alone; nothing there imports `hermes_tui`, `widgets` or `themes`,
  directly or through a test helper it imports (a test that needs the app belongs in `tests/app/`).
- `tests/widgets/`: widgets on their own; no `hermes_tui`.
- `tests/app/`: the app (`hermes_tui/`) on the scripted server.
- `tests/snapshots/`: every module that takes pictures, with its `__snapshots__`.
- `tests/compat/`: the boundary with Textual's private names.
- `tests/e2e/`, `tests/reliability/`: whole apps in a terminal, faults; marked `slow` by `tests/conftest.py`.
- `tests/fuzz/`: the UI fuzz runs (Pilot and tmux).
- `tests/acp/`: `hermes-tui acp` in a subprocess, driven by the ACP SDK's client side.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent
ROOT = TESTS.parent
FOLDERS = {"engine", "widgets", "app", "snapshots", "compat", "e2e", "reliability", "fuzz", "fixtures", "acp"}
FORBIDDEN = {"engine": {"hermes_tui", "widgets", "themes"}, "widgets": {"hermes_tui"}}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def _source_of(module: str) -> Path | None:
    parts = module.split(".")
    for n in range(len(parts), 1, -1):
        candidate = ROOT.joinpath(*parts[:n]).with_suffix(".py")
        if candidate.exists():
            return candidate
    return None


def _reached(path: Path, seen: set[Path]) -> set[str]:
    """The top-level packages `path` imports, directly or through the test modules it imports."""
    seen.add(path)
    tops: set[str] = set()
    for module in _imports(path):
        tops.add(module.split(".")[0])
        if module.startswith("tests."):
            source = _source_of(module)
            if source is not None and source not in seen:
                tops |= _reached(source, seen)
    return tops


def _modules(folder: str) -> list[Path]:
    return sorted((TESTS / folder).rglob("*.py"))


def test_every_test_module_is_in_a_folder_named_for_a_layer() -> None:
    stray = [
        str(path.relative_to(TESTS))
        for path in TESTS.rglob("test_*.py")
        if len(path.relative_to(TESTS).parts) > 1 and path.relative_to(TESTS).parts[0] not in FOLDERS
    ]
    assert not stray, f"test modules outside {sorted(FOLDERS)}: {stray}"


def test_engine_and_widget_tests_import_nothing_above_their_layer() -> None:
    wrong = []
    for folder, forbidden in FORBIDDEN.items():
        for path in _modules(folder):
            reached = _reached(path, set()) & forbidden
            if reached:
                wrong.append(f"{path.relative_to(TESTS)} reaches {sorted(reached)}")
    assert not wrong, "\n".join(wrong)


def test_the_rule_sees_an_import_through_a_helper(tmp_path: Path) -> None:
    """The check above follows `tests.*` imports: a harness that imports the app counts."""
    harness = _source_of("tests.app.harness")
    assert harness is not None and "hermes_tui" in _reached(harness, set())


def test_pictures_live_in_tests_snapshots() -> None:
    pictures = TESTS / "snapshots"
    takers = [
        str(path.relative_to(TESTS))
        for path in TESTS.rglob("test_*.py")
        if path != Path(__file__) and "snap_compare" in path.read_text() and path.parent != pictures
    ]
    assert not takers, f"modules taking snapshots outside tests/snapshots: {takers}"
    folders = [str(p.relative_to(TESTS)) for p in TESTS.rglob("__snapshots__") if p.parent != pictures]
    assert not folders, f"__snapshots__ outside tests/snapshots: {folders}"
    modules = {path.stem for path in (TESTS / "snapshots").glob("test_*.py")}
    orphans = [p.name for p in (TESTS / "snapshots" / "__snapshots__").iterdir() if p.name not in modules]
    assert not orphans, f"pictures whose module is gone: {orphans}"


def test_every_slow_entry_names_a_test_that_exists() -> None:
    """`tests/conftest.py` lists slow modules and tests by name: a renamed one would silently run in the
    quick loop."""
    from tests.conftest import SLOW_MODULES, SLOW_TESTS

    files = {path.name: path for path in TESTS.rglob("test_*.py")}
    missing = sorted(name for name in SLOW_MODULES if name not in files)
    for entry in SLOW_TESTS:
        module, function = entry.split("::")
        if module not in files or f"def {function}(" not in files[module].read_text():
            missing.append(entry)
    assert not missing, f"slow entries naming nothing: {missing}"
