"""Where a key's journey through Textual's message pumps ends: the rule `MessagePump._dispatch_message`
follows, for the key order (`hermes_tui.key_order`), which delivers the next typed key only then.

Textual bubbles a message to the pump's parent unless it was stopped, and a message whose sender is the
parent is stopped after it reaches the parent. Neither the parent of a pump that is not a DOM node (the
app's screens are, the app is not) nor a message's stop flag or sender has a public accessor.
"""

from __future__ import annotations

from textual.message import Message
from textual.message_pump import MessagePump

from hermes_tui.textual_compat.guard import active

__all__ = ["bubbles_on", "parent_if_stop_is_ambiguous"]


def bubbles_on(pump: MessagePump, message: Message, *, top: MessagePump) -> bool:
    """True if `pump`, having handled `message`, passes it on to its parent (`top`: the app, the end).

    On an unverified Textual: on to the DOM parent unless `pump` is the top (a key stopped early is then
    taken as still travelling, and the key order's settle timeout ends its journey)."""
    if not active():
        return pump is not top and message.bubble and getattr(pump, "parent", None) is not None
    parent = pump._parent
    return (
        parent is not None
        and pump is not top
        and message.bubble
        and (not message._stop_propagation or message._sender is parent)
        and pump.is_parent_active
        and pump.is_attached
    )


def parent_if_stop_is_ambiguous(pump: MessagePump, message: Message) -> MessagePump | None:
    """The parent, when after `pump` handled `message` its stop flag cannot say whether it went on: the
    sender is the parent (a key the app forwarded, handled by a screen), so Textual itself stops it on its
    way up, and a handler that stopped it leaves the same flag. The parent's queue is in order, so a
    callback queued on the parent now runs after the message if it was passed on. None otherwise (and on an
    unverified Textual)."""
    if not active():
        return None
    parent = pump._parent
    if parent is not None and message._stop_propagation and message._sender is parent:
        return parent
    return None
