"""A model's sight as the window asks it (app/presenters/sight_checks.py): its one answer,
the models learned blind, a refusal forgotten, the sight check on demand — without Qt,
against the loopback Ollama and a server of the person's own that really looks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.presenters.sight_checks import SightChecks
from app.store import Store
from routing.catalogue import Catalogue
from routing.models import ProviderConfig, SightFrom
from tests.servers.openai_chat import ChatModel, FakeOpenAI


class Told:
    """What the checks told the window."""

    def __init__(self) -> None:
        self.words: list[str] = []
        self.published: list[Catalogue] = []
        self.relisted = 0

    def relist(self) -> None:
        self.relisted += 1


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "data") as opened:
        yield opened


def checks(store: Store, catalogue: Catalogue | None, told: Told) -> SightChecks:
    return SightChecks(
        store, lambda: catalogue, told.words.append, told.published.append, told.relist
    )


async def test_a_model_s_answer_and_its_lessons(store: Store, listed_catalogue: Catalogue) -> None:
    told = Told()
    sight = checks(store, listed_catalogue, told)
    answer = sight.model_answer("ollama:llava:7b")
    assert answer is not None and answer.sees
    assert sight.model_answer("auto") is None  # Auto and agents are no catalogue model
    assert sight.model_answer("fake") is None
    listed_catalogue.mark_blind("ollama:llava:7b")
    assert sight.learned_blind() == frozenset({"ollama:llava:7b"})
    sight.check_again("ollama:llava:7b")
    assert sight.learned_blind() == frozenset() and told.relisted == 1


def test_before_the_first_listing_the_store_says_who_refused(store: Store) -> None:
    store.learned.remember_blind("ollama:llava:7b")
    told = Told()
    sight = checks(store, None, told)
    assert sight.learned_blind() == frozenset({"ollama:llava:7b"})
    assert sight.model_answer("ollama:llava:7b") is None
    sight.check_again("ollama:llava:7b")  # forgotten in the store, and listed again
    assert store.learned.blind() == set() and told.relisted == 1


async def test_the_check_keeps_its_verdict_and_says_so(store: Store) -> None:
    told = Told()
    with FakeOpenAI([ChatModel("my-model")], pictures="read") as server:
        catalogue = Catalogue([ProviderConfig("mine", "custom", server.url)])
        try:
            await catalogue.refresh()
            await checks(store, catalogue, told).check("mine:my-model")
            found = catalogue.find("mine:my-model")
        finally:
            await catalogue.aclose()
    assert told.words == [
        "Checking whether mine:my-model sees pictures…",
        "Sight check: mine:my-model sees pictures.",
    ]
    assert found is not None and found.sight_from == SightFrom.CHECKED and found.sees
    assert [verdict for verdict in store.learned.checks().values()] == ["sees"]
    assert told.published == [catalogue]


async def test_no_check_for_a_model_not_listed(store: Store, listed_catalogue: Catalogue) -> None:
    told = Told()
    await checks(store, listed_catalogue, told).check("ollama:not-here")
    await checks(store, None, told).check("ollama:llava:7b")
    assert (told.words, told.published) == ([], [])
