"""What the wire must do differently for one endpoint (provider, base URL, model), by Hermes' rules.

- Local endpoints (loopback, private addresses, `.local`, container names) prefill slowly on a big context:
  the stale-stream timeout is Hermes' 900 s for them unless the user set one, so a slow local prefill is not
  killed and retried forever. Large contexts get at least 240 s (over 50K tokens) or 300 s (over 100K).
- Claude (and Kimi) through OpenRouter or the Nous portal on chat completions take Anthropic's
  `cache_control` markers in the message envelope (`agent.transports.cache_control`).
- Claude on Bedrock or Vertex gets its thinking blocks back signed, as Anthropic's own API does.
- A custom or local endpoint is told `tool_choice: auto` beside its tools: llama-cpp-python's server puts the
  tools in the prompt only when a request names a choice (without one its chat formats leave them out and
  the model can never call one); OpenAI, vLLM, llama.cpp's own server, Ollama and LM Studio take `auto` as
  their default, so saying it changes nothing there.
- DeepSeek, Kimi/Moonshot and Xiaomi MiMo thinking modes reject a replayed assistant turn without its
  `reasoning_content`; strict providers (Mistral and others) reject the field. So it is sent back to those
  three only.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import urlparse

__all__ = ["LOCAL_STALE_TIMEOUT", "Endpoint", "stale_timeout_for_context"]

LOCAL_STALE_TIMEOUT = 900.0
"""Hermes' `agent.local_stream_stale_timeout` default."""

_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0"})
_LOCAL_SUFFIXES = (".local", ".localhost", ".internal", ".lan", ".home.arpa")
_TAILSCALE = ipaddress.ip_network("100.64.0.0/10")
_KIMI_MODEL_PREFIXES = (
    "kimi-",
    "kimi_",
    "moonshot-",
    "moonshot_",
    "k1.",
    "k1-",
    "k2.",
    "k2-",
    "k25",
    "k3.",
    "k3-",
)


def _host(base_url: str) -> str:
    url = base_url.strip()
    if not url:
        return ""
    try:
        return (urlparse(url if "://" in url else f"http://{url}").hostname or "").lower()
    except ValueError:
        return ""


def _host_is(host: str, domain: str) -> bool:
    return host == domain or host.endswith("." + domain)


@dataclass(frozen=True)
class Endpoint:
    provider: str
    base_url: str
    model: str
    platform: str = ""
    """`bedrock` / `vertex`: Claude itself on a cloud, whatever the URL (a proxy, a test's loopback)."""

    @property
    def host(self) -> str:
        return _host(self.base_url)

    @property
    def is_local(self) -> bool:
        """Loopback, a private or link-local address, Tailscale's range, a `.local`-like or bare host."""
        host = self.host
        if not host:
            return False
        if host in _LOCAL_HOSTS or host.endswith(_LOCAL_SUFFIXES) or "." not in host:
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return (
            address.is_private
            or address.is_loopback
            or address.is_link_local
            or (address.version == 4 and address in _TAILSCALE)
        )

    @property
    def names_tool_choice(self) -> bool:
        """Requests with tools say `tool_choice: auto` (llama-cpp-python's server hides tools without it)."""
        return self.provider in ("custom", "lmstudio") or self.is_local

    @property
    def is_openrouter(self) -> bool:
        return self.provider == "openrouter" or _host_is(self.host, "openrouter.ai")

    @property
    def caches_in_envelope(self) -> bool:
        """Chat completions to an endpoint that honours Anthropic's `cache_control` for this model."""
        model = self.model.lower()
        claude = "claude" in model
        kimi = "kimi" in model or "moonshot" in model
        portal = "nousresearch" in self.base_url.lower()
        return (self.is_openrouter or portal) and (claude or kimi)

    @property
    def needs_reasoning_echo(self) -> bool:
        """Previous assistant turns must carry `reasoning_content` (the provider's thinking mode)."""
        provider, model, host = self.provider.lower(), self.model.lower(), self.host
        deepseek = provider == "deepseek" or "deepseek" in model or _host_is(host, "api.deepseek.com")
        kimi = (
            provider in ("kimi-coding", "kimi-coding-cn")
            or _host_is(host, "api.kimi.com")
            or _host_is(host, "moonshot.ai")
            or _host_is(host, "moonshot.cn")
        )
        mimo = provider == "xiaomi" or "mimo" in model or _host_is(host, "xiaomimimo.com")
        return deepseek or kimi or mimo

    @property
    def anthropic_thinking_replay(self) -> str:
        """How thinking blocks go back to this Anthropic-protocol endpoint (Hermes'
        `_manage_thinking_signatures`): `signed` (Anthropic itself: the latest reply's signed blocks as they
        came, earlier ones dropped), `unsigned` (DeepSeek's /anthropic: only unsigned ones), `as_is` (Kimi
        and Moonshot), `none` (any other endpoint: signatures are Anthropic's, others reject them)."""
        host, model = self.host, self.model.strip().lower().rsplit("/", 1)[-1]
        if (
            any(_host_is(host, d) for d in ("api.kimi.com", "moonshot.ai", "moonshot.cn"))
            or model == "k3"
            or model.startswith(_KIMI_MODEL_PREFIXES)
        ):
            return "as_is"
        if _host_is(host, "api.deepseek.com"):
            return "unsigned"
        if self.platform:
            # Bedrock and Vertex serve Claude itself, which checks the signatures and requires a tool-use
            # turn's thinking back. (Hermes strips them for Bedrock as a "third-party" URL.)
            return "signed"
        if self.base_url.strip() and "anthropic.com" not in self.base_url.lower():
            return "none"
        return "signed"

    def stale_timeout(
        self, configured: float, *, explicit: bool, local: float = LOCAL_STALE_TIMEOUT
    ) -> float:
        """The base stale timeout for this endpoint: the local one when the user did not set one."""
        if self.is_local and not explicit:
            return max(configured, local)
        return configured


def stale_timeout_for_context(base: float, context_tokens: int) -> float:
    """A large request may legitimately think for minutes before its first token."""
    if context_tokens > 100_000:
        return max(base, 300.0)
    if context_tokens > 50_000:
        return max(base, 240.0)
    return base
