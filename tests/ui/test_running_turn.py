"""The window's running turn: busy told at its start and end, the person's words given
back when the turn failed before they were stored, a stop keeping what was said."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Iterator, Sequence
from pathlib import Path

import pytest

from app.presenters.pending import Attachments
from app.store import Store
from app.tools.base import Tool
from app.turn.events import ItemAdded, TurnEnded, TurnEvent, TurnProblem
from app.ui.running_turn import RunningTurn
from app.ui.turn_feed import TurnFeed
from routing.transcript import user_message


class Told:
    """What the running turn told the window."""

    def __init__(self) -> None:
        self.busy: list[bool] = []
        self.problems: list[str] = []
        self.given_back: list[str] = []
        self.titled = 0


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "data") as opened:
        yield opened


def running(store: Store, told: Told) -> RunningTurn:
    async def tools() -> list[Tool]:
        return []

    def given_back(text: str, _attached: Attachments) -> None:
        told.given_back.append(text)

    def titled() -> None:
        told.titled += 1

    return RunningTurn(
        TurnFeed(store, lambda: ""),
        tools,
        busy=told.busy.append,
        thought=lambda _item, _text: None,
        plan=lambda _item, _entries: None,
        problem=told.problems.append,
        give_back=given_back,
        titled=titled,
    )


async def until_done(turn: RunningTurn) -> None:
    task = turn.task
    assert task is not None
    await asyncio.wait({task})
    await asyncio.sleep(0)  # the done callback's turn


async def test_a_turn_that_failed_before_storing_gives_the_words_back(store: Store) -> None:
    told = Told()
    turn = running(store, told)

    async def failing(_tools: Sequence[Tool]) -> AsyncGenerator[TurnEvent, None]:
        yield TurnEnded(TurnProblem("No model answers."))

    turn.begin("chat", failing, "hello", Attachments())
    assert turn.running and told.busy == [True]
    await until_done(turn)
    assert not turn.running and told.busy == [True, False]
    assert (told.given_back, told.problems) == (["hello"], ["No model answers."])


async def test_a_failure_after_the_message_was_stored_keeps_it_there(store: Store) -> None:
    told = Told()
    turn = running(store, told)
    chat = store.conversations.create()

    async def failing(_tools: Sequence[Tool]) -> AsyncGenerator[TurnEvent, None]:
        yield ItemAdded(store.add_message(chat, user_message("hello")))
        yield TurnEnded(TurnProblem("No model answers."))

    turn.begin(chat, failing, "hello", Attachments())
    await until_done(turn)
    # The notice is in the chat and the message with it, for Retry: nothing goes back.
    assert (told.given_back, told.problems) == ([], [])
    assert told.titled == 2  # the first message titles the chat, and the turn's end


async def test_a_bug_in_a_turn_is_told_and_the_window_stays(store: Store) -> None:
    told = Told()
    turn = running(store, told)

    async def broken(_tools: Sequence[Tool]) -> AsyncGenerator[TurnEvent, None]:
        raise ValueError("a bug")
        yield  # an async generator all the same

    turn.begin("chat", broken, "hello", Attachments())
    await until_done(turn)
    assert told.problems == ["The answer could not be finished: a bug"]
    assert told.given_back == ["hello"] and told.busy == [True, False]


async def test_stop_ends_the_turn_and_gives_nothing_back(store: Store) -> None:
    told = Told()
    turn = running(store, told)
    started = asyncio.Event()

    async def endless(_tools: Sequence[Tool]) -> AsyncGenerator[TurnEvent, None]:
        started.set()
        await asyncio.Event().wait()
        yield TurnEnded()

    turn.begin("chat", endless, "hello", Attachments())
    await asyncio.wait_for(started.wait(), 10)
    await turn.stopped()
    await asyncio.sleep(0)
    assert not turn.running and told.busy == [True, False]
    assert (told.given_back, told.problems) == ([], [])


def test_a_turn_not_begun_is_not_running(store: Store) -> None:
    turn = running(store, Told())
    assert not turn.running
    turn.stop()  # nothing to stop: harmless
