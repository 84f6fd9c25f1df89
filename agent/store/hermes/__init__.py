"""Hermes Agent's own session history (`$HERMES_HOME/state.db`), read strictly read-only.

By job: `db` (opening the file without changing anything next to it, which schema it has, one-line errors),
`rows` (its rows as our `SessionInfo` and `Message`), `history` (`HermesHistory`: list, load, resolve,
search). Its sessions carry ids `hermes:<id>`; `agent.store.library.SessionLibrary` puts them beside ours.

This package never imports textual.
"""

from __future__ import annotations

from agent.store.hermes.db import KNOWN_SCHEMA, HermesHistoryError, HermesSchema, side_files
from agent.store.hermes.history import HermesHistory, raw_id

__all__ = ["KNOWN_SCHEMA", "HermesHistory", "HermesHistoryError", "HermesSchema", "raw_id", "side_files"]
