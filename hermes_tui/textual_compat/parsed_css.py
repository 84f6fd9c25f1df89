"""Parse each piece of CSS once per process and theme, not once per stylesheet.

Textual 8.2.8's stylesheet parses its sources with `textual.css.parse.parse` and keeps the result on that
stylesheet only, and a theme change (`App.theme`) parses everything again into a new stylesheet: the theme
picker previews each theme as its highlight moves, so every move back to a theme already seen re-parsed all
of the app's CSS (~50 ms, most of a new app's styling). A process that starts many apps (the test suite:
hundreds) parsed the same widgets' CSS for each.

What `parse` returns depends only on its arguments, the variables' values among them (the theme's colours),
and Textual never changes a parsed `RuleSet` (it reads their styles to apply them), so `install()` puts a
function in front of the name the stylesheet module calls that keeps the rules by those arguments in a
bounded LRU cache shared by every stylesheet in the process. CSS that fails to parse raises as before and is
not kept.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import textual.css.stylesheet as stylesheet_module

from hermes_tui.textual_compat.hooks import wrap_once

__all__ = ["SharedParse", "install"]

LIMIT = 512
"""Pieces of CSS kept (an app has ~25, so ~20 themes' worth)."""

_Key = tuple[Any, ...]


class SharedParse:
    """Stands in for `parse` in Textual's stylesheet module: the same rules for the same arguments."""

    def __init__(self, original: Callable[..., Iterable[Any]]) -> None:
        self.original = original
        self._rules: OrderedDict[_Key, list[Any]] = OrderedDict()
        self._themes: OrderedDict[int, tuple[Mapping[str, Sequence[Any]], frozenset[Any]]] = OrderedDict()

    def __call__(
        self,
        scope: str,
        css: str,
        read_from: Any,
        variables: dict[str, str] | None = None,
        variable_tokens: Mapping[str, Sequence[Any]] | None = None,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
    ) -> list[Any]:
        theme = (
            frozenset((variables or {}).items()),
            self._theme(variable_tokens) if variable_tokens else None,
        )
        key = (scope, css, read_from, is_default_rules, tie_breaker, theme)
        rules = self._rules.get(key)
        if rules is not None:
            try:
                self._rules.move_to_end(key)
            except KeyError:  # another thread's parse dropped it meanwhile: the rules are still right
                pass
            return rules
        rules = list(
            self.original(scope, css, read_from, variables, variable_tokens, is_default_rules, tie_breaker)
        )
        self._rules[key] = rules
        if len(self._rules) > LIMIT:
            self._rules.popitem(last=False)
        return rules

    def _theme(self, tokens: Mapping[str, Sequence[Any]]) -> frozenset[Any]:
        """The variables' values as a key, made once per tokens dict (a stylesheet makes one per theme and
        passes the same one for each of its pieces; it is held here, so its id is not reused meanwhile)."""
        known = self._themes.get(id(tokens))
        if known is not None and known[0] is tokens:
            return known[1]
        theme = frozenset((name, tuple(token.value for token in values)) for name, values in tokens.items())
        self._themes[id(tokens)] = (tokens, theme)
        if len(self._themes) > 8:
            self._themes.popitem(last=False)
        return theme

    def clear(self) -> None:
        self._rules.clear()
        self._themes.clear()


def install() -> bool:
    """True if the shared parse is in place (idempotent)."""
    return wrap_once(stylesheet_module, "parse", SharedParse)
