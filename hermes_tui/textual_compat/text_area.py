"""The prompt's paste tokens in TextArea's highlight map and selection, which have no public hooks.

`PromptInput` keeps a big paste as one token (`[Pasted text #1 +120 lines]`). Two things it cannot say
through TextArea's public API, supplied here where the installed Textual is the verified one:
- the token stands out as one thing: TextArea's `_build_highlight_map` fills `_highlights` from the syntax
  tree, and its `_theme` (a copy per widget) holds the styles; the tokens' spans
  (`PromptInput.token_highlights`) are added after it, in the `prompt-input--paste` style (a theme change
  builds the map again: `PromptInput.restyle_tokens` asks for it);
- the cursor never rests inside a token: every selection TextArea sets goes through `_validate_selection`,
  then `PromptInput.outside_tokens`.
Without these (another Textual), tokens are plain text in the prompt and the cursor can stop inside one;
an edit still takes a token whole (`PromptInput.edit`, public).
"""

from __future__ import annotations

from typing import Any

from textual.widgets.text_area import Selection

__all__ = ["install"]

PASTE_HIGHLIGHT = "hermes.paste-token"


def install() -> bool:
    from widgets.prompt.input import PromptInput

    base_build = PromptInput._build_highlight_map
    base_validate = PromptInput._validate_selection

    def _build_highlight_map(self: Any) -> None:
        base_build(self)
        spans = self.token_highlights()
        if not spans:
            return
        theme = self._theme
        style = self.get_component_rich_style("prompt-input--paste", partial=True)
        if theme.syntax_styles.get(PASTE_HIGHLIGHT) != style:  # a copy: built-in themes share the dict
            theme.syntax_styles = {**theme.syntax_styles, PASTE_HIGHLIGHT: style}
        for row, start, end in spans:
            self._highlights[row].append((start, end, PASTE_HIGHLIGHT))

    def _validate_selection(self: Any, selection: Selection) -> Selection:
        selection = base_validate(self, selection)
        outside: Selection = self.outside_tokens(selection)
        return outside

    def restyle_tokens(self: Any) -> None:
        self._build_highlight_map()
        self.refresh()

    PromptInput._build_highlight_map = _build_highlight_map  # type: ignore[method-assign]
    PromptInput.restyle_tokens = restyle_tokens  # type: ignore[method-assign]
    PromptInput._validate_selection = _validate_selection  # type: ignore[method-assign]
    return True
