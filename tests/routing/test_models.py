"""Locality and model references."""

from __future__ import annotations

import socket

import pytest

from routing.models import ModelInfo, ProviderConfig, is_local_url, split_ref


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:11434",
        "http://localhost:1234",
        "http://[::1]:8080",
        "http://127.5.5.5",
        "http://0.0.0.0:11434",
        f"http://{socket.gethostname()}:11434",
    ],
)
def test_this_computer_is_local(url: str) -> None:
    assert is_local_url(url)


@pytest.mark.parametrize(
    "url", ["https://api.openai.com/v1", "http://192.0.2.10:11434", "http://example.com"]
)
def test_elsewhere_is_not_local(url: str) -> None:
    assert not is_local_url(url)


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
