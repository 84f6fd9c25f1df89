"""Session export: Markdown a person can read (tool calls folded, fences that never break) and JSON that
round-trips every stored field."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from agent.core.messages import Message, ToolCall, Usage
from agent.store import SessionStore
from hermes_tui.export import (
    default_export_path,
    export_json,
    export_markdown,
    fence_for,
    message_from_dict,
    title_slug,
    write_export,
)

TRICKY_OUTPUT = "before\n```python\nprint('fenced')\n```\nand a longer run: ````\n~~~\nend"


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    store = SessionStore(tmp_path / "state.db")
    yield store
    store.close()


@pytest.fixture
def session_id(store: SessionStore) -> str:
    sid = store.create_session(
        model="anthropic/claude-sonnet-4.5",
        provider="openrouter",
        cwd="/srv/work/hermes",
        system_prompt="You are helpful.",
        title="Fix the <flaky> test",
    )
    messages = [
        Message("user", "Why does `test_io` fail?\n\nIt passes locally."),
        Message(
            "assistant",
            "Let me look.",
            reasoning="The user wants a diagnosis. Run the test first.",
            tool_calls=[
                ToolCall("call_1", "terminal", '{"command": "pytest -q tests/test_io.py", "timeout": 60}'),
                ToolCall("call_2", "read_file", '{"path": "tests/<weird>.py"}'),
            ],
            usage=Usage(1200, 80, 1000, 0, 12),
            finish_reason="tool_calls",
        ),
        Message(
            "tool",
            TRICKY_OUTPUT,
            tool_call_id="call_1",
            tool_name="terminal",
            meta={"status": "error", "duration": 1.234, "exit_code": 1},
        ),
        Message(
            "tool", "def test_io(): ...", tool_call_id="call_2", tool_name="read_file", meta={"status": "ok"}
        ),
        Message("user", "Continue.", meta={"synthetic": "continuation"}),
        Message(
            "assistant",
            "## Cause\n\nThe test depends on **timezone**:\n\n- fix it with `TZ=UTC`",
            finish_reason="stop",
        ),
    ]
    for message in messages:
        store.append_message(sid, message)
    return sid


def code_blocks(markdown: str) -> list[tuple[str, str]]:
    """(info, content) of every fenced code block, as a CommonMark parser reads them."""
    tokens = MarkdownIt("commonmark").parse(markdown)
    return [(token.info, token.content) for token in tokens if token.type == "fence"]


def test_markdown_has_title_metadata_quoted_user_and_assistant_markdown(
    store: SessionStore, session_id: str
) -> None:
    text = export_markdown(store, session_id)
    lines = text.splitlines()
    assert lines[0] == "# Fix the <flaky> test"
    meta = lines[2]
    assert "model `anthropic/claude-sonnet-4.5`" in meta
    assert "cwd `/srv/work/hermes`" in meta
    assert "created " in meta and "6 messages" in meta and session_id in meta
    assert "**You:**\n\n> Why does `test_io` fail?\n>\n> It passes locally." in text
    assert "## Cause\n\nThe test depends on **timezone**:\n\n- fix it with `TZ=UTC`" in text
    assert "*Note: The reply was cut at the output limit; the model was asked to continue.*" in text
    assert "Continue." not in text  # the synthetic prompt itself is not shown as if the user typed it
    reasoning = "The user wants a diagnosis. Run the test first."
    assert f"<details>\n<summary>Reasoning</summary>\n\n{reasoning}\n\n</details>" in text


def test_markdown_tool_calls_are_details_blocks_with_arguments_and_output(
    store: SessionStore, session_id: str
) -> None:
    text = export_markdown(store, session_id)
    assert text.count("<details>") == 3  # reasoning + two tool calls
    assert text.count("<details>") == text.count("</details>")
    assert "<summary>terminal: pytest -q tests/test_io.py (failed: exit 1, 1.2s)</summary>" in text
    # HTML in a summary is escaped, so it cannot open a tag.
    assert "<summary>read_file: tests/&lt;weird&gt;.py (ok)</summary>" in text
    blocks = code_blocks(text)
    arguments = [json.loads(content) for info, content in blocks if info == "json"]
    assert {"command": "pytest -q tests/test_io.py", "timeout": 60} in arguments
    assert {"path": "tests/<weird>.py"} in arguments
    outputs = [content for info, content in blocks if info == "text"]
    # The output survives intact: its own ``` and ```` did not close the fence.
    assert TRICKY_OUTPUT + "\n" in outputs
    assert "def test_io(): ...\n" in outputs
    # Order: the call's arguments, then its output, inside its own details block.
    terminal = text.index("<summary>terminal:")
    assert terminal < text.index('pytest -q tests/test_io.py",') < text.index("print('fenced')")
    assert text.index("print('fenced')") < text.index("</details>", terminal)


def test_fence_for_is_longer_than_any_backtick_run() -> None:
    assert fence_for("plain") == "```"
    assert fence_for("a ``` b") == "````"
    assert fence_for("`````") == "``````"


def test_json_round_trips_every_stored_field(store: SessionStore, session_id: str) -> None:
    document = json.loads(export_json(store, session_id))
    loaded = store.load(session_id)
    assert document["format"] == "hermes-tui-session"
    assert document["session"] == dataclasses.asdict(loaded.info)
    assert [entry["seq"] for entry in document["messages"]] == loaded.seqs
    rebuilt = [message_from_dict(entry) for entry in document["messages"]]
    assert rebuilt == loaded.messages
    first_reply = document["messages"][1]
    assert first_reply["reasoning"].startswith("The user wants")
    assert first_reply["usage"]["cache_read_tokens"] == 1000
    assert document["messages"][2]["meta"]["exit_code"] == 1
    assert "\\u" not in export_json(store, session_id).replace("\\\\", "")  # ensure_ascii=False


def test_write_export_creates_parents_refuses_directories_and_returns_the_path(
    store: SessionStore, session_id: str, tmp_path: Path
) -> None:
    target = tmp_path / "a" / "b" / "out.md"
    written = write_export(store, session_id, target, "markdown")
    assert written == target.absolute()
    assert written.read_text(encoding="utf-8") == export_markdown(store, session_id)
    assert (written.stat().st_mode & 0o777) == 0o600
    again = write_export(store, session_id, target, "json")  # replaces the file
    assert json.loads(again.read_text(encoding="utf-8"))["session"]["id"] == session_id
    with pytest.raises(IsADirectoryError):
        write_export(store, session_id, tmp_path / "a", "markdown")
    with pytest.raises(ValueError):
        write_export(store, session_id, tmp_path / "x.txt", "html")  # type: ignore[arg-type]
    with pytest.raises(KeyError):
        write_export(store, "no-such-session", tmp_path / "y.md", "markdown")
    assert not (tmp_path / "y.md").exists()
    assert sorted(p.name for p in (tmp_path / "a" / "b").iterdir()) == ["out.md"]  # no temp files left


def test_slugs_and_default_path(store: SessionStore, session_id: str) -> None:
    assert title_slug("Fix the <flaky> test") == "fix-the-flaky-test"
    assert title_slug("Ünïcödé — stuff!") == "unicode-stuff"
    assert title_slug("???") == "session"
    assert len(title_slug("word " * 40)) <= 60
    info = store.get_session(session_id)
    assert default_export_path(info) == Path("fix-the-flaky-test.md")
    assert default_export_path(info, "json", Path("/tmp")) == Path("/tmp/fix-the-flaky-test.json")


def test_export_of_an_untitled_interrupted_session(store: SessionStore) -> None:
    sid = store.create_session(model="m", provider="p", cwd="", system_prompt="")
    store.append_message(sid, Message("user", "hello"))
    store.append_message(sid, Message("assistant", "partial answ", partial=True))
    text = export_markdown(store, sid)
    assert text.startswith("# hello\n")
    assert "*Interrupted: the reply above is partial.*" in text


def test_markdown_names_the_images_a_message_carried(store: SessionStore) -> None:
    sid = store.create_session(model="m", provider="p", cwd="/w", system_prompt="s", title="pics")
    image = {
        "sha256": "ab" * 32,
        "mime": "image/png",
        "name": "shot.png",
        "width": 64,
        "height": 48,
        "size": 2048,
    }
    store.append_message(sid, Message("user", "what is this?", meta={"images": [image]}))
    text = export_markdown(store, sid)
    assert "**You:**\n\n> what is this?\n>\n> [image: shot.png · 64×48 · 2.0 KB]" in text
    assert "base64" not in export_json(store, sid)


def test_exports_mask_known_secrets_and_neutralise_controls_in_typed_and_assistant_text(
    store: SessionStore,
) -> None:
    """Text stored before the redactor knew a key, or typed by the user, or written by the model, is
    masked by the one redactor in both exports; the Markdown neutralises terminal controls as shown."""
    from agent.core.secrets import REDACTED, SECRETS

    key = "typedkey-0a9b8c7d6e5f"
    SECRETS.add(key)
    try:
        sid = store.create_session(model="m", provider="p", cwd="/w", system_prompt="s", title="keys")
        store.append_message(sid, Message("user", f"use \x1b]0;title\x07my key {key} please"))
        store.append_message(
            sid, Message("assistant", f"Set \x1b[31mKEY={key}\x1b[0m.", reasoning=f"they gave {key}")
        )
        markdown = export_markdown(store, sid)
        document = export_json(store, sid)
    finally:
        SECRETS.clear()
    assert key not in markdown and key not in document
    assert markdown.count(REDACTED) == 3 and document.count(REDACTED) >= 3  # JSON: the preview too
    assert "\x1b" not in markdown and "\x07" not in markdown
    assert "> use my key [REDACTED] please" in markdown and f"Set KEY={REDACTED}." in markdown
