"""Proxies from the environment: never for a server on this computer, however it is
written; used for one elsewhere; a setting Sightline can't use is one clear line."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from routing.catalogue import Catalogue
from routing.errors import CannotConnect, ProviderError, ProxyUnusable
from routing.models import ProviderConfig
from routing.transcript import user_message
from routing.wires.base import ChatRequest, Done
from tests.pictures import make_picture
from tests.routing.test_endpoints import hosts_file_aliases
from tests.servers.loopback import closed_port
from tests.servers.ollama import FakeOllama
from tests.servers.proxy import RecordingServer

VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")
KINDS = ("ollama", "custom", "anthropic", "lmstudio")
ELSEWHERE = "http://192.0.2.1:9/v1"  # TEST-NET-1: never this computer
ALIASES = hosts_file_aliases()
# 127.0.0.1 as a person (or a hosts file) may write it. (Not "localhost.": on this computer
# by locality, but some resolvers can't connect to it; tests/routing/test_endpoints.py.)
SPELLINGS = ["127.1", "2130706433", "[::ffff:127.0.0.1]", "localhost"] + (
    ALIASES[:1] or ["(no alias)"]
)


def clear_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """No proxy variable of the machine's own (lower case ones win) is left to interfere."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


@pytest.fixture
def proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[RecordingServer]:
    """A recording "proxy" set in every proxy variable."""
    clear_proxies(monkeypatch)
    with RecordingServer() as server:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
            monkeypatch.setenv(name, f"http://{server.address}")
        yield server


def spelled(host: str, port: int) -> str:
    if host == "(no alias)":
        pytest.skip("/etc/hosts names no loopback alias besides localhost")
    return f"http://{host}:{port}"


async def first_error(provider: ProviderConfig, timeout: float = 5.0) -> ProviderError | None:
    catalogue = Catalogue([provider])
    try:
        return (await catalogue.refresh(timeout=timeout))[provider.id].error
    finally:
        await catalogue.aclose()


# -- this computer: direct, whatever the variables and the config say ---------------


@pytest.mark.parametrize("local", [None, False])
@pytest.mark.parametrize("host", SPELLINGS)
async def test_a_picture_goes_straight_to_a_server_on_this_computer(
    host: str, local: bool | None, proxy: RecordingServer, fake_ollama: FakeOllama
) -> None:
    url = spelled(host, fake_ollama.port)
    catalogue = Catalogue([ProviderConfig("ollama", "ollama", url, local=local)])
    try:
        status = (await catalogue.refresh())["ollama"]
        assert status.ready, status.error
        request = ChatRequest("qwen2.5vl:3b", (user_message("What is this?", (make_picture(),)),))
        events = [event async for event in catalogue.wire("ollama").stream(request)]
    finally:
        await catalogue.aclose()
    assert any(isinstance(event, Done) for event in events)
    sent = fake_ollama.chat_requests()[-1]["messages"]
    assert any(message.get("images") for message in sent)
    assert proxy.recorded() == []


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("host", SPELLINGS)
async def test_every_wire_reaches_this_computer_directly(
    kind: str, host: str, proxy: RecordingServer
) -> None:
    with RecordingServer(404, "404 page not found") as server:
        url = spelled(host, server.port)
        error = await first_error(ProviderConfig(kind, kind, url, api_key="k", local=False))
        assert server.recorded()  # the provider's own server was asked
    assert error is not None and not isinstance(error, ProxyUnusable)
    assert proxy.recorded() == []


async def test_a_server_the_config_calls_local_is_reached_directly(proxy: RecordingServer) -> None:
    provider = ProviderConfig("lan", "custom", ELSEWHERE, local=True)  # a box on the LAN
    error = await first_error(provider, timeout=0.5)
    assert isinstance(error, CannotConnect)
    assert proxy.recorded() == []


async def test_an_unusable_proxy_does_not_touch_a_server_on_this_computer(
    monkeypatch: pytest.MonkeyPatch, fake_ollama: FakeOllama
) -> None:
    clear_proxies(monkeypatch)
    monkeypatch.setenv("ALL_PROXY", "socks9://127.0.0.1:1080")
    assert await first_error(ProviderConfig("ollama", "ollama", fake_ollama.base_url)) is None


# -- elsewhere: through the proxy -----------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
async def test_a_server_elsewhere_goes_through_the_proxy(kind: str, proxy: RecordingServer) -> None:
    error = await first_error(ProviderConfig(kind, kind, ELSEWHERE, api_key="k"))
    assert error is not None
    assert proxy.recorded() and all("http://192.0.2.1:9/" in r for r in proxy.recorded())


async def test_https_elsewhere_is_tunnelled_through_the_proxy(proxy: RecordingServer) -> None:
    error = await first_error(ProviderConfig("x", "custom", "https://192.0.2.1:9/v1"))
    assert proxy.recorded() == ["CONNECT 192.0.2.1:9"]
    assert isinstance(error, CannotConnect)
    assert "HTTPS_PROXY" in error.message and "192.0.2.1:9" in error.message


async def test_no_proxy_exempts_a_server_elsewhere(
    proxy: RecordingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_PROXY", "192.0.2.1")
    await first_error(ProviderConfig("x", "custom", ELSEWHERE), timeout=0.5)
    assert proxy.recorded() == []


# -- proxies that can't be used -------------------------------------------------------


async def test_a_socks_proxy_that_is_down_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_proxies(monkeypatch)
    port = closed_port()
    monkeypatch.setenv("ALL_PROXY", f"socks5://user:s3cr3t@127.0.0.1:{port}")
    catalogue = Catalogue([ProviderConfig("x", "custom", ELSEWHERE)])
    request = ChatRequest("m", (user_message("hi"),))
    try:
        listed = (await catalogue.refresh(timeout=5))["x"].error
        with pytest.raises(CannotConnect) as chat:
            async for _ in catalogue.wire("x").stream(request):
                pass
    finally:
        await catalogue.aclose()
    for error in (listed, chat.value):
        assert isinstance(error, CannotConnect) and "\n" not in error.message
        assert f"ALL_PROXY (socks5://127.0.0.1:{port})" in error.message
        assert "s3cr3t" not in error.message + error.detail


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("socks9://user:s3cr3t@127.0.0.1:1080", "not socks9"),
        ("http://127.0.0.1:99999", "99999 is not a port"),
        ("http://user:s3cr3t@proxy.lan:port", "not an address"),
        ("http://:8080", "names no host"),
    ],
)
async def test_a_malformed_proxy_is_one_clear_line(
    value: str, why: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    clear_proxies(monkeypatch)
    monkeypatch.setenv("ALL_PROXY", value)
    catalogue = Catalogue([ProviderConfig("x", "custom", ELSEWHERE)])
    try:
        with pytest.raises(ProxyUnusable) as made:
            catalogue.wire("x")
        listed = (await catalogue.refresh())["x"].error
    finally:
        await catalogue.aclose()
    for error in (made.value, listed):
        assert isinstance(error, ProxyUnusable) and error.provider_id == "x"
        assert error.message.startswith("The proxy in ALL_PROXY (") and why in error.message
        assert "Fix or unset ALL_PROXY." in error.message and "\n" not in error.message
        assert "s3cr3t" not in error.message + error.detail


async def test_socks_without_its_package_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clear_proxies(monkeypatch)
    monkeypatch.setenv("HTTPS_PROXY", "socks5://127.0.0.1:1080")
    monkeypatch.setitem(sys.modules, "socksio", None)  # as if httpx[socks] were not installed
    error = await first_error(ProviderConfig("x", "custom", "https://192.0.2.1/v1"))
    assert isinstance(error, ProxyUnusable)
    assert "HTTPS_PROXY (socks5://127.0.0.1:1080)" in error.message
    assert "socksio" in error.message
