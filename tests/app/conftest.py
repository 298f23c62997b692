"""Fixtures for the app tests: a real SQLite store in the test's own folder, and the
loopback Ollama as the only provider (not listed yet: a turn lists it)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from app.store import Store
from routing.catalogue import Catalogue
from routing.models import ProviderConfig
from tests.servers.ollama import FakeOllama


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A fresh store in a temporary folder, closed afterwards."""
    with Store.open(tmp_path / "data") as opened:
        yield opened


@pytest.fixture
async def catalogue(fake_ollama: FakeOllama) -> AsyncIterator[Catalogue]:
    """The loopback Ollama (blind and seeing models) as the only provider."""
    made = Catalogue([ProviderConfig("ollama", "ollama", fake_ollama.base_url)])
    yield made
    await made.aclose()
