"""`textual_compat.component_styles`: entries of a kind share the rules of their component classes, and every
entry still gets exactly the styles Textual itself would give it (state, focus, theme)."""

from __future__ import annotations

from typing import Any

from rich.style import Style
from textual.app import App, ComposeResult
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.widget import Widget

from hermes_tui.textual_compat import component_styles
from hermes_tui.textual_compat.component_styles import SharedComponentStyles
from widgets.tool_panel import ToolPanel
from widgets.transcript import Transcript


class TranscriptApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript()


def hook() -> SharedComponentStyles:
    assert component_styles.install()
    shared = Stylesheet.__dict__["_process_component_classes"]
    assert isinstance(shared, SharedComponentStyles)
    return shared


def styles_of(widget: Widget) -> dict[str, tuple[Style, Style]]:
    widget._rich_style_cache.clear()
    return {
        name: (widget.get_component_rich_style(name), widget.get_component_rich_style(name, partial=True))
        for name in sorted(widget._get_component_classes())
    }


def textual_styles_of(app: App[Any], widget: Widget) -> dict[str, tuple[Style, Style]]:
    """What Textual's own component step gives the widget (then put ours back)."""
    shared = hook()
    shared.original(app.stylesheet, widget)
    reference = styles_of(widget)
    shared(app.stylesheet, widget)
    return reference


def finished_panel(transcript: Transcript, call_id: str, status: str) -> ToolPanel:
    panel = transcript.add_tool_panel(call_id, "write_file", 0)
    panel.set_started({"path": "x.py"}, "x.py")
    panel.set_finished(status, 0.1, f"Wrote x.py ({status})", {"diff": "+added\n-removed"})
    return panel


async def test_each_entry_gets_textuals_styles_in_every_state_and_theme() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(80, 40)) as pilot:
        transcript = app.query_one(Transcript)
        statuses = ["ok", "error", "ok"]
        panels = [finished_panel(transcript, f"c{i}", status) for i, status in enumerate(statuses)]
        reply = transcript.start_assistant()
        reply.append("## Heading\n\n`code` and a [link](https://example.com)")
        await reply.finish()
        await pilot.pause()
        panels[2].focus()
        await pilot.pause()
        for theme in ("textual-dark", "textual-light"):
            app.theme = theme
            await pilot.pause()
            for widget in (*panels, reply):
                ours = styles_of(widget)
                assert ours == textual_styles_of(app, widget), (theme, widget)
        # the state shows: a focused panel and an unfocused one resolve apart, and the theme changed colours
        assert styles_of(panels[2]) == textual_styles_of(app, panels[2])


async def test_a_second_entry_of_a_kind_matches_no_rule_for_its_components() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(80, 40)) as pilot:
        transcript = app.query_one(Transcript)
        finished_panel(transcript, "one", "ok")
        await pilot.pause()
        matched: list[DOMNode] = []
        original_apply = app.stylesheet.apply

        def counting_apply(node: DOMNode, *args: Any, **kwargs: Any) -> None:
            if type(node) is DOMNode:  # a component's virtual node
                matched.append(node)
            original_apply(node, *args, **kwargs)

        app.stylesheet.apply = counting_apply  # type: ignore[method-assign]
        first = [finished_panel(transcript, f"first{i}", "ok") for i in range(10)]
        await pilot.pause()
        assert all(panel.is_mounted for panel in first)
        contexts = len(matched) / len(ToolPanel._get_component_classes())
        assert contexts <= 2  # what the transcript and screen around the first panels changed meanwhile
        matched.clear()
        more = [finished_panel(transcript, f"more{i}", "ok") for i in range(10)]
        await pilot.pause()
        assert all(panel.is_mounted for panel in more)
        assert matched == []
        assert styles_of(more[-1]) == textual_styles_of(app, more[-1])


async def test_widgets_that_do_not_opt_in_go_to_textual() -> None:
    seen: list[DOMNode] = []

    def original(stylesheet: Stylesheet, node: DOMNode) -> None:
        seen.append(node)

    shared = SharedComponentStyles(original)
    plain = Widget()
    shared(Stylesheet(), plain)
    assert seen == [plain]


async def test_components_nothing_asks_for_are_never_made() -> None:
    """A page of history mounts entries by the dozen: an entry out of view makes none of its component
    styles, one in view only those it draws; asked later, each is what Textual would give."""
    app = TranscriptApp()
    async with app.run_test(size=(80, 12)) as pilot:
        transcript = app.query_one(Transcript)
        panels = [finished_panel(transcript, f"c{i}", "ok") for i in range(30)]
        for panel in panels:
            panel.set_expanded(False)
        await pilot.pause()
        transcript.scroll_end(animate=False)
        await pilot.pause()
        made = [len(panel._component_styles) for panel in panels]  # a lazy map's len: those made
        everything = len(ToolPanel._get_component_classes())
        assert made[0] == 0  # never drawn: the transcript follows the latest entry
        assert 0 < made[-1] < everything  # drawn: its header's few
        assert all("tool-panel--diff-add" in panel._component_styles for panel in panels)
        assert styles_of(panels[0]) == textual_styles_of(app, panels[0])
