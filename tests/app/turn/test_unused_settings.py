"""The chat's settings a model doesn't take, through the runner, a real store and a real
loopback server: left out, asked again without one refused, remembered across a restart,
and told in one quiet notice."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.store import Store
from app.turn.events import TurnEnded, TurnEvent
from app.turn.runner import TurnRunner
from routing.catalogue import Catalogue
from routing.chat_settings import ChatSettings
from routing.errors import BadRequest, ParameterRefused
from routing.models import ModelInfo, NotTaken, ProviderConfig
from routing.transcript import NoticeKind
from tests.app.turn.engine_helpers import run_turn
from tests.events import stored_notices
from tests.servers.openai_chat import ChatModel, FakeOpenAI, Reply
from tests.servers.openai_responses import FakeResponses, ResponsesModel

REFUSED = (
    "The chat's temperature (0.7) was not used: mine:reasoner refused it, so it was asked "
    "again without it (it won't be sent to this model again)."
)


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    """A chat-completions server whose model refuses a temperature, as OpenAI's do."""
    with FakeOpenAI([ChatModel("reasoner", refuses=("temperature",))]) as fake:
        yield fake


def _runner(store: Store, provider: ProviderConfig) -> TurnRunner:
    """A runner as the window and `ask` make one: what was learned is in its catalogue."""
    learned = store.learned
    catalogue = Catalogue(
        [provider], blind=learned.blind(), checked=learned.checks(), refused=learned.refused()
    )
    return TurnRunner(store, catalogue)


async def _turn(runner: TurnRunner, cid: str, model: str) -> list[TurnEvent]:
    try:
        return await run_turn(runner, cid, "hi", model)
    finally:
        await runner.catalogue.aclose()


async def test_a_refused_temperature_is_left_out_asked_again_learned_and_told(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    provider = ProviderConfig("mine", "custom", server.url)
    with Store.open(tmp_path / "data") as store:
        cid = store.conversations.create()
        store.conversations.set_settings(cid, ChatSettings(temperature=0.7, max_tokens=200))
        events = await _turn(_runner(store, provider), cid, "mine:reasoner")
        ended = events[-1]
        assert isinstance(ended, TurnEnded) and ended.error is None
        assert store.messages(cid)[-1].text == "You said: hi"
        sent = [(b.get("temperature"), b.get("max_tokens")) for b in server.chat_requests()]
        assert sent == [(0.7, 200), (None, 200)]  # the longest answer still goes
        notices = stored_notices(store, cid)
        assert [(n.kind, n.text) for n in notices] == [(NoticeKind.INFO, REFUSED)]
        assert store.learned.refused() == {("mine:reasoner", "temperature")}
        # The next turn of this run: never sent again, and not told again.
        await _turn(_runner(store, provider), cid, "mine:reasoner")
        assert server.chat_requests()[-1].get("temperature") is None
        assert len(server.chat_requests()) == 3
    with Store.open(tmp_path / "data") as store:  # a restart: a new Store on the same file
        runner = _runner(store, provider)
        learned = runner.catalogue.answer(ModelInfo("mine", "reasoner"))
        assert learned.why_not("temperature") == NotTaken.LEARNED
        await _turn(runner, cid, "mine:reasoner")
        assert len(server.chat_requests()) == 4  # asked once, without it
        assert server.chat_requests()[-1].get("temperature") is None
        told = stored_notices(store, cid)[-1]
        assert told.text == (
            "The chat's temperature (0.7) was not used: mine:reasoner doesn't take one "
            "(it refused it)."
        )
        assert not any("Sightline bug" in n.text for n in stored_notices(store, cid))


async def test_a_refusal_that_names_no_setting_is_not_asked_again(tmp_path: Path) -> None:
    refusal = {"error": {"message": "Invalid 'messages'.", "type": "invalid_request_error"}}
    with FakeOpenAI([ChatModel("plain")]) as server, Store.open(tmp_path / "data") as store:
        server.enqueue(Reply(status=400, body=refusal))
        cid = store.conversations.create()
        store.conversations.set_settings(cid, ChatSettings(temperature=0.7))
        provider = ProviderConfig("mine", "custom", server.url)
        events = await _turn(_runner(store, provider), cid, "mine:plain")
        ended = events[-1]
        assert isinstance(ended, TurnEnded) and isinstance(ended.error, BadRequest)
        assert not isinstance(ended.error, ParameterRefused)
        assert len(server.chat_requests()) == 1
        assert store.learned.refused() == set()
        assert [n.kind for n in stored_notices(store, cid)] == [NoticeKind.ERROR]


async def test_a_providers_rule_leaves_the_temperature_out_before_asking(tmp_path: Path) -> None:
    # OpenAI's reasoning models take no temperature (its docs): never sent, told once.
    model = ResponsesModel("gpt-5-mini", reasons=True, refuses=("temperature",))
    with FakeResponses([model], api_key="sk-test") as server:
        provider = ProviderConfig("oa", "openai", server.url, api_key="sk-test")
        with Store.open(tmp_path / "data") as store:
            cid = store.conversations.create()
            store.conversations.set_settings(cid, ChatSettings(temperature=0.2))
            runner = _runner(store, provider)
            first = await _turn(runner, cid, "oa:gpt-5-mini")
            second = await _turn(runner, cid, "oa:gpt-5-mini")
            assert isinstance(first[-1], TurnEnded) and first[-1].error is None
            assert isinstance(second[-1], TurnEnded) and second[-1].error is None
            assert [("temperature" in b) for b in server.chat_requests()] == [False, False]
            assert [n.text for n in stored_notices(store, cid)] == [
                "The chat's temperature (0.2) was not used: oa:gpt-5-mini doesn't take one "
                "(its provider says so)."
            ]
            assert store.learned.refused() == set()  # a rule, not a lesson
