"""Models learned blind: remembered across a reopen until checked again."""

from __future__ import annotations

from pathlib import Path

from app.store import Store


def test_a_model_learned_blind_is_remembered_until_forgotten(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    with Store.open(folder) as store:
        assert store.learned.blind() == set()
        store.learned.remember_blind("ollama:mystery:1b")
        store.learned.remember_blind("ollama:mystery:1b")  # learned again: still one
        store.learned.remember_blind("mine:other-7b")
    with Store.open(folder) as store:
        assert store.learned.blind() == {"ollama:mystery:1b", "mine:other-7b"}
        store.learned.forget_blind("ollama:mystery:1b")
        store.learned.forget_blind("never:learned")  # harmless
        assert store.learned.blind() == {"mine:other-7b"}


def test_a_refused_setting_is_remembered_per_provider_and_model_across_a_reopen(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "data"
    with Store.open(folder) as store:
        assert store.learned.refused() == set()
        store.learned.remember_refused("openai:gpt-5", "temperature")
        store.learned.remember_refused("openai:gpt-5", "temperature")  # again: still one
        store.learned.remember_refused("work:gpt-5", "max_tokens")
    with Store.open(folder) as store:  # a new Store on the same file
        assert store.learned.refused() == {
            ("openai:gpt-5", "temperature"),
            ("work:gpt-5", "max_tokens"),
        }
