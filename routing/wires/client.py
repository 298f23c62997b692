"""The HTTP client a wire talks through, set up for where its server is.

A server on this computer (by its resolved addresses, whatever the config's
`local =` says) is reached directly: a proxy from the environment would swallow
requests meant for loopback, and would carry a local chat's pictures to another
machine. A server the config calls local (a box on the LAN) is reached directly
too. Any other server goes through the environment's proxy, as other programs'
requests do; a proxy setting Sightline can't use is a `ProxyUnusable` naming its
variable, never a traceback.

A plain-HTTP server reached directly gets no TLS context: building one loads the
CA bundle (about 30 ms of every start), and no TLS is spoken on that connection.
Wires don't follow redirects, so a plain-HTTP client never ends up on an HTTPS
address.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from routing.endpoints import endpoint_name, on_this_computer, without_credentials
from routing.errors import ProxyUnusable

# The schemes httpx speaks to a proxy (SOCKS through the socksio package).
PROXY_SCHEMES = ("http", "https", "socks5", "socks5h")


@dataclass(frozen=True)
class EnvironmentProxy:
    """A proxy setting from the environment: its variable and its address."""

    variable: str  # as set: ALL_PROXY, or all_proxy (lower case wins, as urllib reads it)
    url: str

    @property
    def name(self) -> str:
        """The proxy as scheme://host:port, never its user name or password."""
        scheme = self.url.partition("://")[0] if "://" in self.url else "http"
        return f"{scheme.lower()}://{endpoint_name(self.url)}"


def goes_direct(base_url: str, *, local: bool) -> bool:
    """Whether a wire skips the environment's proxies: its server is here, or said local."""
    return local or on_this_computer(base_url)


def environment_proxies() -> dict[str, EnvironmentProxy]:
    """The proxies the environment sets, by the scheme they serve (http, https, all)."""
    found: dict[str, EnvironmentProxy] = {}
    for scheme in ("http", "https", "all"):
        for variable in (f"{scheme}_proxy", f"{scheme.upper()}_PROXY"):
            value = os.environ.get(variable, "").strip()
            if value:
                found[scheme] = EnvironmentProxy(variable, value)
                break
    return found


def proxy_for(base_url: str, *, local: bool) -> EnvironmentProxy | None:
    """The environment's proxy a wire's requests to `base_url` go through, or None."""
    if goes_direct(base_url, local=local):
        return None
    try:
        parts = urlsplit(base_url.strip())
        host = (parts.hostname or "").removesuffix(".")
    except ValueError:
        return None  # no request can be made to it either
    proxies = environment_proxies()
    proxy = proxies.get(parts.scheme.lower()) or proxies.get("all")
    no_proxy = os.environ.get("no_proxy") or os.environ.get("NO_PROXY") or ""
    return None if proxy is None or _bypassed(host, no_proxy) else proxy


def _bypassed(host: str, no_proxy: str) -> bool:
    """Whether NO_PROXY exempts `host`, read as httpx reads it (entries with a port aside)."""
    for entry in (e.strip().lower() for e in no_proxy.split(",")):
        if entry == "*":
            return True
        if not entry or "://" in entry:
            continue
        if entry.startswith("."):  # .example.com: its subdomains only
            if host.endswith(entry):
                return True
        elif host == entry.strip("[]") or host.endswith(f".{entry}"):
            return True
    return False


def _problem(proxy: EnvironmentProxy) -> str | None:
    """Why Sightline can't use this proxy, or None when it can."""
    try:
        url = httpx.URL(proxy.url if "://" in proxy.url else f"http://{proxy.url}")
    except httpx.InvalidURL:
        return "it is not an address of the form scheme://host:port"
    if url.scheme not in PROXY_SCHEMES:
        return f"Sightline speaks to proxies over {', '.join(PROXY_SCHEMES)}, not {url.scheme}"
    if not url.host:
        return "it names no host"
    if url.port is not None and not 0 < url.port < 65536:
        return f"{url.port} is not a port"
    if url.scheme.startswith("socks") and importlib.util.find_spec("socksio") is None:
        return "SOCKS proxies need the socksio package (pip install 'httpx[socks]')"
    return None


def _unusable(proxy: EnvironmentProxy, why: str, provider_id: str) -> ProxyUnusable:
    return ProxyUnusable(
        f"The proxy in {proxy.variable} ({proxy.name}) can't be used: {why}. "
        f"Fix or unset {proxy.variable}.",
        provider_id=provider_id,
        detail=f"{proxy.variable}: {why}",
    )


def _unusable_setting(exc: Exception, provider_id: str) -> ProxyUnusable:
    """httpx's refusal of the environment's proxies, as one clear line naming the culprit."""
    for proxy in environment_proxies().values():
        if (why := _problem(proxy)) is not None:
            return _unusable(proxy, why, provider_id)
    return ProxyUnusable(
        "The proxy settings (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, or the system's) can't be "
        "used. Fix or unset them.",
        provider_id=provider_id,
        detail=without_credentials(f"{type(exc).__name__}: {exc}"),
    )


def http_client(base_url: str, *, local: bool, provider_id: str = "") -> httpx.AsyncClient:
    """A client for one wire's server (`local`: the config, or the address, says local)."""
    direct = goes_direct(base_url, local=local)
    # httpx takes a proxy with no host or port 99999 and fails only on the first request.
    proxy = proxy_for(base_url, local=local)
    if proxy is not None and (why := _problem(proxy)) is not None:
        raise _unusable(proxy, why, provider_id)
    plain_http = base_url.strip().lower().startswith("http://")
    try:
        return httpx.AsyncClient(
            trust_env=not direct, verify=not (direct and plain_http), follow_redirects=False
        )
    except (ValueError, ImportError, httpx.InvalidURL) as exc:  # a transport per proxy variable
        raise _unusable_setting(exc, provider_id) from None
