"""The window of the model a session talks to, when the configuration gives none: asked of a local server
(llama.cpp's `/props`, vLLM's model card) once per server and model, or read from an overflow error that
states it. The context meter and compression aim at it.

A learnt window is the session's, never the configuration's: it is forgotten when the model changes and
asked again. Each session keeps its own answers.
"""

from __future__ import annotations

from collections.abc import Callable

from agent.config.settings import Settings
from agent.core.errors import stated_context_window
from agent.transports.served_window import ServedWindowQuestion, served_window_question, session_served_window

__all__ = ["WindowLearner"]


class WindowLearner:
    """What a session learnt of its model's window; it returns settings, the session keeps them."""

    def __init__(self, ask: Callable[[ServedWindowQuestion], int | None] = session_served_window) -> None:
        self._ask = ask
        self._served: dict[tuple[str, str], int | None] = {}
        self.learned = False
        """The settings' `context_window` is the server's, not the configuration's."""

    def served(self, settings: Settings) -> Settings:
        """`settings` with the server's own window, when it has one and the configuration gives none."""
        question = served_window_question(settings)
        if question is None:
            return settings
        key = question[:2]
        if key not in self._served:
            self._served[key] = self._ask(question)
        found = self._served[key]
        return self.use(settings, found) if found else settings

    def stated(self, settings: Settings, exc: BaseException) -> int | None:
        """The window an overflow error states (llama-cpp-python has no `/props`, but its refusal says
        "maximum context length is 2048 tokens"), when the configuration gives none."""
        return None if settings.context_window else stated_context_window(exc)

    def use(self, settings: Settings, window: int) -> Settings:
        self.learned = True
        return settings.model_copy(update={"context_window": window})

    def forget(self, settings: Settings) -> Settings:
        """`settings` without a learnt window (the model changed: its server is asked again)."""
        if not self.learned:
            return settings
        self.learned = False
        return settings.model_copy(update={"context_window": None})
