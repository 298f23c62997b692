"""Routing fixtures: the loopback Ollama listed, and its small seeing model as a looker."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from routing.catalogue import Catalogue
from routing.describing.looker import WireLooker
from routing.models import ProviderConfig
from tests.servers.ollama import FakeOllama

LOOKER = "ollama:qwen2.5vl:3b"


@pytest.fixture
async def catalogue(fake_ollama: FakeOllama) -> AsyncIterator[Catalogue]:
    """The loopback Ollama, listed."""
    made = Catalogue([ProviderConfig("ollama", "ollama", fake_ollama.base_url)])
    await made.refresh()
    yield made
    await made.aclose()


@pytest.fixture
def looker(catalogue: Catalogue) -> WireLooker:
    """Its small seeing model, as the describer asks it."""
    model = catalogue.find(LOOKER)
    assert model is not None
    return WireLooker(catalogue, model)
