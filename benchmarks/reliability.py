"""The long reliability run: `python benchmarks/reliability.py [--trials N] [--seed S]`.

Runs N trials of each kill -9 phase and of the fuzz, and the provider, two-writer and storage matrices, all
checked by `tests/reliability/campaign.py`; prints the table (trials, failures, messages lost, text lost in
max seconds per fault kind). Exit 1 when any trial failed or lost more than a second of text.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.reliability.campaign import campaign, table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--seed", type=int, default=20)
    args = parser.parse_args()
    started = time.monotonic()
    rows = campaign(args.trials, args.seed)
    print(table(rows))
    print(f"({time.monotonic() - started:.0f} s)")
    bad = any(row.failures or row.messages_lost or row.text_lost_s > 1.0 for row in rows)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
