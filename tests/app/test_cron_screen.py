"""`/cron`: the jobs of $HERMES_HOME/cron/jobs.json in a screen; pause/resume and remove from it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from textual.pilot import Pilot

from agent.cron.jobs import CronJobs
from hermes_tui.app import HermesApp
from hermes_tui.screens.cron import CronScreen
from hermes_tui.screens.modals import ConfirmModal
from scripted import ScriptedServer
from tests.app.harness import run_chat, screen_text, submit, wait_for

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


async def test_a_broken_entry_is_one_line_and_the_other_jobs_are_listed(
    hermes_home: Path, tmp_path: Path
) -> None:
    jobs = CronJobs(hermes_home)
    jobs.create("Report on the quokkas", "every 2h", name="quokka report")
    jobs.create("Water the plants", "0 9 * * *", name="plants")
    data = json.loads(jobs.path.read_text())
    data["jobs"].insert(1, {"id": "badsched", "prompt": "x", "schedule": {"kind": "weekly"}})
    data["jobs"].append(["not", "a", "job"])
    jobs.path.write_text(json.dumps(data))

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "/cron")
        await wait_for(pilot, lambda: isinstance(app.screen, CronScreen), 10, "the cron screen")
        await wait_for(pilot, lambda: "quokka report" in screen_text(app), 10, "the jobs")
        text = screen_text(app)
        assert "plants" in text
        assert "skipped job 'badsched' (entry 2) of jobs.json: its schedule kind 'weekly'" in text
        assert "skipped entry 4 of jobs.json: it is list, not a job object" in text
        # the highlighted job is the first good one, and acting on it works past the broken entries
        await pilot.press("down")
        await pilot.press("p")
        paused = [j for j in jobs.list_jobs() if j.name == "plants"]
        assert paused and paused[0].state == "paused"
        assert json.loads(jobs.path.read_text())["jobs"][1]["schedule"] == {"kind": "weekly"}

    await run_chat(SCENARIO, body, home=hermes_home, cwd=tmp_path, size=(140, 40))


async def test_a_jobs_file_that_is_not_json_is_one_line(hermes_home: Path, tmp_path: Path) -> None:
    (hermes_home / "cron").mkdir()
    (hermes_home / "cron" / "jobs.json").write_text("{not json")

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "/cron")
        await wait_for(pilot, lambda: isinstance(app.screen, CronScreen), 10, "the cron screen")
        await wait_for(pilot, lambda: "cannot be read" in screen_text(app), 10, "the line")
        # The line wraps where the path is long (a test worker's tmp path): read it across the rows.
        flowing = " ".join(re.sub(r"[│▎▊]", " ", screen_text(app)).split())
        assert "is not valid JSON" in flowing
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, CronScreen), 10, "the screen closed")

    await run_chat(SCENARIO, body, home=hermes_home, cwd=tmp_path, size=(140, 40))
