"""The UI fuzz test, in-process: seeded random sequences of keys, pastes, clicks, resizes and slash commands
over every screen and focus position of the real app, while turns stream, ask and wait for approval
(`tests/fuzz/pilot_run.py` says what fails a sequence).

The suite plays `RUNS` apps of `SEQUENCES` sequences of `STEPS` actions (80 sequences, about 25 seconds
alone on two cores, 40 core-seconds in a whole run: the suite's largest test, so kept to this). The seeds
move on each day (UTC), so the suite's runs cover ever more sequences while one run stays short; a run
is the same all day, and a failure prints the seed that replays it. By hand:

    HERMES_FUZZ_SEED=1234 HERMES_FUZZ_STEPS=40 python -m pytest -n 0 tests/fuzz -k pilot   # one sequence
    HERMES_FUZZ_SEQUENCES=2000 HERMES_FUZZ_FIRST=100000 python -m pytest -n 0 tests/fuzz -k pilot  # long run
    HERMES_FUZZ_SHARED=1 ...      # the sequences one after the other in one app (as the suite plays them)

A failure prints the seed, the step, the last actions, the screen stack and the exception, and the line
that replays it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.fuzz.pilot_run import run_fuzz

RUNS = 4
SEQUENCES = 20
STEPS = 5
WINDOWS = 1000
"""Days before the seeds start again from 0: day d plays from (d % WINDOWS) * RUNS * SEQUENCES."""


def first_seed() -> int:
    """Today's window: the day's number (UTC), so every run of one day plays the same sequences."""
    day = datetime.now(UTC).date().toordinal()
    return (day % WINDOWS) * RUNS * SEQUENCES


def _env(name: str) -> int | None:
    value = os.environ.get(f"HERMES_FUZZ_{name}")
    return int(value) if value else None


@dataclass(frozen=True)
class Play:
    """The sequences one test plays: `seeds`, `steps` actions each, one after the other in one app (as the
    suite plays them) or each in an app of its own (`fresh`)."""

    seeds: list[int]
    steps: int
    fresh: bool


def _plays() -> list[Play]:
    """Today's `RUNS` plays; or, when the environment names seeds, the one play it asks for (the test is the
    same either way, so nothing is skipped: a replay, a long run)."""
    seed, count = _env("SEED"), _env("SEQUENCES")
    if seed is None and count is None:
        first = first_seed()
        return [
            Play(list(range(first + run * SEQUENCES, first + (run + 1) * SEQUENCES)), STEPS, fresh=False)
            for run in range(RUNS)
        ]
    first = seed if seed is not None else (_env("FIRST") or 0)
    return [Play(list(range(first, first + (count or 1))), _env("STEPS") or 40, fresh=not _env("SHARED"))]


@pytest.fixture(autouse=True)
def _no_editor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl+G opens $EDITOR: one that exits at once, so a key never waits on a program."""
    monkeypatch.setenv("EDITOR", "true")
    monkeypatch.setenv("VISUAL", "true")


@pytest.mark.slow
@pytest.mark.parametrize("run", range(len(_plays())))  # the index, not the seeds: the day can turn mid-run
async def test_the_ui_survives_random_sequences(run: int, hermes_home: Path, tmp_path: Path) -> None:
    play = _plays()[run]
    totals = await run_fuzz(play.seeds, play.steps, hermes_home, tmp_path, fresh=play.fresh)
    print(
        f"\nUI fuzz: {totals.sequences} sequences from seed {play.seeds[0]}, {totals.steps} steps, "
        f"{totals.apps} apps, "
        f"{totals.quits} quits, {totals.approvals} approvals answered ({totals.allowed} allowed); "
        f"screens: {', '.join(sorted(totals.screens))}"
    )
    assert totals.sequences == len(play.seeds) and totals.steps >= len(play.seeds)
