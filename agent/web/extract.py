"""HTML -> the page's main text as Markdown, without navigation, headers, footers or ads.

`trafilatura` does the work (a maintained main-content extractor; offline, ~0.27 s to import, so it is
imported here, on the first extraction only). Its metadata pass (dates, site names) is off: only the title
and the article are wanted, and date guessing costs time for nothing.
"""

from __future__ import annotations

import re

_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def html_to_markdown(html: str, url: str = "") -> tuple[str, str]:
    """(title, Markdown text) of `html`; the text is "" when the page has no main content."""
    import trafilatura

    text = trafilatura.extract(
        html,
        url=url or None,
        output_format="markdown",
        include_links=True,
        include_formatting=True,
        include_tables=True,
        include_comments=False,
        with_metadata=False,
        favor_recall=True,
    )
    return _title(html), (text or "").strip()


def _title(html: str) -> str:
    from html import unescape

    match = _TITLE.search(html[:200_000])
    return " ".join(unescape(match.group(1)).split()) if match else ""
