"""One turn through the real store and a real loopback Ollama."""

from __future__ import annotations

import asyncio

import pytest

from app.store import Store
from app.turn.events import ItemFinished, TextAdded
from app.turn.runner import TurnRunner
from app.turn.turn_input import TurnInput
from routing.catalogue import Catalogue
from routing.errors import ModelNotFound, ServerError
from routing.models import ProviderConfig
from routing.transcript import Message, MessageStatus, Notice, NoticeKind
from tests.app.turn.engine_helpers import run_turn
from tests.events import ended, notices, stopped_once
from tests.pictures import make_picture
from tests.servers.ollama import FakeOllama, Reply

BLIND = "ollama:llama3.2:3b"


@pytest.fixture
def runner(store: Store, catalogue: Catalogue) -> TurnRunner:
    return TurnRunner(store, catalogue)


async def test_explicit_model_streams_and_stores(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    cid = runner.store.conversations.create()
    fake_ollama.enqueue(Reply(text="Hello there, friend."))
    events = await run_turn(runner, cid, "hi", BLIND)
    streamed = "".join(e.text for e in events if isinstance(e, TextAdded))
    assert streamed == "Hello there, friend."
    assert ended(events).error is None
    user, answer = runner.store.messages(cid)
    assert (user.role, user.text) == ("user", "hi")
    assert (answer.role, answer.text, answer.status) == (
        "assistant",
        "Hello there, friend.",
        MessageStatus.COMPLETE,
    )
    assert answer.model == BLIND
    # The person chose: no routing notice.
    assert not any(isinstance(i.item, Notice) for i in runner.store.items(cid))


async def test_history_is_sent_on_the_next_turn(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    cid = runner.store.conversations.create()
    await run_turn(runner, cid, "first", BLIND)
    await run_turn(runner, cid, "second", BLIND)
    last = fake_ollama.chat_requests()[-1]
    assert [(m["role"], m["content"]) for m in last["messages"]] == [
        ("user", "first"),
        ("assistant", "You said: first"),
        ("user", "second"),
    ]


async def test_auto_picks_a_local_model_that_sees_for_a_picture(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    cid = runner.store.conversations.create()
    picture = make_picture("blue", label="dot.png")
    events = await run_turn(runner, cid, "what is this?", "auto", (picture,))
    [routing] = notices(events)
    assert routing.kind == NoticeKind.ROUTING
    assert "ollama:llava:7b" in routing.text and "on this computer" in routing.text
    sent = fake_ollama.chat_requests()[-1]
    assert sent["model"] == "llava:7b"
    assert len(sent["messages"][-1]["images"]) == 1
    assert runner.store.conversations.get(cid).model == "auto"  # type: ignore[union-attr]


async def test_unknown_model_lists_what_exists(runner: TurnRunner) -> None:
    cid = runner.store.conversations.create()
    problem = ended(await run_turn(runner, cid, "hi", "ollama:nope:1b")).error
    assert isinstance(problem, ModelNotFound)
    assert "llama3.2:3b" in problem.message and "llava:7b" in problem.message
    kinds = [i.item.kind for i in runner.store.items(cid) if isinstance(i.item, Notice)]
    assert kinds == [NoticeKind.ERROR]


async def test_provider_failure_mid_answer_keeps_what_came(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    cid = runner.store.conversations.create()
    fake_ollama.enqueue(Reply(text="Partial words here", midstream_error="runner crashed"))
    events = await run_turn(runner, cid, "hi", BLIND)
    assert isinstance(ended(events).error, ServerError)
    _user, answer = runner.store.messages(cid)
    assert answer.text == "Partial words here" and answer.status == MessageStatus.FAILED
    notice = runner.store.items(cid)[-1].item
    assert isinstance(notice, Notice) and notice.kind == NoticeKind.ERROR


async def test_a_blind_models_picture_is_described_not_sent(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    cid = runner.store.conversations.create()
    picture = make_picture("blue", label="dot.png")
    fake_ollama.enqueue(Reply(text="A small blue square."), Reply(text="It is blue."))
    events = await run_turn(runner, cid, "look", "ollama:gemma3:270m", (picture,))
    assert ended(events).error is None
    looked, answered = fake_ollama.chat_requests()
    assert looked["model"] != "gemma3:270m" and len(looked["messages"][-1]["images"]) == 1
    assert answered["model"] == "gemma3:270m"
    assert "images" not in answered["messages"][-1]
    assert "A small blue square." in answered["messages"][-1]["content"]
    # Nothing was lost: the person's message keeps its picture in the store.
    [user, _answer] = runner.store.messages(cid)
    assert user.pictures[0].sha256 == picture.sha256


async def test_stop_keeps_the_partial_answer(runner: TurnRunner, fake_ollama: FakeOllama) -> None:
    cid = runner.store.conversations.create()
    fake_ollama.enqueue(Reply(text="one two three four five six seven", delay=0.05))
    seen: list[str] = []
    got_text = asyncio.Event()

    async def consume() -> None:
        async for event in runner.run(TurnInput(cid, "count", requested_model=BLIND)):
            if isinstance(event, TextAdded):
                seen.append(event.text)
                got_text.set()

    await stopped_once(got_text, consume(), 10)
    answer = runner.store.messages(cid)[-1]
    assert answer.status == MessageStatus.STOPPED
    assert answer.text and answer.text == "".join(seen)
    assert answer.text != "one two three four five six seven"


async def test_finished_event_closes_the_answer(runner: TurnRunner) -> None:
    cid = runner.store.conversations.create()
    events = await run_turn(runner, cid, "hi", BLIND)
    finished = [e for e in events if isinstance(e, ItemFinished)]
    assert [f.status for f in finished] == [MessageStatus.COMPLETE]
    assert all(isinstance(i.item, Message) for i in runner.store.items(cid))


async def test_an_error_notice_gives_the_providers_words_and_what_to_do(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    cid = runner.store.conversations.create()
    fake_ollama.enqueue(Reply(status=500, body={"error": "CUDA error: out of memory"}))
    await run_turn(runner, cid, "hi", BLIND)
    notice = runner.store.items(cid)[-1].item
    assert isinstance(notice, Notice) and notice.kind == NoticeKind.ERROR
    assert "The provider said: " in notice.details and "out of memory" in notice.details
    assert "What to do: Press Retry" in notice.details
    assert "--" not in notice.text + notice.details  # the window's words, not a command's


async def test_auto_with_nothing_ready_speaks_of_the_window_and_the_command_alike(
    store: Store,
) -> None:
    offline = Catalogue([ProviderConfig("ollama", "ollama", "http://127.0.0.1:9")])
    try:
        cid = store.conversations.create()
        events = await run_turn(TurnRunner(store, offline), cid, "hi")
    finally:
        await offline.aclose()
    problem = ended(events).error
    assert problem is not None and "--model" not in problem.message
