"""`textual_compat.parsed_css`: each piece of CSS is parsed once per theme and process, and what a widget
shows still follows the theme (a cache that ignored the theme's colours would fail the first test)."""

from __future__ import annotations

import pytest
import textual.css.stylesheet as stylesheet_module
from textual.app import App, ComposeResult
from textual.color import Color
from textual.css.stylesheet import Stylesheet, StylesheetError
from textual.css.tokenizer import TokenError
from textual.widgets import Static

from hermes_tui.textual_compat import parsed_css

THEMES = ("nord", "gruvbox", "dracula")


class _Themed(App[None]):
    CSS = "#card { background: $primary; color: $foreground; }"

    def compose(self) -> ComposeResult:
        yield Static("card", id="card")


def _parses() -> parsed_css.SharedParse:
    assert parsed_css.install()
    shared = stylesheet_module.parse
    assert isinstance(shared, parsed_css.SharedParse)
    return shared


async def test_a_theme_seen_before_is_not_parsed_again_and_still_shows_its_colours() -> None:
    shared = _parses()
    parsed: list[str] = []
    original = shared.original

    def counting(*args: object, **kwargs: object) -> object:
        parsed.append(str(args[2]))
        return original(*args, **kwargs)

    shared.original = counting
    try:
        app = _Themed()
        async with app.run_test(size=(40, 8)) as pilot:
            card = app.query_one("#card", Static)
            for theme in THEMES:  # each seen for the first time: parsed
                app.theme = theme
                await pilot.pause()
                assert card.styles.background == Color.parse(app.get_theme(theme).primary)  # type: ignore[union-attr]
            first_visits = len(parsed)
            assert first_visits > 0
            for theme in reversed(THEMES):  # each seen before: nothing parsed, the right colours
                app.theme = theme
                await pilot.pause()
                assert card.styles.background == Color.parse(app.get_theme(theme).primary)  # type: ignore[union-attr]
            assert len(parsed) == first_visits, f"parsed again: {parsed[first_visits:]}"
    finally:
        shared.original = original


async def test_a_second_app_reuses_the_first_apps_rules() -> None:
    shared = _parses()
    async with _Themed().run_test(size=(40, 8)):
        pass
    rules_after_one = len(shared._rules)
    app = _Themed()
    async with app.run_test(size=(40, 8)):
        assert app.query_one("#card", Static).styles.background == Color.parse(
            app.get_theme(app.theme).primary  # type: ignore[union-attr]
        )
    assert len(shared._rules) == rules_after_one


def test_css_that_does_not_parse_still_raises_every_time() -> None:
    _parses()
    for _ in range(2):
        sheet = Stylesheet()
        sheet.add_source("#a { background: $nowhere; }", read_from=("test", "bad"))
        with pytest.raises((StylesheetError, TokenError)):
            sheet.parse()
