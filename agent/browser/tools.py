"""Hermes' browser tools (tools/browser_tool.py): names, arguments and JSON answers as Hermes gives them.

`browser_navigate` opens a page and answers with its accessibility-tree snapshot, each element the model
can act on marked `[ref=e3]`; `browser_click` / `browser_type` take such a ref (`@e3`). The snapshot is
Playwright's AI snapshot (the format Hermes' agent-browser prints); refs stay valid until the next
snapshot. The session's one browser (`BrowserSession`, in `SessionState.browser`) starts on the first call
and closes with the session. `browser_vision` screenshots the page and asks the vision route about it.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agent.browser.chromium import chromium_path, unavailable_reason
from agent.browser.session import BrowserInterrupted, BrowserSession
from agent.toolkit.registry import Tool, ToolContext, ToolResult
from agent.toolkit.state import SessionState
from agent.toolkit.toolsets import BROWSER_DESCRIPTION, CATALOG, Toolset
from agent.web.url_policy import browser_refusal

__all__ = ["TOOLS", "close_browser", "session_browser"]

SNAPSHOT_CHARS = 15_000
_lock = threading.Lock()


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore")


class NavigateArgs(_Args):
    url: str = Field(description="The URL to navigate to (e.g., 'https://example.com')")


class SnapshotArgs(_Args):
    full: bool = Field(
        False,
        description="If true, returns complete page content. If false (default), returns compact view with "
        "interactive elements only.",
    )


class RefArgs(_Args):
    ref: str = Field(description="The element reference from the snapshot (e.g., '@e5', '@e12')")


class TypeArgs(_Args):
    ref: str = Field(description="The element reference from the snapshot (e.g., '@e3')")
    text: str = Field(description="The text to type into the field")


class ScrollArgs(_Args):
    direction: Literal["up", "down"] = Field(description="Direction to scroll")


class NoArgs(_Args):
    pass


class PressArgs(_Args):
    key: str = Field(description="Key to press (e.g., 'Enter', 'Tab', 'Escape', 'ArrowDown')")


class VisionArgs(_Args):
    question: str = Field(
        description="What you want to know about the page visually. Be specific about what you're looking "
        "for."
    )


class ConsoleArgs(_Args):
    clear: bool = Field(False, description="If true, clear the message buffers after reading")
    expression: str | None = Field(
        None,
        description="JavaScript expression to evaluate in the page context. Return values are serialized to "
        "JSON. Example: 'document.title'",
    )


# --------------------------------------------------------------------------------------------- the session


def session_browser(ctx: ToolContext) -> BrowserSession | ToolResult:
    """The session's browser (made on first use), or why there can be none."""
    existing = ctx.state.browser
    if isinstance(existing, BrowserSession) and not existing.closed:
        return existing
    settings = ctx.settings
    configured = settings.browser_executable_path if settings is not None else None
    if settings is not None and (why := unavailable_reason(settings)):
        return ToolResult.error(why)
    executable = chromium_path(configured)
    if executable is None:
        return ToolResult.error("no Chromium found on PATH: sudo apt-get install -y chromium")
    with _lock:
        if not isinstance(ctx.state.browser, BrowserSession) or ctx.state.browser.closed:
            ctx.state.browser = BrowserSession(executable)
        browser = ctx.state.browser
    assert isinstance(browser, BrowserSession)
    return browser


def close_browser(state: SessionState) -> None:
    """Close the session's browser, if it started one (the agent calls this when it closes)."""
    browser = state.browser
    if isinstance(browser, BrowserSession):
        browser.close()
        state.browser = None


def _answer(payload: dict[str, Any], status: str = "ok") -> ToolResult:
    return ToolResult(content=json.dumps(payload, ensure_ascii=False), status=status, data={})


def _failure(message: str) -> ToolResult:
    return _answer({"success": False, "error": message}, "error")


def _one_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[0] if lines else type(exc).__name__
    return text.removeprefix("Error: ")[:300]


def _act(ctx: ToolContext, action: Any, needs_page: bool = True) -> ToolResult:
    """Run `action(page)` on the browser thread; an error or an interrupt is one line."""
    browser = session_browser(ctx)
    if isinstance(browser, ToolResult):
        return browser
    if needs_page and not browser.started:
        return _failure("No page is open: call browser_navigate first.")
    try:
        return browser.run(lambda: action(browser.page()), ctx.interrupt)  # type: ignore[no-any-return]
    except BrowserInterrupted:
        return ToolResult(content="[browser action interrupted by the user]", status="cancelled")
    except Exception as exc:
        return _failure(_one_line(exc))


def _snapshot(page: Any, full: bool = False) -> tuple[str, int]:
    text = str(page.locator("body").aria_snapshot(mode="ai"))
    if not full:
        text = "\n".join(
            line for line in text.splitlines() if "[ref=" in line or line.lstrip().startswith("- text")
        )
    count = text.count("[ref=")
    if len(text) > SNAPSHOT_CHARS:
        cut = len(text) - SNAPSHOT_CHARS
        text = (
            text[:SNAPSHOT_CHARS] + f"\n[... snapshot truncated: {cut} more characters; scroll or full=false]"
        )
    return text, count


def _locator(page: Any, ref: str) -> Any:
    return page.locator(f"aria-ref={ref.strip().lstrip('@')}")


# ------------------------------------------------------------------------------------------------ the tools


def browser_navigate(args: NavigateArgs, ctx: ToolContext) -> ToolResult:
    if why := browser_refusal(args.url):
        return _failure(f"Navigation refused: {why}")

    def go(page: Any) -> ToolResult:
        browser = ctx.state.browser
        assert isinstance(browser, BrowserSession)  # `_act` made it
        browser.navigate(args.url.strip())
        if why := browser_refusal(page.url):  # where a redirect took it
            page.goto("about:blank")
            return _failure(f"Navigation refused after a redirect: {why}")
        snapshot, count = _snapshot(page)
        return _answer(
            {
                "success": True,
                "url": page.url,
                "title": page.title(),
                "snapshot": snapshot,
                "element_count": count,
            }
        )

    return _act(ctx, go, needs_page=False)


def browser_snapshot(args: SnapshotArgs, ctx: ToolContext) -> ToolResult:
    def take(page: Any) -> ToolResult:
        snapshot, count = _snapshot(page, args.full)
        return _answer({"success": True, "snapshot": snapshot, "element_count": count})

    return _act(ctx, take)


def _ref(ref: str) -> str:
    return ref if ref.startswith("@") else f"@{ref}"


def browser_click(args: RefArgs, ctx: ToolContext) -> ToolResult:
    def click(page: Any) -> ToolResult:
        _locator(page, args.ref).click()
        return _answer({"success": True, "clicked": _ref(args.ref)})

    return _act(ctx, click)


def browser_type(args: TypeArgs, ctx: ToolContext) -> ToolResult:
    def type_(page: Any) -> ToolResult:
        _locator(page, args.ref).fill(args.text)
        return _answer({"success": True, "typed": args.text, "element": _ref(args.ref)})

    return _act(ctx, type_)


def browser_scroll(args: ScrollArgs, ctx: ToolContext) -> ToolResult:
    def scroll(page: Any) -> ToolResult:
        height = page.evaluate("window.innerHeight") or 800
        page.mouse.wheel(0, (height * 0.8) * (1 if args.direction == "down" else -1))
        return _answer({"success": True, "scrolled": args.direction})

    return _act(ctx, scroll)


def browser_back(args: NoArgs, ctx: ToolContext) -> ToolResult:
    def back(page: Any) -> ToolResult:
        page.go_back(wait_until="domcontentloaded")
        return _answer({"success": True, "url": page.url})

    return _act(ctx, back)


def browser_press(args: PressArgs, ctx: ToolContext) -> ToolResult:
    def press(page: Any) -> ToolResult:
        page.keyboard.press(args.key)
        return _answer({"success": True, "pressed": args.key})

    return _act(ctx, press)


_IMAGES_JS = """() => Array.from(document.images).filter(i => i.src).slice(0, 100)
  .map(i => ({src: i.currentSrc || i.src, alt: i.alt || '',
              width: i.naturalWidth, height: i.naturalHeight}))"""


def browser_get_images(args: NoArgs, ctx: ToolContext) -> ToolResult:
    def images(page: Any) -> ToolResult:
        found = page.evaluate(_IMAGES_JS)
        return _answer({"success": True, "images": found, "count": len(found)})

    return _act(ctx, images)


def browser_console(args: ConsoleArgs, ctx: ToolContext) -> ToolResult:
    browser = session_browser(ctx)
    if isinstance(browser, ToolResult):
        return browser

    def read(page: Any) -> ToolResult:
        payload: dict[str, Any] = {"success": True}
        if args.expression:
            payload["result"] = page.evaluate(args.expression)
        messages = list(browser.console)
        payload["console_messages"] = [m for m in messages if m["source"] == "console"]
        payload["js_errors"] = [m for m in messages if m["source"] == "exception"]
        if args.clear:
            browser.console.clear()
        return _answer(payload)

    return _act(ctx, read)


def browser_vision(args: VisionArgs, ctx: ToolContext) -> ToolResult:
    folder = ctx.hermes_home / "cache" / "screenshots"

    def shoot(page: Any) -> str:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"browser_{time.strftime('%Y%m%d_%H%M%S')}_{id(page) % 10000}.png"
        page.screenshot(path=str(path))
        return str(path)

    browser = session_browser(ctx)
    if isinstance(browser, ToolResult):
        return browser
    if not browser.started:
        return _failure("No page is open: call browser_navigate first.")
    try:
        path = browser.run(lambda: shoot(browser.page()), ctx.interrupt)
    except BrowserInterrupted:
        return ToolResult(content="[browser action interrupted by the user]", status="cancelled")
    except Exception as exc:
        return _failure(_one_line(exc))
    from agent.tools.vision import VisionArgs as ImageQuestion
    from agent.tools.vision import run_vision_analyze

    analysed = run_vision_analyze(ImageQuestion(image=path, question=args.question), ctx)
    if analysed.status != "ok":
        return _answer(
            {"success": False, "error": analysed.content, "screenshot_path": path}, analysed.status
        )
    return _answer({"success": True, "analysis": analysed.content, "screenshot_path": path})


def _tool(
    name: str, description: str, args: type[BaseModel], handler: Any, summary: str | None = None
) -> Tool:
    return Tool(
        name=name,
        description=description,
        args_model=args,
        handler=handler,
        summary_arg=summary,
        toolset="browser",
        requires=unavailable_reason,
    )


_NEEDS_NAV = " Requires browser_navigate to be called first."
TOOLS = [
    _tool(
        "browser_navigate",
        "Navigate to a URL in the browser. Initializes the session and loads the page. Must be called before "
        "other browser tools. For simple information retrieval, prefer web_search or web_extract (faster, "
        "cheaper). Use browser tools when you need to interact with a page (click, fill forms, dynamic "
        "content). Returns a compact page snapshot with interactive elements and ref IDs — no need to call "
        "browser_snapshot separately after navigating.",
        NavigateArgs,
        browser_navigate,
        "url",
    ),
    _tool(
        "browser_snapshot",
        "Get a text-based snapshot of the current page's accessibility tree. Returns interactive elements "
        "with ref IDs (like @e1, @e2) for browser_click and browser_type. full=false (default): compact view "
        "with interactive elements. full=true: complete page content. Snapshots over 15000 chars are "
        "truncated. Use this to refresh after interactions that change the page." + _NEEDS_NAV,
        SnapshotArgs,
        browser_snapshot,
    ),
    _tool(
        "browser_click",
        "Click on an element identified by its ref ID from the snapshot (e.g., '@e5'). The ref IDs are shown "
        "in square brackets in the snapshot output." + _NEEDS_NAV,
        RefArgs,
        browser_click,
        "ref",
    ),
    _tool(
        "browser_type",
        "Type text into an input field identified by its ref ID. Clears the field first, then types the new "
        "text." + _NEEDS_NAV,
        TypeArgs,
        browser_type,
        "ref",
    ),
    _tool(
        "browser_scroll",
        "Scroll the page in a direction. Use this to reveal more content that may be below or above the "
        "current viewport." + _NEEDS_NAV,
        ScrollArgs,
        browser_scroll,
        "direction",
    ),
    _tool(
        "browser_back",
        "Navigate back to the previous page in browser history." + _NEEDS_NAV,
        NoArgs,
        browser_back,
    ),
    _tool(
        "browser_press",
        "Press a keyboard key. Useful for submitting forms (Enter), navigating (Tab), or keyboard shortcuts."
        + _NEEDS_NAV,
        PressArgs,
        browser_press,
        "key",
    ),
    _tool(
        "browser_get_images",
        "Get a list of all images on the current page with their URLs and alt text. Useful for finding "
        "images to analyze with the vision tool." + _NEEDS_NAV,
        NoArgs,
        browser_get_images,
    ),
    _tool(
        "browser_vision",
        "Take a screenshot of the current page and ask a vision model about it. Use this when you need to "
        "understand what the page looks like (CAPTCHAs, complex layouts, what the text snapshot misses). "
        "Includes a screenshot_path." + _NEEDS_NAV,
        VisionArgs,
        browser_vision,
        "question",
    ),
    _tool(
        "browser_console",
        "Get browser console output and JavaScript errors from the current page. When 'expression' is "
        "provided, evaluates JavaScript in the page context and returns the result." + _NEEDS_NAV,
        ConsoleArgs,
        browser_console,
        "expression",
    ),
]

# The toolset is off, with the line that installs what is missing, when the browser cannot start.
CATALOG.define(Toolset("browser", BROWSER_DESCRIPTION, requires=unavailable_reason))
