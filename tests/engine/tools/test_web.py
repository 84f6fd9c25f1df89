"""web_search and web_extract against loopback stand-ins of the search APIs and a page server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.config.settings import Settings
from agent.config.web import NO_BACKEND, load_web_settings
from agent.session.catalogue import default_registry
from agent.toolkit.executor import _Planned, plan_segments
from agent.toolkit.registry import ToolContext, ToolResult
from agent.toolkit.toolsets import SessionToolsets
from agent.tools.web import WebExtractArgs, WebSearchArgs, run_web_extract, run_web_search
from scripted import ScriptedServer
from tests.engine.helpers import API_PARAMS, api_overrides, make_agent, tool_results
from tests.web_standins import KEYS, WebStandIn

BACKENDS = ["searxng", "tavily", "exa", "firecrawl"]


@pytest.fixture
def web() -> Iterator[WebStandIn]:
    with WebStandIn() as standin:
        yield standin


def ctx_for(tmp_path: Path, web_settings, budget: int = 50_000) -> ToolContext:
    return ToolContext(
        cwd=tmp_path,
        session_id="s",
        call_id="c",
        interrupt=threading.Event(),
        hermes_home=tmp_path,
        settings=Settings(web=web_settings),
        output_budget=budget,
    )


def search(ctx: ToolContext, query: str, limit: int = 5) -> ToolResult:
    return run_web_search(WebSearchArgs(query=query, limit=limit), ctx)


def extract(ctx: ToolContext, *urls: str) -> ToolResult:
    return run_web_extract(WebExtractArgs(urls=list(urls)), ctx)


# ---------------------------------------------------------------------------------------------- search


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_backend_answers_with_a_compact_list(tmp_path: Path, web: WebStandIn, backend: str) -> None:
    result = search(ctx_for(tmp_path, web.settings(backend)), "octopus rna", limit=2)
    assert result.status == "ok", result.content
    lines = result.content.splitlines()
    assert lines[0].startswith('Results for "octopus rna"')
    assert f"1. Octopus Rna: a guide ({backend})" in lines
    assert f"   https://guide.example/{backend}/octopus-rna" in lines
    assert "   Everything about octopus rna, explained step by step." in lines
    assert [r["url"] for r in result.data["results"]][1] == "https://wiki.example/octopus_rna"
    sent = web.searches()[-1]
    if backend == "searxng":
        assert (
            sent.method == "GET" and sent.query["q"] == ["octopus rna"] and sent.query["format"] == ["json"]
        )
    else:
        assert sent.method == "POST" and sent.body["query"] == "octopus rna"
    key_header = {"tavily": "authorization", "exa": "x-api-key", "firecrawl": "authorization"}.get(backend)
    if key_header:
        assert KEYS[backend] in sent.headers[key_header]


def test_a_refused_key_is_a_clear_error(tmp_path: Path, web: WebStandIn) -> None:
    from pydantic import SecretStr

    settings = web.settings("tavily", tavily_api_key=SecretStr("wrong"))
    result = search(ctx_for(tmp_path, settings), "anything")
    assert result.status == "error"
    assert "Tavily answered HTTP 401" in result.content
    assert "wrong" not in result.content


def test_web_backend_chooses_among_configured_backends(web: WebStandIn) -> None:
    env = {"TAVILY_API_KEY": "t", "SEARXNG_URL": f"{web.url}/searxng"}
    first, _, _ = load_web_settings(None, None, env)
    assert first.search_backend == "tavily"  # Hermes' order when web.backend is not set
    chosen, problems, _ = load_web_settings({"backend": "searxng"}, None, env)
    assert chosen.search_backend == "searxng" and problems == []
    missing, _, _ = load_web_settings({"backend": "exa"}, None, {})
    assert missing.unavailable() == "web.backend is exa but EXA_API_KEY is not set"
    assert load_web_settings(None, None, {})[0].unavailable() == NO_BACKEND
    overridden, _, _ = load_web_settings({"tavily_base_url": "http://127.0.0.1:1/t"}, None, env)
    assert overridden.tavily_base_url == "http://127.0.0.1:1/t"


def test_without_a_backend_web_search_is_not_offered_and_tools_says_why(tmp_path: Path) -> None:
    settings = Settings(hermes_home=tmp_path)
    toolsets = SessionToolsets(default_registry(), settings)
    names = {s["function"]["name"] for s in toolsets.schemas()}
    assert "web_search" not in names and "web_extract" in names
    status = toolsets.status("web")
    assert status.enabled and status.tools == ("web_extract", "web_search")
    assert f"web_search unavailable: {NO_BACKEND}" in status.reason
    refused = default_registry()
    refused.refusal = toolsets.refusal
    parsed = refused.parse_arguments("web_search", '{"query": "x"}')
    assert isinstance(parsed, ToolResult) and NO_BACKEND in parsed.content


def test_both_web_tools_run_in_parallel() -> None:
    registry = default_registry()
    planned = []
    for index, (name, args) in enumerate(
        [("web_search", '{"query": "a"}'), ("web_extract", '{"urls": ["http://127.0.0.1/x"]}')]
    ):
        from agent.core.messages import ToolCall

        planned.append(
            _Planned(index, ToolCall(str(index), name, args), registry.parse_arguments(name, args))
        )
    assert [kind for kind, _ in plan_segments(planned)] == ["parallel"]


@pytest.mark.parametrize("api", API_PARAMS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_search_results_reach_the_model(
    hermes_home: Path, tmp_path: Path, web: WebStandIn, backend: str, api: str
) -> None:
    scenario = {
        "name": "search",
        "calls": [
            {"tool_calls": [{"name": "web_search", "arguments": {"query": "octopus rna"}, "id": "s1"}]},
            {"text": "Found two pages."},
        ],
    }
    with ScriptedServer(scenario) as server:
        agent, store, _ = make_agent(
            server, hermes_home, tmp_path, web=web.settings(backend), **api_overrides(server, api)
        )
        offered = [t.get("name") or t["function"]["name"] for t in server_tools(agent)]
        assert "web_search" in offered
        result = agent.run_conversation("search the web for octopus rna")
        store.close()
    assert result.completed
    results = dict(tool_results(server.requests[1].body, api))
    assert f"https://guide.example/{backend}/octopus-rna" in results["s1"]


def server_tools(agent) -> list[dict]:
    return agent.toolsets.schemas()


# ---------------------------------------------------------------------------------------------- extract


def test_extract_keeps_the_article_and_drops_nav_and_footer(tmp_path: Path, web: WebStandIn) -> None:
    result = extract(ctx_for(tmp_path, web.settings()), f"{web.url}/pages/article")
    assert result.status == "ok"
    text = result.content
    assert text.startswith("URL: ") and "# How octopuses edit their RNA" in text
    assert "recode their proteins by editing messenger RNA" in text
    assert "## Cold water" in text and "- More editing in the cold" in text
    for chrome in ("About us", "Shop", "Subscribe to our newsletter", "Copyright 2026", "Privacy policy"):
        assert chrome not in text


def test_a_redirect_is_followed_and_named(tmp_path: Path, web: WebStandIn) -> None:
    result = extract(ctx_for(tmp_path, web.settings()), f"{web.url}/pages/moved")
    assert "(redirected to " in result.content and "/pages/article" in result.content
    assert "messenger RNA" in result.content


def test_a_redirect_loop_is_a_clear_result(tmp_path: Path, web: WebStandIn) -> None:
    result = extract(ctx_for(tmp_path, web.settings(max_redirects=5)), f"{web.url}/pages/loop-a")
    assert result.status == "error"
    assert "too many redirects (more than 5): a redirect loop?" in result.content


def test_a_10_mb_page_is_read_up_to_the_cap(tmp_path: Path, web: WebStandIn) -> None:
    settings = web.settings(max_page_bytes=1_000_000)
    result = extract(ctx_for(tmp_path, settings, budget=20_000), f"{web.url}/pages/big")
    assert result.status == "ok"
    assert "[the page is over the read limit (1,000,000 bytes): only its start is here]" in result.content
    assert "its middle is omitted to fit the tool-output budget" in result.content
    assert "characters omitted" in result.content  # the one truncation marker
    assert len(result.content) < 21_000
    assert result.data["pages"][0]["cut"] is True


def test_a_binary_and_a_pdf_are_not_extracted(tmp_path: Path, web: WebStandIn) -> None:
    result = extract(
        ctx_for(tmp_path, web.settings()), f"{web.url}/pages/binary", f"{web.url}/pages/report.pdf"
    )
    assert result.status == "error"
    assert (
        "[not extracted: application/octet-stream (16.0 KB); only HTML, text and JSON are]" in result.content
    )
    assert "[not extracted: application/pdf" in result.content
    assert "\x00" not in result.content


def test_a_page_that_does_not_answer_in_time_is_a_clear_result(tmp_path: Path) -> None:
    with WebStandIn(slow_seconds=10) as web:
        result = extract(ctx_for(tmp_path, web.settings(timeout=0.5)), f"{web.url}/pages/slow")
    assert result.status == "error"
    assert "[timed out after 0.5 s]" in result.content


def test_text_json_and_errors_page_by_page(tmp_path: Path, web: WebStandIn) -> None:
    result = extract(
        ctx_for(tmp_path, web.settings()),
        f"{web.url}/pages/notes.txt",
        f"{web.url}/pages/data.json",
        f"{web.url}/pages/missing",
        "file:///etc/passwd",
    )
    assert result.status == "ok"  # some pages were read
    pages = result.content.split("\n\n---\n\n")
    assert "plain notes\nline two" in pages[0]
    assert json.loads(pages[1].split("\n\n", 1)[1]) == {"answer": 42, "items": [1, 2]}
    assert "[HTTP 404 Not Found]" in pages[2]
    assert "only http(s) URLs can be fetched; read local files with read_file" in pages[3]


def test_the_budget_is_shared_so_every_page_keeps_its_start_and_end(tmp_path: Path, web: WebStandIn) -> None:
    ctx = ctx_for(tmp_path, web.settings(), budget=10_000)
    result = extract(ctx, f"{web.url}/pages/long", f"{web.url}/pages/article")
    assert "START" in result.content and "END" in result.content
    assert "messenger RNA" in result.content  # the short page after the long one is whole
    assert len(result.content) <= 10_000


def test_firecrawl_scrapes_public_pages_local_ones_are_fetched_here(tmp_path: Path, web: WebStandIn) -> None:
    ctx = ctx_for(tmp_path, web.settings("firecrawl"))
    result = extract(ctx, "https://docs.example/guide", f"{web.url}/pages/article")
    pages = result.content.split("\n\n---\n\n")
    assert pages[0].startswith("# Scraped page\nURL: https://docs.example/guide")
    assert "The main content of https://docs.example/guide." in pages[0]
    assert "messenger RNA" in pages[1]
    scraped = [r for r in web.requests if r.path == "/firecrawl/v2/scrape"]
    assert [r.body["url"] for r in scraped] == ["https://docs.example/guide"]
    assert scraped[0].headers["authorization"] == f"Bearer {KEYS['firecrawl']}"
