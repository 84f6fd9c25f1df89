"""Every private Textual/Rich name hermes-tui touches, what it works around, and where it was verified.

One entry per name: a Textual upgrade is checked against this list (the canary test,
`tests/ui/test_textual_compat.py`, resolves each entry and compares the recorded signature), so a name
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
        "rich.style:Style._attributes",
        "read",
        "frame_writer",
        "the SGR difference between two styles needs their attribute bits",
        "Rich has no public accessor for the packed attributes",
        instance=True,
    ),
    PrivateName(
        "rich.style:Style._set_attributes",
        "read",
        "frame_writer",
        "which attribute bits a style sets at all (on, off, or unset)",
        "Rich has no public accessor",
        instance=True,
    ),
    PrivateName(
        "rich.style:Style._color",
        "read",
        "frame_writer",
        "a style's own colour, without a copy",
        instance=True,
    ),
    PrivateName(
        "rich.style:Style._bgcolor",
        "read",
        "frame_writer",
        "a style's own background, without a copy",
        instance=True,
    ),
    PrivateName(
        "rich.style:Style._link",
        "read",
        "frame_writer",
        "hyperlinks are written as Textual does",
        instance=True,
    ),
    PrivateName(
        "rich.style:Style._link_id",
        "read",
        "frame_writer",
        "hyperlinks are written as Textual does",
        instance=True,
    ),
    PrivateName(
        "rich.console:Console._color_system",
        "read",
        "frame_writer",
        "colours downgraded as Rich does for 256- and 16-colour terminals",
        "Console.color_system is the name, not the enum",
        instance=True,
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
    # -- styles: StylesCache's leak, component classes shared per context, CSS preloaded ------------------
    PrivateName(
        "textual._styles_cache:StylesCache.get_inner_outer",
        "patch",
        "styles_cache",
        "an lru_cache on an instance method kept the painted lines of the last 1,024 widgets alive",
        _PAGE + "styles_cache_lru_leak.md",
        signature="(cls, base_background: 'Color', background: 'Color') -> 'tuple[Style, Style]'",
    ),
    PrivateName(
        "textual.css.stylesheet:Stylesheet._process_component_classes",
        "patch",
        "component_styles",
        "each entry's component classes matched against the whole stylesheet, never shared (a quarter of "
        "paging back); goes with the one-view transcript",
        "a performance change for widget-per-entry transcripts",
        signature="(self, node: 'DOMNode') -> 'None'",
    ),
    PrivateName(
        "textual.css.stylesheet:Stylesheet._EXCLUDE_PSEUDO_CLASSES_FROM_CACHE",
        "read",
        "component_styles",
        "which pseudo-classes make a rule unshareable (Textual's own rule for its cache)",
    ),
    PrivateName(
        "textual.dom:DOMNode._parent",
        "read",
        "component_styles",
        "a node's parent without the DOM check (virtual nodes, message pumps that are not DOM nodes)",
        instance=True,
    ),
    PrivateName(
        "textual.dom:DOMNode._get_component_classes",
        "read",
        "component_styles",
        "the component classes of a node (the step being shared)",
        signature="() -> 'frozenset[str]'",
    ),
    PrivateName(
        "textual.dom:DOMNode._component_styles",
        "write",
        "component_styles",
        "component styles made on first use",
        instance=True,
    ),
    PrivateName(
        "textual.dom:DOMNode._css_styles",
        "write",
        "component_styles",
        "a virtual node's styles",
        instance=True,
    ),
    PrivateName(
        "textual.dom:DOMNode._inline_styles",
        "write",
        "component_styles",
        "a virtual node's styles",
        instance=True,
    ),
    PrivateName(
        "textual.dom:DOMNode._attach",
        "read",
        "component_styles",
        "attach a virtual node to its widget",
        signature="(self, parent: 'MessagePump') -> 'None'",
    ),
    PrivateName(
        "textual.dom:DOMNode._id",
        "read",
        "style_context",
        "an id only counts if a rule names it",
        instance=True,
    ),
    PrivateName(
        "textual.dom:DOMNode._css_type_name",
        "read",
        "style_context",
        "a node's type as selectors see it",
    ),
    PrivateName(
        "textual.dom:DOMNode._css_type_names",
        "read",
        "style_context",
        "a node's types as selectors see them",
    ),
    PrivateName(
        "textual.dom:DOMNode._pseudo_classes_cache_key",
        "read",
        "style_context",
        "hover/focus/disabled state, as Textual's own style cache keys it",
    ),
    PrivateName(
        "textual.dom:DOMNode._css_bases",
        "read",
        "css_preload",
        "the classes whose DEFAULT_CSS a widget class brings",
        signature="(base: 'Type[DOMNode]') -> 'Sequence[Type[DOMNode]]'",
    ),
    PrivateName(
        "textual.dom:DOMNode._get_default_css",
        "read",
        "css_preload",
        "the first reply's CSS parsed after the first frame instead of at its mount (57 ms)",
        signature="(self) -> 'list[tuple[CSSLocation, str, int, str]]'",
    ),
    # -- layout and painting of widget-per-entry transcripts -----------------------------------------------
    PrivateName(
        "textual._compositor:Compositor",
        "import",
        "compositor",
        "two rebuilds of the full map per page of history",
        "goes with the one-view transcript",
    ),
    PrivateName(
        "textual._compositor:Compositor._full_map",
        "read",
        "compositor",
        "is a widget in the full map",
        instance=True,
    ),
    PrivateName(
        "textual._compositor:Compositor._full_map_invalidated",
        "write",
        "compositor",
        "a full layout leaves the map flagged stale",
        instance=True,
    ),
    PrivateName(
        "textual.screen:Screen._compositor",
        "write",
        "compositor",
        "the chat screen's compositor is KeptMapCompositor",
        instance=True,
    ),
    PrivateName(
        "textual.widget:Widget._size_updated",
        "override",
        "quiet_resize",
        "a height-only change repaints every line and asks for a second layout of the whole screen",
        "goes with the one-view transcript",
        signature=_SIZE_UPDATED,
    ),
    PrivateName(
        "textual.widget:Widget._size", "write", "quiet_resize", "set by _size_updated", instance=True
    ),
    PrivateName(
        "textual.widget:Widget._container_size",
        "write",
        "quiet_resize",
        "set by _size_updated",
        instance=True,
    ),
    PrivateName(
        "textual.widget:Widget._layout_cache",
        "write",
        "quiet_resize",
        "cleared by _size_updated",
        instance=True,
    ),
    PrivateName(
        "textual.widget:Widget._styles_cache",
        "read",
        "quiet_resize",
        "painted lines kept across a height change, marked stale line by line",
        instance=True,
    ),
    PrivateName(
        "textual._styles_cache:StylesCache._cache",
        "write",
        "quiet_resize",
        "painted lines far above a growing reply's end are forgotten",
        instance=True,
    ),
    PrivateName(
        "textual.widget:Widget._dirty_regions",
        "write",
        "quiet_resize",
        "a resize marked dirty without a region lookup (which rebuilt the full map)",
        instance=True,
    ),
    PrivateName(
        "textual.widget:Widget._repaint_regions",
        "write",
        "quiet_resize",
        "as _dirty_regions",
        instance=True,
    ),
    PrivateName(
        "textual.screen:Screen._layout_widgets",
        "write",
        "stream_layout",
        "Screen._on_layout never lists an entry whose child asked first, so layout: stream keeps its old "
        "height",
        _PAGE + "stream_layout_stale_height.md",
        instance=True,
    ),
    PrivateName(
        "textual.widget:Widget._anchor_released",
        "read",
        "stream_layout",
        "whether the user scrolled away from the anchored bottom",
        "no public accessor in Textual 8.2.8 (is_anchored stays True)",
        instance=True,
    ),
    PrivateName(
        "textual.widget:Widget._anchored",
        "write",
        "stream_layout",
        "anchored but released, without scrolling (anchor() scrolls to the end)",
        "no public way",
        instance=True,
    ),
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
        "textual.widgets:TextArea._app_theme_changed",
        "override",
        "text_area",
        "a new theme loses the tokens' highlight",
        signature="(self) -> 'None'",
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
