"""Scheduled jobs: Hermes' schedule strings, its jobs.json, the cronjob tool, and `hermes-tui cron
list/run` end to end against the scripted server (each job a stored, searchable headless session)."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from agent.cron.jobs import CronJobs
from agent.cron.schedule import ScheduleError, next_run, parse_schedule
from agent.store import SessionStore
from tests.cli_process import run_cli

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 12, 3, 7, 10).astimezone()


def cli(args: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"HERMES_HOME": str(home), "PYTHONPATH": str(ROOT)})
    return run_cli(args, cwd=cwd, env=env, timeout=90)


@pytest.mark.parametrize(
    ("text", "kind", "display"),
    [
        ("every 30m", "interval", "every 30m"),
        ("every 2h", "interval", "every 120m"),
        ("0 9 * * *", "cron", "0 9 * * *"),
        ("30m", "once", "once in 30m"),
        ("2026-12-04T09:00", "once", "once at 2026-12-04 09:00"),
    ],
)
def test_hermes_schedule_strings(text: str, kind: str, display: str) -> None:
    parsed = parse_schedule(text, NOW)
    assert parsed["kind"] == kind and parsed["display"] == display


def test_when_schedules_fire_next() -> None:
    assert next_run(parse_schedule("0 9 * * *", NOW), now=NOW) == NOW.replace(hour=9, minute=0).isoformat()
    monday = next_run(parse_schedule("*/15 8-9 * * 1", NOW), now=NOW)
    assert monday is not None and datetime.fromisoformat(monday).isoweekday() == 1
    assert datetime.fromisoformat(monday).hour == 8
    after = next_run({"kind": "interval", "minutes": 30}, NOW.isoformat(), NOW)
    assert after == (NOW + timedelta(minutes=30)).isoformat()
    once = parse_schedule("30m", NOW)
    assert next_run(once, now=NOW) == (NOW + timedelta(minutes=30)).isoformat()
    assert next_run(once, NOW.isoformat(), NOW) is None  # a one-shot that ran is done


@pytest.mark.parametrize("bad", ["61 * * * *", "tomorrow", "every x", "2020-01-01T00:00", "", "0 9 * * 8"])
def test_an_invalid_schedule_is_one_line(bad: str) -> None:
    with pytest.raises(ScheduleError) as caught:
        parse_schedule(bad, NOW)
    message = str(caught.value)
    assert "\n" not in message and message


def test_jobs_json_is_hermes_layout_and_hermes_jobs_are_read(hermes_home: Path) -> None:
    jobs = CronJobs(hermes_home)
    made = jobs.create("Summarise the news", "every 2h", name="news", now=NOW)
    data = json.loads((hermes_home / "cron" / "jobs.json").read_text())
    assert set(data) == {"jobs", "updated_at"}
    (raw,) = data["jobs"]
    assert raw["id"] == made.id and raw["schedule"] == {
        "kind": "interval",
        "minutes": 120,
        "display": "every 120m",
    }
    assert raw["repeat"] == {"times": None, "completed": 0} and raw["enabled"] and raw["state"] == "scheduled"
    assert raw["deliver"] == "local" and raw["next_run_at"] == (NOW + timedelta(hours=2)).isoformat()
    # a job Hermes wrote, with fields we do not use, is listed and kept as it is
    hermes_job = {**raw, "id": "abc123def456", "name": "hermes job", "origin": {"platform": "telegram"}}
    hermes_job["skills"] = ["arxiv"]
    data["jobs"].append(hermes_job)
    (hermes_home / "cron" / "jobs.json").write_text(json.dumps(data))
    assert [j.name for j in jobs.list_jobs()] == ["news", "hermes job"]
    jobs.remove(made.id)
    kept = json.loads((hermes_home / "cron" / "jobs.json").read_text())["jobs"]
    assert kept == [hermes_job]


def test_a_run_counts_repeats_and_a_spent_job_goes(hermes_home: Path) -> None:
    jobs = CronJobs(hermes_home)
    job = jobs.create("ping", "every 1h", repeat=2, now=NOW)
    assert jobs.due(NOW) == [] and [j.id for j in jobs.due(NOW + timedelta(hours=1))] == [job.id]
    jobs.mark_run(job.id, ok=True, now=NOW + timedelta(hours=1))
    again = jobs.get(job.id)
    assert again is not None and again.raw["repeat"]["completed"] == 1 and again.raw["last_status"] == "ok"
    assert again.next_run_at == (NOW + timedelta(hours=2)).isoformat()
    jobs.mark_run(job.id, ok=False, error="boom", now=NOW + timedelta(hours=2))
    assert jobs.get(job.id) is None


def _create_scenario(path: Path, schedule: str) -> Path:
    call = {
        "name": "cronjob",
        "id": "call_c",
        "arguments": {"action": "create", "prompt": "Write the daily quokka report", "schedule": schedule},
    }
    path.write_text(json.dumps({"name": "cron", "calls": [{"tool_calls": [call]}, {"text": "Scheduled."}]}))
    return path


def test_a_job_the_model_creates_is_listed_and_run_as_a_stored_session(
    hermes_home: Path, tmp_path: Path
) -> None:
    now = datetime.now().astimezone().replace(microsecond=0)
    scenario = _create_scenario(tmp_path / "c.json", now.isoformat())
    created = cli(["-z", "schedule it", "--scenario", str(scenario)], tmp_path, hermes_home)
    assert created.returncode == 0, created.stderr
    assert "Scheduled." in created.stdout
    listed = cli(["cron", "list"], tmp_path, hermes_home)
    assert listed.returncode == 0, listed.stderr
    assert "Write the daily quokka report" in listed.stdout and "once at" in listed.stdout
    (job_id,) = [line.split()[0] for line in listed.stdout.splitlines()]
    run_scenario = tmp_path / "r.json"
    run_scenario.write_text(json.dumps({"name": "run", "calls": [{"text": "Quokkas are thriving today."}]}))
    ran = cli(["cron", "run", "--scenario", str(run_scenario)], tmp_path, hermes_home)
    assert ran.returncode == 0, ran.stderr
    assert f"{job_id}  Write the daily quokka report: ok" in ran.stdout
    outputs = list((hermes_home / "cron" / "output" / job_id).glob("*.md"))
    assert len(outputs) == 1
    document = outputs[0].read_text()
    assert document.startswith("# Cron Job: Write the daily quokka report\n\n**Job ID:** " + job_id)
    assert "## Response\n\nQuokkas are thriving today." in document
    # the one-shot is done, and its session is stored and found by search
    assert cli(["cron", "list"], tmp_path, hermes_home).stdout.startswith("No scheduled jobs")
    store = SessionStore(hermes_home / "tui" / "state.db")
    try:
        hits = store.search("thriving")
        assert len(hits) == 1
        info = store.get_session(hits[0].session_id)
        assert (
            info is not None and info.source == "cron" and info.title == "cron: Write the daily quokka report"
        )
    finally:
        store.close()
    assert (
        cli(["cron", "run", "--scenario", str(run_scenario)], tmp_path, hermes_home).stdout
        == "No jobs are due.\n"
    )


def test_an_invalid_schedule_from_the_model_is_one_clear_line(hermes_home: Path, tmp_path: Path) -> None:
    scenario = _create_scenario(tmp_path / "c.json", "whenever")
    proc = cli(["-z", "schedule it", "--scenario", str(scenario)], tmp_path, hermes_home)
    assert proc.returncode == 0, proc.stderr
    (line,) = [ln for ln in proc.stderr.splitlines() if "cronjob" in ln]
    assert line.startswith("┊ cronjob: create (error, ") and line.endswith(
        "s): invalid schedule 'whenever': use '30m', 'every 2h', '0 9 * * *' or '2026-02-03T14:00'"
    )
    assert not (hermes_home / "cron" / "jobs.json").exists()


def test_a_broken_jobs_file_is_one_line(hermes_home: Path, tmp_path: Path) -> None:
    (hermes_home / "cron").mkdir()
    (hermes_home / "cron" / "jobs.json").write_text("{not json")
    proc = cli(["cron", "list"], tmp_path, hermes_home)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "jobs.json is not valid JSON" in proc.stderr


def test_the_daemon_runs_due_jobs_until_stopped(hermes_home: Path, tmp_path: Path) -> None:
    import threading

    from agent.session.cron_run import CronDaemon, JobRun
    from scripted import ScriptedServer
    from tests.engine.helpers import make_settings
    from tests.recording_ui import RecordingUI

    jobs = CronJobs(hermes_home)
    now = datetime.now().astimezone()
    job = jobs.create("Say hello", now.isoformat(), now=now)
    runs: list[JobRun] = []
    scenario = json.dumps({"name": "d", "calls": [{"text": "hello"}]})
    with ScriptedServer(scenario) as server:
        store = SessionStore(hermes_home / "tui" / "state.db")
        daemon = CronDaemon(
            make_settings(server, hermes_home, tmp_path), store, RecordingUI(), runs.append, 0.05
        )
        thread = threading.Thread(target=daemon.run)
        thread.start()
        for _ in range(600):
            if runs:
                break
            threading.Event().wait(0.05)
        daemon.stop()
        thread.join(30)
        store.close()
    assert not thread.is_alive()
    assert [(r.job.id, r.ok, r.answer) for r in runs] == [(job.id, True, "hello")]
    assert jobs.get(job.id) is None  # the one-shot ran once
