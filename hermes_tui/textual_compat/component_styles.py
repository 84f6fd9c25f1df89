"""Resolve the component classes of a transcript entry once per kind of entry, not once per entry.

Textual 8.2.8 styles each component class (`tool-panel--name`, `markdown-view--h1`, ...) of every widget by
attaching a virtual node to the widget and matching the whole stylesheet against it. That result is never
shared: the cache `App._register` passes to `Stylesheet.apply` is keyed on the node's parent, which for a
virtual node is the widget itself. A tool panel has 20 component classes and a reply 15, so mounting a page
of 50 entries ran ~900 stylesheet matches; with the sessions benchmark's 5,000-message session that was a
quarter of the time of paging back (py-spy).

`install()` puts `SharedComponentStyles` in front of `Stylesheet._process_component_classes`. For a widget
class that opts in (`SHARE_COMPONENT_STYLES = True`: the transcript's entries), the rules of each component
are matched once per *context* and replayed onto the next widget's virtual node (`replace_rules`, what
Textual's own cache does on a hit). The context (`style_context`) is everything a selector without
structural pseudo-classes can see, under one parse of the stylesheet (a theme switch or a hot reload
re-parses it and so empties the cache). A component whose rules use a structural pseudo-class
(first-child, odd, focus-within, ...) is matched every time, as Textual excludes those from its cache.
Widgets that do not opt in go to Textual's function. An opted-in widget's component styles are made when
first asked for (`LazyComponentStyles`), as most of a page of history's are never drawn.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable, Iterable
from functools import partial
from typing import Any

from textual.css.styles import RenderStyles, RulesMap, Styles
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode

from hermes_tui.textual_compat.style_context import style_context

__all__ = ["OPT_IN", "LazyComponentStyles", "SharedComponentStyles", "install"]

OPT_IN = "SHARE_COMPONENT_STYLES"
"""The class attribute a widget sets to True to share its component styles with its look-alikes."""

_HOOK = "_process_component_classes"


class _Cache:
    """What one stylesheet parse resolved: per context, the rules of each component."""

    def __init__(self, rules_map: object) -> None:
        self.rules_map = rules_map
        self.rules: dict[tuple[Hashable, ...], dict[str, RulesMap]] = {}
        self.cacheable: dict[str, bool] = {}


class LazyComponentStyles(dict[str, RenderStyles]):
    """A widget's `_component_styles`, each made the first time it is asked for (`dict.__missing__`).

    A page of history mounts entries by the dozen, and most of their component classes are never drawn:
    a folded tool panel draws 5 of its 20, an entry above the view none until it is scrolled to. Each one
    made is a virtual node with its styles (~15 objects); made for all, they were two thirds of the
    garbage of an unmounted page (the collector's passes while paging back took 0.3-0.45 s). `in` answers
    for every component class of the widget; Textual's removal of the widget clears this, and nothing is
    made for it after that."""

    __slots__ = ("_names", "_resolve")

    def __init__(self, names: Iterable[str], resolve: Callable[[str], RenderStyles]) -> None:
        super().__init__()
        self._names = frozenset(names)
        self._resolve: Callable[[str], RenderStyles] | None = resolve

    def __contains__(self, name: object) -> bool:
        return name in self._names or dict.__contains__(self, name)

    def __missing__(self, name: str) -> RenderStyles:
        if self._resolve is None or name not in self._names:
            raise KeyError(name)
        styles = self[name] = self._resolve(name)
        return styles

    def clear(self) -> None:
        super().clear()
        self._names = frozenset()
        self._resolve = None  # removed from the DOM: nothing to make, and no reference back to it


class SharedComponentStyles:
    """A drop-in for `Stylesheet._process_component_classes` (a descriptor, so it binds like the method)."""

    MAX_CONTEXTS = 512
    """Bound on remembered contexts per stylesheet (each is a handful of small dicts); cleared when full."""

    def __init__(self, original: Callable[[Stylesheet, DOMNode], None]) -> None:
        self.original = original
        self._caches: weakref.WeakKeyDictionary[Stylesheet, _Cache] = weakref.WeakKeyDictionary()
        self._prototypes: dict[str, DOMNode] = {}

    def __get__(self, stylesheet: Stylesheet | None, owner: type | None = None) -> Any:
        if stylesheet is None:
            return self
        return partial(self, stylesheet)

    def __call__(self, stylesheet: Stylesheet, node: DOMNode) -> None:
        if not getattr(type(node), OPT_IN, False) or node._parent is None:
            self.original(stylesheet, node)
            return
        component_classes = node._get_component_classes()
        if not component_classes:
            return
        cache = self._cache_for(stylesheet)
        context = style_context(stylesheet, node)
        if len(cache.rules) >= self.MAX_CONTEXTS and context not in cache.rules:
            cache.rules.clear()
        known = cache.rules.setdefault(context, {})
        made = dict(node._component_styles)  # of a lazy map, only those something asked for
        resolve = partial(self._resolve, stylesheet, cache, known, node)
        styles = node._component_styles = LazyComponentStyles(component_classes, resolve)
        # As Textual does: the widget redraws when a component style it drew with changed. Only those it
        # asked for are made again to compare; the rest wait, as before, until something asks.
        if any(name not in styles or styles[name] != before for name, before in made.items()):
            node.refresh()

    def _resolve(
        self,
        stylesheet: Stylesheet,
        cache: _Cache,
        known: dict[str, RulesMap],
        node: DOMNode,
        component: str,
    ) -> RenderStyles:
        """One component's styles, the first time something asks for them."""
        virtual_node = self._virtual_node(component)
        virtual_node._attach(node)
        rules = known.get(component)
        if rules is not None:
            stylesheet.replace_rules(virtual_node, rules, animate=False)
        else:
            stylesheet.apply(virtual_node, animate=False)
            if self._cacheable(stylesheet, cache, component):
                known[component] = virtual_node.styles.base.get_rules()
        return virtual_node.styles

    def _virtual_node(self, component: str) -> DOMNode:
        """A node that only carries a component's styles, made from a prototype: what `DOMNode()` builds
        for a message pump it never is (bindings, queues, signal, caches) is shared, not made again.

        A new `DOMNode` per component of every mounted entry was ~40 objects and 22 µs; a page of 50 entries
        made ~850 of them, and as garbage (once unmounted) they were two thirds of what the collector had to
        find. Only what a component node holds for itself is its own: its styles."""
        prototype = self._prototypes.get(component)
        if prototype is None:
            prototype = self._prototypes[component] = DOMNode(classes=component)
        node = DOMNode.__new__(DOMNode)
        node.__dict__.update(prototype.__dict__)
        node._css_styles = Styles(node)
        node._inline_styles = Styles(node)
        node.styles = RenderStyles(node, node._css_styles, node._inline_styles)
        node._component_styles = {}
        return node

    def _cache_for(self, stylesheet: Stylesheet) -> _Cache:
        rules_map = stylesheet.rules_map  # a new dict after every parse (theme switch, hot reload, new CSS)
        cache = self._caches.get(stylesheet)
        if cache is None or cache.rules_map is not rules_map:
            cache = self._caches[stylesheet] = _Cache(rules_map)
        return cache

    @staticmethod
    def _cacheable(stylesheet: Stylesheet, cache: _Cache, component: str) -> bool:
        known = cache.cacheable.get(component)
        if known is None:
            excluded = stylesheet._EXCLUDE_PSEUDO_CLASSES_FROM_CACHE
            rules_map = stylesheet.rules_map
            rules = [rule for name in ("*", f".{component}", "DOMNode") for rule in rules_map.get(name, ())]
            known = all(rule.pseudo_classes.isdisjoint(excluded) for rule in rules)
            cache.cacheable[component] = known
        return known


def install() -> bool:
    """Put `SharedComponentStyles` in front of Textual's component-class step; True if it is in place."""
    from hermes_tui.textual_compat.hooks import wrap_once

    return wrap_once(Stylesheet, _HOOK, SharedComponentStyles)
