"""Text from the web and tools is stored and exported with its terminal controls neutralised exactly as the
screen shows it (issue 33 item 5): a page whose title carries colours, a window title and an OSC 52
clipboard write, and a plain-text page of raw controls (clear-screen, a hyperlink, NUL, CR LF, an 8-bit CSI),
fetched by `web_extract` in a real turn (scripted model over loopback). The row in `state.db`, what the
model is sent next and the Markdown export hold no ESC and no C0 control but newline and tab, and still
read as the page."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import widgets.support.text_safety
from agent.core import text_safety
from agent.core.text_safety import sanitize_display
from hermes_tui.export import export_json, export_markdown
from scripted import ScriptedServer
from tests.engine.helpers import make_agent, tool_results
from tests.web_standins import ESCAPES_TEXT, ESCAPES_TITLE, WebStandIn

FORBIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # C0 but \t \n, DEL, C1


def _forbidden(text: str) -> list[str]:
    return sorted({hex(ord(c)) for c in FORBIDDEN.findall(text)})


def test_a_page_title_with_escapes_is_stored_and_exported_as_shown(hermes_home: Path, tmp_path: Path) -> None:
    assert widgets.support.text_safety.sanitize_display is text_safety.sanitize_display  # one implementation
    with WebStandIn() as web:
        urls = [f"{web.url}/pages/escapes", f"{web.url}/pages/escapes.txt"]
        scenario = {
            "name": "escapes",
            "calls": [
                {"tool_calls": [{"name": "web_extract", "arguments": {"urls": urls}}]},
                {"text": "Read it."},
            ],
        }
        with ScriptedServer(scenario) as server:
            agent, store, _ui = make_agent(server, hermes_home, tmp_path, web=web.settings())
            agent.run_conversation("what does the page say?")
            second = server.requests[1].body
        session_id = agent.session_id
    assert session_id is not None
    [(_call, sent)] = tool_results(second, "openai")
    raw = sqlite3.connect(hermes_home / "tui" / "state.db")
    try:
        [stored] = [r[0] for r in raw.execute("SELECT content FROM messages WHERE role = 'tool'")]
    finally:
        raw.close()
    markdown = export_markdown(store, session_id)
    shown_title = sanitize_display(ESCAPES_TITLE)
    assert "PASS unit tests\nclick here for the report" in sanitize_display(ESCAPES_TEXT)
    assert shown_title == "Breaking red news today"  # what the tool panel shows of it
    for where, text in (("stored", stored), ("sent", sent), ("markdown", markdown)):
        assert "\x1b" not in text and not _forbidden(text), (where, _forbidden(text))
        assert shown_title in text, (where, text[:300])  # still the page's words, in order
        assert "pwned" not in text and "ZXZpbA==" not in text  # OSC payloads go with their sequence
        assert "The council voted on the new bridge after a long debate about its cost" in " ".join(
            text.split()
        ), (where, text)
        assert "PASS unit tests\nclick here for the report" in text, (where, text)  # as shown
    assert stored == sent  # the model reads what the store keeps
    assert "\\u001b" not in export_json(store, session_id)  # not even JSON-escaped: it was never stored
