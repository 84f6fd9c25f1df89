"""The cronjob tool's update and run actions (a model calls them through the scripted server), the store's
update / claim / name lookup, and jobs.json entries that cannot be used: each one line naming it and the
reason, every other job listed and run."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from agent.cron.entries import entry_problem
from agent.cron.jobs import AmbiguousJobReference, CronJobs
from scripted import ScriptedServer
from tests.engine.helpers import make_agent, tool_results
from tests.engine.test_cron import cli

NOW = datetime(2026, 12, 3, 7, 10).astimezone()


def _play(home: Path, cwd: Path, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One turn whose model makes `calls` (one per step) then answers; the tool results, as JSON."""
    steps: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "cronjob", "id": f"call_{i}", "arguments": args}]}
        for i, args in enumerate(calls)
    ]
    scenario = {"name": "cron", "calls": [*steps, {"text": "Done."}]}
    with ScriptedServer(scenario) as server:
        agent, store, _ui = make_agent(server, home, cwd)
        try:
            agent.run_conversation("manage my jobs")
        finally:
            agent.close()
            store.close()
        return _results(server)


def _results(server: ScriptedServer) -> list[dict[str, Any]]:
    """The tool results the model was sent last (a title request after the turn has none)."""
    bodies = [r.body for r in server.requests if tool_results(r.body, "openai")]
    return [json.loads(content) for _id, content in tool_results(bodies[-1], "openai")]


def test_the_model_updates_a_job(hermes_home: Path, tmp_path: Path) -> None:
    jobs = CronJobs(hermes_home)
    job = jobs.create("Summarise the news", "every 2h", name="news", repeat=3)
    (updated, cleared, none, bad) = _play(
        hermes_home,
        tmp_path,
        [
            {"action": "update", "job_id": "NEWS", "schedule": "0 9 * * *", "prompt": "Summarise tech news"},
            {"action": "update", "job_id": job.id, "repeat": 0, "name": "tech news"},
            {"action": "update", "job_id": job.id},
            {"action": "update", "job_id": job.id, "schedule": "sometimes"},
        ],
    )
    assert updated["success"] is True
    assert updated["job"]["job_id"] == job.id and updated["job"]["schedule"] == "0 9 * * *"
    assert (
        updated["job"]["prompt_preview"] == "Summarise tech news" and updated["job"]["state"] == "scheduled"
    )
    next_at = datetime.fromisoformat(updated["job"]["next_run_at"])
    assert (next_at.hour, next_at.minute) == (9, 0)
    assert cleared["job"]["repeat"] == "forever" and cleared["job"]["name"] == "tech news"
    assert none == {"success": False, "error": "No updates provided."}
    assert bad["success"] is False and "invalid schedule 'sometimes'" in bad["error"]
    stored = jobs.get(job.id)
    assert stored is not None and stored.raw["schedule"] == {
        "kind": "cron",
        "expr": "0 9 * * *",
        "display": "0 9 * * *",
    }
    assert stored.raw["repeat"] == {"times": None, "completed": 0} and stored.prompt == "Summarise tech news"


def test_a_paused_job_keeps_its_pause_through_an_update(hermes_home: Path, tmp_path: Path) -> None:
    jobs = CronJobs(hermes_home)
    job = jobs.create("ping", "every 1h")
    jobs.set_paused(job.id, True, "away")
    (answer,) = _play(hermes_home, tmp_path, [{"action": "update", "job_id": job.id, "schedule": "every 3h"}])
    assert answer["job"]["state"] == "paused" and answer["job"]["schedule"] == "every 180m"
    assert answer["job"]["paused_reason"] == "away"


def test_the_model_runs_a_job_now_as_its_own_session(hermes_home: Path, tmp_path: Path) -> None:
    jobs = CronJobs(hermes_home)
    job = jobs.create("Count the quokkas on the island", "every 1d", name="quokkas")
    before = job.next_run_at
    scenario = {
        "name": "run",
        "calls": [
            {
                "tool_calls": [
                    {"name": "cronjob", "id": "c1", "arguments": {"action": "run", "job_id": "quokkas"}}
                ]
            },
            {"match": "Count the quokkas", "text": "There are 41 quokkas."},
            {"text": "It ran."},
        ],
    }
    with ScriptedServer(scenario) as server:
        agent, store, _ui = make_agent(server, hermes_home, tmp_path)
        try:
            agent.run_conversation("run my quokka job now")
            (answer,) = _results(server)
            hits = store.search("quokkas")
            sources = {info.source for hit in hits if (info := store.get_session(hit.session_id))}
        finally:
            agent.close()
            store.close()
    assert answer["success"] is True
    ran = answer["job"]
    assert ran["executed"] is True and ran["execution_success"] is True and ran["last_status"] == "ok"
    assert "execution_error" not in ran and "execution_skipped" not in ran
    (output,) = jobs.outputs(job.id)
    assert "There are 41 quokkas." in output.read_text()
    assert "cron" in sources
    after = jobs.get(job.id)
    assert after is not None and after.next_run_at != before and "fire_claim" not in after.raw


def test_a_paused_job_is_not_run(hermes_home: Path, tmp_path: Path) -> None:
    jobs = CronJobs(hermes_home)
    job = jobs.create("ping", "every 1h")
    jobs.set_paused(job.id, True)
    (answer,) = _play(hermes_home, tmp_path, [{"action": "run", "job_id": job.id}])
    assert answer["job"]["executed"] is False and answer["job"]["execution_success"] is False
    assert answer["job"]["execution_skipped"] == "Job is paused/disabled; resume it before running."
    assert jobs.outputs(job.id) == []


def test_an_invalid_schedule_is_one_tool_error_line(hermes_home: Path, tmp_path: Path) -> None:
    (answer,) = _play(
        hermes_home, tmp_path, [{"action": "create", "prompt": "ping", "schedule": "61 * * * *"}]
    )
    assert answer["success"] is False
    assert answer["error"].startswith("invalid cron expression '61 * * * *'") and "\n" not in answer["error"]
    assert not (hermes_home / "cron" / "jobs.json").exists()


# ------------------------------------------------------------------------------------------- the store


def test_a_job_is_found_by_id_or_by_a_name_only_one_job_has(hermes_home: Path) -> None:
    jobs = CronJobs(hermes_home)
    one = jobs.create("a", "every 1h", name="Report")
    jobs.create("b", "every 1h", name="twin")
    jobs.create("c", "every 1h", name="Twin")
    found = jobs.resolve("report")
    assert found is not None and found.id == one.id
    assert jobs.resolve("nobody") is None
    with pytest.raises(AmbiguousJobReference, match="matches 2 jobs"):
        jobs.resolve("twin")


def test_a_claim_is_taken_once_and_freed_by_the_run(hermes_home: Path) -> None:
    jobs = CronJobs(hermes_home)
    job = jobs.create("ping", "every 1h", now=NOW)
    assert jobs.claim(job.id, NOW) is None
    claimed = jobs.get(job.id)
    assert claimed is not None and claimed.next_run_at == (NOW + timedelta(hours=1)).isoformat()
    assert jobs.claim(job.id, NOW + timedelta(minutes=1)) == (
        "Job is already being fired by the scheduler; not run again."
    )
    assert jobs.claim(job.id, NOW + timedelta(minutes=10)) is None  # a stale claim is taken over
    jobs.mark_run(job.id, ok=True, now=NOW + timedelta(minutes=10))
    assert jobs.claim(job.id, NOW + timedelta(minutes=11)) is None
    assert jobs.claim("missing", NOW) == "Job no longer exists; nothing to run."
    # a one-shot being run is not due for another runner (a tick of the daemon) while the claim is fresh
    once = jobs.create("once", NOW.isoformat(), now=NOW)
    assert once.id in [j.id for j in jobs.due(NOW + timedelta(minutes=1))]
    assert jobs.claim(once.id, NOW + timedelta(minutes=1)) is None
    assert once.id not in [j.id for j in jobs.due(NOW + timedelta(minutes=2))]
    assert once.id in [j.id for j in jobs.due(NOW + timedelta(minutes=7))]  # a runner that died


def test_an_update_reschedules_unless_paused_and_never_touches_a_broken_entry(hermes_home: Path) -> None:
    jobs = CronJobs(hermes_home)
    job = jobs.create("ping", "every 1h", now=NOW)
    moved = jobs.update(job.id, {"schedule": {"kind": "interval", "minutes": 30, "display": "every 30m"}})
    assert moved is not None and moved.next_run_at is not None
    assert datetime.fromisoformat(moved.next_run_at) > datetime.now().astimezone() + timedelta(minutes=29)
    jobs.set_paused(job.id, True)
    paused = jobs.update(job.id, {"schedule": {"kind": "interval", "minutes": 5, "display": "every 5m"}})
    assert paused is not None and paused.next_run_at == moved.next_run_at and paused.state == "paused"
    data = json.loads(jobs.path.read_text())
    data["jobs"].append({"id": "broken01", "prompt": 3})
    jobs.path.write_text(json.dumps(data))
    assert jobs.update("broken01", {"prompt": "fixed"}) is None
    assert jobs.set_paused("broken01", True) is None
    assert json.loads(jobs.path.read_text())["jobs"][-1] == {"id": "broken01", "prompt": 3}


BROKEN: list[tuple[Any, str]] = [
    ("just text", "it is str, not a job object"),
    ({"id": "noprompt1", "schedule": {"kind": "interval", "minutes": 5}}, "it has no prompt"),
    (
        {"id": "badtype1", "prompt": 7, "schedule": {"kind": "interval", "minutes": 5}},
        "its prompt is int, not text",
    ),
    (
        {"id": "badsched", "prompt": "x", "schedule": {"kind": "weekly"}},
        "its schedule kind 'weekly' is not once, interval or cron",
    ),
    (
        {"id": "badexpr1", "prompt": "x", "schedule": {"kind": "cron", "expr": "99 * * * *"}},
        "its cron expression",
    ),
    ({"id": "strsched", "prompt": "x", "schedule": "every 2h"}, "its schedule is str, not Hermes' parsed"),
    (
        {"id": "badrep01", "prompt": "x", "schedule": {"kind": "interval", "minutes": 5}, "repeat": "3"},
        "its repeat is str",
    ),
    (
        {
            "id": "badnext1",
            "prompt": "x",
            "schedule": {"kind": "interval", "minutes": 5},
            "next_run_at": "soon",
        },
        "its next_run_at 'soon' is not a time",
    ),
    (
        {"id": "badenab1", "prompt": "x", "schedule": {"kind": "interval", "minutes": 5}, "enabled": "yes"},
        "its enabled is str, not true or false",
    ),
    ({"prompt": "x", "schedule": {"kind": "interval", "minutes": 5}}, "it has no id"),
]


@pytest.mark.parametrize(("raw", "reason"), BROKEN)
def test_what_makes_an_entry_unusable(raw: Any, reason: str) -> None:
    problem = entry_problem(raw)
    assert problem is not None and problem.startswith(reason) and "\n" not in problem


def _file_with(home: Path, *broken: Any) -> tuple[CronJobs, str, str]:
    """jobs.json with a good due job, the broken entries, and a second good job (not due)."""
    jobs = CronJobs(home)
    now = datetime.now().astimezone()
    due = jobs.create("Write the otter report", (now - timedelta(seconds=5)).isoformat(), now=now)
    later = jobs.create("Water the plants", "every 2h")
    data = json.loads(jobs.path.read_text())
    data["jobs"][1:1] = list(broken)
    jobs.path.write_text(json.dumps(data))
    return jobs, due.id, later.id


@pytest.mark.parametrize(("raw", "reason"), BROKEN[:6])
def test_cron_list_names_a_broken_entry_and_lists_the_others(
    hermes_home: Path, tmp_path: Path, raw: Any, reason: str
) -> None:
    _jobs, due, later = _file_with(hermes_home, raw)
    proc = cli(["cron", "list"], tmp_path, hermes_home)
    assert proc.returncode == 0, proc.stderr
    assert [line.split()[0] for line in proc.stdout.splitlines()] == [due, later]
    (line,) = proc.stderr.splitlines()
    named = f"job '{raw['id']}' (entry 2)" if isinstance(raw, dict) and "id" in raw else "entry 2"
    assert line.startswith(f"hermes-tui: cron: skipped {named} of jobs.json: {reason}")
    assert "Traceback" not in proc.stderr


def test_cron_run_runs_the_good_jobs_past_a_broken_one_and_keeps_it(
    hermes_home: Path, tmp_path: Path
) -> None:
    broken = {"id": "badsched", "prompt": "x", "schedule": {"kind": "weekly"}}
    jobs, due, later = _file_with(hermes_home, broken, 42)
    scenario = tmp_path / "r.json"
    scenario.write_text(json.dumps({"name": "run", "calls": [{"text": "Otters are fine."}]}))
    proc = cli(["cron", "run", "--scenario", str(scenario)], tmp_path, hermes_home)
    assert proc.returncode == 0, proc.stderr
    assert f"{due}  Write the otter report: ok" in proc.stdout
    skipped = [line for line in proc.stderr.splitlines() if "skipped" in line]
    assert skipped == [
        "hermes-tui: cron: skipped job 'badsched' (entry 2) of jobs.json: "
        "its schedule kind 'weekly' is not once, interval or cron",
        "hermes-tui: cron: skipped entry 3 of jobs.json: it is int, not a job object",
    ]
    # the run rewrote jobs.json (the one-shot is gone): the broken entries are still there as they were
    kept = json.loads(jobs.path.read_text())["jobs"]
    assert kept[:2] == [broken, 42] and [j["id"] for j in kept[2:]] == [later]


@pytest.mark.parametrize("text", ["{not json", "[1, 2", "\x00\x01binary", '{"jobs": 5}', '"a string"'])
def test_a_jobs_file_that_is_not_a_job_list_is_one_line(hermes_home: Path, tmp_path: Path, text: str) -> None:
    (hermes_home / "cron").mkdir()
    (hermes_home / "cron" / "jobs.json").write_text(text)
    for action in (["cron", "list"], ["cron", "run"]):
        proc = cli(action, tmp_path, hermes_home)
        assert proc.returncode == 1
        (line,) = proc.stderr.splitlines()
        assert (
            line.startswith("hermes-tui: cron: ") and "jobs.json" in line and "Traceback" not in proc.stderr
        )


def test_a_jobs_file_that_is_not_utf8_is_one_line(hermes_home: Path, tmp_path: Path) -> None:
    (hermes_home / "cron").mkdir()
    (hermes_home / "cron" / "jobs.json").write_bytes(b'{"jobs": ["\xff\xfe"]}')
    proc = cli(["cron", "list"], tmp_path, hermes_home)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and "cannot read" in proc.stderr


def test_the_tool_lists_past_a_broken_entry(hermes_home: Path, tmp_path: Path) -> None:
    _file_with(hermes_home, {"id": "noprompt1", "schedule": {"kind": "interval", "minutes": 5}})
    (answer,) = _play(hermes_home, tmp_path, [{"action": "list"}])
    assert answer["count"] == 2
    assert answer["skipped"] == ["skipped job 'noprompt1' (entry 2) of jobs.json: it has no prompt"]
    (refused,) = _play(hermes_home, tmp_path, [{"action": "remove", "job_id": "noprompt1"}])
    assert refused["success"] is False and "not found" in refused["error"]


def test_esc_during_cronjob_run_stops_the_jobs_session(hermes_home: Path, tmp_path: Path) -> None:
    import threading
    import time

    jobs = CronJobs(hermes_home)
    job = jobs.create("Count the quokkas slowly", "every 1d")
    run = {"action": "run", "job_id": job.id}
    scenario = {
        "name": "run",
        "calls": [
            {"tool_calls": [{"name": "cronjob", "id": "c1", "arguments": run}]},
            {"match": "Count the quokkas", "fault": {"kind": "stall"}},  # the job's model never answers
            {"text": "unreached"},
        ],
    }
    with ScriptedServer(scenario) as server:
        agent, store, _ui = make_agent(server, hermes_home, tmp_path)
        turn = threading.Thread(target=agent.run_conversation, args=("run it",))
        try:
            turn.start()
            assert server.wait_for_requests(2, timeout=30), "the job's session asked its model"
            agent.interrupt()
            started = time.monotonic()
            turn.join(20)
            took = time.monotonic() - started
        finally:
            agent.close()
            store.close()
    assert not turn.is_alive() and took < 10, took
    after = jobs.get(job.id)
    assert after is not None and after.raw["last_status"] == "error" and "fire_claim" not in after.raw
    (output,) = jobs.outputs(job.id)
    assert "**Error:**" in output.read_text()
