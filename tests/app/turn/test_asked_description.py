"""A picture described because the person asked (app/turn/asked_description.py), through real
HTTP on loopback: who looks in a local chat and in a cloud one, what the chat is told, what
the ledger lists, and what is kept."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from app.ledger import ledger
from app.store import PictureWords, Store
from app.turn.asked_description import NotDescribed, describe_asked
from app.turn.sight_policy import SightPolicy
from routing.catalogue import Catalogue
from routing.models import ProviderConfig
from routing.router import RoutingPrefs
from routing.transcript import Notice, NoticeKind, user_message
from tests.pictures import named_picture
from tests.servers.ollama import FakeOllama, Reply
from tests.servers.openai_chat import FakeOpenAI

RED = named_picture("red.png", "red", (64, 48))


@pytest.fixture
def cloud() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI(pictures="read")  # gpt-4o-mini sees
    server.start()
    yield server
    server.stop()


@pytest.fixture
async def both(fake_ollama: FakeOllama, cloud: FakeOpenAI) -> AsyncIterator[Catalogue]:
    """A cloud provider first in the person's order, then the loopback Ollama."""
    made = Catalogue(
        [
            ProviderConfig("oa", "custom", cloud.url, local=False),
            ProviderConfig("ollama", "ollama", fake_ollama.base_url),
        ]
    )
    await made.refresh()
    yield made
    await made.aclose()


def _chat_with_picture(store: Store) -> str:
    chat = store.conversations.create()
    store.add_message(chat, user_message("What colour is this?", (RED,)))
    return chat


def _notices(store: Store, chat: str) -> list[Notice]:
    return [s.item for s in store.items(chat) if isinstance(s.item, Notice)]


async def test_a_local_chat_has_a_model_on_this_computer_look_and_tells_who_looked(
    store: Store, both: Catalogue, fake_ollama: FakeOllama, cloud: FakeOpenAI
) -> None:
    chat = _chat_with_picture(store)
    fake_ollama.enqueue(Reply(text="A red rectangle."))
    described = await describe_asked(
        store,
        both,
        SightPolicy(both, RoutingPrefs()),
        RED,
        conversation_id=chat,
        chat_ref="ollama:llama3.2:3b",
    )
    [request] = fake_ollama.chat_requests()
    assert request["model"] in ("llava:7b", "qwen2.5vl:3b") and request["messages"][-1]["images"]
    assert cloud.chat_requests() == []  # the cloud model that sees was never asked
    assert described.words == "A red rectangle."
    assert store.picture_words.of([RED.sha256]) == {
        RED.sha256: PictureWords("A red rectangle.", described.looker)
    }
    [notice] = _notices(store, chat)
    assert notice.kind == NoticeKind.DISCLOSURE
    assert notice.text == (
        f"{described.looker} at {fake_ollama.base_url.removeprefix('http://')} looked at "
        "red.png, as you asked: A red rectangle."
    )
    assert notice.crossed is not None and notice.crossed.local is True
    [crossing] = ledger(store.items(chat))
    assert crossing.model == described.looker and "red.png" in crossing.what
    assert store.crossings.sent_away(chat) == set()


async def test_auto_asks_only_on_this_computer_and_says_so_when_nothing_here_sees(
    store: Store, cloud: FakeOpenAI
) -> None:
    catalogue = Catalogue([ProviderConfig("oa", "custom", cloud.url, local=False)])
    await catalogue.refresh()
    chat = _chat_with_picture(store)
    with pytest.raises(NotDescribed, match="on this computer"):
        await describe_asked(
            store,
            catalogue,
            SightPolicy(catalogue, RoutingPrefs()),
            RED,
            conversation_id=chat,
            chat_ref="auto",
        )
    await catalogue.aclose()
    assert cloud.chat_requests() == []
    assert _notices(store, chat) == [] and store.picture_words.of([RED.sha256]) == {}


async def test_a_cloud_chat_may_have_a_cloud_model_look_and_the_picture_has_left(
    store: Store, both: Catalogue, cloud: FakeOpenAI, fake_ollama: FakeOllama
) -> None:
    chat = _chat_with_picture(store)
    described = await describe_asked(
        store,
        both,
        SightPolicy(both, RoutingPrefs()),
        RED,
        conversation_id=chat,
        chat_ref="oa:gpt-4o-mini",
    )
    assert described.looker == "oa:gpt-4o-mini"  # the chat's own model sees: it looks
    assert len(cloud.chat_requests()) == 1 and fake_ollama.chat_requests() == []
    [notice] = _notices(store, chat)
    assert notice.crossed is not None and notice.crossed.local is False
    assert store.crossings.sent_away(chat) == {RED.sha256}


async def test_words_kept_are_given_again_without_asking_anyone(
    store: Store, listed_catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    chat = _chat_with_picture(store)
    policy = SightPolicy(listed_catalogue, RoutingPrefs())
    first = await describe_asked(
        store, listed_catalogue, policy, RED, conversation_id=chat, chat_ref="auto"
    )
    again = await describe_asked(
        store,
        listed_catalogue,
        SightPolicy(listed_catalogue, RoutingPrefs()),  # a new window: only the store knows
        RED,
        conversation_id=chat,
        chat_ref="auto",
    )
    assert again.words == first.words and again.notice is None
    assert len(fake_ollama.chat_requests()) == 1 and len(_notices(store, chat)) == 1


async def test_a_looker_that_fails_is_still_told_and_nothing_is_kept(
    store: Store, listed_catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    chat = _chat_with_picture(store)
    fake_ollama.enqueue(Reply(status=500, body={"error": "model runner has unexpectedly stopped"}))
    with pytest.raises(NotDescribed, match=r"could not describe red\.png"):
        await describe_asked(
            store,
            listed_catalogue,
            SightPolicy(listed_catalogue, RoutingPrefs()),
            RED,
            conversation_id=chat,
            chat_ref="ollama:llama3.2:3b",
        )
    [notice] = _notices(store, chat)
    assert "was sent red.png to describe, as you asked; it could not" in notice.text
    assert notice.crossed is not None
    assert store.picture_words.of([RED.sha256]) == {}
