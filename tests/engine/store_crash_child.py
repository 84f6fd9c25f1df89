"""Child process for the kill -9 test of the session store.

Usage: python store_crash_child.py DB_PATH

Creates a session, appends a user message and a partial assistant message, then checkpoints the partial text
forever ("partial text 0", "partial text 1", ...). After each committed checkpoint it prints
`CHECKPOINT <session_id> <message_id> <n>` and flushes, so the parent knows what is on disk when it kills us.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent.core.messages import Message
from agent.store import SessionStore


def main() -> None:
    store = SessionStore(sys.argv[1])
    session_id = store.create_session(model="m", provider="p", cwd="/crash", system_prompt="sys")
    store.append_message(session_id, Message(role="user", content="hello before the crash"))
    reply = Message(role="assistant", content="", partial=True)
    message_id = store.append_message(session_id, reply)
    n = 0
    while True:
        store.checkpoint_partial(message_id, f"partial text {n}", f"thinking {n}")
        print(f"CHECKPOINT {session_id} {message_id} {n}", flush=True)
        n += 1
        time.sleep(0.002)


if __name__ == "__main__":
    main()
