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


def _by_hand() -> bool:
    return _env("SEED") is not None or _env("SEQUENCES") is not None


@pytest.fixture(autouse=True)
def _no_editor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl+G opens $EDITOR: one that exits at once, so a key never waits on a program."""
    monkeypatch.setenv("EDITOR", "true")
    monkeypatch.setenv("VISUAL", "true")


@pytest.mark.slow
@pytest.mark.parametrize("run", range(RUNS))
async def test_the_ui_survives_random_sequences(run: int, hermes_home: Path, tmp_path: Path) -> None:
    if _by_hand():
        pytest.skip("HERMES_FUZZ_SEED/SEQUENCES given: test_the_ui_fuzz_by_hand runs them")
    start = first_seed() + run * SEQUENCES
    seeds = list(range(start, start + SEQUENCES))
    totals = await run_fuzz(seeds, STEPS, hermes_home, tmp_path)
    assert totals.sequences == SEQUENCES and totals.steps >= SEQUENCES


@pytest.mark.slow
async def test_the_ui_fuzz_by_hand(hermes_home: Path, tmp_path: Path) -> None:
    """The sequences the environment names: one seed to replay, or a long run."""
    if not _by_hand():
        pytest.skip("set HERMES_FUZZ_SEED (one sequence) or HERMES_FUZZ_SEQUENCES (a long run)")
    seed = _env("SEED")
    count = _env("SEQUENCES") or 1
    first = seed if seed is not None else (_env("FIRST") or 0)
    steps = _env("STEPS") or 40
    shared = bool(_env("SHARED"))
    totals = await run_fuzz(list(range(first, first + count)), steps, hermes_home, tmp_path, fresh=not shared)
    print(
        f"\nUI fuzz: {totals.sequences} sequences from seed {first}, {totals.steps} steps, "
        f"{totals.apps} apps, "
        f"{totals.quits} quits, {totals.approvals} approvals answered ({totals.allowed} allowed); "
        f"screens: {', '.join(sorted(totals.screens))}"
    )
