"""Locality overridden by the config (locality itself: test_endpoints)."""

from __future__ import annotations

from routing.models import ProviderConfig


def test_config_overrides_locality() -> None:
    assert ProviderConfig("x", "ollama", "http://192.0.2.10", local=True).is_local
    assert not ProviderConfig("x", "ollama", "http://127.0.0.1", local=False).is_local


def test_api_key_never_in_repr() -> None:
    provider = ProviderConfig("x", "ollama", "http://h", api_key="sk-secret-123456789")
    assert "sk-secret" not in repr(provider)
