"""Answering again, editing and resending, retrying, and the chat's settings, through the
real store and a real loopback Ollama (the requests it received are the proof)."""

from __future__ import annotations

from typing import Any

import pytest

from app.store import Store
from app.turn.events import NothingToAnswer
from app.turn.runner import TurnRunner
from routing.catalogue import Catalogue
from routing.chat_settings import ChatSettings
from routing.context_window import memory_bytes, ollama_window
from routing.errors import ServerError
from routing.transcript import Notice, NoticeKind
from tests.app.turn.engine_helpers import run_turn
from tests.events import collect, ended, notices
from tests.pictures import make_picture
from tests.servers.ollama import FakeOllama, Reply

BLIND = "ollama:llama3.2:3b"
SEES = "ollama:llava:7b"


@pytest.fixture
def runner(store: Store, catalogue: Catalogue) -> TurnRunner:
    return TurnRunner(store, catalogue, defaults=ChatSettings(system_prompt="Be kind."))


def sent(request: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in request["messages"]]


async def history_of_one_more_turn(
    runner: TurnRunner, fake_ollama: FakeOllama, cid: str, text: str, answer: str
) -> list[tuple[str, str]]:
    """One more question, answered `answer`: the messages its request carried after the
    system prompt."""
    fake_ollama.enqueue(Reply(text=answer))
    await run_turn(runner, cid, text, BLIND)
    return sent(fake_ollama.chat_requests()[-1])[1:]


def shown(runner: TurnRunner, cid: str) -> list[str]:
    return [s.item.text for s in runner.store.items(cid)]


async def two_turns(runner: TurnRunner, fake_ollama: FakeOllama) -> str:
    cid = runner.store.conversations.create()
    fake_ollama.enqueue(Reply(text="Red."), Reply(text="Because."))
    await run_turn(runner, cid, "name a colour", BLIND)
    await run_turn(runner, cid, "why?", BLIND)
    return cid


async def test_regenerate_sends_only_what_came_before_and_keeps_both_versions(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    cid = await two_turns(runner, fake_ollama)
    first_answer = runner.store.items(cid)[1]
    fake_ollama.enqueue(Reply(text="Blue."))
    events = await collect(runner.regenerate(cid, first_answer.id, BLIND))
    assert ended(events).error is None
    again = fake_ollama.chat_requests()[-1]
    assert sent(again) == [("system", "Be kind."), ("user", "name a colour")]
    assert shown(runner, cid) == ["name a colour", "Blue."]
    answer = runner.store.items(cid)[1]
    assert answer.versions == (first_answer.id, answer.id)
    # Later turns build on the version shown.
    assert await history_of_one_more_turn(runner, fake_ollama, cid, "like what?", "Sky.") == [
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
    events = await run_turn(runner, cid, "hello?", BLIND)
    assert isinstance(ended(events).error, ServerError)
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
    history = await history_of_one_more_turn(
        runner, fake_ollama, cid, "why yellow?", "Yellow is warm."
    )
    assert history == [("user", "name a colour"), ("assistant", "Red."), ("user", "why yellow?")]
    edited = runner.store.items(cid)[2]
    assert edited.versions == (why.id, edited.id)
    runner.store.branches.show_version(why.id)
    assert shown(runner, cid) == ["name a colour", "Red.", "why?", "Because."]


async def test_nothing_to_answer_again_in_an_empty_chat(runner: TurnRunner) -> None:
    cid = runner.store.conversations.create()
    events = await collect(runner.regenerate(cid))
    assert len(events) == 1 and isinstance(ended(events).error, NothingToAnswer)


async def test_the_chats_own_settings_over_the_default_and_a_turns_over_both(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    cid = runner.store.conversations.create()
    runner.store.conversations.set_settings(
        cid, ChatSettings(system_prompt="Answer in French.", temperature=0.2)
    )
    fake_ollama.enqueue(Reply(text="Oui."), Reply(text="Non."))
    await run_turn(runner, cid, "yes?", BLIND)
    await run_turn(runner, cid, "no?", BLIND, settings=ChatSettings(max_tokens=20))
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
    await run_turn(runner, other, "hi", BLIND)
    assert fake_ollama.chat_requests()[-1]["messages"][0]["role"] == "user"


async def test_the_system_prompt_goes_to_the_answering_model_not_the_describer(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    cid = runner.store.conversations.create()
    fake_ollama.enqueue(Reply(text="A blue square."), Reply(text="Blue it is."))
    dot = make_picture("blue", label="dot.png")
    events = await run_turn(runner, cid, "what colour?", BLIND, (dot,))
    assert ended(events).error is None
    looked, answered = fake_ollama.chat_requests()
    assert "Be kind." not in str(looked)
    assert answered["messages"][0] == {"role": "system", "content": "Be kind."}
    crossings = [n.crossed for n in notices(events) if n.crossed]
    # The ledger names the picture the describer looked at, on this computer; never the
    # system prompt, which went nowhere but to the chat's own local model.
    assert crossings and all(c.local and "dot.png" in c.what for c in crossings)
    assert not any("Be kind" in c.what or "system" in c.what.lower() for c in crossings)
