"""A wire's HTTP client: direct to a server on this computer, TLS checked wherever TLS is spoken."""

from __future__ import annotations

import ssl
from typing import Any

import httpx
import pytest

from routing.wires.client import http_client
from tests.servers.loopback import CERTIFICATE
from tests.servers.ollama import FakeOllama
from tests.servers.proxy import RecordingServer


@pytest.fixture
def ca_bundle_reads(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every time a TLS context loads certificate authorities (the ~30 ms a start can skip)."""
    reads: list[object] = []
    original = ssl.SSLContext.load_verify_locations

    def load_verify_locations(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        reads.append(args or kwargs)
        original(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", load_verify_locations)
    return reads


async def test_a_plain_http_server_here_is_reached_without_tls(
    fake_ollama: FakeOllama, ca_bundle_reads: list[object]
) -> None:
    async with http_client(fake_ollama.base_url, local=True) as client:
        response = await client.get(f"{fake_ollama.base_url}/api/tags")
    assert response.status_code == 200
    assert ca_bundle_reads == []  # no TLS is spoken, so no certificate authority was read


async def test_https_is_verified_even_on_this_computer(ca_bundle_reads: list[object]) -> None:
    with RecordingServer(200, "over TLS", tls=True) as server:
        async with http_client(server.base_url, local=True) as client:
            assert ca_bundle_reads  # the authorities it checks against
            with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
                await client.get(server.base_url)
        # The same server, trusted, answers: what refused it was the certificate check.
        trusting = ssl.create_default_context(cafile=str(CERTIFICATE))
        async with httpx.AsyncClient(verify=trusting) as checked:
            assert (await checked.get(server.base_url)).text == "over TLS"


async def test_a_proxy_that_speaks_tls_is_verified(monkeypatch: pytest.MonkeyPatch) -> None:
    with RecordingServer(tls=True) as proxy:
        monkeypatch.setenv("HTTP_PROXY", f"https://{proxy.address}")
        async with http_client("http://cloud.example:8080/v1", local=False) as client:
            with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
                await client.get("http://cloud.example:8080/v1/models")
    assert proxy.recorded() == []  # nothing was sent to a proxy that failed the check


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:11434", True),
        ("https://gpu.lan:8443", True),
        ("https://api.openai.com/v1", False),
        ("http://cloud.example:8080/v1", False),
    ],
)
async def test_only_a_server_elsewhere_uses_the_environment_and_no_wire_follows_redirects(
    url: str, local: bool
) -> None:
    async with http_client(url, local=local) as client:
        assert client.trust_env is (not local)
        assert client.follow_redirects is False


async def test_a_local_server_is_reached_past_a_proxy_from_the_environment(
    fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    async with http_client(fake_ollama.base_url, local=True) as client:
        response = await client.get(f"{fake_ollama.base_url}/api/tags")
    assert response.status_code == 200
