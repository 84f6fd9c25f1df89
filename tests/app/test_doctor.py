"""`hermes-tui doctor`: a damaged store is backed up untouched, then rebuilt from the rows still readable."""

from __future__ import annotations

import io
import os
from pathlib import Path

from agent.config.settings import load_settings
from agent.core.messages import Message
from agent.store import SessionStore
from agent.store.opening import open_store
from hermes_tui.doctor import run_doctor


def _damaged_store(path: Path) -> bytes:
    store = SessionStore(path)
    for k in range(4):
        sid = store.create_session(model="m", provider="p", cwd="/w", system_prompt="s")
        for i in range(200):
            store.append_message(sid, Message(role="user", content=f"wombat {k} {i} " * 40))
    store.close()
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 40_000] = os.urandom(40_000)
    path.write_bytes(bytes(data))
    return bytes(data)


def test_doctor_backs_up_and_rebuilds_a_damaged_store(hermes_home: Path) -> None:
    db = hermes_home / "tui" / "state.db"
    db.parent.mkdir(parents=True)
    damaged = _damaged_store(db)
    out = io.StringIO()
    code = run_doctor(load_settings({}), out)
    report = out.getvalue()
    assert code == 0, report
    assert "is damaged" in report and "backed up to" in report
    backup = Path(report.split("backed up to ", 1)[1].split("\n", 1)[0])
    assert backup.read_bytes() == damaged  # the user's copy, untouched
    recovered = int(report.split("recovered ", 1)[1].split(" sessions and ", 1)[1].split(" messages")[0])
    assert 400 < recovered < 800  # most rows are back; the damaged stretch is not
    store = open_store(db)
    try:
        assert store.read_only is None
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert len(store.search("wombat")) > 0  # the search index was rebuilt from the rows
    finally:
        store.close()
    again = io.StringIO()
    assert run_doctor(load_settings({}), again) == 0
    assert ": ok (" in again.getvalue() and "backed up" not in again.getvalue()


def test_doctor_on_a_healthy_store_changes_nothing(hermes_home: Path) -> None:
    db = hermes_home / "tui" / "state.db"
    store = SessionStore(db)
    store.create_session(model="m", provider="p", cwd="/w", system_prompt="s")
    store.close()
    out = io.StringIO()
    assert run_doctor(load_settings({}), out) == 0
    assert ": ok (1 sessions, 0 messages)" in out.getvalue()
    assert "backed up" not in out.getvalue() and list(db.parent.glob("*.damaged-*")) == []
