"""`/cron`: the jobs of $HERMES_HOME/cron/jobs.json in a screen; pause/resume and remove from it."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from agent.cron.jobs import CronJobs
from agent.scripted import ScriptedServer
from hermes_tui.app import HermesApp
from hermes_tui.screens.cron import CronScreen
from hermes_tui.screens.modals import ConfirmModal
from tests.ui.harness import run_chat, screen_text, submit, wait_for

SCENARIO = {"name": "idle", "calls": []}


async def test_the_cron_screen_lists_pauses_and_removes_jobs(hermes_home: Path, tmp_path: Path) -> None:
    jobs = CronJobs(hermes_home)
    first = jobs.create("Report on the quokkas", "every 2h", name="quokka report")
    jobs.create("Water the plants", "0 9 * * *", name="plants")

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "/cron")
        await wait_for(pilot, lambda: isinstance(app.screen, CronScreen), 10, "the cron screen")
        await wait_for(pilot, lambda: "Report on the quokkas" in screen_text(app), 10, "the job's prompt")
        text = screen_text(app)
        assert "quokka report" in text and "plants" in text and "every 120m" in text
        await pilot.press("p")
        paused = jobs.get(first.id)
        assert paused is not None and paused.state == "paused"
        await pilot.press("p")
        resumed = jobs.get(first.id)
        assert resumed is not None and resumed.state == "scheduled"
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), 10, "the question")
        await pilot.press("y")
        await wait_for(pilot, lambda: jobs.get(first.id) is None, 10, "the job removed")
        await wait_for(pilot, lambda: "quokka report" not in screen_text(app), 10, "the list refreshed")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, CronScreen), 10, "the screen closed")

    await run_chat(SCENARIO, body, home=hermes_home, cwd=tmp_path, size=(120, 40))
