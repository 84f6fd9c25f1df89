"""`web_search` and `web_extract`, the `web` toolset.

web_search needs a search backend (`agent.config.web`); without one it is not offered and `/tools` says
what to set. web_extract needs nothing: it fetches pages itself (`agent.web.fetch`), or through Firecrawl
when that is the backend. Both only read, so the executor runs several at once.

A web_extract of several pages shares the tool-output budget between them, each cut in its middle by the
one truncation helper (`agent.toolkit.truncate`), so no page is lost to a long neighbour and the executor
never cuts the result again.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from pydantic import BaseModel, ConfigDict, Field

from agent.config.web import WebSettings
from agent.toolkit.registry import Tool, ToolContext, ToolResult
from agent.toolkit.truncate import truncate_middle
from agent.web.fetch import Page, extract_page

MAX_URLS = 5
PAGE_SEPARATOR = "\n\n---\n\n"


def _web(ctx: ToolContext) -> WebSettings:
    settings = ctx.settings
    return settings.web if settings is not None else WebSettings()


def search_requirement(settings: object) -> str | None:
    web = getattr(settings, "web", None)
    return (web if isinstance(web, WebSettings) else WebSettings()).unavailable()


class WebSearchArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")

    query: str = Field(description="What to search for, as you would type it into a search engine.")
    limit: int = Field(default=5, ge=1, le=20, description="How many results (default 5).")


class WebExtractArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")

    urls: list[str] = Field(
        min_length=1,
        max_length=MAX_URLS,
        description=f"The http(s) URLs to read (at most {MAX_URLS}).",
    )


def run_web_search(args: WebSearchArgs, ctx: ToolContext) -> ToolResult:
    from agent.web.search import SearchError, search

    query = " ".join(args.query.split())
    if not query:
        return ToolResult.error("The query is empty.")
    try:
        backend, collected = search(_web(ctx), query, args.limit, ctx.interrupt)
    except SearchError as exc:
        if ctx.interrupt.is_set():
            return ToolResult(content="[web search interrupted by user]", status="cancelled")
        return ToolResult.error(f"web search failed: {exc}")
    results = collected.results
    skipped = f" ({collected.skipped} malformed results skipped)" if collected.skipped else ""
    if not results:
        return ToolResult(
            content=f'No results for "{query}" ({backend}){skipped}.',
            data={"backend": backend, "skipped": collected.skipped},
        )
    lines = [f'Results for "{query}" ({backend}){skipped}:']
    for number, result in enumerate(results, 1):
        lines.append(f"{number}. {result.title}\n   {result.url}")
        if result.snippet:
            lines.append(f"   {result.snippet}")
    lines.append("Read a page with web_extract.")
    rows = [{"title": r.title, "url": r.url, "snippet": r.snippet} for r in results]
    data = {"backend": backend, "results": rows, "skipped": collected.skipped}
    return ToolResult(content="\n".join(lines), data=data)


def run_web_extract(args: WebExtractArgs, ctx: ToolContext) -> ToolResult:
    web = _web(ctx)
    urls = list(dict.fromkeys(u.strip() for u in args.urls if u.strip()))
    if not urls:
        return ToolResult.error("No URL given.")
    firecrawl = web.search_backend == "firecrawl"

    def one(url: str) -> Page:
        return extract_page(url, web, ctx.interrupt)

    with ThreadPoolExecutor(max_workers=len(urls), thread_name_prefix="web-extract") as pool:
        pages = list(pool.map(one, urls))
    share = max(1_000, (ctx.output_budget - 200 * len(pages)) // len(pages))
    parts = [_page_text(page, share) for page in pages]
    failed = sum(1 for p in pages if p.error)
    data = {
        "pages": [{"url": p.url, "title": p.title, "error": p.error, "cut": p.cut} for p in pages],
        "via": "firecrawl" if firecrawl else "direct",
    }
    content = PAGE_SEPARATOR.join(parts)
    if ctx.interrupt.is_set():
        return ToolResult(
            content=content + "\n[web_extract interrupted by user]", status="cancelled", data=data
        )
    if failed == len(pages):
        return ToolResult(content=content, status="error", data=data)
    return ToolResult(content=content, data=data)


def _page_text(page: Page, share: int) -> str:
    titled = page.title and not page.text.lstrip().startswith(f"# {page.title}")
    head = f"# {page.title}\nURL: {page.url}" if titled else f"URL: {page.url}"
    if page.final_url and page.final_url.rstrip("/") != page.url.rstrip("/"):
        head += f"\n(redirected to {page.final_url})"
    if page.error:
        return f"{head}\n[{page.error}]"
    text = page.text.strip()
    notes = []
    if page.cut:
        notes.append(f"[the page is over the read limit ({page.bytes_read:,} bytes): only its start is here]")
    if len(text) > share:
        notes.append(
            f"[the page has {len(text):,} characters; its middle is omitted to fit the tool-output budget]"
        )
        text = truncate_middle(text, share)
    return "\n".join([head, "", text, *notes])


WEB_SEARCH_TOOL = Tool(
    name="web_search",
    toolset="web",
    description=(
        "Search the web. Returns a short list of results (title, URL, snippet); read a result with "
        "web_extract. Prefer specific queries; search again with other words when the results miss."
    ),
    args_model=WebSearchArgs,
    handler=run_web_search,
    parallel_safe=True,
    summary_arg="query",
    requires=search_requirement,
)

WEB_EXTRACT_TOOL = Tool(
    name="web_extract",
    toolset="web",
    description=(
        "Read web pages: the main text of each URL as Markdown (navigation, headers and footers left out); "
        "plain text and JSON as they are; PDFs and other binaries are not extracted. Cloud metadata and "
        "link-local addresses are refused; localhost and private networks only when the user allows them "
        "(web.allow_private_urls). Long pages are cut in the middle."
    ),
    args_model=WebExtractArgs,
    handler=run_web_extract,
    parallel_safe=True,
    summary_arg="urls",
)

TOOLS = [WEB_SEARCH_TOOL, WEB_EXTRACT_TOOL]
