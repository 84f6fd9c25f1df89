"""Hermes' compression settings: target_ratio, protect_first_n and protect_last_n, read from config.yaml
and honoured by what a compression keeps verbatim on the wire."""

from __future__ import annotations

from pathlib import Path

from agent.config.settings import load_settings
from agent.core.messages import Message
from agent.session.compression import message_tokens, plan
from scripted import ScriptedServer
from tests.engine.helpers import make_agent


def talk(n: int, size: int = 10) -> list[Message]:
    return [
        Message(role="user" if i % 2 == 0 else "assistant", content=f"m{i} " + "x" * size) for i in range(n)
    ]


def test_the_three_settings_are_read_from_hermes_config(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        "compression:\n  target_ratio: 0.4\n  protect_first_n: 1\n  protect_last_n: 6\n"
    )
    s = load_settings({}, env={"HERMES_HOME": str(home)}).settings
    assert (s.compression_target_ratio, s.compression_protect_first_n, s.compression_protect_last_n) == (
        0.4,
        1,
        6,
    )


def test_a_bad_value_is_one_clear_problem(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("compression:\n  protect_last_n: -2\n")
    loaded = load_settings({}, env={"HERMES_HOME": str(home)})
    problems = {p.key: p for p in loaded.problems}
    assert "compression.protect_last_n" in problems
    assert loaded.settings.compression_protect_last_n == 20  # the default stays


def test_protect_first_n_and_last_n_set_the_head_and_the_tail() -> None:
    messages = talk(30)
    chosen = plan(messages, keep_head=1, keep_tail=6)
    assert chosen.head == [0] and chosen.tail == list(range(24, 30))
    assert plan(messages, keep_head=0, keep_tail=3).head == []


def test_target_ratio_tokens_extend_the_tail_beyond_protect_last_n() -> None:
    messages = talk(30)
    per = message_tokens(messages[0])
    chosen = plan(messages, keep_head=3, keep_tail=4, tail_tokens=per * 10)
    assert chosen.tail == list(range(20, 30))  # 10 messages fit the budget, more than the 4 protected
    assert len(chosen.middle) >= 2
    # However large the budget, something is left to summarize.
    assert len(plan(messages, keep_head=3, keep_tail=4, tail_tokens=10**9).middle) >= 2


def _compress_eight_turns(hermes_home: Path, tmp_path: Path, **settings: object) -> tuple[Message, str]:
    """Eight turns, /compress, one more turn: the marker, and the text of the last request."""
    calls = [{"text": f"answer {i}"} for i in range(8)] + [{"text": "Summary of it all."}, {"text": "done"}]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, **settings)
        for i in range(8):
            agent.run_conversation(f"question {i}")
        assert agent.compress_now()
        agent.run_conversation("last")
        wire = str(server.requests[-1].body["messages"])
    marker = next(m for m in agent.messages if m.meta.get("synthetic") == "compression")
    return marker, wire


def test_compression_on_the_wire_keeps_what_the_settings_say(hermes_home: Path, tmp_path: Path) -> None:
    marker, wire = _compress_eight_turns(
        hermes_home,
        tmp_path,
        compression_protect_first_n=1,
        compression_protect_last_n=4,
        compression_target_ratio=0.1,
        context_window=1_000_000,  # a ~50k-token tail budget: all but the 2 it must summarize fit
    )
    assert marker.meta["head"] == [0] and marker.meta["tail"] == list(range(3, 16))
    assert "question 0" in wire and "Summary of it all." in wire
    assert "'answer 0'" not in wire and "question 1'" not in wire  # the two summarized
    assert all(f"question {i}" in wire for i in range(2, 8))


def test_a_small_budget_keeps_only_protect_last_n(hermes_home: Path, tmp_path: Path) -> None:
    marker, wire = _compress_eight_turns(
        hermes_home,
        tmp_path,
        compression_protect_first_n=2,
        compression_protect_last_n=4,
        compression_target_ratio=0.1,
        context_window=200,  # threshold 100 tokens, tail budget 10: no more than the 4 protected
        compression_enabled=False,  # only the /compress: the tiny window must not compress on its own
    )
    assert marker.meta["head"] == [0, 1] and marker.meta["tail"] == [12, 13, 14, 15]
    assert "question 0" in wire and "answer 0" in wire and "question 6" in wire
    assert all(f"question {i}" not in wire for i in range(1, 6))
