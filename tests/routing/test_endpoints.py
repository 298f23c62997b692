"""Where an endpoint is (every resolved address on this computer, or not) and its name."""

from __future__ import annotations

import ipaddress
import socket
import uuid
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import routing.endpoints
from routing.endpoints import endpoint_name, on_this_computer, without_credentials
from routing.models import ProviderConfig

IP = ipaddress.IPv4Address | ipaddress.IPv6Address


def _own() -> frozenset[IP]:
    """This machine's addresses, found here the way the test sees them."""
    found: set[IP] = set()
    for info in socket.getaddrinfo(socket.gethostname(), None):
        ip = ipaddress.ip_address(info[4][0])
        mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
        found.add(mapped or ip)
    return frozenset(found)


OWN = _own()


def hosts_file_aliases() -> list[str]:
    """Names /etc/hosts gives only loopback addresses, other than localhost itself."""
    entries: dict[str, set[str]] = {}
    try:
        text = Path("/etc/hosts").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    for line in text.splitlines():
        address, *names = line.partition("#")[0].split() or [""]
        for name in names:
            entries.setdefault(name.lower(), set()).add(address)
    return sorted(
        name
        for name, addresses in entries.items()
        if "localhost" not in name and all(ipaddress.ip_address(a).is_loopback for a in addresses)
    )


class HostsFile:
    """A resolver of our own: names to addresses; any other name doesn't resolve."""

    def __init__(self, table: dict[str, list[str]]) -> None:
        self.table = table
        self.asked: list[str] = []

    def __call__(self, host: str) -> Iterable[str]:
        self.asked.append(host)
        if host not in self.table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return self.table[host]


# -- examples -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:11434",
        "http://localhost:1234",
        "http://localhost.:1234",  # a trailing dot is the same name
        "http://LocalHost:1234",
        "http://[::1]:8080",
        "http://127.5.5.5",
        "http://127.1:11434",  # shorthand getaddrinfo reads as 127.0.0.1
        "http://2130706433:11434",  # 127.0.0.1 as one 32-bit number
        "http://0x7f000001",
        "http://[::ffff:127.0.0.1]:11434",  # IPv4-mapped loopback
        "http://0.0.0.0:11434",
        "http://[::]:11434",
        "127.0.0.1:11434",
        f"http://{socket.gethostname()}:11434",
    ],
)
def test_this_computer_is_local(url: str) -> None:
    assert on_this_computer(url)
    assert ProviderConfig("x", "custom", url).is_local


@pytest.mark.parametrize(
    "url",
    [
        "http://192.0.2.10:11434",
        "http://10.1.2.3:11434",
        "http://[::ffff:192.0.2.10]",
        "http://[2001:db8::1]:8080",
        "http://nothing-here.invalid",  # never resolves (RFC 6761): the safe side
        "http://",
        "",
        "http://[::1",  # not an address at all
    ],
)
def test_elsewhere_or_unknown_is_not_local(url: str) -> None:
    assert not on_this_computer(url)


@pytest.mark.parametrize("alias", hosts_file_aliases() or ["(none)"])
def test_a_hosts_file_alias_of_loopback_is_local(alias: str) -> None:
    if alias == "(none)":
        pytest.skip("/etc/hosts names no loopback alias besides localhost")
    assert on_this_computer(f"http://{alias}:8080/v1")


def test_a_localhost_name_is_resolved_like_any_other() -> None:
    hosts = HostsFile({"printer.localhost": ["192.168.1.20"], "box.localhost": ["127.0.0.2"]})
    assert not on_this_computer("http://printer.localhost:631", hosts)
    assert on_this_computer("http://box.localhost:631", hosts)
    assert not on_this_computer("http://unknown.localhost", hosts)
    assert hosts.asked == ["printer.localhost", "box.localhost", "unknown.localhost"]


def test_a_name_with_one_address_elsewhere_is_not_local() -> None:
    hosts = HostsFile({"split": ["127.0.0.1", "::1", "203.0.113.7"], "empty": []})
    assert not on_this_computer("http://split:80", hosts)
    assert not on_this_computer("http://empty:80", hosts)


def test_the_system_resolver_is_asked_once_per_host(monkeypatch: pytest.MonkeyPatch) -> None:
    host = f"once-{uuid.uuid4().hex}.test"
    asked: list[str] = []

    def resolve(name: str) -> tuple[str, ...]:
        asked.append(name)
        return ("127.0.0.1",)

    monkeypatch.setattr(routing.endpoints, "resolve", resolve)
    assert on_this_computer(f"http://{host}:1") and on_this_computer(f"https://{host}/v1")
    assert asked == [host]


def test_config_overrides_the_address() -> None:
    assert ProviderConfig("x", "custom", "http://192.0.2.10", local=True).is_local
    assert not ProviderConfig("x", "custom", "http://127.0.0.1", local=False).is_local


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("http://127.0.0.1:11434", "127.0.0.1:11434"),
        ("https://api.openai.com/v1", "api.openai.com"),
        ("http://user:s3cr3t@gpu.lan:8080/v1", "gpu.lan:8080"),
        ("https://token@api.example.com:8443/v1?x=1", "api.example.com:8443"),
        ("http://u:p@[::1]:1234/v1", "[::1]:1234"),
        ("http://[::1]:8080", "[::1]:8080"),
        ("127.0.0.1:11434", "127.0.0.1:11434"),
        ("HTTP://Example.COM/a@b", "example.com"),
        ("http://user:s3cr3t@host:port/v1", "host:port"),  # a port that is no number
        ("http://user:pa/ss@host:1/v1", "user"),  # a "/" in the password: never "pa"
        ("http://user:s3cr3t@[::1/v1", "[::1"),  # an unclosed bracket
        ("", ""),
    ],
)
def test_an_endpoint_is_named_by_host_and_port_only(url: str, name: str) -> None:
    assert endpoint_name(url) == name


def test_credentials_leave_texts_that_quote_an_address() -> None:
    text = "Unknown scheme for proxy URL URL('socks9://user:s3cr3t@127.0.0.1:1080')"
    assert (
        without_credentials(text) == "Unknown scheme for proxy URL URL('socks9://127.0.0.1:1080')"
    )


_SECRET = st.text(st.characters(codec="ascii", exclude_characters="@/?#[] \t\r\n"), min_size=1)


@given(
    user=_SECRET,
    password=_SECRET,
    host=st.sampled_from(["gpu.lan", "127.0.0.1", "[::1]", "api.example.com"]),
    port=st.none() | st.integers(1, 65535),
    path=st.sampled_from(["", "/v1", "/a@b/c", "?k=v"]),
)
def test_a_name_never_carries_user_info(
    user: str, password: str, host: str, port: int | None, path: str
) -> None:
    netloc = f"{host}:{port}" if port else host
    name = endpoint_name(f"http://{user}:{password}@{netloc}{path}")
    assert name == netloc
    assert "@" not in name


# -- the property: local exactly when every resolved address is on this computer -------

Labelled = tuple[str, bool]  # an address, and whether it is on this computer


def _v4(low: int, high: int) -> st.SearchStrategy[ipaddress.IPv4Address]:
    return st.integers(low, high).map(ipaddress.IPv4Address)


def _labelled(ip: IP, here: bool | None = None) -> Labelled:
    return str(ip), (ip in OWN) if here is None else here


LOOPBACK_V4 = _v4(0x7F000000, 0x7FFFFFFF)
PRIVATE_V4 = st.one_of(
    _v4(0x0A000000, 0x0AFFFFFF), _v4(0xAC100000, 0xAC1FFFFF), _v4(0xC0A80000, 0xC0A8FFFF)
)
# ip_addresses(v=4) draws only IPv4Address and v=6 only IPv6Address; older stubs said
# either, newer ones say which: made again as the one it is, the type holds under both.
PUBLIC_V4 = st.ip_addresses(v=4).filter(lambda ip: ip.is_global).map(ipaddress.IPv4Address)
PUBLIC_V6 = (
    st.ip_addresses(v=6)
    .map(ipaddress.IPv6Address)
    .filter(lambda ip: ip.is_global and ip.ipv4_mapped is None)
)

ADDRESSES: st.SearchStrategy[Labelled] = st.one_of(
    LOOPBACK_V4.map(lambda ip: _labelled(ip, True)),
    LOOPBACK_V4.map(lambda ip: (f"::ffff:{ip}", True)),
    st.sampled_from([("::1", True), ("0.0.0.0", True), ("::", True)]),
    st.sampled_from(sorted(OWN, key=str) or [ipaddress.IPv4Address("127.0.0.1")]).map(
        lambda ip: _labelled(ip, True)
    ),
    PRIVATE_V4.map(_labelled),
    PUBLIC_V4.map(_labelled),
    PUBLIC_V6.map(_labelled),
)


def _spellings(ip: ipaddress.IPv4Address) -> st.SearchStrategy[str]:
    """The ways a URL can write one IPv4 address that getaddrinfo reads back as it."""
    a, b, c, d = ip.packed
    return st.sampled_from(
        [
            str(ip),
            f"{a}.{(b << 16) | (c << 8) | d}",  # 127.1
            f"{a}.{b}.{(c << 8) | d}",
            str(int(ip)),  # 2130706433
            f"[::ffff:{ip}]",
        ]
    )


@st.composite
def written_hosts(draw: st.DrawFn) -> tuple[str, bool]:
    """A host as a URL writes it (any spelling), and whether it is this computer."""
    kind = draw(st.sampled_from(["loopback", "private", "public", "own", "v6", "localhost"]))
    if kind == "localhost":
        name = draw(st.sampled_from(["localhost", "localhost."]))
        return "".join(draw(st.sampled_from([ch.lower(), ch.upper()])) for ch in name), True
    if kind == "v6":
        ip6, here = draw(st.sampled_from([("::1", True), ("::", True)]) | PUBLIC_V6.map(_labelled))
        return f"[{ip6}]", here
    if kind == "own" and any(isinstance(ip, ipaddress.IPv4Address) for ip in OWN):
        ip = draw(st.sampled_from(sorted(i for i in OWN if isinstance(i, ipaddress.IPv4Address))))
    else:
        strategy = {"loopback": LOOPBACK_V4, "private": PRIVATE_V4}.get(kind, PUBLIC_V4)
        ip = draw(strategy)
    return draw(_spellings(ip)), ip.is_loopback or ip in OWN


@given(written=written_hosts(), port=st.none() | st.integers(1, 65535))
def test_an_address_as_written_is_local_exactly_when_it_is_this_computer(
    written: tuple[str, bool], port: int | None
) -> None:
    host, here = written
    url = f"http://{host}:{port}/v1" if port else f"http://{host}/v1"
    assert on_this_computer(url) is here


_LABEL = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?", fullmatch=True)


@given(
    labels=st.lists(_LABEL, min_size=1, max_size=3),
    suffix=st.sampled_from(["", ".localhost", ".lan", ".example.com"]),
    resolved=st.lists(ADDRESSES, min_size=1, max_size=5),
    upper=st.booleans(),
    trailing_dot=st.booleans(),
)
def test_a_name_is_local_exactly_when_every_address_it_resolves_to_is(
    labels: list[str], suffix: str, resolved: list[Labelled], upper: bool, trailing_dot: bool
) -> None:
    name = ".".join(labels) + suffix
    hosts = HostsFile({name: [address for address, _ in resolved]})
    written = (name.upper() if upper else name) + ("." if trailing_dot else "")
    expected = all(here for _, here in resolved)
    assert on_this_computer(f"http://{written}:8080/v1", hosts) is expected
    assert hosts.asked == [name]  # asked by its one name: lower case, one trailing dot off
