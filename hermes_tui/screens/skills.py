"""`/skills`: browse the skills by category, read one, switch it on or off.

The list groups `$HERMES_HOME/skills` by category; the pane beside it shows the highlighted skill (what it
is for, its folder, its supporting files, its instructions). Enter or space disables or enables it: saved as
Hermes' `skills.disabled` in config.yaml, so Hermes agrees. A disabled skill leaves the tools and its slash
command at once and the prompt's skills index from the next session. Files that are not valid skills are
listed with the reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Protocol

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agent.api import Skill, SkillScan
from widgets.cards.look import card_css
from widgets.support.text_safety import sanitize_display

__all__ = ["SkillSource", "SkillsScreen"]

MAX_PREVIEW_CHARS = 20_000
NOTE = "saved as skills.disabled in config.yaml; the prompt's skills index follows in a new session"


class SkillSource(Protocol):
    """What the screen needs from the session's skills (`agent.skills.SkillLibrary`)."""

    root: Path
    hermes_home: Path

    def scan(self) -> SkillScan: ...

    def is_disabled(self, skill: Skill) -> bool: ...

    def set_disabled(self, skill: Skill, disabled: bool) -> str | None: ...


def _state(skill: Skill, disabled: bool) -> tuple[str, str]:
    if not skill.supported:
        return "∅", f"{', '.join(skill.platforms)} only"
    if disabled:
        return "○", "disabled"
    return "●", ""


def skill_option(skill: Skill, disabled: bool) -> Option:
    mark, note = _state(skill, disabled)
    prompt = Text(no_wrap=True, overflow="ellipsis")
    prompt.append(f"  {mark} ")
    prompt.append(sanitize_display(skill.name), style="dim" if mark != "●" else "")
    if note:
        prompt.append(f"  {note}", style="italic dim")
    return Option(prompt, id=f"skill:{skill.name}")


def category_option(category: str, count: int) -> Option:
    prompt = Text(no_wrap=True, overflow="ellipsis")
    prompt.append(sanitize_display(category), style="bold")
    prompt.append(f"  {count}", style="dim")
    return Option(prompt, id=f"category:{category}", disabled=True)


class SkillsScreen(ModalScreen[bool]):
    """Dismisses with True when a skill was switched on or off."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
        Binding("space", "toggle_skill", "Enable/disable", show=False),
    ]
    DEFAULT_CSS = (
        card_css("SkillsScreen > Vertical")
        + """
    SkillsScreen { align: center middle; }
    SkillsScreen > Vertical {
        width: 120; max-width: 100%; height: 90%; padding: 0 1;
    }
    SkillsScreen #skills-title { height: 1; }
    SkillsScreen #skills-body { height: 1fr; }
    SkillsScreen #skills-list {
        width: 36; max-width: 40%; height: 1fr; border: none; background: transparent;
        border-right: vkey $panel;
    }
    SkillsScreen #skills-preview { width: 1fr; height: 1fr; padding: 0 1; }
    SkillsScreen #skills-preview > .heading { text-style: bold; }
    SkillsScreen #skills-preview > .meta { color: $foreground-muted; }
    SkillsScreen .problem { color: $warning; }
    SkillsScreen .hint { color: $foreground-muted; height: auto; }
    """
    )

    def __init__(self, source: SkillSource) -> None:
        super().__init__()
        self.source = source
        self.scan = source.scan()
        self.changed = False

    # ------------------------------------------------------------------ layout

    def _options(self) -> list[Option]:
        options: list[Option] = []
        for category, skills in self.scan.categories().items():
            options.append(category_option(category, len(skills)))
            options += [skill_option(s, self.source.is_disabled(s)) for s in skills]
        return options

    def compose(self) -> ComposeResult:
        with Vertical():
            count = len(self.scan.skills)
            yield Static(
                Text.assemble(("Skills", "bold"), (f"  {count} in {self._shown(self.source.root)}/", "dim")),
                id="skills-title",
            )
            with Horizontal(id="skills-body"):
                yield OptionList(*self._options(), id="skills-list")
                yield VerticalScroll(id="skills-preview")
            for problem in self.scan.problems:
                yield Static(
                    Text(f"skipped {self._shown(problem.path)}: {sanitize_display(problem.reason)}"),
                    classes="problem",
                )
            yield Static(Text(f"↑↓ choose · enter/space enable/disable · esc close · {NOTE}"), classes="hint")

    def on_mount(self) -> None:
        options = self.query_one("#skills-list", OptionList)
        options.focus()
        first = next((i for i, o in enumerate(options.options) if not o.disabled), None)
        if first is not None:
            options.highlighted = first
        else:
            self._show(None)

    # ------------------------------------------------------------------ preview

    def _shown(self, path: Path) -> str:
        try:
            return path.relative_to(self.source.hermes_home).as_posix()
        except ValueError:
            return str(path)

    def _skill(self, option_id: str | None) -> Skill | None:
        if not option_id or not option_id.startswith("skill:"):
            return None
        name = option_id.removeprefix("skill:")
        return next((s for s in self.scan.skills if s.name == name), None)

    @property
    def highlighted_skill(self) -> Skill | None:
        option = self.query_one("#skills-list", OptionList).highlighted_option
        return self._skill(option.id if option is not None else None)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show(self._skill(event.option.id))

    def _show(self, skill: Skill | None) -> None:
        pane = self.query_one("#skills-preview", VerticalScroll)
        pane.remove_children()
        if skill is None:
            root = self.source.root.expanduser().resolve()  # absolute: a relative path says nothing
            pane.mount(
                Static(
                    Text(
                        f"No skills yet. A skill is a folder holding a SKILL.md, in {root}/<category>/"
                        "<name>/. Or ask the agent to save what it just did as a skill (skill_manage)."
                    )
                )
            )
            return
        mark, note = _state(skill, self.source.is_disabled(skill))
        status = {"●": "enabled", "○": "disabled", "∅": note}[mark]
        try:
            body = skill.body()
        except OSError as exc:
            body = f"(cannot read SKILL.md: {exc.strerror or exc})"
        if len(body) > MAX_PREVIEW_CHARS:
            body = body[:MAX_PREVIEW_CHARS] + f"\n[... {len(body) - MAX_PREVIEW_CHARS:,} more characters]"
        files = skill.supporting_files()
        meta = [
            f"{skill.category} · {status} · /{skill.command}",
            f"{self._shown(skill.directory)}/",
        ]
        if files:
            meta.append("files: " + ", ".join(files))
        pane.mount(
            Static(Text(sanitize_display(skill.name)), classes="heading"),
            Static(Text(sanitize_display(skill.description))),
            Static(Text("\n".join(sanitize_display(m) for m in meta)), classes="meta"),
            Static(Text("\n" + sanitize_display(body))),
        )
        pane.scroll_home(animate=False)

    # ------------------------------------------------------------------ actions

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_toggle_skill()

    def action_toggle_skill(self) -> None:
        skill = self.highlighted_skill
        if skill is None:
            return
        disabled = not self.source.is_disabled(skill)
        error = self.source.set_disabled(skill, disabled)
        if error:
            self.notify(error, title="Skill not switched", severity="error")
            return
        self.changed = True
        options = self.query_one("#skills-list", OptionList)
        index = options.highlighted
        if index is not None:
            options.replace_option_prompt_at_index(index, skill_option(skill, disabled).prompt)
        self._show(skill)

    def action_close(self) -> None:
        self.dismiss(self.changed)
