"""Answering again, editing and resending, retrying, and the chat's settings, through the
real store and a real loopback Ollama (the requests it received are the proof)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from pathlib import Path

import pytest

from app.store import Store
from app.turn.events import ItemAdded, NothingToAnswer, TurnEnded, TurnEvent
from app.turn.runner import TurnRunner
from app.turn.turn_input import TurnInput
from routing.catalogue import Catalogue
from routing.chat_settings import ChatSettings
from routing.context_window import memory_bytes, ollama_window
from routing.errors import ServerError
from routing.transcript import Notice, NoticeKind
from tests.servers.ollama import FakeOllama, Reply

BLIND = "ollama:llama3.2:3b"
SEES = "ollama:llava:7b"


@pytest.fixture
async def runner(tmp_path: Path, catalogue: Catalogue) -> AsyncIterator[TurnRunner]:
    store = Store.open(tmp_path / "data")
    yield TurnRunner(store, catalogue, defaults=ChatSettings(system_prompt="Be kind."))
    store.close()


async def collect(events: AsyncIterator[TurnEvent]) -> list[TurnEvent]:
    async with aclosing(events) as stream:
        return [event async for event in stream]


def sent(request: dict) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in request["messages"]]


def shown(runner: TurnRunner, cid: str) -> list[str]:
    return [s.item.text for s in runner.store.items(cid)]


async def two_turns(runner: TurnRunner, fake_ollama: FakeOllama) -> str:
    cid = runner.store.conversations.create()
    fake_ollama.enqueue(Reply(text="Red."), Reply(text="Because."))
    await collect(runner.run(TurnInput(cid, "name a colour", requested_model=BLIND)))
    await collect(runner.run(TurnInput(cid, "why?", requested_model=BLIND)))
    return cid


async def test_regenerate_sends_only_what_came_before_and_keeps_both_versions(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    cid = await two_turns(runner, fake_ollama)
    first_answer = runner.store.items(cid)[1]
    fake_ollama.enqueue(Reply(text="Blue."))
    events = await collect(runner.regenerate(cid, first_answer.id, BLIND))
    assert isinstance(events[-1], TurnEnded) and events[-1].error is None
    again = fake_ollama.chat_requests()[-1]
    assert sent(again) == [("system", "Be kind."), ("user", "name a colour")]
    assert shown(runner, cid) == ["name a colour", "Blue."]
    answer = runner.store.items(cid)[1]
    assert answer.versions == (first_answer.id, answer.id)
    # Later turns build on the version shown.
    fake_ollama.enqueue(Reply(text="Sky."))
    await collect(runner.run(TurnInput(cid, "like what?", requested_model=BLIND)))
    assert sent(fake_ollama.chat_requests()[-1])[1:] == [
        ("user", "name a colour"),
        ("assistant", "Blue."),
        ("user", "like what?"),
    ]
    runner.store.branches.show_version(first_answer.id)
    assert shown(runner, cid) == ["name a colour", "Red.", "why?", "Because."]


async def test_regenerate_with_another_model_has_its_own_notices(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    cid = await two_turns(runner, fake_ollama)
    fake_ollama.enqueue(Reply(text="Green, says Auto's pick."))
    await collect(runner.regenerate(cid, None, "auto"))
    last = fake_ollama.chat_requests()[-1]
    assert sent(last)[-1] == ("user", "why?")
    items = runner.store.items(cid)
    routing = items[3].item
    assert isinstance(routing, Notice) and routing.kind == NoticeKind.ROUTING
    assert len(items[3].versions) == 2  # the notice came with this version
    runner.store.branches.show_version(items[3].versions[0])
    assert not any(isinstance(s.item, Notice) for s in runner.store.items(cid))
    # The other model: by name.
    fake_ollama.enqueue(Reply(text="Seen."))
    await collect(runner.regenerate(cid, None, SEES))
    assert fake_ollama.chat_requests()[-1]["model"] == "llava:7b"
    assert runner.store.messages(cid)[-1].model == SEES


async def test_retry_of_a_failed_turn_reuses_the_persons_message(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    cid = runner.store.conversations.create()
    fake_ollama.enqueue(Reply(status=500, body={"error": "model runner crashed"}))
    events = await collect(runner.run(TurnInput(cid, "hello?", requested_model=BLIND)))
    assert isinstance(events[-1], TurnEnded) and isinstance(events[-1].error, ServerError)
    failed = runner.store.items(cid)[-1]
    assert isinstance(failed.item, Notice) and failed.item.kind == NoticeKind.ERROR
    fake_ollama.enqueue(Reply(text="Hello!"))
    await collect(runner.regenerate(cid, failed.id, BLIND))
    assert shown(runner, cid) == ["hello?", "Hello!"]
    assert [m.role for m in runner.store.messages(cid)] == ["user", "assistant"]


async def test_edit_and_resend_forks_at_the_message(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    cid = await two_turns(runner, fake_ollama)
    why = runner.store.items(cid)[2]
    runner.store.branches.rewind(cid, why.parent_id)
    fake_ollama.enqueue(Reply(text="Yellow is warm."))
    await collect(runner.run(TurnInput(cid, "why yellow?", requested_model=BLIND)))
    assert sent(fake_ollama.chat_requests()[-1])[1:] == [
        ("user", "name a colour"),
        ("assistant", "Red."),
        ("user", "why yellow?"),
    ]
    edited = runner.store.items(cid)[2]
    assert edited.versions == (why.id, edited.id)
    runner.store.branches.show_version(why.id)
    assert shown(runner, cid) == ["name a colour", "Red.", "why?", "Because."]


async def test_nothing_to_answer_again_in_an_empty_chat(runner: TurnRunner) -> None:
    cid = runner.store.conversations.create()
    events = await collect(runner.regenerate(cid))
    assert len(events) == 1 and isinstance(events[0], TurnEnded)
    assert isinstance(events[0].error, NothingToAnswer)


async def test_the_chats_own_settings_over_the_default_and_a_turns_over_both(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    cid = runner.store.conversations.create()
    runner.store.conversations.set_settings(
        cid, ChatSettings(system_prompt="Answer in French.", temperature=0.2)
    )
    fake_ollama.enqueue(Reply(text="Oui."), Reply(text="Non."))
    await collect(runner.run(TurnInput(cid, "yes?", requested_model=BLIND)))
    await collect(
        runner.run(
            TurnInput(cid, "no?", requested_model=BLIND, settings=ChatSettings(max_tokens=20))
        )
    )
    first, second = fake_ollama.chat_requests()
    assert first["messages"][0] == {"role": "system", "content": "Answer in French."}
    # Ollama is always told the window to load: the trained length, within this memory.
    window = ollama_window(131072, memory_bytes())
    assert first["options"] == {"temperature": 0.2, "num_ctx": window}
    assert second["options"] == {"temperature": 0.2, "num_predict": 20, "num_ctx": window}
    # A chat that says "no system prompt" sends none, not the default.
    other = runner.store.conversations.create()
    runner.store.conversations.set_settings(other, ChatSettings(system_prompt=""))
    fake_ollama.enqueue(Reply(text="Hi."))
    await collect(runner.run(TurnInput(other, "hi", requested_model=BLIND)))
    assert fake_ollama.chat_requests()[-1]["messages"][0]["role"] == "user"


async def test_the_system_prompt_goes_to_the_answering_model_not_the_describer(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    from tests.app.turn.test_runner import png
    from vision.pictures import sniff

    cid = runner.store.conversations.create()
    fake_ollama.enqueue(Reply(text="A blue square."), Reply(text="Blue it is."))
    events = await collect(
        runner.run(TurnInput(cid, "what colour?", (sniff(png(), label="dot.png"),), BLIND))
    )
    assert isinstance(events[-1], TurnEnded) and events[-1].error is None
    looked, answered = fake_ollama.chat_requests()
    assert "Be kind." not in str(looked)
    assert answered["messages"][0] == {"role": "system", "content": "Be kind."}
    crossings = [
        e.item.item.crossed
        for e in events
        if isinstance(e, ItemAdded) and isinstance(e.item.item, Notice) and e.item.item.crossed
    ]
    # The ledger names the picture the describer looked at, on this computer; never the
    # system prompt, which went nowhere but to the chat's own local model.
    assert crossings and all(c.local and "dot.png" in c.what for c in crossings)
    assert not any("Be kind" in c.what or "system" in c.what.lower() for c in crossings)
