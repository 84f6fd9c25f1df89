"""Which URLs the web tools may fetch and the browser may open: a page the model names must not reach this
machine's secrets. One policy for both callers (`refusal`, `browser_refusal`).

Always refused, whatever the configuration or the caller: a scheme other than http(s) (no file://,
chrome://, data: or javascript: pages), cloud metadata names (`metadata.google.internal`, ...) and
addresses (`169.254.169.254`, `fd00:ec2::254`, `100.100.100.200`, ...) and all of link-local
(169.254.0.0/16, fe80::/10), in every spelling an address takes: the dotted quad, a decimal, octal or hex
number (`2852039166`, `0251.0376.0251.0376`, `0xa9fea9fe`), the short forms `inet_aton` accepts, IPv4
embedded in IPv6 (IPv4-mapped `::ffff:…`, IPv4-compatible, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`), and
whatever a host name resolves to. Loopback, private, shared (100.64/10) and unspecified addresses are
refused to the web tools unless `web.allow_private_urls` (Hermes: `security.allow_private_urls`) allows
them; the browser may open them (`browser_refusal`). Each redirect's target is checked again (the web
tools' in `agent.web.transfer`, every request a browser page makes in `agent.browser.session`). A refusal
is one line the model can read.

As Hermes' URL-safety check says of itself: a pre-flight check cannot stop DNS rebinding (a name that
resolves to a public address for the check and a private one for the connection).
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

__all__ = ["METADATA_HOSTS", "browser_refusal", "is_local", "refusal", "resolve_addresses", "scheme_refusal"]

METADATA_HOSTS = frozenset(
    {"metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal"}
)
_METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "169.254.170.2", "169.254.169.253", "fd00:ec2::254", "100.100.100.200")
)
_LINK_LOCAL = (ipaddress.ip_network("169.254.0.0/16"), ipaddress.ip_network("fe80::/10"))
_SHARED = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SIXTOFOUR = ipaddress.ip_network("2002::/16")

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _embedded(address: Address) -> list[Address]:
    """The address and every IPv4 address an IPv6 one carries."""
    out: list[Address] = [address]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            out.append(address.ipv4_mapped)
        if address.sixtofour is not None:
            out.append(address.sixtofour)
        packed = address.packed
        if address in _NAT64 or (packed[:12] == bytes(12) and packed[12:] != bytes(4)):  # NAT64, compatible
            out.append(ipaddress.IPv4Address(packed[12:]))
        if address in _SIXTOFOUR:
            out.append(ipaddress.IPv4Address(packed[2:6]))
    return out


def parse_host_address(host: str) -> Address | None:
    """`host` as an IP address in any spelling a resolver accepts (None: it is a name)."""
    host = host.strip("[]").split("%", 1)[0]
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if host and all(c in "0123456789abcdefxABCDEFX." for c in host) and any(c.isdigit() for c in host):
        try:  # 2852039166, 0251.0376.0251.0376, 0xa9fea9fe, 169.254.43518: what inet_aton (and curl) take
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def _address_refusal(address: Address, allow_private: bool) -> str | None:
    for candidate in _embedded(address):
        if candidate in _METADATA_ADDRESSES:
            return f"{address} is a cloud metadata address: never fetched (SSRF)"
        if any(candidate in net for net in _LINK_LOCAL):
            return f"{address} is link-local (where cloud metadata services live): never fetched (SSRF)"
    if allow_private:
        return None
    for candidate in _embedded(address):
        if candidate.is_loopback:
            kind = "loopback (this machine)"
        elif candidate.is_unspecified:
            kind = "unspecified (this machine)"
        elif candidate in _SHARED or candidate.is_private or candidate.is_reserved or candidate.is_multicast:
            kind = "a private or reserved network address"
        else:
            continue
        return f"{address} is {kind}: refused unless web.allow_private_urls is true"
    return None


def resolve_addresses(host: str) -> list[Address]:
    """What `host` resolves to (every address); [] when it does not resolve."""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return []
    found: list[Address] = []
    for info in infos:
        try:
            address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        except ValueError:
            continue
        if address not in found:
            found.append(address)
    return found


def scheme_refusal(url: str) -> str | None:
    """Why `url` is not a web address at all (None: it is http or https, with a host)."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
    except ValueError:
        return "the URL cannot be parsed"
    if parts.scheme not in ("http", "https"):
        if parts.scheme == "file" or not parts.scheme:
            refused = "file:// is refused: " if parts.scheme else ""
            return f"{refused}only http(s) URLs can be fetched; read local files with read_file"
        return f"unsupported URL scheme {parts.scheme!r} (only http and https)"
    if not host:
        return "the URL has no host"
    return None


def is_local(url: str) -> bool:
    """Loopback, private, shared or link-local hosts (and local names), in any spelling: only this machine
    can reach them (a scraping service cannot)."""
    try:
        host = (urlsplit(url).hostname or "").rstrip(".").lower()
    except ValueError:
        return False
    if host == "localhost" or host.endswith((".localhost", ".local")):
        return True
    address = parse_host_address(host)
    if address is None:
        return False
    return any(
        c.is_loopback or c.is_private or c.is_link_local or c.is_unspecified or c in _SHARED
        for c in _embedded(address)
    )


def refusal(url: str, *, allow_private: bool, resolve: bool = True) -> str | None:
    """Why `url` may not be fetched (None: it may). Resolves a host name unless `resolve` is False."""
    problem = scheme_refusal(url)
    if problem:
        return problem
    host = (urlsplit(url.strip()).hostname or "").rstrip(".").lower()
    if host in METADATA_HOSTS or host.endswith(".metadata.google.internal"):
        return f"{host} is a cloud metadata service: never fetched (SSRF)"
    address = parse_host_address(host)
    if address is not None:
        problem = _address_refusal(address, allow_private)
        return f"{url}: {problem}" if problem else None
    if not allow_private and (host == "localhost" or host.endswith((".localhost", ".local", ".internal"))):
        return f"{host} is a local name: refused unless web.allow_private_urls is true"
    if not resolve:
        return None
    for resolved in resolve_addresses(host):
        problem = _address_refusal(resolved, allow_private)
        if problem:
            return f"{host} resolves to {problem}"
    return None


def browser_refusal(url: str) -> str | None:
    """Why the browser must not open `url` (None: it may): the same policy, with private and loopback
    addresses allowed. The browser is a Chromium on this machine and a local dev server is what people
    test in it; the terminal reaches those addresses anyway (Hermes skips the private check for a local
    browser likewise). Metadata and link-local stay refused in every spelling, as for the web tools."""
    return refusal(url, allow_private=True)
