"""A turn's overall limit (app/turn/limits.py) and an answer's cap, through the model-API
turn against a real loopback Ollama and a real store.

A stream that trickles words forever never goes idle: the turn's clock ends it, keeping
what came. The person's time deciding an approval is not counted. An answer that never
ends is cut at its cap (routing/wires/answer_cap.py) and stored to there. The agents'
limits: tests/app/turn/acp/test_limits.py, tests/app/turn/codex/test_limits.py.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Sequence

import pytest

from app.store import Store
from app.tools.base import Tool, text_result
from app.turn.events import TurnEvent
from app.turn.limits import TurnClock, duration, turn_limit
from app.turn.runner import TurnRunner
from app.turn.tool_step import Approval, ToolStep
from routing.catalogue import Catalogue
from routing.errors import AnswerCut, TurnTooLong
from routing.models import ProviderConfig
from routing.transcript import Message, MessageStatus, Notice, NoticeKind, ToolCall, ToolResult
from routing.wires import answer_cap
from routing.wires.base import ToolSpec
from tests.app.turn.engine_helpers import run_turn
from tests.clocks import HandClock
from tests.events import ended
from tests.servers.hostile import ENDLESS_ANSWER
from tests.servers.ollama import FakeOllama, Reply

MODEL = "slow:llama3.2:3b"


# -- the clock on its own --------------------------------------------------------


def test_the_clock_counts_only_while_it_runs() -> None:
    ticks = HandClock()
    clock = TurnClock(60.0, ticks)
    ticks.now += 1000  # not started: nothing counts
    assert clock.left() == 60.0
    clock.start()
    ticks.now += 10
    assert clock.left() == 50.0
    with clock.paused():  # the person deciding
        ticks.now += 500
        assert clock.left() == 50.0
    ticks.now += 20
    assert clock.left() == 30.0
    clock.stop()
    ticks.now += 100
    assert clock.left() == 30.0


def test_a_paused_clock_that_was_stopped_stays_stopped() -> None:
    ticks = HandClock()
    clock = TurnClock(10.0, ticks)
    with clock.paused():
        ticks.now += 5
    ticks.now += 5
    assert clock.left() == 10.0


def test_limits_in_words_and_from_the_provider() -> None:
    assert [duration(s) for s in (1800, 1, 2.5, 90, 120)] == [
        "30 minutes",
        "1 second",
        "2.5 seconds",
        "90 seconds",
        "2 minutes",
    ]
    assert turn_limit(None) == 1800.0
    assert turn_limit(ProviderConfig("p", "ollama", "", turn_seconds=5.0)) == 5.0


async def test_watching_ends_a_stream_that_outlasts_the_clock() -> None:
    async def trickle() -> AsyncGenerator[int, None]:
        for n in range(1000):
            await asyncio.sleep(0.05)
            yield n

    clock = TurnClock(0.3)
    got: list[int] = []
    with pytest.raises(RuntimeError, match="too long"):
        async for n in clock.watch(trickle(), lambda: RuntimeError("too long")):
            got.append(n)
    assert 2 <= len(got) <= 7
    assert clock.left() <= 0


# -- through the turn ------------------------------------------------------------


class Patient:
    """An approver that takes its time, as a person reading the card does."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    async def approve(self, conversation_id: str, call: ToolCall, others: int = 0) -> Approval:
        await asyncio.sleep(self.seconds)
        return Approval.ONCE


class Quick:
    """A tool that answers at once."""

    spec = ToolSpec("quick", "answers at once")

    async def run(self, call: ToolCall) -> ToolResult:
        return text_result(call, "done")


@pytest.fixture
async def slow_limited(fake_ollama: FakeOllama, store: Store) -> AsyncIterator[TurnRunner]:
    """A runner whose only provider gives each turn 1 second in all."""
    provider = ProviderConfig("slow", "ollama", fake_ollama.base_url, turn_seconds=1.0)
    catalogue = Catalogue([provider])
    yield TurnRunner(store, catalogue, ToolStep(Patient(1.5)))
    await catalogue.aclose()


async def turn(runner: TurnRunner, text: str, tools: Sequence[Tool] = ()) -> list[TurnEvent]:
    """One question in a chat of its own, to the slow provider's model."""
    return await run_turn(runner, runner.store.conversations.create(), text, MODEL, tools=tools)


def transcript(runner: TurnRunner) -> list[tuple[str, ...]]:
    [conversation] = runner.store.conversations.list()
    out: list[tuple[str, ...]] = []
    for stored in runner.store.items(conversation.id):
        item = stored.item
        if isinstance(item, Notice):
            out.append(("notice", item.kind.value, item.text))
        else:
            assert isinstance(item, Message)
            out.append((item.role, item.text, item.status.value))
    return out


async def test_words_trickling_past_the_turn_s_limit_end_it_keeping_them(
    slow_limited: TurnRunner, fake_ollama: FakeOllama
) -> None:
    # A piece every 0.1 s for 10 s: never idle, far past the provider's 1 second.
    fake_ollama.enqueue(Reply(text="tick " * 100, chunk_chars=5, delay=0.1))
    started = time.monotonic()
    events = await turn(slow_limited, "Count for me.")
    assert time.monotonic() - started < 5
    problem = ended(events).error
    assert isinstance(problem, TurnTooLong)
    message = (
        "This turn took longer than 1 second, the most one turn may take, so Sightline "
        f"stopped waiting for 127.0.0.1:{fake_ollama.port}; what came is kept."
    )
    assert problem.message == message
    user, answer, notice = transcript(slow_limited)
    assert user == ("user", "Count for me.", "complete")
    assert answer[0] == "assistant" and answer[2] == "failed"
    assert answer[1].startswith("tick tick ") and len(answer[1]) < len("tick " * 100)
    assert notice == ("notice", "error", message)


async def test_the_person_s_time_deciding_is_not_counted(
    slow_limited: TurnRunner, fake_ollama: FakeOllama
) -> None:
    # The approval takes 1.5 s, past the whole turn's 1 second: the model's own time is short.
    fake_ollama.enqueue(Reply(tool_calls=[{"name": "quick", "arguments": {}}]))
    fake_ollama.enqueue(Reply(text="All done."))
    events = await turn(slow_limited, "Use the tool.", tools=(Quick(),))
    assert ended(events).error is None
    assert transcript(slow_limited)[-1] == ("assistant", "All done.", "complete")


async def test_an_endless_answer_is_stored_to_its_cap_and_says_so(
    fake_ollama: FakeOllama, catalogue: Catalogue, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(answer_cap, "ANSWER_CHARS", 50_000)
    fake_ollama.enqueue(Reply(hostile=ENDLESS_ANSWER))
    cid = store.conversations.create()
    events = await run_turn(TurnRunner(store, catalogue), cid, "Go on.", "ollama:llama3.2:3b")
    assert isinstance(ended(events).error, AnswerCut)
    _user, answer = store.messages(cid)
    assert answer.text == ("word " * 10_000) and answer.status == MessageStatus.FAILED
    notice = store.items(cid)[-1].item
    assert isinstance(notice, Notice) and notice.kind == NoticeKind.ERROR
    assert notice.text == (
        f"The answer from 127.0.0.1:{fake_ollama.port} was cut at 50,000 characters, the "
        "most Sightline keeps of one answer; what came before is kept."
    )
