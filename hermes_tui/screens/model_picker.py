"""`/model` without a name: the provider's models in a list filtered as you type; Enter picks one.

The list is loaded in a thread (a provider can take seconds to answer); until then, and when it cannot be
read, Enter takes the typed name as it is. Names come from the network: shown as text, never as markup.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from agent.api import ModelCatalog, rank_paths
from hermes_tui.screens.picker import PickerScreen
from widgets.support.text_safety import sanitize_display

__all__ = ["ModelPicker"]

SHOWN = 200


class ModelPicker(PickerScreen[str | None]):
    FILTERED = True
    DEFAULT_CSS = """
    ModelPicker #model-state { color: $text-muted; }
    """

    def __init__(self, current: str, load: Callable[[], ModelCatalog]) -> None:
        super().__init__()
        self.current = current
        self._load = load
        self.catalog: ModelCatalog | None = None
        self.shown: list[str] = []

    def compose_card(self) -> ComposeResult:
        yield Static(Text.assemble(("Model", "bold"), "  now: ", (sanitize_display(self.current), "bold")))
        yield Input(placeholder="Filter, or type a model name", id="model-filter")
        yield OptionList(id="model-list")
        yield Static("Loading the provider's models…", id="model-state")

    def on_mount(self) -> None:
        self.query_one("#model-filter", Input).focus()
        self._fetch()

    @work(thread=True, exclusive=True, group="model-list")
    def _fetch(self) -> None:
        catalog = self._load()
        self.app.call_from_thread(self._loaded, catalog)

    def _loaded(self, catalog: ModelCatalog) -> None:
        self.catalog = catalog
        state = self.query_one("#model-state", Static)
        if catalog.known:
            source = " (cached)" if catalog.cached else ""
            state.update(Text(f"{len(catalog.models)} models{source} · Enter picks · Esc closes"))
        else:
            state.update(Text(f"{catalog.problem.capitalize()}: Enter uses the name as typed."))
        self._show(self.query_one("#model-filter", Input).value)

    def _show(self, query: str) -> None:
        models = self.catalog.models if self.catalog is not None else []
        self.shown = rank_paths(query.strip(), models, limit=SHOWN) if query.strip() else models[:SHOWN]
        listing = self.query_one("#model-list", OptionList)
        listing.clear_options()
        listing.add_options(
            Option(Text(("● " if name == self.current else "  ") + sanitize_display(name)))
            for name in self.shown
        )
        if self.shown:
            listing.highlighted = 0

    @on(Input.Changed, "#model-filter")
    def _filter(self, event: Input.Changed) -> None:
        self._show(event.value)

    @on(Input.Submitted, "#model-filter")
    def _submitted(self, event: Input.Submitted) -> None:
        listing = self.query_one("#model-list", OptionList)
        if self.shown and listing.highlighted is not None:
            self.dismiss(self.shown[listing.highlighted])
        elif event.value.strip():
            self.dismiss(event.value.strip())

    @on(OptionList.OptionSelected, "#model-list")
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.shown[event.option_index])
