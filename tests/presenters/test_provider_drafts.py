"""A provider's draft without a window: free ids, the checks of names and addresses, the
kinds offered, and the note on where its key comes from."""

from __future__ import annotations

import pytest

from app.presenters.provider_drafts import (
    KeySource,
    draft_from,
    id_problem,
    key_note,
    menu_kinds,
    next_free_id,
    preset_label,
    url_problem,
)
from app.presenters.settings_model import ProviderList
from routing.models import ProviderConfig

OPENAI = ProviderConfig("openai", "openai", "https://api.openai.com/v1")


def test_free_ids_count_up_from_the_kind() -> None:
    assert next_free_id("openai", []) == "openai"
    assert next_free_id("openai", ["openai"]) == "openai-2"
    assert next_free_id("openai", ["openai", "openai-2", "openai-3"]) == "openai-4"


@pytest.mark.parametrize(
    ("provider_id", "others", "words"),
    [
        ("work.openai_2-b", [], ""),
        ("", [], "Give the provider a name."),
        ("my server", [], "letters, digits"),
        ("-leading", [], "starting with a letter"),
        ("a:b", [], "letters, digits"),
        ("openai", ["openai"], "Another provider"),
    ],
)
def test_ids_are_checked_like_the_config_file(
    provider_id: str, others: list[str], words: str
) -> None:
    problem = id_problem(provider_id, others)
    assert (words in problem) if words else problem == ""


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("", True),
        ("http://127.0.0.1:8080/v1", True),
        ("https://api.example.com/v1", True),
        ("ftp://127.0.0.1", False),
        ("127.0.0.1:8080", False),
        ("http://", False),
        ("http://host:port/", False),
    ],
)
def test_addresses_must_be_http(url: str, ok: bool) -> None:
    assert (url_problem(url) == "") is ok


def test_the_add_menu_puts_big_clouds_first_and_your_own_server_last() -> None:
    labels = [preset_label(k) for k in menu_kinds()]
    assert labels[:3] == ["OpenAI", "Anthropic", "OpenRouter"]
    assert labels[-3:] == ["LM Studio", "Ollama", "Your own server (OpenAI-compatible)"]
    assert len(labels) == len(set(labels)) == 16


def test_the_key_note_says_where_the_key_is_never_what() -> None:
    providers = ProviderList([OPENAI], {"OPENAI_API_KEY": "sk-env"})
    draft = providers.drafts[0]
    assert key_note(draft, "")[0] == "Checking for a saved key…"
    draft.key_source = KeySource.SAVED
    assert key_note(draft, "") == (
        "••• saved",
        "Stored in your system keyring. Type a new key to replace it.",
    )
    assert "kept until Sightline closes" in key_note(draft, "no keyring")[1]
    draft.key_source = KeySource.ENVIRONMENT
    assert key_note(draft, "")[0] == "from OPENAI_API_KEY"
    draft.new_key = "sk-typed"
    placeholder, note = key_note(draft, "")
    assert "sk-typed" not in placeholder + note and "when you press Save" in note
    local = providers.drafts[providers.add("ollama")]
    assert key_note(local, "")[0] == "Optional"


def test_a_providers_api_choice_survives_its_draft() -> None:
    provider = ProviderConfig("mine", "custom", "http://127.0.0.1:8080/v1", api="responses")
    assert draft_from(provider, {}).to_config().api == "responses"
