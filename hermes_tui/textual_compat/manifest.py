"""Every private Textual/Rich name hermes-tui touches, what it works around, and where it was verified.

One entry per name: a Textual upgrade is checked against this list (the canary test,
`tests/compat/test_textual_compat.py`, resolves each entry and compares the recorded signature), so a name
that is gone or changed fails in one place with the whole list, never as a crash at the first paint or as
wrong cells on the screen. `guard.install()` refuses to install any patch unless the installed versions are
the verified ones and every entry still resolves.

`target` is `module:Qualified.name`; `kind` says how it is used: `import` (a private module), `override`
(our subclass or patch replaces it), `read`/`write` (an attribute of Textual's objects), `patch` (a module
or class attribute replaced at install time). `signature` is `str(inspect.signature(...))` for callables
we override or wrap, checked by the canary. `upstream` names the report in `docs/upstream/` when the name
works around a Textual bug, or says why there is no public way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["MANIFEST", "VERIFIED", "PrivateName"]

VERIFIED: dict[str, str] = {"textual": "8.2.8", "rich": "15.0.0"}
"""The exact versions every entry below (and the snapshots and benchmarks) were verified with; pinned in
pyproject.toml."""

Kind = Literal["import", "override", "read", "write", "patch"]


@dataclass(frozen=True, slots=True)
class PrivateName:
    target: str
    kind: Kind
    used_by: str
    """The compat module that touches it."""
    works_around: str
    upstream: str = ""
    signature: str | None = None
    instance: bool = False
    """An attribute set on instances (in `__init__` or `__slots__`), not on the class."""

    @property
    def name(self) -> str:
        """The private name itself (`_size_updated`, `_compositor`): what the budget of names counts."""
        module, _, qualname = self.target.partition(":")
        if not qualname:
            return module.rsplit(".", 1)[-1]
        return qualname.rsplit(".", 1)[-1]


_SIZE_UPDATED = (
    "(self, size: 'Size', virtual_size: 'Size', container_size: 'Size', layout: 'bool' = True) -> 'bool'"
)
_PAGE = "docs/upstream/"

MANIFEST: tuple[PrivateName, ...] = (
    # -- the terminal: input decoding, timers' callbacks, the frame writer ----------------------------------
    PrivateName(
        "textual._callback:count_parameters",
        "patch",
        "callback_counts",
        "inspect.signature ran on every partial a timer or call_later wraps (7% of the UI thread while "
        "streaming)",
        _PAGE + "count_parameters_partial.md",
        signature="(func: 'Callable') -> 'int'",
    ),
    PrivateName(
        "textual._compositor:ChopsUpdate.render_segments",
        "patch",
        "frame_writer",
        "every segment written with its whole SGR and a cursor move per chop (32 -> 19 KiB/s at 50 chunks/s)",
        "a performance change, no bug: Textual's writer is correct",
        signature="(self, console: 'Console') -> 'str'",
    ),
    PrivateName(
        "textual._compositor:LayoutUpdate.render_segments",
        "patch",
        "frame_writer",
        "as ChopsUpdate.render_segments, for whole-line updates",
        "a performance change, no bug",
        signature="(self, console: 'Console') -> 'str'",
    ),
    PrivateName(
        "textual.drivers.linux_driver:getincrementaldecoder",
        "patch",
        "input_decoder",
        "invalid UTF-8 from the terminal killed the input thread; pasted escapes were read as keys",
        _PAGE + "invalid_utf8_input.md",
    ),
    PrivateName(
        "textual.drivers.linux_driver:selectors",
        "patch",
        "input_wakeups",
        "the input thread woke 20 times a second while nothing was typed",
        "a performance change: Textual polls its exit event",
    ),
    PrivateName(
        "textual.drivers.linux_driver:Event",
        "patch",
        "input_wakeups",
        "the input thread's exit event wakes its select at once",
        "a performance change",
    ),
    # -- styles: StylesCache's leak, component classes restyled in place ---------------------------------
    PrivateName(
        "textual._styles_cache:StylesCache.get_inner_outer",
        "patch",
        "styles_cache",
        "an lru_cache on an instance method kept the painted lines of the last 1,024 widgets alive",
        _PAGE + "styles_cache_lru_leak.md",
        signature="(cls, base_background: 'Color', background: 'Color') -> 'tuple[Style, Style]'",
    ),
    PrivateName(
        "textual.css.stylesheet:parse",
        "patch",
        "parsed_css",
        "each new stylesheet (every theme change, every app) parsed all of the app's CSS again (~50 ms); "
        "the theme picker's preview re-parsed it on every move back to a theme already seen",
        "a performance change: Textual keeps what it parsed per stylesheet",
        signature="(scope: 'str', css: 'str', read_from: 'CSSLocation', variables: 'dict[str, str] | None' = "
        "None, variable_tokens: 'dict[str, list[Token]] | None' = None, is_default_rules: 'bool' = False, "
        "tie_breaker: 'int' = 0) -> 'Iterable[RuleSet]'",
    ),
    PrivateName(
        "textual.css.stylesheet:Stylesheet._process_component_classes",
        "patch",
        "component_nodes",
        "every restyle made a new virtual DOMNode per component class (~70 for the transcript), garbage "
        "that the first frame's gc.freeze() kept for good (+2.3 MB at rest)",
        _PAGE + "component_nodes_per_restyle.md",
        signature="(self, node: 'DOMNode') -> 'None'",
    ),
    PrivateName(
        "textual.dom:DOMNode._component_styles",
        "read",
        "component_nodes",
        "the virtual nodes a widget already has, to restyle them in place",
        "no public accessor",
        instance=True,
    ),
    # -- layout and painting of widget-per-entry transcripts -----------------------------------------------
    # -- the app, the keyboard, the prompt, the palette -----------------------------------------------------
    PrivateName(
        "textual.app:App._display",
        "override",
        "frames",
        "the moment a frame is on the terminal (call_after_refresh runs inside the startup batch)",
        "no public signal for a frame written",
        signature="(self, screen: 'Screen', renderable: 'RenderableType | None') -> 'None'",
    ),
    PrivateName(
        "textual.app:App._batch_count",
        "read",
        "frames",
        "a frame Textual dropped inside a batch was not displayed",
        instance=True,
    ),
    PrivateName(
        "textual.message:Message._stop_propagation",
        "read",
        "bubbling",
        "where a key's journey ends (the key order delivers the next key then)",
        "no public accessor",
        instance=True,
    ),
    PrivateName(
        "textual.message:Message._sender",
        "read",
        "bubbling",
        "a message stopped at its sender's parent",
        "no public accessor",
        instance=True,
    ),
    PrivateName(
        "textual.message_pump:MessagePump._parent",
        "read",
        "bubbling",
        "what a message bubbles to (parent is only on DOM nodes)",
        instance=True,
    ),
    PrivateName(
        "textual.widgets:TextArea._build_highlight_map",
        "override",
        "text_area",
        "paste tokens highlighted as one thing",
        "no public highlight hook",
        signature="(self) -> 'None'",
    ),
    PrivateName(
        "textual.widgets:TextArea._highlights",
        "write",
        "text_area",
        "paste tokens highlighted as one thing",
        instance=True,
    ),
    PrivateName(
        "textual.widgets:TextArea._theme",
        "write",
        "text_area",
        "the token's highlight style in the TextArea's theme",
        instance=True,
    ),
    PrivateName(
        "textual.widgets:TextArea._validate_selection",
        "override",
        "text_area",
        "the cursor never rests inside a paste token",
        "no public selection validator",
        signature="(self, selection: 'Selection') -> 'Selection'",
    ),
    PrivateName(
        "textual.command:CommandPalette._action_command_list",
        "override",
        "command_palette",
        "OptionList._move_page raised KeyError with no visible area (PageUp/PageDown in a tiny terminal)",
        _PAGE + "option_list_page_keyerror.md",
        signature="(self, action: 'str') -> 'None'",
    ),
)
