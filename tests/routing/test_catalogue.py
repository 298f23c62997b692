"""The catalogue against the loopback Ollama: a named model is asked about alone (one
/api/show, not one per installed model); what it can't name alone the listing says."""

from __future__ import annotations

from dataclasses import replace

import pytest

from routing.catalogue import Catalogue
from routing.errors import CannotConnect, ModelNotFound
from routing.models import ProviderConfig
from tests.servers.loopback import closed_port
from tests.servers.ollama import FakeOllama


def _paths(server: FakeOllama) -> list[str]:
    return [path for _method, path, _body in server.requests]


async def test_a_named_model_is_asked_about_alone(
    catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    found = await catalogue.resolve("ollama:llava:7b")
    assert _paths(fake_ollama) == ["/api/show"]
    listing = Catalogue([ProviderConfig("ollama", "ollama", fake_ollama.base_url)])
    try:
        await listing.refresh()
        listed = listing.find("ollama:llava:7b")  # what the whole listing says of it
        assert listed is not None and listed.size  # /api/tags says its size; /api/show doesn't
        assert found == replace(listed, size=None)
    finally:
        await listing.aclose()
    assert (found.sees, found.local) == (True, True)
    asked = len(fake_ollama.requests)
    assert catalogue.find("ollama:llava:7b") == found  # kept: asked once a session
    assert await catalogue.resolve("ollama:llava:7b") == found
    assert len(fake_ollama.requests) == asked
    assert catalogue.models() == []  # no listing was made: `auto` still lists them all


async def test_a_model_asked_about_alone_takes_what_was_learned(
    catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    await catalogue.resolve("ollama:llava:7b")
    catalogue.mark_blind("ollama:llava:7b")  # it refused a picture
    again = catalogue.find("ollama:llava:7b")
    assert again is not None and again.sees is False


async def test_a_model_the_server_lacks_is_told_from_the_whole_listing(
    catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    with pytest.raises(ModelNotFound) as refused:
        await catalogue.resolve("ollama:mistral:7b")
    assert refused.value.available == ("llama3.2:3b", "llava:7b", "qwen2.5vl:3b", "gemma3:270m")
    assert _paths(fake_ollama)[:2] == ["/api/show", "/api/tags"]


async def test_a_listed_provider_is_not_asked_again(
    listed_catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    asked = len(fake_ollama.requests)
    found = await listed_catalogue.resolve("ollama:qwen2.5vl:3b")
    assert (found.sees, found.tools) == (True, True)
    assert len(fake_ollama.requests) == asked


async def test_a_server_that_is_not_there_is_said_once() -> None:
    nowhere = Catalogue([ProviderConfig("ollama", "ollama", f"http://127.0.0.1:{closed_port()}")])
    try:
        with pytest.raises(CannotConnect, match=r"127\.0\.0\.1"):
            await nowhere.resolve("ollama:llava:7b")
        assert nowhere.statuses() == []  # not listed: the next listing tries afresh
    finally:
        await nowhere.aclose()
