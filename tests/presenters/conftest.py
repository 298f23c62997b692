"""The presenters' tests run without Qt, and never near the person's real keyring."""

from __future__ import annotations

import pytest

from tests.app.test_keys import memory_keyring, no_keyring

__all__ = ["memory_keyring", "no_keyring"]  # fixtures, shared with the keys' own tests


@pytest.fixture(autouse=True)
def keyring_absent(no_keyring: None) -> None:
    """No OS keyring, as on this machine, unless a test asks for `memory_keyring`."""
