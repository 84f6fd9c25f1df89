"""What a selector can see of a node, as a hashable key: two nodes with the same context under the same
parse of the stylesheet get the same styles, so what is computed from them can be shared.

The context is the node's and every ancestor's type, classes, hover/focus/disabled state and id (when a
rule names it), under one `rules_map` (a theme switch or a hot reload re-parses the stylesheet and makes a
new one). Structural pseudo-classes (first-child, odd, ...) are not in it: whoever shares must check the
rules it relies on do not use them (`textual_compat.component_styles` does). Nothing here sets inline colours
on transcript widgets, which the key would not see.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Generic, TypeVar

from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode

T = TypeVar("T")


def style_context(stylesheet: Stylesheet, node: DOMNode) -> tuple[Hashable, ...]:
    rules_map = stylesheet.rules_map
    context: list[Hashable] = []
    current: DOMNode | None = node
    while current is not None:
        node_id = current._id
        context.append(
            (
                current._css_type_name,
                current.classes,
                current._pseudo_classes_cache_key,
                node_id if node_id is not None and f"#{node_id}" in rules_map else None,
            )
        )
        parent = current._parent
        current = parent if isinstance(parent, DOMNode) else None
    return tuple(context)


def structure_free(stylesheet: Stylesheet, node: DOMNode, component_classes: Iterable[str] = ()) -> bool:
    """True if no rule that could style `node`, its ancestors or its component classes uses a structural
    pseudo-class: then its context says all there is to say about its styles."""
    excluded = stylesheet._EXCLUDE_PSEUDO_CLASSES_FROM_CACHE
    names = {"*", *(f".{name}" for name in component_classes)}
    current: DOMNode | None = node
    while current is not None:
        names.update(current._css_type_names)
        names.update(f".{name}" for name in current.classes)
        if current._id is not None:
            names.add(f"#{current._id}")
        parent = current._parent
        current = parent if isinstance(parent, DOMNode) else None
    rules_map = stylesheet.rules_map
    return all(rule.pseudo_classes.isdisjoint(excluded) for name in names for rule in rules_map.get(name, ()))


class ContextCache(Generic[T]):
    """Values computed from a node's styles, shared by the nodes of one context under one stylesheet parse
    (a new parse empties it). Nodes whose rules use structural pseudo-classes compute their own."""

    MAX_CONTEXTS = 256

    def __init__(self) -> None:
        self._rules_map: object = None  # held, so its id is never another parse's
        self._values: dict[tuple[Hashable, ...], T] = {}

    def get(self, node: DOMNode, compute: Callable[[], T], component_classes: Iterable[str] = ()) -> T:
        stylesheet = node.app.stylesheet
        if self._rules_map is not stylesheet.rules_map:
            self._rules_map, self._values = stylesheet.rules_map, {}
        key = style_context(stylesheet, node)
        value = self._values.get(key)
        if value is None:
            value = compute()
            if len(self._values) < self.MAX_CONTEXTS and structure_free(stylesheet, node, component_classes):
                self._values[key] = value
        return value
