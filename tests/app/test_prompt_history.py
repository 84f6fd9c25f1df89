"""The prompt's history across runs, per working folder (`hermes_tui/prompt_history.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import hermes_tui.prompt_history as prompt_history
from hermes_tui.prompt_history import load_prompt_history


@dataclass
class Where:
    state_db: Path
    cwd: Path


def test_prompts_come_back_in_the_folder_they_were_typed_in(tmp_path: Path) -> None:
    project, other = (
        Where(tmp_path / "tui" / "state.db", tmp_path / "p"),
        Where(tmp_path / "tui" / "state.db", tmp_path / "o"),
    )
    history = load_prompt_history(project)
    assert history == []
    history.append("fix the tests")
    history.append("then the docs ✓")
    load_prompt_history(other).append("elsewhere")
    assert load_prompt_history(project) == ["fix the tests", "then the docs ✓"]
    assert load_prompt_history(other) == ["elsewhere"]


def test_a_damaged_or_huge_file_costs_the_history_never_the_chat(tmp_path: Path, monkeypatch) -> None:
    where = Where(tmp_path / "state.db", tmp_path)
    path = tmp_path / prompt_history.FILE_NAME
    path.write_bytes(
        b'not json\n{"cwd": 3}\n\xff\xfe\n{"cwd": "%s", "text": "kept"}\n' % str(tmp_path).encode()
    )
    assert load_prompt_history(where) == ["kept"]
    monkeypatch.setattr(prompt_history, "MAX_BYTES", 4096)
    history = load_prompt_history(where)
    for n in range(200):
        history.append(f"prompt number {n}")
    assert path.stat().st_size <= 4096 + 200
    assert load_prompt_history(where)[-1] == "prompt number 199"
    assert len(history) <= prompt_history.KEPT
