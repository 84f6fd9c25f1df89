"""The status bar: one line at the bottom with the state a user glances at during a turn.

Fields, most important first (narrow terminals drop from the end of this list, the line never wraps):
busy/idle with the turn's elapsed time, the YOLO flag, the model, where the tools run when that is not
this machine (`ssh user@host`, `docker image`), a key hint (the queue's keys while
messages wait), context used in %, context tokens used/window, a 10-cell context bar, session tokens
in/out, cost.

Its fields are reactives, bound (`data_bind`) to the chat screen's state (`hermes_tui.chat.layout`), which
changes when something does (a model call ends, the turn starts or stops), never per streamed delta: Hermes'
Ink TUI flickered because every delta patched the status line (#41480). A value equal to the last one
repaints nothing. While busy, a 1 Hz timer repaints the elapsed time; while idle nothing ticks.

Context colours follow Hermes: below 50% normal, from 50% a soft warning, from 80% warning, from 95% error.
All colours come from component classes styled with theme variables.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Literal

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from agent.api import format_cost, format_elapsed, format_tokens
from widgets.support import timing

ContextLevel = Literal["ok", "caution", "warning", "critical"]

SEPARATOR = " │ "


def context_level(percent: float) -> ContextLevel:
    """Colour level of the context meter: <50 ok, >=50 caution, >=80 warning, >=95 critical."""
    if percent >= 95:
        return "critical"
    if percent >= 80:
        return "warning"
    if percent >= 50:
        return "caution"
    return "ok"


def short_model_name(model: str) -> str:
    """The model without its provider/organisation prefix (`anthropic/claude-x` -> `claude-x`)."""
    return model.rsplit("/", 1)[-1] if model else ""


@dataclass(frozen=True)
class ContextUse:
    """Context tokens in use and the model's window (None: unknown, the meter hidden)."""

    used: int | None = None
    window: int | None = None

    @property
    def percent(self) -> float | None:
        if self.used is None or not self.window:
            return None
        return 100.0 * self.used / self.window


@dataclass(frozen=True)
class Usage:
    """Session totals: tokens sent, tokens received, and the cost in USD of the priced calls (None: nothing
    priced yet) with the number of calls whose price is unknown ("?", never a false $0)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    unknown_calls: int = 0


@dataclass
class _Field:
    """One piece of the status line. Lower `rank` = more important = dropped last."""

    key: str
    text: Text
    rank: int
    right: bool = False


_MODE_LABELS = {"plan": "⏸ plan mode", "ask": "✎ ask mode"}
"""The permission modes the bar names (each with its component class `status-bar--<mode>`)."""


class StatusBar(Widget):
    """One-line status bar docked at the bottom of the chat screen.

    Reactives: `model`, `busy`, `yolo`, `mode`, `reasoning`, `hint`, `context_use` (`ContextUse`), `usage`
    (`Usage`). A change repaints once; nothing else does but the 1 Hz elapsed-time tick while busy.
    """

    TICK_SECONDS: ClassVar[float] = timing.STATUS_TICK

    BAR_CELLS: ClassVar[int] = 10
    """Width of the context bar, as in Hermes."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "status-bar--model",
        "status-bar--dim",
        "status-bar--busy",
        "status-bar--idle",
        "status-bar--yolo",
        "status-bar--plan",
        "status-bar--ask",
        "status-bar--ctx-ok",
        "status-bar--ctx-caution",
        "status-bar--ctx-warning",
        "status-bar--ctx-critical",
        "status-bar--bar-empty",
        "status-bar--hint",
        "status-bar--where",
    }

    DEFAULT_CSS = """
    StatusBar {
        dock: bottom;
        height: 1;
        width: 1fr;
        padding: 0 1;
        background: $panel;
        color: $foreground;
        text-wrap: nowrap;
        text-overflow: clip;

        & > .status-bar--model {
            color: $text-primary;
            text-style: bold;
        }
        & > .status-bar--dim {
            color: $foreground-muted;
        }
        & > .status-bar--busy {
            color: $foreground;
            text-style: bold;
        }
        & > .status-bar--idle {
            color: $foreground-muted;
        }
        & > .status-bar--yolo {
            color: $text;
            background: $error;
            text-style: bold;
        }
        & > .status-bar--plan {
            color: $text-accent;
            text-style: bold;
        }
        & > .status-bar--ask {
            color: $text-warning;
            text-style: bold;
        }
        & > .status-bar--ctx-ok {
            color: $text-success;
        }
        & > .status-bar--ctx-caution {
            color: $text-warning;
        }
        & > .status-bar--ctx-warning {
            color: $warning;
            text-style: bold;
        }
        & > .status-bar--ctx-critical {
            color: $error;
            text-style: bold;
        }
        & > .status-bar--bar-empty {
            color: $foreground 25%;
        }
        & > .status-bar--hint {
            color: $text-secondary;
        }
        & > .status-bar--where {
            color: $text-accent;
            text-style: bold;
        }
    }
    """

    model: reactive[str] = reactive("")
    """The model shown (its provider prefix is dropped)."""
    busy: reactive[bool] = reactive(False)
    """A turn runs: the elapsed-time clock starts and ticks once a second; idle stops it."""
    yolo: reactive[bool] = reactive(False)
    """Approvals bypassed: the YOLO flag in the error colour."""
    mode: reactive[str] = reactive("default")
    """The permission mode (`plan`, `ask`; `default` shows nothing, `yolo` is the YOLO flag)."""
    reasoning: reactive[str] = reactive("")
    """The reasoning level asked of the model (`high`, `none`); empty (the provider's default) hides it."""
    hint: reactive[str] = reactive("")
    """Keys that matter now (the queue's) after the model; empty hides it."""
    where: reactive[str] = reactive("")
    """Where the tools run when it is not this machine (`ssh user@host`, `docker image`); empty hides it."""
    context_use: reactive[ContextUse] = reactive(ContextUse())
    usage: reactive[Usage] = reactive(Usage())

    def __init__(
        self,
        model: str = "",
        *,
        clock: Callable[[], float] = time.monotonic,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """Create the bar.

        Args:
            model: Initial model name.
            clock: Monotonic clock in seconds; inject a constant one for deterministic snapshots.
            name: Widget name.
            id: Widget id.
            classes: Extra CSS classes.
        """
        super().__init__(name=name, id=id, classes=classes)
        self._clock = clock
        self.set_reactive(StatusBar.model, model)
        self._busy_since: float | None = None
        self._timer: Timer | None = None

    def watch_busy(self, was: bool, busy: bool) -> None:
        if busy and not was:
            self._busy_since = self._clock()
        if self._timer is not None:
            if busy:
                self._timer.resume()
            else:
                self._timer.pause()

    # ------------------------------------------------------------------------------------------------ state

    @property
    def context_percent(self) -> float | None:
        """Context used as a percentage of the window, or None when unknown."""
        return self.context_use.percent

    @property
    def context_level(self) -> ContextLevel | None:
        """The colour level of the context meter, or None when unknown."""
        percent = self.context_percent
        return None if percent is None else context_level(percent)

    @property
    def elapsed(self) -> float:
        """Seconds since the turn started (0 when idle)."""
        if not self.busy or self._busy_since is None:
            return 0.0
        return self._clock() - self._busy_since

    def on_mount(self) -> None:
        self._timer = self.set_interval(self.TICK_SECONDS, self.refresh, pause=not self.busy)

    # ------------------------------------------------------------------------------------------------ render

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"status-bar--{name}", partial=True)

    def _fields(self) -> list[_Field]:
        """Every field that has something to show, with its importance rank."""
        dim = self._style("dim")
        fields: list[_Field] = []
        if self.busy:
            fields.append(
                _Field(
                    "state",
                    Text(f"● working {format_elapsed(self.elapsed, tenths=False)}", self._style("busy")),
                    0,
                    True,
                )
            )
        else:
            fields.append(_Field("state", Text("○ idle", self._style("idle")), 6, True))
        if self.yolo:
            fields.append(_Field("yolo", Text(" ⚠ YOLO ", self._style("yolo")), 0, True))
        elif self.mode in _MODE_LABELS:
            fields.append(_Field("mode", Text(_MODE_LABELS[self.mode], self._style(self.mode)), 0, True))
        if self.model:
            fields.append(_Field("model", Text(f"⚕ {short_model_name(self.model)}", self._style("model")), 1))
        if self.where:
            fields.append(_Field("where", Text(f"⇄ {self.where}", self._style("where")), 1))
        if self.reasoning:
            fields.append(_Field("reasoning", Text(f"◐ {self.reasoning}", self._style("dim")), 4))
        if self.hint:
            fields.append(_Field("hint", Text(self.hint, self._style("hint")), 2))
        percent = self.context_percent
        if percent is not None:
            level_style = self._style(f"ctx-{context_level(percent)}")
            fields.append(_Field("percent", Text(f"{percent:.0f}%", level_style), 2))
            context = self.context_use
            assert context.used is not None and context.window is not None
            used = f"{format_tokens(context.used)}/{format_tokens(context.window)}"
            fields.append(_Field("context", Text.assemble(("ctx ", dim), used), 3))
            filled = min(self.BAR_CELLS, round(self.BAR_CELLS * percent / 100))
            bar = Text.assemble(
                ("█" * filled, level_style), ("░" * (self.BAR_CELLS - filled), self._style("bar-empty"))
            )
            fields.append(_Field("bar", bar, 5))
        usage = self.usage
        if usage.prompt_tokens or usage.completion_tokens:
            tokens = Text.assemble(
                ("in ", dim),
                format_tokens(usage.prompt_tokens),
                ("  out ", dim),
                format_tokens(usage.completion_tokens),
            )
            fields.append(_Field("tokens", tokens, 7))
        if usage.cost is not None or usage.unknown_calls:
            cost = format_cost(usage.cost or 0.0, usage.unknown_calls)
            # A lone "?" says nothing by itself: it is named ("$" names the others), the tooltip says why.
            label = ("cost ", dim) if cost.startswith("?") else ""
            fields.append(_Field("cost", Text.assemble(label, cost), 8))
        return fields

    def _cost_tooltip(self) -> str | None:
        """Why the cost shows a "?" (on hover); None when every call was priced."""
        calls = self.usage.unknown_calls
        if not calls:
            return None
        which = "1 call" if calls == 1 else f"{calls:,} calls"
        why = (
            f"{which} of this session had no known price (a local model, or one the price table does not "
            "list)"
        )
        if self.usage.cost:
            why += f": the cost is at least {format_cost(self.usage.cost)}"
        return why + ". /usage shows the details."

    _LEFT_ORDER: ClassVar[tuple[str, ...]] = (
        "model",
        "where",
        "reasoning",
        "hint",
        "context",
        "bar",
        "percent",
        "tokens",
        "cost",
    )

    def _assemble(self, fields: list[_Field]) -> tuple[Text, Text]:
        """The left part (model, context, usage) and the right part (YOLO, busy/idle) of the line."""
        left = sorted((f for f in fields if not f.right), key=lambda f: self._LEFT_ORDER.index(f.key))
        right = [f for f in fields if f.right]
        separator = Text(SEPARATOR, self._style("dim"))
        return separator.join(self._merge_context(left)), separator.join(f.text for f in right)

    def _line_width(self, fields: list[_Field]) -> int:
        left, right = self._assemble(fields)
        return left.cell_len + right.cell_len + 1

    def _line(self, fields: list[_Field], width: int) -> Text:
        """Left part, padding, right part: exactly one line of `width` cells, never wrapped."""
        left, right = self._assemble(fields)
        gap = width - left.cell_len - right.cell_len
        line = Text.assemble(left, " " * max(1, gap), right)
        line.no_wrap = True
        line.overflow = "ellipsis"
        line.truncate(width, overflow="ellipsis")
        return line

    def _merge_context(self, left: list[_Field]) -> list[Text]:
        """`ctx 12k/128k ██░░ 9%` reads as one field: join the context pieces with spaces, not bars."""
        texts: list[Text] = []
        context_keys = {"context", "bar", "percent"}
        group: list[Text] = []
        for field in left:
            if field.key in context_keys:
                group.append(field.text)
                continue
            if group:
                texts.append(Text(" ").join(group))
                group = []
            texts.append(field.text)
        if group:
            texts.append(Text(" ").join(group))
        return texts

    def visible_fields(self, width: int | None = None) -> list[str]:
        """Keys of the fields that fit in `width` cells (default: the widget's content width)."""
        return [f.key for f in self._fit(width if width is not None else self.content_size.width)]

    def _fit(self, width: int) -> list[_Field]:
        """Make the line fit `width`: drop optional fields (least important first), then the key hint, then
        shorten the environment and the model name, then drop the percentage, then shorten both further.
        Busy state, YOLO and where the tools run stay."""
        fields = self._fields()

        def too_wide() -> bool:
            return self._line_width(fields) > width

        for field in sorted((f for f in fields if f.rank >= 3), key=lambda f: -f.rank):
            if not too_wide():
                break
            fields.remove(field)
        if too_wide():  # the queue's keys are also above the prompt: they go before the model is cut
            fields[:] = [f for f in fields if f.key != "hint"]
        self._shorten(fields, width, minimum=16, key="where")
        self._shorten(fields, width, minimum=12)
        if too_wide():
            fields[:] = [f for f in fields if f.key != "percent"]
        self._shorten(fields, width, minimum=8, key="where")  # `⇄ ssh r…` still says where
        self._shorten(fields, width, minimum=4)
        return fields

    def _shorten(self, fields: list[_Field], width: int, minimum: int, key: str = "model") -> None:
        """Truncate a field (the model name, the environment) with an ellipsis by as much as the line
        overflows, down to `minimum` cells."""
        overflow = self._line_width(fields) - width
        field = next((f for f in fields if f.key == key), None)
        if overflow > 0 and field is not None and field.text.cell_len > minimum:
            field.text.truncate(max(minimum, field.text.cell_len - overflow), overflow="ellipsis")

    def render(self) -> Text:
        if (tooltip := self._cost_tooltip()) != self.tooltip:
            self.tooltip = tooltip
        width = self.content_size.width or self.size.width
        return self._line(self._fit(width), width)
