"""Every wire names a failing server by host and port: never the user-info of its base_url.

A base_url may carry credentials (http://user:token@host/v1); errors end up on screen,
in stored notices and in the log, so each failure mode of each wire is checked against
a real loopback server that fails that way.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from routing.catalogue import Catalogue
from routing.errors import ProviderError
from routing.models import ProviderConfig
from routing.transcript import user_message
from routing.wires.base import ChatRequest
from tests.servers.loopback import closed_port
from tests.servers.proxy import RecordingServer

SECRET = "s3cr3t"
KINDS = ("ollama", "custom", "anthropic", "lmstudio")
WEB_PAGE = "<!doctype html><html><head><title>Sign in</title></head><body>Wi-Fi</body></html>"


def provider(kind: str, port: int) -> ProviderConfig:
    """A provider of `kind` whose base_url carries a user name and password."""
    return ProviderConfig(
        kind, kind, f"http://user:{SECRET}@127.0.0.1:{port}/v1", api_key="test-key-123"
    )


def assert_named_without_credentials(error: ProviderError | None, port: int) -> None:
    assert error is not None
    for text in (error.message, error.detail, str(error)):
        assert SECRET not in text and "user:" not in text
    assert f"127.0.0.1:{port}" in error.message
    assert "\n" not in error.message  # one line, as the command line prints it


async def listing_error(kind: str, port: int, timeout: float = 10.0) -> ProviderError | None:
    catalogue = Catalogue([provider(kind, port)])
    try:
        return (await catalogue.refresh(timeout=timeout))[kind].error
    finally:
        await catalogue.aclose()


async def chat_error(kind: str, port: int) -> ProviderError | None:
    catalogue = Catalogue([provider(kind, port)])
    request = ChatRequest("some-model", (user_message("hi"),))
    try:
        async for _ in catalogue.wire(kind).stream(request):
            pass
    except ProviderError as error:
        return error
    finally:
        await catalogue.aclose()
    return None


@pytest.fixture
async def not_found() -> AsyncIterator[RecordingServer]:
    """A server with no such API path: every request is a plain-text 404."""
    with RecordingServer(404, "404 page not found") as server:
        yield server


@pytest.fixture
async def web_page() -> AsyncIterator[RecordingServer]:
    """A captive portal: every request gets its sign-in page."""
    with RecordingServer(200, WEB_PAGE, content_type="text/html; charset=utf-8") as server:
        yield server


@pytest.mark.parametrize("kind", KINDS)
async def test_a_missing_api_path_names_the_server_only(
    kind: str, not_found: RecordingServer
) -> None:
    assert_named_without_credentials(await listing_error(kind, not_found.port), not_found.port)
    assert_named_without_credentials(await chat_error(kind, not_found.port), not_found.port)
    assert not_found.recorded()  # the failure came from the server, not before it


@pytest.mark.parametrize("kind", KINDS)
async def test_a_web_page_names_the_server_only(kind: str, web_page: RecordingServer) -> None:
    assert_named_without_credentials(await listing_error(kind, web_page.port), web_page.port)
    assert web_page.recorded()


@pytest.mark.parametrize("kind", KINDS)
async def test_a_refused_connection_names_the_server_only(kind: str) -> None:
    port = closed_port()
    assert_named_without_credentials(await listing_error(kind, port), port)
    assert_named_without_credentials(await chat_error(kind, port), port)


@pytest.mark.parametrize("kind", KINDS)
async def test_a_listing_that_times_out_names_the_server_only(kind: str) -> None:
    with RecordingServer(stall=True) as server:
        error = await listing_error(kind, server.port, timeout=0.3)
    assert_named_without_credentials(error, server.port)
    assert error is not None and "0.3 s" in error.message
