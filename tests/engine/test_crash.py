"""`kill -9` of a process mid-stream leaves a loadable session holding the partial reply."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from agent.core.sanitize import sanitize_for_wire
from agent.store import SessionStore

ROOT = Path(__file__).resolve().parents[2]


def _partial_text(db: Path) -> str:
    if not db.exists():
        return ""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            row = conn.execute(
                "SELECT content FROM messages WHERE role='assistant' ORDER BY id DESC LIMIT 1"
            ).fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return ""
    return row[0] if row else ""


def test_kill_9_mid_stream_leaves_partial_text(hermes_home: Path, tmp_path: Path) -> None:
    db = hermes_home / "tui" / "state.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "engine" / "crash_turn_child.py"),
            str(hermes_home),
            str(tmp_path),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        # Wait until at least two checkpoints happened (the partial text grows past a few hundred chars).
        while len(_partial_text(db)) < 300:
            assert child.poll() is None, child.stderr.read().decode() if child.stderr else ""
            assert time.monotonic() < deadline, "the child never checkpointed"
            time.sleep(0.1)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
    store = SessionStore(db)
    try:
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        sessions = store.list_sessions()
        assert len(sessions) == 1
        loaded = store.load(sessions[0].id)
        assert [m.role for m in loaded.messages] == ["user", "assistant"]
        assert loaded.messages[0].content == "stream until killed"
        partial = loaded.messages[1]
        assert partial.partial is True
        assert partial.content.startswith("tick tick") and len(partial.content) >= 300
        # It is valid to send again: the wire copy is well-formed.
        wire = sanitize_for_wire(loaded.messages)
        assert [m["role"] for m in wire] == ["user", "assistant"]
    finally:
        store.close()
