"""The window's running turn: busy told at its start and end, the person's words given
back when the turn failed before they were stored, a stop keeping what was said."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Iterator
from pathlib import Path

import pytest

from app.presenters.pending import Attachments
from app.store import Store
from app.tools.base import Tool
from app.turn.events import ItemAdded, TurnEnded, TurnEvent, TurnProblem
from app.turn.turn_input import TurnInput
from app.ui.running_turn import RunningTurn
from app.ui.turn_feed import TurnFeed
from routing.transcript import user_message


class Told:
    """What the running turn told the window."""

    def __init__(self) -> None:
        self.busy: list[bool] = []
        self.problems: list[str] = []
        self.given_back: list[str] = []
        self.titled: list[str] = []  # the chats whose rows were asked for again


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "data") as opened:
        yield opened


def running(store: Store, told: Told, offered: tuple[Tool, ...] = ()) -> RunningTurn:
    async def tools() -> list[Tool]:
        return list(offered)

    def given_back(text: str, _attached: Attachments) -> None:
        told.given_back.append(text)

    return RunningTurn(
        TurnFeed(store, lambda: ""),
        tools,
        busy=told.busy.append,
        thought=lambda _item, _text: None,
        plan=lambda _item, _entries: None,
        problem=told.problems.append,
        give_back=given_back,
        titled=told.titled.append,
    )


class Engine:
    """An engine whose turn is the given function of the question."""

    def __init__(self, turn: Callable[[TurnInput], AsyncGenerator[TurnEvent, None]]) -> None:
        self.turn = turn
        self.asked: list[TurnInput] = []

    def run(self, asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        self.asked.append(asked)
        return self.turn(asked)


async def until_done(turn: RunningTurn) -> None:
    task = turn.task
    assert task is not None
    await asyncio.wait({task})
    await asyncio.sleep(0)  # the done callback's turn


async def test_a_turn_that_failed_before_storing_gives_the_words_back(store: Store) -> None:
    told = Told()
    turn = running(store, told)

    async def failing(_asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        yield TurnEnded(TurnProblem("No model answers."))

    turn.begin(Engine(failing), TurnInput("chat", "hello"), "hello", Attachments())
    assert turn.running and told.busy == [True]
    await until_done(turn)
    assert not turn.running and told.busy == [True, False]
    assert (told.given_back, told.problems) == (["hello"], ["No model answers."])


async def test_a_failure_after_the_message_was_stored_keeps_it_there(store: Store) -> None:
    told = Told()
    turn = running(store, told)
    chat = store.conversations.create()

    async def failing(asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        yield ItemAdded(store.add_message(asked.conversation_id, user_message(asked.text)))
        yield TurnEnded(TurnProblem("No model answers."))

    turn.begin(Engine(failing), TurnInput(chat, "hello"), "hello", Attachments())
    await until_done(turn)
    # The notice is in the chat and the message with it, for Retry: nothing goes back.
    assert (told.given_back, told.problems) == ([], [])
    assert told.titled == [chat, chat]  # the first message titles the chat, and the end


async def test_a_bug_in_a_turn_is_told_and_the_window_stays(store: Store) -> None:
    told = Told()
    turn = running(store, told)

    async def broken(_asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        raise ValueError("a bug")
        yield  # an async generator all the same

    turn.begin(Engine(broken), TurnInput("chat", "hello"), "hello", Attachments())
    await until_done(turn)
    assert told.problems == ["The answer could not be finished: a bug"]
    assert told.given_back == ["hello"] and told.busy == [True, False]


async def test_stop_ends_the_turn_and_gives_nothing_back(store: Store) -> None:
    told = Told()
    turn = running(store, told)
    started = asyncio.Event()

    async def endless(_asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        started.set()
        await asyncio.Event().wait()
        yield TurnEnded()

    turn.begin(Engine(endless), TurnInput("chat", "hello"), "hello", Attachments())
    await asyncio.wait_for(started.wait(), 10)
    await turn.stopped()
    await asyncio.sleep(0)
    assert not turn.running and told.busy == [True, False]
    assert (told.given_back, told.problems) == ([], [])


async def test_the_engine_is_asked_with_the_tools_gathered_once_the_turn_runs(store: Store) -> None:
    from app.tools.read_file import ReadFile

    told, tool = Told(), ReadFile()
    turn = running(store, told, (tool,))

    async def answered(_asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        yield TurnEnded()

    engine = Engine(answered)
    turn.begin(engine, TurnInput("chat", "hello", requested_model="ollama:llava:7b"))
    await until_done(turn)
    [asked] = engine.asked
    assert (asked.text, asked.requested_model, list(asked.tools)) == (
        "hello",
        "ollama:llava:7b",
        [tool],
    )
    assert told.given_back == [] and told.busy == [True, False]


def test_a_turn_not_begun_is_not_running(store: Store) -> None:
    turn = running(store, Told())
    assert not turn.running
    turn.stop()  # nothing to stop: harmless
