"""Keys: where they come from, where they are kept, and that none is left in plaintext."""

from __future__ import annotations

from collections.abc import Iterator

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import NoKeyringError, PasswordDeleteError

from app.keys import SERVICE, KeyStore, with_keys
from routing.models import ProviderConfig


class MemoryKeyring(KeyringBackend):
    """An OS keyring stand-in that keeps secrets in memory, never in a file."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.secrets: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.secrets:
            raise PasswordDeleteError(username)
        del self.secrets[(service, username)]


class NoKeyring(KeyringBackend):
    """What a machine without a keyring daemon offers."""

    priority = 0  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        raise NoKeyringError("no backend")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise NoKeyringError("no backend")

    def delete_password(self, service: str, username: str) -> None:
        raise NoKeyringError("no backend")


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def no_keyring() -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(NoKeyring())
    yield
    keyring.set_keyring(previous)


OPENAI = ProviderConfig("oa", "openai", "https://api.openai.com/v1")


def test_config_key_wins(memory_keyring: MemoryKeyring) -> None:
    memory_keyring.secrets[(SERVICE, "oa")] = "from-keyring"
    [p] = with_keys([OPENAI.with_key("from-config")], KeyStore(), {"OPENAI_API_KEY": "from-env"})
    assert p.api_key == "from-config"


def test_keyring_before_environment(memory_keyring: MemoryKeyring) -> None:
    memory_keyring.secrets[(SERVICE, "oa")] = "from-keyring"
    [p] = with_keys([OPENAI], KeyStore(), {"OPENAI_API_KEY": "from-env"})
    assert p.api_key == "from-keyring"


def test_environment_last(memory_keyring: MemoryKeyring) -> None:
    [p] = with_keys([OPENAI], KeyStore(), {"OPENAI_API_KEY": "from-env"})
    assert p.api_key == "from-env"


def test_set_stores_in_the_keyring(memory_keyring: MemoryKeyring) -> None:
    keys = KeyStore()
    assert keys.set("oa", "sk-typed") is True
    assert memory_keyring.secrets[(SERVICE, "oa")] == "sk-typed"
    keys.delete("oa")
    assert (SERVICE, "oa") not in memory_keyring.secrets


def test_no_keyring_keeps_the_key_for_the_session_and_says_so(no_keyring: None) -> None:
    keys = KeyStore()
    assert keys.set("oa", "sk-typed") is False
    assert "only until Sightline closes" in keys.problem
    assert keys.get("oa") == "sk-typed"
    assert with_keys([OPENAI], keys, {})[0].api_key == "sk-typed"
    assert KeyStore().get("oa") == ""  # a new session starts without it
