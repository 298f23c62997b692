"""Where an endpoint is: on this computer or not, and its name for people.

An endpoint is on this computer exactly when every address its host resolves to
reaches this machine: loopback (127/8, ::1, and 127/8 written as IPv4-mapped
IPv6), unspecified (0.0.0.0 and ::, which connect here) or one of the machine's
own addresses. The host is resolved as the connection will resolve it
(`getaddrinfo`, which also reads shorthands such as 127.1 and 2130706433), so a
hosts-file alias of 127.0.0.1 is on this computer and a `.localhost` name pointed
at the LAN is not. A host that doesn't resolve is not on this computer: the safe
side, since nothing is kept from the person's view on a wrong "local".

An endpoint is named by host and port only: never the path, and never the user
name or password an address may carry, since names end up in notices, errors and
the log.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from urllib.parse import urlsplit

Resolver = Callable[[str], Iterable[str]]
"""A host name (or address as written) to every address it resolves to; OSError if none."""

_USERINFO = re.compile(r"(?<=://)[^/?#@\s]*@")


def resolve(host: str) -> tuple[str, ...]:
    """Every address `host` resolves to, as the connection would resolve it."""
    import socket  # here, not at import: reading the config before the first paint needs none

    infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    return tuple(dict.fromkeys(str(info[4][0]) for info in infos))


def _url_host(url: str) -> str:
    """The host of an address (with or without a scheme), lower case, one trailing dot off."""
    try:
        host = urlsplit(url.strip() if "://" in url else f"http://{url.strip()}").hostname
    except ValueError:  # an unclosed [ or the like: nothing a connection could reach
        return ""
    return (host or "").removesuffix(".")


def _normalised(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    # ::ffff:127.0.0.1 is 127.0.0.1 on the wire; ipaddress calls it neither loopback nor v4.
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


@lru_cache(maxsize=1)
def own_addresses() -> frozenset[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """This machine's own addresses: those its host name resolves to."""
    import socket

    try:
        resolved = resolve(socket.gethostname())
    except (OSError, UnicodeError):
        return frozenset()
    return frozenset(ip for ip in map(_normalised, resolved) if ip is not None)


def reaches_this_computer(address: str) -> bool:
    """Whether connecting to this IP address reaches this machine."""
    ip = _normalised(address)
    if ip is None:
        return False
    return ip.is_loopback or ip.is_unspecified or ip in own_addresses()


def _host_is_here(host: str, resolver: Resolver) -> bool:
    if not host:
        return False
    try:
        addresses = tuple(resolver(host))
    except (OSError, UnicodeError, ValueError):  # unknown name, a label too long, a NUL
        return False
    return bool(addresses) and all(reaches_this_computer(a) for a in addresses)


@lru_cache(maxsize=256)
def _host_is_here_cached(host: str) -> bool:
    # Read on every `ProviderConfig.is_local`, often on the UI thread: resolve once per
    # host per run (a name that failed stays "not here": the safe side, and no second wait).
    here = _host_is_here(host, resolve)
    _looked_up.add(host)
    return here


_looked_up: set[str] = set()  # hosts the system resolver has answered for this run


def _numeric(host: str) -> tuple[str, ...] | None:
    """The addresses of a host written as an address (127.1 too), without asking DNS."""
    import socket

    try:
        infos = socket.getaddrinfo(host, None, flags=socket.AI_NUMERICHOST)
    except (OSError, UnicodeError, ValueError):
        return None
    return tuple(str(info[4][0]) for info in infos)


def known_locality(url: str) -> bool | None:
    """`on_this_computer` when it needs no DNS lookup now (an address, or a host already
    looked up this run); None when it would have to wait on one (the window's form asks)."""
    host = _url_host(url)
    numeric = _numeric(host) if host else None
    if numeric is not None:
        return bool(numeric) and all(reaches_this_computer(a) for a in numeric)
    return on_this_computer(url) if host in _looked_up or not host else None


async def look_up(urls: Iterable[str]) -> None:
    """Resolve these endpoints' hosts on worker threads, so reading `is_local` later
    never waits on DNS on the thread that paints the window."""
    import asyncio

    hosts = {_url_host(u) for u in urls} - _looked_up
    await asyncio.gather(*(asyncio.to_thread(_host_is_here_cached, h) for h in hosts if h))


def on_this_computer(url: str, resolver: Resolver | None = None) -> bool:
    """Whether every address the URL's host resolves to is on this computer.

    `resolver` replaces the system's (tests give a hosts file of their own); the
    system's answers are cached per host.
    """
    host = _url_host(url)
    if resolver is None:
        return _host_is_here_cached(host)
    return _host_is_here(host, resolver)


def endpoint_name(url: str) -> str:
    """An address's host and port (when it names one), for people: never path or user-info."""
    text = url.strip()
    rest = text.split("://", 1)[1] if "://" in text else text
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    netloc = authority.rpartition("@")[2]
    try:
        parts = urlsplit(f"http://{netloc}")
        host, port = parts.hostname or "", parts.port
    except ValueError:  # a port that is no number, an unclosed [: as written
        if "@" in rest[len(authority) :]:  # a "/" in a password cut the address short
            return netloc.partition(":")[0]
        return netloc
    if not host:
        return netloc
    if ":" in host:
        host = f"[{host}]"
    return f"{host}:{port}" if port else host


def endpoint_key(url: str) -> str:
    """An endpoint as what is learned about its models is kept by: the address, no user-info."""
    return without_credentials(url.strip()).rstrip("/")


def without_credentials(text: str) -> str:
    """Text with the user-info of every address in it taken out (for errors' details)."""
    return _USERINFO.sub("", text)
