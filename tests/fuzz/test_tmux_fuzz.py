"""The UI fuzz test through a real terminal: a few seeded sequences of `tests/fuzz/plan.py` sent by tmux
to `hermes-tui --demo --scenario` (real key decoding, bracketed pastes with raw bytes, SGR clicks, window
resizes). `tests/fuzz/tmux_run.py` says what fails a sequence.

    HERMES_FUZZ_TMUX_SEED=7 HERMES_FUZZ_STEPS=40 python -m pytest -n 0 tests/fuzz -k tmux   # one replay
    HERMES_FUZZ_TMUX_SEQUENCES=50 python -m pytest -n 0 tests/fuzz -k tmux                  # a long run
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from hermes_tui.commands import new_registry
from tests.e2e.tmux_harness import needs_tmux
from tests.fuzz.plan import make_plan
from tests.fuzz.scenario import fuzz_scenario
from tests.fuzz.tmux_run import TmuxFuzz

pytestmark = [*needs_tmux, pytest.mark.slow]

SEEDS = (0, 1, 2, 3)
"""One sequence per mode (idle, streaming, clarify, approval)."""
STEPS = 30


def _seeds() -> list[int]:
    if seed := os.environ.get("HERMES_FUZZ_TMUX_SEED"):
        return [int(seed)]
    if count := os.environ.get("HERMES_FUZZ_TMUX_SEQUENCES"):
        first = int(os.environ.get("HERMES_FUZZ_FIRST", "0"))
        return list(range(first, first + int(count)))
    return list(SEEDS)


@pytest.mark.parametrize("seed", _seeds())
def test_the_ui_survives_random_sequences_in_a_terminal(seed: int, hermes_home: Path, tmp_path: Path) -> None:
    steps = int(os.environ.get("HERMES_FUZZ_STEPS") or STEPS)
    commands = [name for command in new_registry().commands() for name in (command.name, *command.aliases)]
    plan = make_plan(seed, steps, commands)
    scenario = tmp_path / "fuzz.yaml"
    scenario.write_text(yaml.safe_dump(fuzz_scenario(plan.mode), allow_unicode=True))
    cwd = tmp_path / "work"
    cwd.mkdir()
    run = TmuxFuzz(plan, scenario, hermes_home, cwd)
    try:
        run.play()
    finally:
        run.close()
