"""Architecture rules that must not erode: the engine knows no UI; the UI imports no SDK before it paints."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN_IN_AGENT = ("textual", "widgets", "hermes_tui", "themes")


def test_agent_never_imports_ui_code() -> None:
    offenders = []
    for path in (ROOT / "agent").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                if name.split(".")[0] in FORBIDDEN_IN_AGENT:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {name}")
    assert offenders == []


def test_the_app_does_not_import_the_sdks_before_its_first_frame() -> None:
    code = (
        "import sys; import hermes_tui.cli, hermes_tui.app, hermes_tui.screens.chat, agent.session.loop; "
        "print(','.join(m for m in ('openai', 'anthropic') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_widgets_never_reach_into_the_agent_loop() -> None:
    offenders = []
    for path in (ROOT / "widgets").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for forbidden in ("agent.session.loop", "agent.store", "agent.tools", "agent.transports"):
            if forbidden in text:
                offenders.append(f"{path.name} mentions {forbidden}")
    assert offenders == []
