"""The agent engine's fixture: engines made in a test are closed after it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from app.store import Store
from app.turn.acp.engine import AcpEngine
from routing.models import ProviderConfig
from tests.app.turn.acp.helpers import EngineFor


@pytest.fixture
async def engine_for(store: Store, tmp_path: Path) -> AsyncIterator[EngineFor]:
    made: list[AcpEngine] = []

    def make(agent: ProviderConfig, **kwargs: Any) -> AcpEngine:
        engine = AcpEngine(store, [agent], cwd=tmp_path, **kwargs)
        made.append(engine)
        return engine

    yield make
    for engine in made:
        await engine.aclose()
