"""Architecture rules that must not erode: the engine knows no UI and no test double; the UI reaches the
engine only through `agent.api`; the UI imports no SDK before it paints."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN_IN_AGENT = ("textual", "widgets", "hermes_tui", "themes", "scripted", "tests")
UI_PACKAGES = ("hermes_tui", "widgets", "themes")
ENGINE_FACADE = "agent.api"


def forbidden_engine_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) for every import in `source` of a package the engine must not know: the UI's, and
    the test doubles' (`scripted`, `tests`): at the top, inside functions, under `if TYPE_CHECKING:`, and
    `importlib.import_module(...)`. A relative import stays inside `agent` and is not one."""
    found: list[tuple[int, str]] = []
    if not re.search(rf"\b({'|'.join(FORBIDDEN_IN_AGENT)})\b", source):  # every form below names one
        return found
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names = [node.args[0].value]
        found += [(node.lineno, name) for name in names if name.split(".")[0] in FORBIDDEN_IN_AGENT]
    return found


def test_agent_never_imports_ui_code_or_test_doubles() -> None:
    offenders = []
    for path in (ROOT / "agent").rglob("*.py"):
        for line, name in forbidden_engine_imports(path.read_text(encoding="utf-8")):
            offenders.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert offenders == []


def test_the_engine_check_sees_test_doubles_and_ui_imports() -> None:
    source = """
from typing import TYPE_CHECKING
import importlib
import agent.core
from .sse import SSEDecoder
import scripted
if TYPE_CHECKING:
    from tests.recording_ui import RecordingUI
def later():
    from scripted.server import ScriptedServer
    import textual.app
    importlib.import_module("tests.web_standins")
"""
    assert sorted(name for _, name in forbidden_engine_imports(source)) == [
        "scripted",
        "scripted.server",
        "tests.recording_ui",
        "tests.web_standins",
        "textual.app",
    ]


def test_the_engine_holds_no_test_double() -> None:
    """The scripted server is a top-level package and `RecordingUI` lives in `tests/`; `agent.api` exports
    nothing of either."""
    assert not (ROOT / "agent" / "scripted").exists()
    assert (ROOT / "scripted" / "__init__.py").exists()
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "agent").rglob("*.py")
        if "class RecordingUI" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
    import agent.api

    exported = set(agent.api._EXPORTS)
    assert [m for m in exported if m.split(".")[0] in ("scripted", "tests")] == []


def test_the_app_does_not_import_the_sdks_before_its_first_frame() -> None:
    code = (
        "import sys; import hermes_tui.cli, hermes_tui.app, hermes_tui.chat.screen, agent.session.session; "
        "print(','.join(m for m in ('openai', 'anthropic') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_widgets_never_reach_into_the_agent_loop() -> None:
    offenders = []
    for path in (ROOT / "widgets").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for forbidden in (
            "agent.session.session",
            "agent.session.turn",
            "agent.store",
            "agent.tools",
            "agent.transports",
        ):
            if forbidden in text:
                offenders.append(f"{path.name} mentions {forbidden}")
    assert offenders == []


def engine_imports_besides_the_facade(source: str) -> list[tuple[int, str]]:
    """(line, module) for every import of an `agent` module other than `agent.api` in `source`: at the top,
    inside functions, under `if TYPE_CHECKING:`, and `importlib.import_module("agent....")`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module == "agent":
                names = [f"agent.{alias.name}" for alias in node.names]
            else:
                names = [node.module]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names = [node.args[0].value]
        for name in names:
            if (name == "agent" or name.startswith("agent.")) and name != ENGINE_FACADE:
                found.append((node.lineno, name))
    return found


def test_the_ui_imports_the_engine_only_through_agent_api() -> None:
    offenders = []
    for package in UI_PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for line, name in engine_imports_besides_the_facade(path.read_text(encoding="utf-8")):
                offenders.append(f"{path.relative_to(ROOT)}:{line} imports {name} (use {ENGINE_FACADE})")
    assert offenders == []


def test_the_facade_check_sees_every_kind_of_import() -> None:
    source = """
from typing import TYPE_CHECKING
import importlib
from agent.api import Agent
from agent import api
if TYPE_CHECKING:
    from agent.session.session import Session
def later():
    import agent.store
    from agent import session
    importlib.import_module("agent.approval")
"""
    assert [name for _, name in engine_imports_besides_the_facade(source)] == [
        "agent.session.session",
        "agent.store",
        "agent.session",
        "agent.approval",
    ]
