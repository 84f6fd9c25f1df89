"""The OpenAI-compatible servers people run locally, as the scripted server plays them (`server: llamacpp`,
`server: vllm`): a tool-using turn llama.cpp accepts, its empty overflow stream taken as an overflow, a reply
that fills the window ended with one line, and the window each server says learned for the meter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.core.events import StatusNotice, TurnFinished, UsageUpdated
from agent.transports import served_window
from agent.transports.served_window import (
    prewarm_served_window,
    served_window_question,
    session_served_window,
    window_from_models,
    window_from_props,
)
from scripted import ScriptedServer
from tests.cli_process import run_cli
from tests.engine.helpers import make_agent, make_settings


def _notices(ui: Any) -> list[str]:
    return [e.text for e in ui.of_type(StatusNotice)]


def _read_the_notes(cwd: Path) -> list[dict[str, Any]]:
    """A tool-calling turn: the model reads notes.txt (written in `cwd`), then says what it holds."""
    (cwd / "notes.txt").write_text("forty-two\n")
    return [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        {"text": "The notes say forty-two."},
    ]


def test_a_tool_calling_turn_completes_against_llamacpp(hermes_home: Path, tmp_path: Path) -> None:
    calls = _read_the_notes(tmp_path)
    with ScriptedServer({"name": "t", "server": "llamacpp", "calls": calls}) as server:
        agent, _, _ = make_agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("what do the notes say?")
        second = server.requests[1].body
    assert result.exit_reason == "completed", result.error
    assert result.final_text == "The notes say forty-two."
    asked = [m for m in second["messages"] if m["role"] == "assistant"]
    assert asked and asked[0]["tool_calls"] and asked[0]["content"] == ""


def test_a_tool_calling_turn_completes_against_llama_cpp_python(hermes_home: Path, tmp_path: Path) -> None:
    """llama-cpp-python's chat formats leave the tools out of the prompt unless the request names a
    `tool_choice`: a local endpoint is told `auto`, so its model sees them; its chatml-function-calling
    format answers that only unstreamed (a streamed one is an empty stream), so the request is sent again
    whole, and so are the session's next requests with tools."""
    calls = _read_the_notes(tmp_path)
    with ScriptedServer({"name": "t", "server": "llama-cpp-python", "calls": calls}) as server:
        agent, _, _ = make_agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("what do the notes say?")
        bodies = [r.body for r in server.requests]
    assert result.exit_reason == "completed", result.error
    assert result.final_text == "The notes say forty-two."
    assert [b.get("tool_choice") for b in bodies] == ["auto", "auto", "auto"]
    assert [b.get("stream") for b in bodies] == [True, False, False]
    assert "stream_options" not in bodies[1]
    asked = [m for m in bodies[2]["messages"] if m["role"] == "assistant"]
    assert asked and asked[0]["tool_calls"] and asked[0]["content"] == ""


def test_the_scripted_llama_cpp_python_hides_tools_sent_without_a_choice() -> None:
    import httpx

    from scripted.server_kinds import TOOLS_UNSEEN_TEXT

    tool = {"type": "function", "function": {"name": "x", "parameters": {"type": "object"}}}
    calls = [{"tool_calls": [{"name": "x", "arguments": {}}]}]
    with ScriptedServer({"name": "t", "server": "llama-cpp-python", "calls": calls}) as server:
        said = [{"role": "user", "content": "hi"}]
        body: dict[str, Any] = {"model": "m", "messages": said, "tools": [tool]}
        unseen = httpx.post(f"{server.openai_base_url}/chat/completions", json=body).json()
        seen = httpx.post(f"{server.openai_base_url}/chat/completions", json={**body, "tool_choice": "auto"})
    assert unseen["choices"][0]["message"]["content"] == TOOLS_UNSEEN_TEXT
    assert seen.json()["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "x"


def test_only_custom_and_local_endpoints_are_told_the_tool_choice() -> None:
    from agent.transports.endpoint import Endpoint

    assert Endpoint("custom", "https://llm.example.com/v1", "m").names_tool_choice
    assert Endpoint("", "http://127.0.0.1:8000/v1", "m").names_tool_choice
    assert Endpoint("lmstudio", "http://127.0.0.1:1234/v1", "m").names_tool_choice
    # A named provider at its default endpoint (base_url empty: no real host named in a test).
    assert not Endpoint("openai", "", "gpt-4o").names_tool_choice
    assert not Endpoint("openrouter", "", "a/b").names_tool_choice


def test_the_scripted_llamacpp_refuses_null_content_as_llamacpp_does() -> None:
    import httpx

    with ScriptedServer({"name": "t", "server": "llamacpp", "calls": ["never played"]}) as server:
        call = {"id": "c1", "type": "function", "function": {"name": "x", "arguments": "{}"}}
        body = {"model": "m", "messages": [{"role": "assistant", "content": None, "tool_calls": [call]}]}
        answer = httpx.post(f"{server.openai_base_url}/chat/completions", json=body)
        props = httpx.get(f"{server.base_url}/props").json()
    assert answer.status_code == 500 and "NoneType" in answer.json()["error"]["message"]
    assert window_from_props(props) == 4096


def test_an_empty_stream_at_a_full_window_is_an_overflow_said_in_one_line(
    hermes_home: Path, tmp_path: Path
) -> None:
    """llama.cpp streams nothing for a prompt over n_ctx: not retried as a server fault (3 times, "closed
    the stream without a reply"), but asked once unstreamed, which llama.cpp refuses as an overflow; with
    nothing to compress, one line."""
    with ScriptedServer(
        {"name": "t", "server": "llamacpp", "n_ctx": 20000, "calls": ["unreachable"]}
    ) as server:
        agent, _, ui = make_agent(server, hermes_home, tmp_path, max_retries=3)
        result = agent.run_conversation("read this: " + "word " * 20000)
        posts = len(server.requests)
    assert result.exit_reason == "error:context_overflow", result.error
    assert posts == 2  # never sent again as it was: once more unstreamed, where the overflow is said
    assert result.error is not None and "too long for this model" in result.error.user_line()
    assert not any("without a reply" in n for n in _notices(ui))
    finished = ui.of_type(TurnFinished)[-1]
    assert finished.error is not None and "\n" not in finished.error


def test_an_overflow_of_a_server_that_hides_its_window_is_said_in_one_line(
    hermes_home: Path, tmp_path: Path
) -> None:
    """llama-cpp-python has no `/props`: the window stays the default, and a streamed request over its window
    is dropped without a response ("Server disconnected without sending a response", which read as an
    unreachable server retried 3 times), but asked unstreamed it refuses the request as too long
    (`context_length_exceeded`): one line, no retries of a request that cannot fit."""
    scenario = {"name": "t", "server": "llama-cpp-python", "n_ctx": 2000, "calls": ["unreachable"]}
    with ScriptedServer(scenario) as server:
        agent, _, ui = make_agent(server, hermes_home, tmp_path, max_retries=3)
        result = agent.run_conversation("read this: " + "word " * 3000)
        streamed = [r.body.get("stream") for r in server.requests]
    assert agent.context_window == 2000  # learned from the refusal: "maximum context length is 2000 tokens"
    told = ui.of_type(UsageUpdated)[-1]
    assert told.context_window == 2000 and told.session_cost is None  # the meter is told at once
    assert result.exit_reason == "error:context_overflow", result.error
    assert streamed == [True, False]
    # Every built-in tool's schema alone is over 2,000 tokens: the line says so rather than "too long".
    assert (
        result.error is not None
        and "does not fit this model's 2,000-token window" in result.error.user_line()
    )
    assert not any("without a reply" in n or "Could not reach" in n for n in _notices(ui))


def test_a_server_that_sends_nothing_streamed_or_not_is_named_with_n_ctx(
    hermes_home: Path, tmp_path: Path
) -> None:
    """A local server that answers every request with an empty event stream (`stream: false` too): retried
    as a server fault, and the line it ends with says what a local server's empty stream most likely means."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    streams: list[bool] = []

    class Empty(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_error(404)

        def do_POST(self) -> None:
            import json

            streams.append(json.loads(self.rfile.read(int(self.headers["Content-Length"])))["stream"])
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Empty)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with ScriptedServer({"name": "t", "calls": []}) as server:
            url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
            agent, _, _ = make_agent(server, hermes_home, tmp_path, max_retries=1, base_url=url)
            result = agent.run_conversation("hello")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert streams == [True, False, True, False]  # each try asked again unstreamed
    assert result.error is not None
    line = result.error.user_line()
    assert "without a reply" in line and "n_ctx" in line and "model.context_length" in line, line


def test_an_empty_overflow_stream_is_compressed_then_retried(hermes_home: Path, tmp_path: Path) -> None:
    history = [{"text": f"answer {i} " + "detail " * 250} for i in range(12)]
    calls = [*history, {"text": "Summary of the middle."}, {"text": "final answer"}]
    # The server counts 3 bytes a token: the 13th request (about 8,100) is over, the 12th (about 7,500) is
    # not; the client's estimate (4 bytes a token) stays under its compression threshold (0.9 of the
    # window). One small toolset, so the sizes do not move with the built-in tools' schemas (28 tools are
    # ~9,400 tokens: the window would be reached after 5 turns, too few to compress past protect_last_n).
    scenario = {"name": "t", "server": "llamacpp", "n_ctx": 7800, "calls": calls}
    with ScriptedServer(scenario) as server:
        agent, store, ui = make_agent(
            server,
            hermes_home,
            tmp_path,
            toolsets=["todo"],
            compression_enabled=True,
            compression_threshold=0.9,
        )
        for i in range(12):
            agent.run_conversation(f"question {i}")
        result = agent.run_conversation("one more")
        requests = server.requests
    assert result.exit_reason == "completed" and result.final_text == "final answer", (
        _notices(ui),
        [(r.call_index, len(r.raw) // 3) for r in requests],
    )
    assert requests[-3].call_index is None  # the overflowing request, answered by an empty stream
    assert "tools" not in requests[-2].body  # the summary
    assert any("Compressed" in n for n in _notices(ui))
    assert any(m.meta.get("synthetic") == "compression" for m in store.load(agent.session_id).messages)


def test_an_overflow_of_llama_cpp_python_is_compressed_then_retried(
    hermes_home: Path, tmp_path: Path
) -> None:
    """No `/props`, so no window before the overflow: its refusal (asked unstreamed) states it, the middle
    of the conversation is summarized, and the request fits."""
    history = [{"text": f"answer {i} " + "detail " * 250} for i in range(12)]
    calls = [*history, {"text": "Summary of the middle."}, {"text": "final answer"}]
    scenario = {"name": "t", "server": "llama-cpp-python", "n_ctx": 7800, "calls": calls}
    with ScriptedServer(scenario) as server:
        agent, _, ui = make_agent(server, hermes_home, tmp_path, toolsets=["todo"], compression_enabled=True)
        for i in range(12):
            agent.run_conversation(f"question {i}")
        assert agent.settings.context_window is None
        result = agent.run_conversation("one more")
        requests = server.requests
    assert result.exit_reason == "completed" and result.final_text == "final answer", _notices(ui)
    assert agent.context_window == 7800
    assert [r.body.get("stream") for r in requests[:2]] == [True, False]  # tools: sent whole from then on
    overflow, summary = requests[-3], requests[-2]
    assert overflow.call_index is None and overflow.body["stream"] is False  # refused, saying its window
    assert "tools" not in summary.body
    assert any("Compressed" in n for n in _notices(ui))


def test_the_window_llamacpp_states_in_its_refusal_is_read() -> None:
    from agent.core.errors import stated_context_window

    class Refused(Exception):
        def __init__(self, body: Any) -> None:
            super().__init__("Error code: 400")
            self.body = body

    llamacpp = {"error": {"type": "exceed_context_size_error", "n_prompt_tokens": 9000, "n_ctx": 4096}}
    assert stated_context_window(Refused(llamacpp)) == 4096
    openai = {"message": "This model's maximum context length is 128,000 tokens. However, ..."}
    assert stated_context_window(Refused(openai)) == 128000
    assert stated_context_window(Refused({"message": "too long"})) is None


def test_a_reply_that_fills_the_window_ends_with_one_line(hermes_home: Path, tmp_path: Path) -> None:
    cut = {"text": "a long answer that stops", "finish_reason": "length"}
    cut["usage"] = {"prompt_tokens": 19000, "completion_tokens": 1000}
    scenario = {"name": "t", "server": "llamacpp", "n_ctx": 20000, "calls": [cut, "never asked"]}
    with ScriptedServer(scenario) as server:
        agent, _, _ = make_agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("write a lot")
        posts = len(server.requests)
    assert posts == 1  # not "continued" into the same wall
    assert result.exit_reason == "truncated"
    assert result.error is not None and "context window ends (20,000 of 20,000 tokens)" in result.error.hint


def test_the_window_is_learned_from_llamacpp_props(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer({"name": "t", "server": "llamacpp", "n_ctx": 16384, "calls": ["hi"]}) as server:
        agent, _, ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("hello")
    assert agent.context_window == 16384
    assert ui.of_type(UsageUpdated)[-1].context_window == 16384
    agent.switch_model("another")
    assert agent.settings.context_window is None  # the old model's window is not kept for the new one


def test_the_window_asked_ahead_after_the_first_frame_is_the_first_sessions_own(
    hermes_home: Path, tmp_path: Path
) -> None:
    """The app's prewarm asks the window before the first Enter; the first session takes that answer (no
    round trip before its request), once: the next session asks for itself."""
    with ScriptedServer({"name": "t", "server": "llamacpp", "n_ctx": 16384, "calls": []}) as server:
        settings = make_settings(server, hermes_home, tmp_path)
        cloud = make_settings(server, hermes_home, tmp_path, provider="openrouter", base_url=None)
        prewarm_served_window(settings)
    question = served_window_question(settings)
    assert question is not None
    assert session_served_window(question) == 16384  # the server is gone: this is the answer asked ahead
    assert session_served_window(question) is None  # taken once; asked now, of no server
    assert served_window_question(cloud) is None  # clouds are not asked


def test_a_server_that_says_nothing_is_not_asked_twice_one_not_reached_is(
    hermes_home: Path, tmp_path: Path
) -> None:
    """Nothing said is an answer the first session takes (no second round trip before its request); a
    server the prewarm could not reach is asked again by the session (it may have started since)."""
    with ScriptedServer({"name": "t", "calls": []}) as server:  # no /props, no max_model_len
        settings = make_settings(server, hermes_home, tmp_path)
        question = served_window_question(settings)
        assert question is not None
        prewarm_served_window(settings)
        assert served_window._ASKED_AHEAD.pending(question)
        assert session_served_window(question) is None
    prewarm_served_window(settings)  # the server is gone: nothing kept
    assert not served_window._ASKED_AHEAD.pending(question)


def test_the_window_is_learned_from_a_vllm_model_card(hermes_home: Path, tmp_path: Path) -> None:
    scenario = {"name": "t", "model": "scripted", "server": "vllm", "n_ctx": 32768, "calls": ["hi"]}
    with ScriptedServer(scenario) as server:
        agent, _, _ = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("hello")
    assert agent.context_window == 32768


def test_a_configured_window_wins_and_a_plain_server_says_none(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer({"name": "t", "server": "llamacpp", "n_ctx": 8192, "calls": ["hi"]}) as server:
        agent, _, _ = make_agent(server, hermes_home, tmp_path, context_window=50000)
        agent.run_conversation("hello")
    assert agent.context_window == 50000
    with ScriptedServer({"name": "t", "calls": ["hi"]}) as server:
        agent, _, _ = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("hello")
    assert agent.settings.context_window is None
    models = {"data": [{"id": "a", "max_model_len": 10}, {"id": "b", "max_model_len": 20}]}
    assert window_from_models(models, "b") == 20 and window_from_models(models, "c") is None


def test_provider_errors_are_shown_whole_and_decoded() -> None:
    from agent.core.errors import classify

    class Upstream(Exception):
        status_code = 502

        def __init__(self) -> None:
            super().__init__("bad gateway")
            long = "the llama.cpp slot crashed while loading " * 4
            self.body = {"message": f"upstream said:\\x0a{long}\\n(end)"}

    line = classify(Upstream(), provider="custom").user_line()
    assert "\\x0a" not in line and "\\n" not in line and "\n" not in line
    assert "(end)" in line  # not cut at 80 characters


def test_a_broken_stream_keeps_its_partial_reply_in_z(hermes_home: Path, tmp_path: Path) -> None:
    import json
    import os

    cut = {"kind": "cut", "after_chunks": 3}
    call = {"text": "The first half of the answer, then", "chunk_size": 5, "fault": cut}
    scenario = tmp_path / "cut.json"
    scenario.write_text(json.dumps({"name": "cut", "calls": [call] * 5}))
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "HERMES_HOME": str(hermes_home), "PYTHONPATH": root}
    # One retry (not the default three, whose backoff alone is ~15 s): the retry is cut again and prints
    # nothing twice.
    (hermes_home / "tui").mkdir()
    (hermes_home / "tui" / "config.yaml").write_text("max_retries: 1\n")
    done = run_cli(["-z", "go", "--scenario", str(scenario)], cwd=tmp_path, env=env, timeout=120)
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("The first half"), (done.stdout, done.stderr)
    assert done.stdout.strip() == "The first half"  # exactly what came
    assert "(the reply printed is partial)" in done.stderr.splitlines()[-1]


def test_an_overflow_the_tools_cause_names_them_with_their_sizes_and_the_fix(
    hermes_home: Path, tmp_path: Path
) -> None:
    """llama-cpp-python at 2,048 tokens with every built-in tool on: "Say hello" cannot fit, and compressing
    a one-message conversation cannot help. The line says what fills the request (the tools' schemas, the
    system prompt, the context files) with their sizes, and what to change."""
    (tmp_path / "AGENTS.md").write_text("Run the tests with make test.\n" * 40)
    scenario = {"name": "t", "server": "llama-cpp-python", "n_ctx": 2048, "calls": ["unreachable"]}
    with ScriptedServer(scenario) as server:
        agent, _, _ = make_agent(server, hermes_home, tmp_path, max_retries=3, compression_enabled=True)
        result = agent.run_conversation("Say hello")
        tools = len(server.requests[0].body["tools"])
    assert result.exit_reason == "error:context_overflow", result.error
    assert result.error is not None
    line = result.error.user_line()
    assert "2,048-token window" in line, line
    assert f"the {tools} tools' schemas about" in line and "the system prompt about" in line, line
    assert "context files about" in line, line
    assert "-t " in line and "model.context_length" in line, line
    assert "\n" not in line


def test_a_small_known_window_starts_with_a_note_on_what_the_tools_take(
    hermes_home: Path, tmp_path: Path
) -> None:
    """llama.cpp says its window in /props: at 32,768 tokens every built-in tool takes a good share of it,
    said once, before the first request, with the fix; a second turn does not repeat it."""
    scenario = {"name": "t", "server": "llamacpp", "n_ctx": 32768, "calls": ["hi", "again"]}
    with ScriptedServer(scenario) as server:
        agent, _, ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("hello")
        agent.run_conversation("and again")
    assert agent.context_window == 32768
    notes = [n for n in _notices(ui) if "window is" in n]
    assert len(notes) == 1, _notices(ui)
    assert "tools' schemas about" in notes[0] and "%" in notes[0] and "-t " in notes[0], notes[0]


def test_a_large_window_gets_no_note(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer({"name": "t", "server": "llamacpp", "n_ctx": 1_000_000, "calls": ["hi"]}) as server:
        agent, _, ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("hello")
    assert not any("window is" in n for n in _notices(ui))
