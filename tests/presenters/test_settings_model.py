"""The Settings dialog's list, without a window: order, problems, servers found, keys and
what is written."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from app.config import ConfigError
from app.keys import SERVICE, KeyStore
from app.presenters.provider_drafts import KeySource
from app.presenters.settings_model import ProviderList, write_settings
from routing.models import ProviderConfig
from tests.app.test_keys import MemoryKeyring

OPENAI = ProviderConfig("openai", "openai", "https://api.openai.com/v1")
OLLAMA = ProviderConfig("ollama", "ollama", "http://127.0.0.1:11434")


def test_list_edits_keep_the_persons_order() -> None:
    providers = ProviderList([OLLAMA, OPENAI], {})
    assert [d.base_url for d in providers.drafts] == ["", ""]  # defaults show as placeholders
    index = providers.add("openai")
    assert index == 2 and providers.drafts[2].id == "openai-2"
    assert providers.move(2, -1) == 1
    assert providers.move(0, -1) == 0  # the top stays the top
    assert [d.id for d in providers.drafts] == ["ollama", "openai-2", "openai"]
    providers.reorder([providers.drafts[2].serial, providers.drafts[0].serial])
    assert [d.id for d in providers.drafts] == ["openai", "ollama", "openai-2"]
    providers.remove(0)
    assert providers.removed == ["openai"]
    providers.remove(1)
    assert providers.removed == ["openai"]  # never saved: nothing to forget


def test_a_repeated_name_is_the_later_providers_problem() -> None:
    providers = ProviderList([OLLAMA, OPENAI], {})
    providers.drafts[1].id = "ollama"
    providers.drafts[1].base_url = "mailto:x"
    assert providers.problems(0) == {}
    assert set(providers.problems(1)) == {"id", "base_url"}
    problem = providers.first_problem()
    assert problem is not None and (problem.index, problem.field) == (1, "id")


def test_servers_found_here_are_offered_once_and_get_a_free_name() -> None:
    found = ProviderConfig("ollama", "ollama", "http://127.0.0.1:11434", discovered=True)
    studio = ProviderConfig("lmstudio", "lmstudio", "http://127.0.0.1:1234", discovered=True)
    silent = ProviderConfig("llamacpp", "custom", "http://127.0.0.1:8080/v1", discovered=True)
    configured = ProviderList([OLLAMA], {})
    configured.set_found([(found, True), (studio, True), (silent, False), (OLLAMA, True)])
    assert configured.found == [studio]  # ollama is configured; llama.cpp didn't answer

    providers = ProviderList([], {})
    providers.set_found([(studio, True)])
    providers.add("lmstudio")  # added by hand meanwhile, under the found one's name
    draft = providers.drafts[providers.add_found(0)]
    assert (draft.id, draft.kind, draft.saved_id) == ("lmstudio-2", "lmstudio", "")
    assert draft.base_url == ""  # the preset's address, shown as the placeholder
    assert providers.found == []


def test_keys_are_found_where_with_keys_would_find_them(memory_keyring: MemoryKeyring) -> None:
    memory_keyring.secrets[(SERVICE, "saved")] = "sk-saved"
    providers = ProviderList(
        [
            ProviderConfig("in-file", "openai", "https://x/v1", api_key="sk-file"),
            ProviderConfig("saved", "openai", "https://x/v1"),
            ProviderConfig("env", "openai", "https://x/v1"),
            ProviderConfig("none", "groq", "https://x/v1"),
        ],
        {"OPENAI_API_KEY": "sk-env"},
    )
    keys = KeyStore()
    providers.use_key_sources(providers.look_up_keys(keys))
    assert [d.key_source for d in providers.drafts] == [
        KeySource.CONFIG,
        KeySource.SAVED,
        KeySource.ENVIRONMENT,
        KeySource.NONE,
    ]
    assert keys.problem == ""
    assert [providers.key_for_test(d, keys) for d in providers.drafts] == [
        "sk-file",
        "sk-saved",
        "sk-env",
        "",
    ]


def test_no_keyring_is_noticed_before_any_key_is_typed() -> None:
    keys = KeyStore()
    ProviderList([], {}).look_up_keys(keys)
    assert "No system keyring" in keys.problem


def test_saving_writes_no_key_and_keys_follow_renames(
    memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    memory_keyring.secrets[(SERVICE, "openai")] = "sk-old-name"
    memory_keyring.secrets[(SERVICE, "gone")] = "sk-gone"
    memory_keyring.secrets[(SERVICE, "groq")] = "sk-groq"
    config = tmp_path / "config.toml"
    config.write_text("# my settings\ndiscover_local = false\n", encoding="utf-8")
    providers = ProviderList(
        [
            OPENAI,
            ProviderConfig("gone", "mistral", "https://api.mistral.ai/v1"),
            ProviderConfig("groq", "groq", "https://api.groq.com/openai/v1"),
        ],
        {},
    )
    keys = KeyStore()
    providers.use_key_sources(providers.look_up_keys(keys))
    providers.drafts[0].id = "work"  # renamed: its key moves with it
    providers.remove(1)  # removed: its key is forgotten
    providers.drafts[1].clear_key = True  # cleared
    new = providers.drafts[providers.add("anthropic")]
    new.new_key = "  sk-ant-new  "
    write_settings(config, providers, keys)

    text = config.read_text(encoding="utf-8")
    assert text.startswith("# my settings\n") and "sk-" not in text
    assert [p["id"] for p in tomllib.loads(text)["providers"]] == ["work", "groq", "anthropic"]
    assert memory_keyring.secrets == {
        (SERVICE, "work"): "sk-old-name",
        (SERVICE, "anthropic"): "sk-ant-new",
    }


def test_a_broken_file_is_not_overwritten_and_no_key_changes(
    memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("providers = [[[\n", encoding="utf-8")
    providers = ProviderList([], {})
    providers.drafts[providers.add("openai")].new_key = "sk-new"
    with pytest.raises(ConfigError):
        write_settings(config, providers, KeyStore())
    assert config.read_text(encoding="utf-8") == "providers = [[[\n"
    assert memory_keyring.secrets == {}
