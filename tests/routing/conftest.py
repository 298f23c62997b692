"""Routing fixtures: the loopback Ollama's small seeing model as a looker."""

from __future__ import annotations

import pytest

from routing.catalogue import Catalogue
from routing.describing.looker import WireLooker

LOOKER = "ollama:qwen2.5vl:3b"


@pytest.fixture
def looker(listed_catalogue: Catalogue) -> WireLooker:
    """Its small seeing model, as the describer asks it."""
    model = listed_catalogue.find(LOOKER)
    assert model is not None and model.sees
    return WireLooker(listed_catalogue, model)
