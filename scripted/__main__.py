"""Serve a scenario for manual use: `python -m scripted SCENARIO.yaml [--port N]`."""

from __future__ import annotations

import argparse
import sys
import threading

from .scenario import ScenarioError, load_scenario_file
from .server import RecordedRequest, ScriptedServer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scripted",
        description="Serve a scripted model scenario on 127.0.0.1 (OpenAI and Anthropic APIs).",
    )
    parser.add_argument("scenario", help="path to a scenario YAML file")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default: any free port)")
    parser.add_argument("--quiet", action="store_true", help="do not print a line per request")
    args = parser.parse_args(argv)

    try:
        scenario = load_scenario_file(args.scenario)
    except ScenarioError as exc:
        print(f"error: cannot load scenario {exc}", file=sys.stderr)
        return 2

    def show(request: RecordedRequest) -> None:
        which = "fallback/none" if request.call_index is None else f"call {request.call_index + 1}"
        kind = "stream" if request.stream else "json"
        print(f"{request.api:9} {request.path} ({kind}) -> {which}", flush=True)

    server = ScriptedServer(scenario, port=args.port, on_request=None if args.quiet else show)
    try:
        server.start()
    except OSError as exc:
        print(f"error: cannot listen on 127.0.0.1:{args.port}: {exc}", file=sys.stderr)
        return 1
    print(f"scenario {scenario.name!r}: {len(scenario.calls)} calls, model {scenario.model!r}")
    print(f"OpenAI base URL:    {server.openai_base_url}")
    print(f"Anthropic base URL: {server.anthropic_base_url}")
    print("Ctrl+C to stop.", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
