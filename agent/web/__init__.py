"""The web, as the agent's tools reach it: search backends (`search`), page fetching (`fetch`) and HTML to
Markdown (`extract`), configured by `settings`. Importing the package imports nothing heavy: httpx and
trafilatura load when a tool first runs."""
