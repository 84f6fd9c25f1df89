"""The search language, parsed once: what a query typed into the sessions screen (or given to the
`session_search` tool) means, for message search (SQLite FTS5) and for titles alike.

The language: words (ANDed), `"quoted phrases"`, `prefix*`, `OR`, `NOT term` / `-term`, `AND` (the same as
a space) and `( ... )` for grouping; `NOT` binds tightest, then AND, then OR (`a OR b c` is `a OR (b c)`).
Operator words count only in upper case (`or` is a word). Any input is a query, never an error: an
unterminated quote runs to the end, unmatched parentheses are ignored, dangling operators are dropped, and a
query with nothing positive left (`NOT x`, `-rf`, `AND OR`) is read again as plain literal words.

Why one AST with three readings: the store matches messages with `to_fts5()` and the screen matches titles
with `matches()`; they used to be two parsers that disagreed (`alpha OR NOT beta`). Both readings now come
from one tree, and `matches()` uses SQLite's own tokenizer rules (below), so a title and a message with the
same text match the same queries.

Two kinds of term:
- token terms (nearly everything): matched the way the FTS5 `unicode61 remove_diacritics 2` tokenizer
  does: text is split into tokens of letters and digits, case- and accent-folded; a term is a sequence of
  tokens that must appear in a row (a phrase), the last one a prefix for `foo*`. `fold()` reproduces the
  tokenizer exactly: ASCII by rule, every other character by asking SQLite once per 256-character block.
- substring terms: CJK text (the tokenizer keeps a whole CJK run as one token, so a word inside it can only
  be found as a substring) and terms with no letter or digit at all (`🎉`, `%`), which FTS5 cannot index.
  Punctuation-only terms are dropped when the query has a positive token term (`rm -rf /` is not a search
  for "/"). Substring terms are matched ASCII-case-insensitively, the same as SQL `LIKE`.

A negation needs something positive beside it: `a OR NOT b` reads as `a` (the `NOT b` branch alone would
match nearly everything, and FTS5 cannot express it).

Search as you type: unless the text ends with whitespace, its last bare word (2+ characters) is a prefix.

This module never imports textual.
"""

from __future__ import annotations

import bisect
import itertools
import operator
import re
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from agent.core.messages import strip_surrogates

__all__ = [
    "FTS_TOKENIZER",
    "MAX_QUERY_CHARS",
    "MAX_TERMS",
    "And",
    "Node",
    "Not",
    "Or",
    "SearchQuery",
    "Term",
    "TextView",
    "fold",
    "parse",
    "tokens",
]

MAX_QUERY_CHARS = 2000
MAX_TERMS = 32
MAX_DEPTH = 8
OPERATORS = frozenset({"AND", "OR", "NOT"})

# --------------------------------------------------------------------------------------------- folding

_SEPARATOR = " "
_ASCII_TABLE: dict[int, str] = {
    code: (chr(code).lower() if chr(code).isalnum() else _SEPARATOR) for code in range(128)
}
_ASCII_BYTES = "".join(_ASCII_TABLE[code] for code in range(128)).encode("ascii") + bytes(range(128, 256))
_FIELD, _RECORD = "\x1f", "\x1e"  # they separate the fields and the records of `SearchQuery.select`
_BREAKS = "\\x1f\\x1e"  # the same, in a regex character class
_KEEP = {ord(_FIELD): _FIELD, ord(_RECORD): _RECORD}
_ASCII_KEEP_BYTES = bytes(
    ord(_KEEP.get(code, _ASCII_TABLE[code])) if code < 128 else code for code in range(256)
)
_ASCII_LOWER_BYTES = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")
_fold_table: dict[int, str] = dict(_ASCII_TABLE)
_loaded_blocks: set[int] = set()
_fold_lock = threading.Lock()
_CJK_RE = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_TOKEN_RE = re.compile("[^ ]+")
FTS_TOKENIZER = "unicode61 remove_diacritics 2"
"""The tokenizer of the store's `messages_fts` table (a test checks they agree)."""


def _load_blocks(blocks: set[int]) -> None:
    """Learn how SQLite's unicode61 tokenizer folds each character of these 256-character blocks.

    Each character `c` is indexed as the word `q<c>q`: a separator comes back as two tokens `q`, `q`; a
    token character as one token `q<folded>q` (`qq` when the tokenizer drops it, e.g. a combining accent).
    Asking SQLite itself is the only way to agree with the index on every script it knows."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize = '{FTS_TOKENIZER}')")
        conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
        for block in sorted(blocks):
            chars = [
                chr(code)
                for code in range(max(block << 8, 128), (block + 1) << 8)
                if not 0xD800 <= code <= 0xDFFF and code <= 0x10FFFF
            ]
            table: dict[int, str] = {}
            if chars:
                conn.execute("INSERT INTO t(rowid, x) VALUES (1, ?)", (" ".join(f"q{c}q" for c in chars),))
                found = [row[0] for row in conn.execute("SELECT term FROM v WHERE doc = 1 ORDER BY offset")]
                conn.execute("DELETE FROM t")
                at = 0
                for char in chars:
                    if at < len(found) and found[at] == "q":  # a separator splits the word in two
                        table[ord(char)] = _SEPARATOR
                        at += 2
                        continue
                    folded = found[at][1:-1] if at < len(found) else char
                    at += 1
                    if folded != char:
                        table[ord(char)] = folded
            if 0xD8 <= block <= 0xDF:  # lone surrogates: never text
                table.update({code: _SEPARATOR for code in range(block << 8, (block + 1) << 8)})
            _fold_table.update(table)
            _loaded_blocks.add(block)
    finally:
        conn.close()


def fold(text: str) -> str:
    """`text` as the FTS5 tokenizer reads it: every token character case- and accent-folded, every
    separator a space, dropped characters (combining accents) removed. `fold(t).split()` are its tokens."""
    return _fold(text, keep=False)


def _fold(text: str, keep: bool) -> str:
    """`fold`, keeping U+001F and U+001E when `keep` (the separators of `SearchQuery.select`)."""
    if text.isascii():  # through bytes: three times faster than str.translate
        return text.encode("ascii").translate(_ASCII_KEEP_BYTES if keep else _ASCII_BYTES).decode("ascii")
    blocks = {ord(char) >> 8 for char in set(text)} - _loaded_blocks
    if blocks:
        with _fold_lock:
            missing = blocks - _loaded_blocks
            if missing:
                _load_blocks(missing)
    return text.translate({**_fold_table, **_KEEP} if keep else _fold_table)


def tokens(text: str) -> list[str]:
    """The tokens FTS5 indexes for `text`, folded (`"Crème-brûlée"` -> `["creme", "brulee"]`)."""
    return fold(text).split()


def _ascii_lower(text: str) -> str:
    raw = text.encode("utf-8", "surrogatepass")
    return raw.translate(_ASCII_LOWER_BYTES).decode("utf-8", "surrogatepass")


class TextView:
    """One field of text, folded on demand (a title, a message's content): what terms are matched against.
    Built once per field so a query with many terms folds the text once."""

    __slots__ = ("_folded", "_lower", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._folded: str | None = None
        self._lower: str | None = None

    @property
    def folded(self) -> str:
        if self._folded is None:
            self._folded = fold(self.text)
        return self._folded

    @property
    def lower(self) -> str:
        if self._lower is None:
            self._lower = _ascii_lower(self.text)
        return self._lower

    def token_spans(self) -> list[tuple[int, int]]:
        """(start, end) in `text` of each token, in order."""
        offsets = self.offsets()
        found = [(m.start(), m.end()) for m in _TOKEN_RE.finditer(self.folded)]
        if offsets is None:
            return found
        return [(offsets[start], offsets[end - 1] + 1) for start, end in found]

    def offsets(self) -> list[int] | None:
        """Index in `text` of each character of `folded`, or None when they line up one to one."""
        folded = self.folded
        if len(folded) == len(self.text):
            return None
        return [i for i, char in enumerate(self.text) if _fold_table.get(ord(char), char) != ""]


# --------------------------------------------------------------------------------------------- the AST


@dataclass(frozen=True)
class Term:
    """A word or a quoted phrase. `text` is what the user typed (without quotes and the trailing `*`)."""

    text: str
    prefix: bool = False
    phrase: bool = False

    @cached_property
    def tokens(self) -> tuple[str, ...]:
        return tuple(tokens(self.text))

    @cached_property
    def substring(self) -> bool:
        """Matched as a substring (CJK, or no letters and digits), not as tokens: FTS5 cannot find it."""
        return not self.tokens or bool(_CJK_RE.search(self.text))

    @cached_property
    def punctuation(self) -> bool:
        return not self.tokens and not _CJK_RE.search(self.text)

    @cached_property
    def _needle(self) -> str:
        return _ascii_lower(self.text)

    @cached_property
    def _pattern(self) -> re.Pattern[str]:
        # Folded text: tokens separated by spaces (U+001F and U+001E separate fields and records, see
        # `select`). The pattern starts with the literal token, so the regex engine scans for it fast; the
        # lookbehind after it checks that it starts a token.
        first, *rest = (re.escape(token) for token in self.tokens)
        body = first + rf"(?<![^ {_BREAKS}]{first})" + "".join(" +" + token for token in rest)
        return re.compile(body + (rf"[^ {_BREAKS}]*" if self.prefix else rf"(?![^ {_BREAKS}])"))

    def _found(self, folded: str) -> Iterator[re.Match[str]]:
        """The term's occurrences in folded text, each at the start of a token."""
        return self._pattern.finditer(folded)

    def found_in(self, view: TextView) -> bool:
        if self.substring:
            return self._needle in view.lower
        return next(self._found(view.folded), None) is not None

    def count(self, view: TextView) -> int:
        """How many times the term occurs in `view` (its term frequency, for ranking)."""
        if self.substring:
            return view.lower.count(self._needle) if self._needle else 0
        return sum(1 for _ in self._found(view.folded))

    def spans(self, view: TextView) -> Iterator[tuple[int, int]]:
        """Where the term occurs in `view.text` (whole tokens for a prefix, as FTS5 highlights them)."""
        if self.substring:
            if not self._needle:
                return
            start = view.lower.find(self._needle)
            while start >= 0:
                yield start, start + len(self._needle)
                start = view.lower.find(self._needle, start + len(self._needle))
            return
        offsets = view.offsets()
        for match in self._found(view.folded):
            if offsets is None:
                yield match.start(), match.end()
            else:
                yield offsets[match.start()], offsets[match.end() - 1] + 1

    def to_fts5(self, expansions: Sequence[str] | None = None) -> str:
        """The term as an FTS5 string; a prefix with `expansions` (the indexed terms it stands for, from the
        store's term table) becomes an OR of exact phrases, which FTS5 evaluates lazily."""
        if self.prefix and expansions:
            head = " ".join(self.tokens[:-1])
            phrases = ['"' + f"{head} {term}".strip().replace('"', '""') + '"' for term in expansions]
            return phrases[0] if len(phrases) == 1 else "(" + " OR ".join(phrases) + ")"
        return '"' + self.text.replace('"', '""') + '"' + ("*" if self.prefix else "")

    def __str__(self) -> str:
        text = f'"{self.text}"' if self.phrase else self.text
        return text + ("*" if self.prefix else "")


@dataclass(frozen=True)
class Not:
    item: Node

    def __str__(self) -> str:
        return f"NOT {_group(self.item)}"


@dataclass(frozen=True)
class And:
    items: tuple[Node, ...]

    def __str__(self) -> str:
        return " ".join(_group(item) for item in self.items)


@dataclass(frozen=True)
class Or:
    items: tuple[Node, ...]

    def __str__(self) -> str:
        return " OR ".join(_group(item) for item in self.items)


Node = Term | Not | And | Or
Expand = Callable[[Term], "Sequence[str] | None"]


def _group(node: Node) -> str:
    return f"({node})" if isinstance(node, (And, Or)) else str(node)


def _positive(node: Node) -> bool:
    """Whether the node can select texts by itself (a negation, or a group of them, cannot)."""
    if isinstance(node, Term):
        return True
    if isinstance(node, Not):
        return False
    if isinstance(node, And):
        return any(_positive(item) for item in node.items)
    return all(_positive(item) for item in node.items)


def _walk(node: Node, negated: bool = False) -> Iterator[tuple[Term, bool]]:
    if isinstance(node, Term):
        yield node, negated
    elif isinstance(node, Not):
        yield from _walk(node.item, not negated)
    else:
        for item in node.items:
            yield from _walk(item, negated)


# --------------------------------------------------------------------------------------------- lexing


@dataclass
class _Token:
    kind: str  # "term", "op" (AND/OR/NOT), "neg" (a leading -), "(" or ")"
    value: str = ""
    prefix: bool = False
    phrase: bool = False
    end: int = 0


def _clean(text: str) -> str:
    text = strip_surrogates(text or "")[:MAX_QUERY_CHARS]
    return "".join(" " if (ord(c) < 32 or 0x7F <= ord(c) < 0xA0) else c for c in text)


def _lex(text: str, operators: bool) -> list[_Token]:
    out: list[_Token] = []
    i, n = 0, len(text)
    terms = 0
    while i < n and terms < MAX_TERMS:
        char = text[i]
        if char.isspace():
            i += 1
        elif char == '"':
            end = text.find('"', i + 1)
            body, i = (text[i + 1 :], n) if end == -1 else (text[i + 1 : end], end + 1)
            prefix = False
            while i < n and text[i] == "*":
                prefix, i = True, i + 1
            if body.strip():
                out.append(_Token("term", body, prefix=prefix, phrase=True, end=i))
                terms += 1
        elif operators and char == "(":
            out.append(_Token("("))
            i += 1
        elif operators and char == "-" and i + 1 < n and (text[i + 1] in '"(' or text[i + 1].isalnum()):
            out.append(_Token("neg"))
            i += 1
        else:
            start = i
            while i < n and not text[i].isspace():
                i += 1
            word, closing = text[start:i], 0
            if operators:  # trailing ")"s close groups, unless the word opened them itself: f(x)
                while word.endswith(")") and word.count(")") > word.count("("):
                    word, closing = word[:-1], closing + 1
            if operators and word in OPERATORS:
                out.append(_Token("op", word))
            elif word:
                stripped = word.rstrip("*")
                if stripped:
                    out.append(_Token("term", stripped, prefix=stripped != word, end=i - closing))
                    terms += 1
            out.extend(_Token(")") for _ in range(closing))
    return out


# --------------------------------------------------------------------------------------------- parsing


class _Parser:
    """Recursive descent that never fails: whatever does not fit the grammar is skipped."""

    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        self.at = 0

    def peek(self) -> _Token | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def parse(self) -> Node | None:
        node = self.or_expr(0)
        while self.peek() is not None:  # a stray ")" ended the expression early: parse on
            self.at += 1
            more = self.or_expr(0)
            node = more if node is None else (node if more is None else And((node, more)))
        return node

    def or_expr(self, depth: int) -> Node | None:
        items = [self.and_expr(depth)]
        while (token := self.peek()) is not None and token.kind == "op" and token.value == "OR":
            self.at += 1
            items.append(self.and_expr(depth))
        kept = tuple(item for item in items if item is not None)
        return None if not kept else kept[0] if len(kept) == 1 else Or(kept)

    def and_expr(self, depth: int) -> Node | None:
        items: list[Node] = []
        while (token := self.peek()) is not None:
            if token.kind == ")" or (token.kind == "op" and token.value == "OR"):
                break
            if token.kind == "op" and token.value == "AND":
                self.at += 1
                continue
            item = self.unary(depth)
            if item is not None:
                items.append(item)
        return None if not items else items[0] if len(items) == 1 else And(tuple(items))

    def unary(self, depth: int) -> Node | None:
        token = self.peek()
        assert token is not None
        if token.kind == "neg" or (token.kind == "op" and token.value == "NOT"):
            self.at += 1
            following = self.peek()
            if following is None or following.kind == ")":
                return None  # a dangling NOT
            if following.kind == "op" and following.value != "NOT":
                return None
            item = self.unary(depth)
            return None if item is None else Not(item)
        self.at += 1
        if token.kind == "(":
            if depth >= MAX_DEPTH:
                return None  # too deep: the parenthesis is ignored, its content read on
            inner = self.or_expr(depth + 1)
            if (closing := self.peek()) is not None and closing.kind == ")":
                self.at += 1
            return inner
        if token.kind == "term":
            return Term(token.value, prefix=token.prefix, phrase=token.phrase)
        return None  # ")" handled by the caller; anything else is noise


def _simplify(node: Node | None, keep_punctuation: bool) -> Node | None:
    """Flatten nested groups, drop empty ones, `NOT NOT x` -> `x`, drop negative OR branches, and drop
    punctuation-only terms unless `keep_punctuation`."""
    if node is None:
        return None
    if isinstance(node, Term):
        return node if keep_punctuation or not node.punctuation else None
    if isinstance(node, Not):
        inner = _simplify(node.item, keep_punctuation)
        if inner is None:
            return None
        return inner.item if isinstance(inner, Not) else Not(inner)
    kind = type(node)
    items: list[Node] = []
    for item in node.items:
        simple = _simplify(item, keep_punctuation)
        if simple is None:
            continue
        if isinstance(simple, kind):
            items.extend(simple.items)
        else:
            items.append(simple)
    if kind is Or:
        items = [item for item in items if _positive(item)]
    if not items:
        return None
    if len(items) == 1:
        return items[0]
    return kind(tuple(items))


def _mark_typing(tokens: list[_Token], text: str) -> None:
    """Search as you type: the last bare word, when the text ends in it, is a prefix."""
    if not text or text[-1].isspace():
        return
    terms = [token for token in tokens if token.kind == "term"]
    if terms:
        last = terms[-1]
        if not last.phrase and last.end == len(text) and len(last.value) >= 2:
            last.prefix = True


def _build(text: str, operators: bool, typing: bool) -> Node | None:
    lexed = _lex(text, operators)
    if typing:
        _mark_typing(lexed, text)
    tree = _Parser(lexed).parse()
    has_positive_tokens = any(
        not term.substring and not negated for term, negated in (_walk(tree) if tree else ())
    )
    return _simplify(tree, keep_punctuation=not has_positive_tokens)


def parse(text: str, *, typing: bool = True) -> SearchQuery:
    """Parse any text into a query (never raises). `typing`: the last bare word is a prefix unless the
    text ends with whitespace."""
    clean = _clean(text)
    root = _build(clean, operators=True, typing=typing)
    if root is None or not _positive(root):
        root = _build(clean, operators=False, typing=typing)  # nothing positive: the words, literally
    return SearchQuery(clean, root)


# --------------------------------------------------------------------------------------------- the query


@dataclass(frozen=True)
class SearchQuery:
    """A parsed query: `root` is None when nothing searchable was typed."""

    source: str
    root: Node | None = None

    @property
    def is_empty(self) -> bool:
        return self.root is None

    def __str__(self) -> str:
        return "" if self.root is None else str(self.root)

    # ---------------------------------------------------------------- readings

    def to_fts5(self, expand: Expand | None = None) -> str:
        """An FTS5 MATCH expression (every user token quoted, fully parenthesized) selecting a superset of
        the matching messages; exactly them when `exact`. '' when no part of the query is indexable.
        `expand(term)` may list the indexed terms a prefix term's last token stands for (see
        `Term.to_fts5`); None or [] leaves the prefix to FTS5."""
        if self.root is None:
            return ""
        expression, _exact = _fts5(self.root, expand)
        return expression or ""

    @cached_property
    def exact(self) -> bool:
        """Whether `to_fts5()` alone decides a match (no substring term had to be left out of it)."""
        if self.root is None:
            return False
        expression, exact = _fts5(self.root, None)
        return bool(expression) and exact

    def matches(self, *fields: str | None) -> bool:
        """Whether the texts (one record's fields: a title and an id; a message's content, tool name and
        tool arguments) satisfy the query. A phrase must lie within one field."""
        if self.root is None:
            return False
        views = [TextView(text) for text in fields if text]
        return _evaluate(self.root, views)

    def select(self, records: Sequence[Sequence[str | None]]) -> list[int]:
        """The indexes of the records (each a few fields, like a title and an id) the query matches: what
        `matches(*record)` says for each, found with one scan of all of them per term (20,000 titles in a
        few milliseconds, not a Python call per title)."""
        if self.root is None or not records:
            return []
        flat = "".join(filter(None, itertools.chain.from_iterable(records)))
        if _FIELD in flat or _RECORD in flat:  # a text holding a separator: it folds to a space anyway
            records = [
                [t.replace(_FIELD, " ").replace(_RECORD, " ") for t in fields if t] for fields in records
            ]
        joined = [_FIELD.join(filter(None, fields)) for fields in records]
        return sorted(_select(self.root, _Corpus(joined), len(records)))

    def terms(self) -> tuple[str, ...]:
        """The positive terms as typed, deduplicated, longest first: words to highlight."""
        found = {term.text.strip() for term in self.positive_terms() if term.text.strip()}
        return tuple(sorted(found, key=lambda t: (-len(t), t)))

    def positive_terms(self) -> list[Term]:
        """Terms that count for a match (not under a NOT), in query order, without repeats."""
        if self.root is None:
            return []
        seen: dict[Term, None] = {}
        for term, negated in _walk(self.root):
            if not negated:
                seen.setdefault(term)
        return list(seen)

    def all_terms(self) -> list[tuple[Term, bool]]:
        """Every term with whether it is negated, in query order."""
        return [] if self.root is None else list(_walk(self.root))

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where the positive terms occur in `text`, sorted, overlaps merged."""
        if not text:
            return []
        view = TextView(text)
        found = sorted(span for term in self.positive_terms() for span in term.spans(view))
        merged: list[tuple[int, int]] = []
        for start, end in found:
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            elif end > start:
                merged.append((start, end))
        return merged


def _evaluate(node: Node, views: Sequence[TextView]) -> bool:
    if isinstance(node, Term):
        return any(node.found_in(view) for view in views)
    if isinstance(node, Not):
        return not _evaluate(node.item, views)
    if isinstance(node, And):
        return all(_evaluate(item, views) for item in node.items)
    return any(_evaluate(item, views) for item in node.items)


class _Corpus:
    """Records (their fields joined by U+001F) joined by U+001E, folded and lowered on demand, with
    where each record ends in either."""

    def __init__(self, records: list[str]) -> None:
        self.records = records

    @staticmethod
    def _ends(parts: list[str]) -> list[int]:
        """Where each record's separator is, from the records' lengths (folding keeps lengths)."""
        return list(map(operator.add, itertools.accumulate(map(len, parts)), range(len(parts))))

    @cached_property
    def folded(self) -> tuple[str, list[int]]:
        # Only non-ASCII records go through `fold`; then the ASCII folding of everything at once, through
        # bytes (it leaves folded text as it is).
        parts = [record if record.isascii() else _fold(record, keep=True) for record in self.records]
        text = (_RECORD.join(parts) + _RECORD).encode("utf-8").translate(_ASCII_KEEP_BYTES).decode("utf-8")
        return text, self._ends(parts)

    @cached_property
    def lower(self) -> tuple[str, list[int]]:
        text = (_RECORD.join(self.records) + _RECORD).encode("utf-8").translate(_ASCII_LOWER_BYTES)
        return text.decode("utf-8"), self._ends(self.records)


def _select(node: Node, corpus: _Corpus, count: int) -> set[int]:
    if isinstance(node, Term):
        if node.substring:
            text, ends = corpus.lower
            return _records(ends, (m for m in _find_all(text, node._needle)))
        text, ends = corpus.folded
        return _records(ends, (m.start() for m in node._found(text)))
    if isinstance(node, Not):
        return set(range(count)) - _select(node.item, corpus, count)
    sets = [_select(item, corpus, count) for item in node.items]
    return set.intersection(*sets) if isinstance(node, And) else set.union(*sets)


def _find_all(text: str, needle: str) -> Iterator[int]:
    at = text.find(needle) if needle else -1
    while at >= 0:
        yield at
        at = text.find(needle, at + 1)


def _records(ends: list[int], positions: Iterator[int]) -> set[int]:
    return {bisect.bisect_left(ends, position) for position in positions}


def _fts5(node: Node, expand: Expand | None) -> tuple[str | None, bool]:
    """(expression or None when nothing of it is indexable, whether the expression is exact)."""
    if isinstance(node, Term):
        if node.substring:
            return None, False
        return node.to_fts5(expand(node) if expand is not None and node.prefix else None), True
    if isinstance(node, Or):
        parts = [_fts5(item, expand) for item in node.items]
        if any(expression is None for expression, _ in parts):
            return None, False  # an unindexable branch: the OR cannot narrow anything down
        return "(" + " OR ".join(str(expression) for expression, _ in parts) + ")", all(e for _, e in parts)
    if isinstance(node, Not):  # only inside an AND (see below); alone it selects nothing indexable
        return None, False
    positives, negatives, exact = [], [], True
    for item in node.items:
        if isinstance(item, Not):
            expression, item_exact = _fts5(item.item, expand)
            if expression is not None and item_exact:
                negatives.append(expression)
            else:
                exact = False  # NOT of a superset would drop real matches: left to matches()
        else:
            expression, item_exact = _fts5(item, expand)
            if expression is None:
                exact = False
            else:
                positives.append(expression)
                exact = exact and item_exact
    if not positives:
        return None, False
    body = positives[0] if len(positives) == 1 else "(" + " AND ".join(positives) + ")"
    if negatives:
        excluded = negatives[0] if len(negatives) == 1 else "(" + " OR ".join(negatives) + ")"
        body = f"({body} NOT {excluded})"
    return body, exact
