"""Keys: where they come from, where they are kept, and that none is left in plaintext."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import NoKeyringError, PasswordDeleteError

from app.keys import INDEX_NAME, SERVICE, KeyStore, with_keys
from routing.models import ProviderConfig
from tests.servers.ollama import FakeOllama


class MemoryKeyring(KeyringBackend):
    """An OS keyring stand-in that keeps secrets in memory, never in a file."""

    # Not viable on its own: keyring's default chainer gathers every backend class of
    # priority above 0, subclasses included, and would ask this one (or a test's slow
    # subclass, which waits 10 s) whenever a later test reads a key through the default.
    priority = 0

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

    priority = 0

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


def test_gemini_reads_google_api_key_too(memory_keyring: MemoryKeyring) -> None:
    gemini = ProviderConfig("gemini", "gemini", "https://generativelanguage.googleapis.com/v1beta")
    [p] = with_keys([gemini], KeyStore(), {"GOOGLE_API_KEY": "from-google"})
    assert p.api_key == "from-google"
    both = {"GOOGLE_API_KEY": "from-google", "GEMINI_API_KEY": "from-gemini"}
    [p] = with_keys([gemini], KeyStore(), both)
    assert p.api_key == "from-gemini"  # its own variable first


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


OLLAMA = ProviderConfig("ollama", "ollama", "http://127.0.0.1:11434")


def test_a_keyless_provider_is_looked_up_only_once_sightline_stored_its_key(
    memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    memory_keyring.set_password(SERVICE, "ollama", "set-outside-sightline")
    index = tmp_path / INDEX_NAME
    index.write_text('{"providers": []}', encoding="utf-8")
    keys = KeyStore(tmp_path)
    [p] = with_keys([OLLAMA], keys, {})
    assert p.api_key == ""  # the index says Sightline put no key there for it
    assert keys.set("ollama", "behind-a-proxy")
    assert json.loads(index.read_text(encoding="utf-8")) == {"providers": ["ollama"]}
    [p] = with_keys([OLLAMA], KeyStore(tmp_path), {})
    assert p.api_key == "behind-a-proxy"
    keys.delete("ollama")
    assert json.loads(index.read_text(encoding="utf-8")) == {"providers": []}


def test_without_an_index_every_provider_is_looked_up_and_the_index_begins(
    memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    memory_keyring.set_password(SERVICE, "ollama", "from-an-older-sightline")
    [p] = with_keys([OLLAMA], KeyStore(tmp_path), {})
    assert p.api_key == "from-an-older-sightline"
    index = (tmp_path / INDEX_NAME).read_text(encoding="utf-8")
    assert json.loads(index) == {"providers": ["ollama"]}
    assert "from-an-older-sightline" not in index  # ids only, never a key


def test_a_provider_that_needs_a_key_is_always_looked_up(
    memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    (tmp_path / INDEX_NAME).write_text('{"providers": []}', encoding="utf-8")
    memory_keyring.set_password(SERVICE, "oa", "sk-stored-by-hand")
    [p] = with_keys([OPENAI], KeyStore(tmp_path), {})
    assert p.api_key == "sk-stored-by-hand"


def test_with_no_keyring_the_index_is_written_empty(no_keyring: None, tmp_path: Path) -> None:
    [p] = with_keys([OLLAMA], KeyStore(tmp_path), {})
    assert p.api_key == ""
    assert json.loads((tmp_path / INDEX_NAME).read_text(encoding="utf-8")) == {"providers": []}


def test_ask_with_only_local_servers_never_loads_the_keyring(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        f'discover_local = false\n[[providers]]\nid = "ollama"\nkind = "ollama"\n'
        f'base_url = "{fake_ollama.base_url}"\n',
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if k != "OLLAMA_HOST"}
    env |= {"SIGHTLINE_CONFIG": str(config), "SIGHTLINE_DATA_DIR": str(tmp_path / "data")}
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    command = [sys.executable, "-X", "importtime", "-m", "app", "ask", "--model",
               "ollama:llama3.2:3b", "hi"]  # fmt: skip
    loaded = []
    for _ in range(2):  # the first run begins the index
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr[-2000:]
        loaded.append(" keyring" in done.stderr)
    assert loaded == [True, False]
