"""Where the browser may go: http(s) only (no file://, no chrome://, no data: pages), and never the
link-local range or a cloud metadata address (SSRF), whatever name points there. Loopback is allowed: a
local dev server is what people test.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

__all__ = ["refusal"]

_METADATA = frozenset(
    {
        ipaddress.ip_address("169.254.169.254"),
        ipaddress.ip_address("100.100.100.200"),  # Alibaba Cloud
        ipaddress.ip_address("fd00:ec2::254"),  # AWS over IPv6
    }
)


def _blocked(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_link_local or ip in _METADATA


def refusal(url: str) -> str | None:
    """Why the browser must not open `url`, or None."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https"):
        shown = parts.scheme or "(none)"
        return f"only http and https URLs can be opened (scheme {shown}: file:// and the like are refused)"
    host = parts.hostname
    if not host:
        return "the URL has no host"
    if _blocked(host):
        return f"{host} is a link-local or cloud metadata address (refused: SSRF)"
    try:
        infos = socket.getaddrinfo(host, parts.port or (443 if parts.scheme == "https" else 80))
    except (OSError, UnicodeError):
        return None  # the browser reports a name that does not resolve
    for info in infos:
        if _blocked(str(info[4][0])):
            return f"{host} resolves to {info[4][0]}, a link-local or metadata address (refused: SSRF)"
    return None
