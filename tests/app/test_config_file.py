"""Saving providers from Settings keeps the person's file and never writes a key."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import MAX_CONFIG_BYTES, ConfigError, load_config
from app.config_file import read_config_document, save_providers
from routing.models import ProviderConfig


def test_round_trip_keeps_comments_and_other_settings(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        "# my settings\n"
        "discover_local = false  # I run my own\n\n"
        '[[providers]]\nid = "home"\nkind = "ollama"\nbase_url = "http://127.0.0.1:11434"\n'
        "# the box under the desk\n"
    )
    save_providers(
        path,
        [
            ProviderConfig("oa", "openai", "https://api.openai.com/v1", api_key="sk-never-written"),
            ProviderConfig("home", "ollama", "http://127.0.0.1:11500", enabled=False, local=True),
        ],
    )
    text = path.read_text()
    assert "# my settings" in text and "# I run my own" in text
    assert "sk-never-written" not in text and "api_key" not in text
    env = {"SIGHTLINE_CONFIG": str(path), "SIGHTLINE_DATA_DIR": str(tmp_path)}
    config = load_config(env)
    assert config.discover_local is False
    oa, home = config.providers
    assert (oa.id, oa.kind, oa.base_url, oa.enabled) == (
        "oa",
        "openai",
        "https://api.openai.com/v1",
        True,
    )
    assert (home.base_url, home.enabled, home.local) == ("http://127.0.0.1:11500", False, True)
    assert "base_url" not in text.split('id = "oa"')[1].split("[[providers]]")[0]


def test_creates_the_file_and_its_folder(tmp_path: Path) -> None:
    path = tmp_path / "new" / "config.toml"
    save_providers(path, [ProviderConfig("lms", "lmstudio", "http://127.0.0.1:1234")])
    env = {"SIGHTLINE_CONFIG": str(path), "SIGHTLINE_DATA_DIR": str(tmp_path)}
    [lms] = load_config(env).providers
    assert lms.kind == "lmstudio"


def test_a_broken_file_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[[providers]\n")
    with pytest.raises(ConfigError, match="can't be updated"):
        save_providers(path, [])
    assert path.read_text() == "[[providers]\n"


def test_a_file_too_large_to_be_a_config_is_not_read_to_be_updated(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    with path.open("wb") as handle:
        handle.truncate(MAX_CONFIG_BYTES + 1)  # sparse: nothing is written
    with pytest.raises(ConfigError) as raised:
        save_providers(path, [])
    assert str(raised.value).startswith(f"{path}: can't be updated: ")
    assert "too large" in str(raised.value)
    assert path.stat().st_size == MAX_CONFIG_BYTES + 1  # left as it was


def test_a_config_with_a_byte_order_mark_is_updated_without_it(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"\xef\xbb\xbfdiscover_local = false\n")
    document = read_config_document(path)
    assert document["discover_local"] is False
