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
from tests.app.turn.engine_helpers import engines_made


@pytest.fixture
async def engine_for(store: Store, tmp_path: Path) -> AsyncIterator[EngineFor]:
    def make(agent: ProviderConfig, **options: Any) -> AcpEngine:
        return AcpEngine(store, [agent], cwd=tmp_path, **options)

    async with engines_made(make) as made:
        yield made
