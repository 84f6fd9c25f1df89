"""`agent.api`, the engine's facade for the UI: its curated list, lazy table and typed imports agree."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import agent.api as api

ROOT = Path(__file__).resolve().parents[2]


def _table() -> dict[str, tuple[str, str]]:
    table = {}
    for module, entries in api._EXPORTS.items():
        for entry in entries:
            attr, _, alias = entry.partition(" as ")
            assert (alias or attr) not in table, f"{alias or attr} is exported twice"
            table[alias or attr] = (module, attr)
    return table


def test_all_is_the_table() -> None:
    assert len(api.__all__) == len(set(api.__all__))
    assert set(api.__all__) == set(_table())


def test_every_export_is_the_modules_own_object() -> None:
    for name, (module, attr) in _table().items():
        assert getattr(api, name) is getattr(importlib.import_module(module), attr), name


def test_the_type_checking_imports_repeat_the_table() -> None:
    """The type checker reads the `if TYPE_CHECKING:` block, the program reads `_EXPORTS`: the same names from
    the same modules."""
    tree = ast.parse((ROOT / "agent" / "api.py").read_text(encoding="utf-8"))
    typed: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.module
                for alias in statement.names:
                    typed[alias.asname or alias.name] = (statement.module, alias.name)
    assert typed == _table()


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        api.NotExported  # noqa: B018
    except AttributeError as exc:
        assert "NotExported" in str(exc)
    else:
        raise AssertionError("agent.api.NotExported resolved")


def test_importing_a_light_name_does_not_import_the_loop() -> None:
    """Lazy: a widget's `format_elapsed` must not pull in the turn loop, pydantic or the store."""
    code = (
        "import sys; from agent.api import format_elapsed, hermes_home; "
        "heavy = ('agent.session.session', 'agent.session.turn', 'pydantic', 'agent.store', 'sqlite3'); "
        "print(','.join(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_agent_is_the_sessions_older_name() -> None:
    """The UI's call sites say `Agent`; the engine's class is `Session` (one object, two names)."""
    from agent.session.session import Session

    assert api.Agent is api.Session is Session
