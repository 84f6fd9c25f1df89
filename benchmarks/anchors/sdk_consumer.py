"""Anchor: the bare `openai` SDK consuming the benchmark's stream, no UI. Run by terminal_stream.py.

It imports the SDK and builds its client first, prints `ready`, then waits for a line on stdin so the
import is not timed; it then streams one reply, the way any SDK user would (one model object per chunk),
and prints one JSON line: monotonic times of the request and of the last word, and its own CPU time in
that window (all threads).

Usage: python sdk_consumer.py BASE_URL LAST_WORD
"""

from __future__ import annotations

import json
import sys
import time

import openai


def main() -> int:
    base_url, last_word = sys.argv[1], sys.argv[2]
    client = openai.OpenAI(base_url=base_url, api_key="bench", max_retries=0)
    print("ready", flush=True)
    sys.stdin.readline()
    started, cpu0 = time.monotonic(), time.process_time()
    stream = client.chat.completions.create(
        model="bench", messages=[{"role": "user", "content": "go"}], stream=True
    )
    parts: list[str] = []
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            parts.append(chunk.choices[0].delta.content)
    finished, cpu1 = time.monotonic(), time.process_time()
    text = "".join(parts)
    print(
        json.dumps(
            {
                "started": started,
                "finished": finished,
                "cpu": cpu1 - cpu0,
                "complete": text.rstrip().endswith(last_word + "."),
                "chars": len(text),
            }
        ),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
