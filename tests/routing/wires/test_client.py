"""A wire's HTTP client: direct to a server on this computer, TLS checked wherever TLS is spoken."""

from __future__ import annotations

import ssl

import pytest

from routing.wires.client import http_client
from tests.servers.ollama import FakeOllama


def _verify_mode(client: object) -> ssl.VerifyMode:
    # httpx keeps the TLS context on its connection pool; reading it is the only way to
    # see what a request would check without a certificate authority of our own.
    return client._transport._pool._ssl_context.verify_mode  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("url", "local", "mode"),
    [
        ("http://127.0.0.1:11434", True, ssl.CERT_NONE),  # no TLS spoken: none built
        ("https://gpu.lan:8443", True, ssl.CERT_REQUIRED),
        ("https://api.openai.com/v1", False, ssl.CERT_REQUIRED),
        ("http://cloud.example:8080/v1", False, ssl.CERT_REQUIRED),  # a proxy may speak TLS
    ],
)
async def test_tls_is_checked_wherever_it_can_be_spoken(
    url: str, local: bool, mode: ssl.VerifyMode
) -> None:
    client = http_client(url, local=local)
    try:
        assert _verify_mode(client) == mode
        assert client.trust_env is (not local)
        assert client.follow_redirects is False
    finally:
        await client.aclose()


async def test_a_local_server_is_reached_past_a_proxy_from_the_environment(
    fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    client = http_client(fake_ollama.base_url, local=True)
    try:
        response = await client.get(f"{fake_ollama.base_url}/api/tags")
    finally:
        await client.aclose()
    assert response.status_code == 200
