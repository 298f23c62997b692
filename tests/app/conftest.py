"""Fixtures for the app tests: a real SQLite store in the test's own folder (the loopback
Ollama's `catalogue` is every package's: tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A fresh store in a temporary folder, closed afterwards."""
    with Store.open(tmp_path / "data") as opened:
        yield opened
