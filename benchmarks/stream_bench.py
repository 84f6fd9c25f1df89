"""How much does the UI cost while a long reply streams? Ratios measured in one run, on this machine.

1. Baseline: the bare `openai` SDK consumes a 20,000-word Markdown reply streamed by the scripted server as
   fast as it can (no UI).
2. The app (headless Textual, real chat screen, real agent thread) displays the same stream: wall time
   until the reply is fully rendered and frozen, and the process CPU time. Ratio to (1).
3. The same reply streamed after 300 earlier turns (real turns through the agent, with tool panels) are in
   the transcript. Ratio to (2): the 300th turn should stream as smoothly as the first.

Run: python benchmarks/stream_bench.py [--words 20000] [--turns 300]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pydantic import SecretStr  # noqa: E402

from agent.config import Settings  # noqa: E402
from agent.scripted import ScriptedServer  # noqa: E402

WORDS = [
    "agent",
    "stream",
    "token",
    "model",
    "reply",
    "terminal",
    "panel",
    "widget",
    "render",
    "layout",
    "markdown",
    "table",
    "column",
    "session",
    "search",
    "approval",
    "command",
    "history",
    "buffer",
    "thread",
    "event",
    "queue",
    "worker",
    "cursor",
    "scroll",
    "anchor",
    "frame",
    "budget",
    "context",
]


def make_markdown(words: int, seed: int = 7) -> str:
    """Realistic Markdown: headings, paragraphs, lists, code blocks and a table now and then."""
    rng = random.Random(seed)
    parts: list[str] = []
    count = 0
    section = 0
    while count < words:
        section += 1
        parts.append(f"## Section {section}\n")
        for _ in range(3):
            n = rng.randint(40, 90)
            parts.append(" ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + ".\n")
            count += n
        items = rng.randint(3, 6)
        parts.append(
            "\n".join(
                f"- **{rng.choice(WORDS)}**: " + " ".join(rng.choice(WORDS) for _ in range(8))
                for _ in range(items)
            )
            + "\n"
        )
        count += items * 9
        if section % 3 == 0:
            parts.append(
                "```python\n"
                + "\n".join(f"def {rng.choice(WORDS)}_{i}(x):\n    return x + {i}" for i in range(4))
                + "\n```\n"
            )
            count += 24
        if section % 5 == 0:
            parts.append(
                "| name | value |\n|---|---|\n"
                + "\n".join(f"| {rng.choice(WORDS)} | {i} |" for i in range(5))
                + "\n"
            )
            count += 15
    return "\n".join(parts)


def measure(fn: Any) -> tuple[float, float, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def bare_sdk(text: str) -> tuple[float, float]:
    import openai

    with ScriptedServer({"name": "bench", "calls": [{"text": text, "chunk_size": 4}]}) as server:
        client = openai.OpenAI(base_url=server.openai_base_url, api_key="k", max_retries=0)

        def consume() -> str:
            out = []
            stream = client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "go"}], stream=True
            )
            for chunk in stream:
                if chunk.choices and chunk.choices[0].delta.content:
                    out.append(chunk.choices[0].delta.content)
            return "".join(out)

        wall, cpu, got = measure(consume)
        assert got == text
    return wall, cpu


def app_stream(text: str, earlier_turns: int) -> tuple[float, float, int]:
    from hermes_tui.app import HermesApp
    from hermes_tui.screens.chat import ChatScreen
    from widgets.assistant_message import AssistantMessage

    short = "Done. Here is a short summary:\n\n- one thing\n- another thing\n\n`ok`"
    calls: list[dict[str, Any]] = []
    for i in range(earlier_turns):
        if i % 3 == 0:
            calls.append({"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]})
        calls.append({"text": f"Turn {i}. " + short})
    calls.append({"text": text, "chunk_size": 4})
    result: dict[str, Any] = {}

    async def main() -> None:
        with (
            tempfile.TemporaryDirectory() as tmp,
            ScriptedServer({"name": "bench", "calls": calls}) as server,
        ):
            work = Path(tmp)
            (work / "notes.txt").write_text("some notes\n" * 20)
            settings = Settings(
                model="bench",
                provider="custom",
                base_url=server.openai_base_url,
                api_key=SecretStr("k"),
                auto_title=False,
                hermes_home=work / "home",
                cwd=work,
            )
            app = HermesApp(settings)
            async with app.run_test(size=(120, 40)) as pilot:
                while not any(isinstance(s, ChatScreen) for s in app.screen_stack):
                    await pilot.pause(0.01)
                chat = next(s for s in app.screen_stack if isinstance(s, ChatScreen))

                async def turn(message: str) -> None:
                    chat.send(message)
                    while chat.busy:
                        await asyncio.sleep(0.005)

                for i in range(earlier_turns):
                    await turn(f"earlier question {i}")
                wall, cpu = time.perf_counter(), time.process_time()
                await turn("the long one")
                replies = list(chat.transcript.query(AssistantMessage))
                last = replies[-1]
                while not (last.is_finished and last.is_drained):
                    await asyncio.sleep(0.005)
                await pilot.pause()
                result["wall"] = time.perf_counter() - wall
                result["cpu"] = time.process_time() - cpu
                result["widgets"] = len(list(chat.query("*")))
                assert last.text == text, "the displayed reply differs from the stream"

    asyncio.run(main())
    return result["wall"], result["cpu"], result["widgets"]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--words", type=int, default=20_000)
    parser.add_argument("--turns", type=int, default=300)
    args = parser.parse_args()
    text = make_markdown(args.words)
    print(f"reply: {len(text.split())} words, {len(text):,} chars, ~{len(text) // 4:,} chunks of 4 chars")
    base_wall, base_cpu = bare_sdk(text)
    print(f"bare openai SDK, no UI        wall {base_wall:6.2f} s   cpu {base_cpu:6.2f} s")
    first_wall, first_cpu, first_widgets = app_stream(text, 0)
    print(
        f"app, empty transcript         wall {first_wall:6.2f} s   cpu {first_cpu:6.2f} s   "
        f"widgets {first_widgets}   ratio to SDK: wall x{first_wall / base_wall:.2f}, "
        f"cpu x{first_cpu / base_cpu:.2f}"
    )
    late_wall, late_cpu, late_widgets = app_stream(text, args.turns)
    print(
        f"app, after {args.turns} turns          wall {late_wall:6.2f} s   cpu {late_cpu:6.2f} s   "
        f"widgets {late_widgets}   ratio to empty transcript: wall x{late_wall / first_wall:.2f}, "
        f"cpu x{late_cpu / first_cpu:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
