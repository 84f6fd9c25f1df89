"""Web search configuration, read as Hermes reads it: `web.backend` in config.yaml chooses the backend,
else the first one with a key (Tavily, Exa, Firecrawl, then SearXNG, Hermes' order); keys and URLs come
from the environment or `$HERMES_HOME/.env` (`SEARXNG_URL`, `TAVILY_API_KEY`, `EXA_API_KEY`,
`FIRECRAWL_API_KEY`, `FIRECRAWL_API_URL`, `TAVILY_BASE_URL`, `EXA_BASE_URL`). Every base URL can also be set
in config (`web.searxng_url`, `web.tavily_base_url`, `web.exa_base_url`, `web.firecrawl_api_url`), so
tests and self-hosted instances point anywhere; the environment wins. API keys are never read from config
files.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

BACKENDS = ("tavily", "exa", "firecrawl", "searxng")  # auto-detection order (Hermes')
TAVILY_URL = "https://api.tavily.com"
EXA_URL = "https://api.exa.ai"
FIRECRAWL_URL = "https://api.firecrawl.dev"

NO_BACKEND = "no search backend configured: set SEARXNG_URL, TAVILY_API_KEY, EXA_API_KEY or FIRECRAWL_API_KEY"

# environment variable -> WebSettings field
ENV_FIELDS = {
    "SEARXNG_URL": "searxng_url",
    "TAVILY_API_KEY": "tavily_api_key",
    "TAVILY_BASE_URL": "tavily_base_url",
    "EXA_API_KEY": "exa_api_key",
    "EXA_BASE_URL": "exa_base_url",
    "FIRECRAWL_API_KEY": "firecrawl_api_key",
    "FIRECRAWL_API_URL": "firecrawl_api_url",
}
# config key under `web:` -> field (keys stay in the environment)
CONFIG_FIELDS = {
    "backend": "backend",
    "search_backend": "backend",  # Hermes' per-capability override wins over `backend` for search
    "searxng_url": "searxng_url",
    "tavily_base_url": "tavily_base_url",
    "exa_base_url": "exa_base_url",
    "firecrawl_api_url": "firecrawl_api_url",
    "timeout": "timeout",
    "max_page_bytes": "max_page_bytes",
    "max_redirects": "max_redirects",
    "allow_private_urls": "allow_private_urls",
}


class WebSettings(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    backend: str = Field("", pattern="^(|searxng|tavily|exa|firecrawl)$")
    searxng_url: str = ""
    tavily_api_key: SecretStr | None = None
    tavily_base_url: str = TAVILY_URL
    exa_api_key: SecretStr | None = None
    exa_base_url: str = EXA_URL
    firecrawl_api_key: SecretStr | None = None
    firecrawl_api_url: str = FIRECRAWL_URL
    timeout: float = Field(20.0, gt=0, le=300)  # seconds for a whole call (a page fetch, a search)
    max_page_bytes: int = Field(5_000_000, ge=10_000)  # bytes of one page read before it is cut
    max_redirects: int = Field(5, ge=0, le=30)
    allow_private_urls: bool = False  # loopback and private addresses (metadata and link-local: never)

    def configured(self, backend: str) -> bool:
        if backend == "searxng":
            return bool(self.searxng_url)
        if backend == "firecrawl":  # a key, or a self-hosted instance's URL
            return self.firecrawl_api_key is not None or self.firecrawl_api_url != FIRECRAWL_URL
        key = {"tavily": self.tavily_api_key, "exa": self.exa_api_key}.get(backend)
        return key is not None and bool(key.get_secret_value())

    @property
    def search_backend(self) -> str | None:
        """The backend web_search uses: `backend` when it is configured, else the first configured one."""
        if self.backend and self.configured(self.backend):
            return self.backend
        return next((b for b in BACKENDS if self.configured(b)), None)

    def unavailable(self) -> str | None:
        """Why web_search cannot run (None when it can)."""
        if self.search_backend is not None:
            return None
        if self.backend:
            needs = {
                "searxng": "SEARXNG_URL",
                "tavily": "TAVILY_API_KEY",
                "exa": "EXA_API_KEY",
                "firecrawl": "FIRECRAWL_API_KEY",
            }[self.backend]
            return f"web.backend is {self.backend} but {needs} is not set"
        return NO_BACKEND

    def __str__(self) -> str:
        backend = self.search_backend
        return f"search: {backend or 'none'}" + (f" ({self.backend} chosen)" if self.backend else "")


def load_web_settings(
    hermes_web: Any, tui_web: Any, env: Mapping[str, str]
) -> tuple[WebSettings, list[tuple[str, str, str]], str]:
    """(settings, problems as (key, value, expected), source) from config's `web:` sections and the env."""
    values: dict[str, Any] = {}
    problems: list[tuple[str, str, str]] = []
    sources: list[str] = []
    for section, where in ((hermes_web, "config.yaml"), (tui_web, "tui/config.yaml")):
        if section is None:
            continue
        if not isinstance(section, dict):
            problems.append(("web", str(section)[:80], "a mapping of web settings"))
            continue
        for key, value in section.items():
            name = CONFIG_FIELDS.get(str(key))
            if name is None:
                if str(key) not in ("extract_backend", "use_gateway", "extract_char_limit"):
                    problems.append((f"web.{key}", str(value)[:80], "a known web setting"))
                continue
            if key == "backend" and "search_backend" in section:
                continue
            values[name] = str(value).lower() if name == "backend" else value
            sources.append(where)
    for var, name in ENV_FIELDS.items():
        if env.get(var):
            values[name] = env[var].strip()
            sources.append(f"env {var}")
    settings = WebSettings()
    for name, value in values.items():
        try:
            setattr(settings, name, value)
        except ValidationError as exc:
            message = exc.errors()[0].get("msg", "a valid value") if exc.errors() else "a valid value"
            shown = "***" if "api_key" in name else str(value)[:80]
            problems.append((f"web.{name}", shown, message))
    return settings, problems, ", ".join(dict.fromkeys(sources)) or "default"
