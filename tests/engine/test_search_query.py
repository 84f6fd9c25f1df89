"""The search language: one parse, the same meaning for titles (`matches()`) and messages (FTS5 in a real
store), and no input that makes it raise."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.core.messages import Message
from agent.store import SessionStore
from agent.store.query import FTS_TOKENIZER, parse, tokens

FUZZ = settings(
    max_examples=300,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

TEXTS = {
    "abg": "alpha beta gamma",
    "ad": "alpha delta",
    "bg": "beta gamma",
    "creme": "Crème brûlée recipe",
    "migration": "the migration of databases",
    "migrations": "Migrations are done.",
    "snake": "snake_case and kebab-case",
    "tokyo": "東京で会いましょう",
    "party": "party 🎉 time",
}

# (query, the texts it finds). A trailing space ends search-as-you-type (the last word is not a prefix).
CASES = [
    ("alpha ", {"abg", "ad"}),
    ("alpha beta ", {"abg"}),
    ("beta AND gamma ", {"abg", "bg"}),
    ("alpha OR gamma ", {"abg", "ad", "bg"}),
    ("alpha NOT beta ", {"ad"}),
    ("alpha -beta ", {"ad"}),
    ("-alpha beta ", {"bg"}),
    ("alpha OR NOT beta ", {"abg", "ad"}),  # a lone negation cannot select anything: reads as `alpha`
    ("NOT alpha ", set()),  # nothing positive: the literal words "not" and "alpha"
    ('"beta gamma"', {"abg", "bg"}),
    ('"gamma beta"', set()),
    ('"alpha beta', {"abg"}),  # an unterminated phrase runs to the end
    ("migr* ", {"migration", "migrations"}),
    ("migration ", {"migration"}),
    ("migration", {"migration", "migrations"}),  # still typing: the last word is a prefix
    ("MIGRATIONS ", {"migrations"}),
    ("creme brulee ", {"creme"}),
    ("CRÈME ", {"creme"}),
    ("alpha OR beta gamma ", {"abg", "ad", "bg"}),  # AND binds tighter than OR
    ("(alpha OR beta) gamma ", {"abg", "bg"}),
    ("alpha (beta OR delta) ", {"abg", "ad"}),
    ("delta OR (beta -alpha) ", {"ad", "bg"}),
    ("gam* -alpha ", {"bg"}),
    ("alpha OR ", {"abg", "ad"}),  # a dangling operator is dropped
    ("((alpha) ", {"abg", "ad"}),  # unbalanced parentheses are ignored
    ("alpha) delta ", {"ad"}),
    ("snake ", {"snake"}),
    ("kebab-case ", {"snake"}),  # a word with punctuation is a phrase of its tokens
    ("case snake ", {"snake"}),
    ("東京", {"tokyo"}),
    ("会い", {"tokyo"}),  # inside a CJK run: a substring
    ("🎉", {"party"}),  # no letters or digits: a substring
    ("🎉 party ", {"party"}),  # punctuation beside real words is dropped
    ("alpha or gamma ", set()),  # lowercase operators are words
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SessionStore, dict[int, str]]]:
    store = SessionStore(tmp_path_factory.mktemp("q") / "state.db")
    ids: dict[int, str] = {}
    for name, text in TEXTS.items():
        sid = store.create_session(model="m", provider="p", cwd="/", system_prompt="", title=text)
        ids[store.append_message(sid, Message(role="user", content=text))] = name
    yield store, ids
    store.close()


@pytest.mark.parametrize(("query", "expected"), CASES, ids=[repr(q) for q, _ in CASES])
def test_titles_and_messages_read_a_query_the_same_way(
    corpus: tuple[SessionStore, dict[int, str]], query: str, expected: set[str]
) -> None:
    store, ids = corpus
    parsed = parse(query)
    assert {name for name, text in TEXTS.items() if parsed.matches(text)} == expected  # titles
    assert {ids[hit.message_id] for hit in store.search(query, limit=50)} == expected  # messages (FTS5)
    sessions = store.list_sessions()
    assert {s.title for s in sessions if parsed.matches(s.title, s.id)} == {TEXTS[n] for n in expected}


def test_to_fts5_quotes_every_user_token() -> None:
    assert parse("foo bar").to_fts5() == '("foo" AND "bar"*)'
    assert parse('col:val NEAR(x say"hi ').to_fts5() == '("col:val" AND "NEAR(x" AND "say""hi")'
    assert parse("a OR b NOT c ").to_fts5() == '("a" OR ("b" NOT "c"))'
    assert parse("( ) ^ * - :").to_fts5() == ""  # nothing FTS5 can index: substring terms only
    assert parse("").is_empty and parse("   ").is_empty and parse('""').is_empty
    assert len(parse("w " * 5000).terms()) == 1 and str(parse("a b " * 40)).count(" ") < 40


def test_terms_are_the_positive_words_longest_first() -> None:
    assert parse('fix "the migration" -docker OR test').terms() == ("the migration", "test", "fix")
    assert parse("NOT").terms() == ("NOT",)  # read literally


def test_spans_cover_whole_tokens_of_a_prefix() -> None:
    text = "Migrations: the migrated data"
    assert [text[a:b] for a, b in parse("migr").spans(text)] == ["Migrations", "migrated"]
    assert [text[a:b] for a, b in parse('"the migrated"').spans(text)] == ["the migrated"]


def test_the_store_tokenizer_is_the_one_matches_reproduces(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.db")
    try:
        sql = store.conn.execute("SELECT sql FROM sqlite_master WHERE name = 'messages_fts'").fetchone()[0]
        assert f"tokenize = '{FTS_TOKENIZER}'" in sql
    finally:
        store.close()


# ------------------------------------------------------------------------------------------ fuzz

_fts = sqlite3.connect(":memory:", check_same_thread=False)
_fts.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize = '{FTS_TOKENIZER}')")
_fts.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")


def _fts_tokens(text: str) -> list[str]:
    _fts.execute("DELETE FROM t")
    _fts.execute("INSERT INTO t(rowid, x) VALUES (1, ?)", (text,))
    return [row[0] for row in _fts.execute("SELECT term FROM v ORDER BY offset")]


def _fts_matches(expression: str, text: str) -> bool:
    _fts.execute("DELETE FROM t")
    _fts.execute("INSERT INTO t(rowid, x) VALUES (1, ?)", (text,))
    return _fts.execute("SELECT count(*) FROM t WHERE t MATCH ?", (expression,)).fetchone()[0] == 1


TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
WORDS = ["alpha", "beta", "Alpha", "bêta", "al", "gam", "a-b", "東京", "🎉", "x_y"]
QUERY_PARTS = [*WORDS, "OR", "AND", "NOT", "(", ")", '"', "*", "-", ":", "^", "NEAR", "or"]
QUERY = st.lists(st.sampled_from(QUERY_PARTS), max_size=8).map(" ".join) | TEXT
DOC = st.lists(st.sampled_from([*WORDS, "gamma", "delta", ".", ","]), max_size=8).map(" ".join)


@FUZZ
@given(TEXT)
def test_tokens_are_exactly_the_fts5_tokens(text: str) -> None:
    assert tokens(text) == _fts_tokens(text)


@FUZZ
@given(QUERY, TEXT)
def test_no_query_raises_and_fts5_accepts_every_translation(query: str, text: str) -> None:
    parsed = parse(query)
    parsed.matches(text, "")
    parsed.terms()
    parsed.spans(text)
    expression = parsed.to_fts5()
    if expression:
        _fts_matches(expression, text)  # raises on a syntax error


@FUZZ
@given(QUERY, DOC)
def test_matches_agrees_with_fts5(query: str, doc: str) -> None:
    parsed = parse(query)
    if parsed.exact:
        assert parsed.matches(doc) == _fts_matches(parsed.to_fts5(), doc), (str(parsed), parsed.to_fts5())


@FUZZ
@given(QUERY, st.lists(st.tuples(DOC | TEXT, st.none() | DOC), max_size=6))
def test_select_over_many_records_is_matches_on_each(
    query: str, records: list[tuple[str, str | None]]
) -> None:
    parsed = parse(query)
    assert parsed.select(records) == [i for i, fields in enumerate(records) if parsed.matches(*fields)]


def test_select_reads_separator_characters_in_a_text_as_spaces() -> None:
    records = [("alpha\nbeta", None), ("alpha\x1fbeta", "x\x1ey"), ("beta alpha", "id")]
    parsed = parse('"alpha beta"')
    assert parsed.select(records) == [0, 1] == [i for i, r in enumerate(records) if parsed.matches(*r)]
    assert parse("x y ").select(records) == [1]
