"""`/cron`: the scheduled jobs of `$HERMES_HOME/cron/jobs.json` (Hermes' file: a Hermes user's jobs appear),
the highlighted one's prompt and its last output; pause/resume and remove (asked first). An entry of the
file that cannot be used is one line above the details (named, with the reason); the others are listed.

The screen shows data and acts through `CronSource` (over `agent.api.CronJobs`); running them is
`hermes-tui cron run` / `cron daemon`'s, as the hint says. A job file that cannot be read is one line.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Protocol

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agent.api import CronJobs, CronStoreError, Job, JobList
from hermes_tui.screens.modals import ConfirmModal
from hermes_tui.screens.picker import PickerScreen
from widgets.support.text_safety import sanitize_display

__all__ = ["CronScreen", "CronSource", "JobsFileSource"]

OUTPUT_CHARS = 4000


class CronSource(Protocol):
    def scan(self) -> JobList: ...

    def last_output(self, job_id: str) -> str: ...

    def remove(self, job_id: str) -> bool: ...

    def set_paused(self, job_id: str, paused: bool) -> None: ...


class JobsFileSource:
    """`CronSource` over one HERMES_HOME's jobs.json."""

    def __init__(self, hermes_home: Path) -> None:
        self.jobs = CronJobs(hermes_home)

    def scan(self) -> JobList:
        return self.jobs.scan()

    def last_output(self, job_id: str) -> str:
        outputs = self.jobs.outputs(job_id)
        if not outputs:
            return ""
        from agent.api import read_bounded_tail

        try:
            tail, _size = read_bounded_tail(outputs[-1], limit=4 * OUTPUT_CHARS)
        except OSError:
            return ""
        text: str = tail.decode("utf-8", errors="replace")
        return text[-OUTPUT_CHARS:]

    def remove(self, job_id: str) -> bool:
        return self.jobs.remove(job_id)

    def set_paused(self, job_id: str, paused: bool) -> None:
        self.jobs.set_paused(job_id, paused)


def job_option(job: Job) -> Option:
    row = Text(no_wrap=True, overflow="ellipsis")
    paused = job.state == "paused" or not job.enabled
    row.append(" ○ " if paused else " ● ", style="dim" if paused else "bold")
    row.append(f"{job.id:<13}", style="bold")
    row.append(f"{sanitize_display(job.schedule_display)[:18]:<19}", style="dim")
    row.append(f"next {(job.next_run_at or '-')[:16]:<17}", style="dim")
    row.append(sanitize_display(" ".join(job.name.split())))
    return Option(row, id=job.id)


class CronScreen(PickerScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
        Binding("d,delete", "remove", "Remove"),
        Binding("p", "pause", "Pause/resume"),
        Binding("r", "refresh", "Refresh", show=False),
    ]
    CARD_TITLE = "Scheduled jobs"
    DEFAULT_CSS = """
    CronScreen > Vertical { width: 110; }
    CronScreen OptionList { max-height: 10; }
    CronScreen #job-box { height: auto; max-height: 20; border-top: solid $border-blurred; }
    CronScreen #job { color: $foreground-muted; }
    CronScreen #skipped { color: $warning; height: auto; max-height: 5; }
    """

    def __init__(self, source: CronSource) -> None:
        super().__init__()
        self.source = source
        self._jobs: list[Job] = []

    def compose_card(self) -> ComposeResult:
        yield OptionList(id="jobs")
        yield Static(id="skipped")
        with VerticalScroll(id="job-box"):
            yield Static(id="job")
        yield Static(
            Text("↑↓ choose · p pause/resume · d remove · esc close · `hermes-tui cron run` runs due jobs"),
            classes="hint",
        )

    def on_mount(self) -> None:
        self.action_refresh()
        self.options.focus()

    @property
    def options(self) -> OptionList:
        return self.query_one("#jobs", OptionList)

    @property
    def selected(self) -> Job | None:
        index = self.options.highlighted
        return self._jobs[index] if index is not None and 0 <= index < len(self._jobs) else None

    def action_refresh(self) -> None:
        detail = self.query_one("#job", Static)
        skipped = self.query_one("#skipped", Static)
        try:
            listing = self.source.scan()
        except (CronStoreError, OSError) as exc:
            self._jobs = []
            self.options.set_options([])
            skipped.update("")
            detail.update(Text(f"The job file cannot be read: {exc}"))
            return
        self._jobs = listing.jobs
        skipped.update(Text("\n".join(sanitize_display(b.line()) for b in listing.broken)))
        skipped.display = bool(listing.broken)
        self.options.set_options([job_option(j) for j in self._jobs])
        if self._jobs:
            self.options.highlighted = 0
        else:
            detail.update(Text("No scheduled jobs. Ask the agent to schedule one (the cronjob tool)."))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        job = self.selected
        if job is None:
            return
        text = Text()
        text.append(f"{job.name}\n", style="bold")
        text.append(
            f"{job.schedule_display} · repeat {job.repeat_display()} · {job.state} · "
            f"last run {job.raw.get('last_run_at') or 'never'} ({job.raw.get('last_status') or '-'})\n"
        )
        if job.workdir:
            text.append(f"in {job.workdir}\n")
        text.append(f"\n{sanitize_display(job.prompt)}\n")
        output = self.source.last_output(job.id)
        if output:
            text.append("\nLast output:\n", style="bold")
            text.append(sanitize_display(output))
        self.query_one("#job", Static).update(text)

    def action_pause(self) -> None:
        job = self.selected
        if job is not None:
            self.source.set_paused(job.id, job.state != "paused" and job.enabled)
            self.action_refresh()

    def action_remove(self) -> None:
        job = self.selected
        if job is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.source.remove(job.id)
                self.action_refresh()

        modal = ConfirmModal(
            "Remove job", f"Remove the job '{job.name}'?", confirm_label="Remove", variant="error"
        )
        self.app.push_screen(modal, answered)
