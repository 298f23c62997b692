"""Locality overridden by the config, and model references (locality itself: test_endpoints)."""

from __future__ import annotations

import pytest

from routing.models import ModelInfo, ProviderConfig, split_ref


def test_config_overrides_locality() -> None:
    assert ProviderConfig("x", "ollama", "http://192.0.2.10", local=True).is_local
    assert not ProviderConfig("x", "ollama", "http://127.0.0.1", local=False).is_local


def test_split_ref_keeps_colons_of_the_model_name() -> None:
    assert split_ref("ollama:llama3.2:3b") == ("ollama", "llama3.2:3b")
    assert ModelInfo("ollama", "llama3.2:3b").ref == "ollama:llama3.2:3b"
    for bad in ("ollama", ":x", "ollama:"):
        with pytest.raises(ValueError, match="PROVIDER:MODEL"):
            split_ref(bad)


def test_api_key_never_in_repr() -> None:
    provider = ProviderConfig("x", "ollama", "http://h", api_key="sk-secret-123456789")
    assert "sk-secret" not in repr(provider)
