"""First-run screen: no model provider is configured and `--demo` was not given.

Instead of an error and an exit, it explains the three ways to configure a provider (environment
variables, `$HERMES_HOME/config.yaml`, command-line flags) with copyable examples, names the actual
`HERMES_HOME` in use (the most common mistake is editing the config of another profile), and offers the
scripted demo so a new user sees the app work before configuring anything.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import ClassVar, Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Input, Select, Static

from agent.api import SettingNotSaved, save_env_value, save_setting
from widgets.cards.look import card_css
from widgets.support.timing import DOUBLE_CTRL_C

SetupChoice = Literal["demo", "quit", "configured"]

KEY_PROVIDERS: tuple[tuple[str, str, str, str], ...] = (
    # (shown, provider, key variable, a model to start with: /model lists the rest)
    ("OpenRouter", "openrouter", "OPENROUTER_API_KEY", "anthropic/claude-sonnet-4.6"),
    ("OpenAI", "openai", "OPENAI_API_KEY", "gpt-4.1"),
    ("Anthropic", "anthropic", "ANTHROPIC_API_KEY", "claude-sonnet-4-6"),
)

CONFIG_EXAMPLE = """\
model:
  default: nousresearch/hermes-4-405b
  provider: openrouter
  # base_url: http://localhost:11434/v1   # or any local OpenAI-compatible server"""

ENV_EXAMPLE = """\
export OPENAI_API_KEY=sk-...          # OpenAI
export ANTHROPIC_API_KEY=sk-ant-...   # Anthropic
export OPENROUTER_API_KEY=sk-or-...   # OpenRouter
# a local OpenAI-compatible server (Ollama, vLLM, llama.cpp):
export OPENAI_BASE_URL=http://localhost:11434/v1"""

FLAGS_EXAMPLE = "hermes-tui --model llama3.1 --base-url http://localhost:11434/v1 --api-key none"


class SetupScreen(Screen[SetupChoice]):
    """Explains how to configure a provider; "Start the demo" or "Quit".

    When it was pushed (`push_screen(SetupScreen(home), callback)`) it dismisses with "demo" or "quit" and
    the callback decides. When it cannot be dismissed (it is the only screen), "demo" posts
    `SetupScreen.StartDemo` to the app and "quit" exits the app. Exactly one of the two happens.
    Keys: `d` start the demo, `q` quit, Up/Down/PageUp/PageDown scroll; Enter presses the focused button
    (Start the demo). The focus starts on that button so `d` and `q` work at once; in the key and model
    fields they are text, and Esc gives the focus back to the button. Ctrl+C twice quits, as on the chat
    screen (Textual's own Ctrl+C only says to press Ctrl+Q).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "demo", "Start the demo", id="setup.demo"),
        Binding("q", "quit_setup", "Quit", id="setup.quit"),
        Binding("ctrl+c", "ctrl_c", "Quit (twice)", show=False, priority=True, id="setup.ctrl_c"),
        Binding("escape", "leave_field", "Leave the field", show=False),
        Binding("up", "scroll_card(-1)", "Scroll up", show=False),
        Binding("down", "scroll_card(1)", "Scroll down", show=False),
        Binding("pageup", "scroll_card(-10)", "Page up", show=False),
        Binding("pagedown", "scroll_card(10)", "Page down", show=False),
    ]

    AUTO_FOCUS = "#setup-demo"

    DEFAULT_CSS = (
        card_css("SetupScreen #setup-card")
        + """
    SetupScreen {
        align: center middle;
        background: $background;

        #setup-card {
            width: 92;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            padding: 0 2;
            scrollbar-size-vertical: 1;
        }
        #setup-title {
            margin-top: 1;
            text-style: bold;
            color: $foreground;
        }
        .setup-text {
            margin-top: 1;
            color: $foreground;
        }
        .setup-muted {
            color: $foreground-muted;
        }
        .setup-heading {
            margin-top: 1;
            text-style: bold;
            color: $text-primary;
        }
        .setup-code {
            margin-top: 1;
            padding: 0 1;
            background: $panel;
            color: $foreground;
            border-left: outer $primary;
        }
        #setup-detail {
            margin-top: 1;
            padding: 0 1;
            color: $text-warning;
            border-left: outer $warning;
        }
        #setup-key-row, #setup-model-row {
            height: auto;
            margin-top: 1;
            & Select { width: 1fr; min-width: 19; max-width: 24; }  /* narrow: the key field keeps room */
            & Input { width: 2fr; }
            & Button { margin-left: 1; }
        }
        #setup-buttons {
            dock: bottom;
            height: auto;
            align-horizontal: center;
            padding: 1 0;
            background: $surface;
            & Button {
                margin: 0 1;
            }
        }
    }
    """
    )

    class StartDemo(Message):
        """The user chose the scripted demo."""

    class Configured(Message):
        """The user saved a key and a model: the app reads its settings again and starts."""

    def __init__(
        self,
        hermes_home: str | Path,
        *,
        detail: str | None = None,
        name: str | None = None,
        id: str | None = None,
    ) -> None:
        """Create the screen.

        Args:
            hermes_home: The HERMES_HOME in use (shown, with its config.yaml path).
            detail: Why no provider could be used, if there is more to say (e.g. a config validation error
                naming the file and key).
            name: Screen name.
            id: Screen id.
        """
        super().__init__(name=name, id=id)
        self.hermes_home = Path(hermes_home)
        self.detail = detail
        self._last_ctrl_c = -DOUBLE_CTRL_C

    @property
    def config_path(self) -> Path:
        """Where the shared Hermes config lives for this HERMES_HOME."""
        return self.hermes_home / "config.yaml"

    def compose(self) -> ComposeResult:
        # The card scrolls on short terminals; the buttons are docked so they never scroll away.
        with VerticalScroll(id="setup-card", can_focus=False) as card:
            card.border_title = "⚕ Hermes"
            with Horizontal(id="setup-buttons"):
                yield Button("Start the demo (d)", id="setup-demo", variant="primary")
                yield Button("Quit (q)", id="setup-quit")
            yield Static("Welcome! Let's connect a model.", id="setup-title")
            yield Static(
                Text.assemble(
                    "No model provider is configured yet in ",
                    (str(self.hermes_home), "bold"),
                    " (HERMES_HOME). Paste a key below and start at once, or use one of the three ways "
                    "after it and start hermes-tui again. Or try the built-in demo first: it needs no key.",
                ),
                classes="setup-text",
                id="setup-intro",
            )
            if self.detail:
                yield Static(Text(self.detail), id="setup-detail")
            yield Static("Paste an API key here", classes="setup-heading")
            with Horizontal(id="setup-key-row"):
                yield Select(
                    [(shown, provider) for shown, provider, _, _ in KEY_PROVIDERS],
                    value=KEY_PROVIDERS[0][1],
                    allow_blank=False,
                    id="setup-provider",
                )
                yield Input(placeholder="API key (not shown)", password=True, id="setup-key")
            with Horizontal(id="setup-model-row"):
                yield Input(value=KEY_PROVIDERS[0][3], placeholder="model", id="setup-model")
                yield Button("Save and start", id="setup-save")
            yield Static(
                Text.assemble(
                    "The key is saved in ",
                    (str(self.hermes_home / ".env"), "bold"),
                    " (private to you), the model in tui/config.yaml. Or configure it yourself, any one of "
                    "these ways:",
                ),
                classes="setup-text setup-muted",
                id="setup-key-note",
            )
            yield Static("1. An API key in the environment", classes="setup-heading")
            yield Static(Text(ENV_EXAMPLE), classes="setup-code")
            yield Static("2. The Hermes config file", classes="setup-heading")
            yield Static(
                Text.assemble("Add a model block to ", (str(self.config_path), "bold"), ":"),
                classes="setup-text",
                id="setup-config-path",
            )
            yield Static(Text(CONFIG_EXAMPLE), classes="setup-code")
            yield Static(
                Text.assemble("API keys can also go in ", (str(self.hermes_home / ".env"), "bold"), "."),
                classes="setup-text setup-muted",
                id="setup-home",
            )
            yield Static("3. Command-line flags", classes="setup-heading")
            yield Static(Text(FLAGS_EXAMPLE), classes="setup-code")

    @on(Select.Changed, "#setup-provider")
    def _provider_changed(self, event: Select.Changed) -> None:
        model = self.query_one("#setup-model", Input)
        defaults = {default for _, _, _, default in KEY_PROVIDERS}
        if not model.value.strip() or model.value in defaults:
            model.value = next(m for _, p, _, m in KEY_PROVIDERS if p == event.value)

    @on(Button.Pressed, "#setup-save")
    @on(Input.Submitted, "#setup-key, #setup-model")
    def _save(self, event: Message) -> None:
        event.stop()
        key = self.query_one("#setup-key", Input).value.strip()
        model = self.query_one("#setup-model", Input).value.strip()
        provider = str(self.query_one("#setup-provider", Select).value)
        if not key:
            self.notify("Paste the API key first.", severity="warning")
            self.query_one("#setup-key", Input).focus()
            return
        if not model:
            self.notify("Name a model to start with (/model lists them later).", severity="warning")
            return
        variable = next(v for _, p, v, _ in KEY_PROVIDERS if p == provider)
        try:
            save_env_value(self.hermes_home / ".env", variable, key)
            config = self.hermes_home / "tui" / "config.yaml"
            save_setting(config, "provider", provider)
            save_setting(config, "model", model)
        except SettingNotSaved as exc:
            self.notify(f"Not saved: {exc}", severity="error")
            return
        self._finish("configured")

    def action_scroll_card(self, lines: int) -> None:
        """Scroll the card from the keyboard (the buttons keep the focus)."""
        card = self.query_one("#setup-card", VerticalScroll)
        card.scroll_to(y=card.scroll_y + lines, animate=False)

    def action_leave_field(self) -> None:
        """Esc in a field: the focus back on the demo button, where `d` and `q` are keys again."""
        self.query_one("#setup-demo", Button).focus()

    def action_ctrl_c(self) -> None:
        """The first press says a second one within `DOUBLE_CTRL_C` seconds quits, as on the chat screen
        (never a copy: a field selects all of itself when focused, so Ctrl+C would never quit from it)."""
        now = time.monotonic()
        if now - self._last_ctrl_c < DOUBLE_CTRL_C:
            self.action_quit_setup()
            return
        self._last_ctrl_c = now
        self.notify("Press Ctrl+C again to quit", timeout=DOUBLE_CTRL_C)

    def action_demo(self) -> None:
        """Tell the app to start the scripted demo."""
        self._finish("demo")

    def action_quit_setup(self) -> None:
        """Leave: dismiss with "quit" when pushed, otherwise exit the app."""
        self._finish("quit")

    def _finish(self, choice: SetupChoice) -> None:
        """Dismiss with `choice` when pushed; otherwise post `StartDemo` to the app, or exit."""
        if self.is_current and len(self.app.screen_stack) > 1:
            self.dismiss(choice)
        elif choice == "demo":
            self.app.post_message(self.StartDemo())
        elif choice == "configured":
            self.app.post_message(self.Configured())
        else:
            self.app.exit()

    @on(Button.Pressed, "#setup-demo")
    def _demo_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_demo()

    @on(Button.Pressed, "#setup-quit")
    def _quit_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_quit_setup()
