"""No method of ours is a Textual message handler by accident (issue 41).

Textual calls any method named `on_<handler>` or `_on_<handler>` of a message pump (an App, Screen or
Widget, and their bases) with that message, whatever the method was written for: `ChatScreen._on_paste`
was the prompt's paste callback taking a `str`, Textual called it with an `events.Paste`, and a paste with
the transcript focused killed the app. This test walks every class of `hermes_tui/`, `widgets/` and
`themes/` that is a message pump and fails on a method named like the handler of a message Textual or we
define whose signature cannot take that message: its first parameter (after `self`) annotated with
another type, or more than one parameter without a default (Textual passes the message alone). A handler
with no parameter is fine: Textual calls it without the message.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types
import typing
from collections.abc import Iterator
from pathlib import Path

import textual
from textual.message import Message
from textual.message_pump import MessagePump

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("hermes_tui", "widgets", "themes")


def _import_all(package: str, *, tolerant: bool = False) -> list[types.ModuleType]:
    root = importlib.import_module(package)
    modules = [root]
    for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
        try:
            modules.append(importlib.import_module(info.name))
        except Exception:  # Textual's optional parts (a missing extra, `__main__`): not ours to check
            if not tolerant:
                raise
    return modules


def _subclasses(cls: type) -> Iterator[type]:
    seen: set[type] = set()
    stack = [cls]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in seen:
                seen.add(sub)
                stack.append(sub)
                yield sub


def _handler_names() -> dict[str, list[type[Message]]]:
    """Every handler name (`on_paste`, `on_prompt_input_submitted`) -> the message classes it handles."""
    _import_all(textual.__name__, tolerant=True)
    names: dict[str, list[type[Message]]] = {}
    for message in _subclasses(Message):
        if message.__module__.partition(".")[0] not in ("textual", *PACKAGES):
            continue  # tests' own messages
        name = getattr(message, "handler_name", None)
        if isinstance(name, str):
            names.setdefault(name, []).append(message)
    return names


def _our_pumps() -> list[type[MessagePump]]:
    modules = {module.__name__ for package in PACKAGES for module in _import_all(package)}
    return [cls for cls in _subclasses(MessagePump) if cls.__module__ in modules]


def _accepts(annotation: object, message: type[Message]) -> bool:
    """`message` can be passed where `annotation` is expected (a class, a union of them, Any)."""
    if annotation is inspect.Parameter.empty or annotation is typing.Any:
        return True
    if isinstance(annotation, type):
        return issubclass(message, annotation)
    args = typing.get_args(annotation)
    return bool(args) and any(_accepts(arg, message) for arg in args)


def _annotation(function: types.FunctionType, parameter: inspect.Parameter) -> object:
    """The parameter's annotation resolved in its module; a name that resolves only for type checkers
    (under `TYPE_CHECKING`) is matched by its spelling against the message's qualified name."""
    try:
        return typing.get_type_hints(function).get(parameter.name, inspect.Parameter.empty)
    except NameError:
        return parameter.annotation


def _problem(function: types.FunctionType, messages: list[type[Message]]) -> str | None:
    """Why Textual cannot call `function` with one of `messages` (None: it can)."""
    parameters = list(inspect.signature(function).parameters.values())[1:]  # after self
    required = [
        p for p in parameters if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(required) > 1 or (required and required[0] not in positional[:1]):
        return f"takes {len(required)} required parameters; Textual passes the message alone"
    if not positional:
        return None  # no parameter: Textual calls it without the message
    annotation = _annotation(function, positional[0])
    if isinstance(annotation, str):  # a name only type checkers see: matched by its spelling
        spelled = [part.strip().split("[")[0] for part in annotation.split("|")]
        if any(
            f".{m.__module__}.{m.__qualname__}".endswith(f".{part}") for part in spelled for m in messages
        ):
            return None
        return f"its parameter is annotated {annotation!r}, not the message"
    if all(_accepts(annotation, message) for message in messages):
        return None
    wanted = ", ".join(m.__qualname__ for m in messages)
    return f"its parameter {positional[0].name}: {annotation!r} cannot take {wanted}"


def handler_name_problems() -> list[str]:
    names = _handler_names()
    problems = []
    for cls in _our_pumps():
        for attribute, value in vars(cls).items():
            name = attribute[1:] if attribute.startswith("_on_") else attribute
            if name not in names or not isinstance(value, types.FunctionType):
                continue
            if getattr(value, "_textual_on", None):
                continue  # `@on(...)`: dispatched by its decorator, never by its name
            if (problem := _problem(value, names[name])) is not None:
                problems.append(f"{cls.__module__}.{cls.__qualname__}.{attribute}: {problem}")
    return sorted(problems)


def test_no_method_is_a_message_handler_that_cannot_take_its_message() -> None:
    problems = handler_name_problems()
    assert not problems, (
        "methods named like a Textual message handler (Textual calls them with the message):\n  "
        + "\n  ".join(problems)
        + "\nrename them, or take the message"
    )


def test_the_walk_sees_the_chat_screen_and_textual_messages() -> None:
    """The scan is not empty: it finds our screens and the handler names of Textual's own events."""
    from hermes_tui.chat.screen import ChatScreen
    from widgets.prompt.input import PromptInput

    names = _handler_names()
    assert "on_paste" in names and "on_key" in names and "on_prompt_input_submitted" in names
    pumps = _our_pumps()
    assert ChatScreen in pumps and PromptInput in pumps


def test_a_plain_callback_named_like_a_handler_is_caught() -> None:
    """What the old `ChatScreen._on_paste(self, text: str)` was: it fails; the real handlers pass."""
    from textual import events

    def _on_paste(self: object, text: str) -> bool:
        return bool(text)

    def on_paste(self: object, event: events.Paste) -> None:
        pass

    def on_mount(self: object) -> None:
        pass

    def _on_key(self: object, event: events.Key, extra: int) -> None:
        pass

    assert _problem(_on_paste, [events.Paste]) is not None  # type: ignore[arg-type]
    assert _problem(on_paste, [events.Paste]) is None  # type: ignore[arg-type]
    assert _problem(on_mount, [events.Mount]) is None  # type: ignore[arg-type]
    assert _problem(_on_key, [events.Key]) is not None  # type: ignore[arg-type]
