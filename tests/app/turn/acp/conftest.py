"""The agent engine's fixture: engines made in a test are closed after it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.store import Store
from app.turn.acp.engine import AcpEngine
from tests.app.turn.acp.helpers import EngineFor
from tests.app.turn.engine_helpers import engines_made


@pytest.fixture
async def engine_for(store: Store, tmp_path: Path) -> AsyncIterator[EngineFor]:
    async with engines_made(AcpEngine, store, tmp_path) as made:
        yield made
