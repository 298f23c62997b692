"""An answer's stats, measured as it streams from a real loopback Ollama and kept with it."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from app.store import Store
from app.tools.base import Tool, text_result
from app.turn.events import TurnEvent
from app.turn.runner import TurnRunner
from app.turn.stats import AnswerClock
from app.turn.tool_step import AllowAll, ToolStep
from routing.answer_stats import AnswerStats
from routing.catalogue import Catalogue
from routing.transcript import Message, MessageStatus, ToolCall, ToolResult
from routing.wires.base import Done, TextDelta, ToolCallEvent, ToolSpec, Usage
from tests.app.turn.engine_helpers import run_turn
from tests.clocks import GivenTimes
from tests.events import ended
from tests.pictures import make_picture
from tests.servers.ollama import FakeOllama, Reply
from vision.pictures import Picture

MODEL = "ollama:llama3.2:3b"
DELAY = 0.06  # before each line of the stream


@pytest.fixture
def runner(store: Store, catalogue: Catalogue) -> TurnRunner:
    return TurnRunner(store, catalogue, ToolStep(AllowAll()))


async def ask(
    runner: TurnRunner,
    cid: str,
    text: str = "hi",
    model: str = MODEL,
    tools: Sequence[Tool] = (),
    pictures: tuple[Picture, ...] = (),
) -> list[TurnEvent]:
    """A turn that must end well: its events."""
    found = await run_turn(runner, cid, text, model, pictures, tools=tools)
    assert ended(found).error is None, found[-1]
    return found


def answers(store: Store, cid: str) -> list[Message]:
    return [m for m in store.messages(cid) if m.role == "assistant"]


def stats_of(message: Message) -> AnswerStats:
    assert message.stats is not None
    return message.stats


class Slow:
    """A tool that takes a while, so its time can be told apart from the model's."""

    def __init__(self, seconds: float) -> None:
        self.spec = ToolSpec("slow", "takes a while")
        self.seconds = seconds

    async def run(self, call: ToolCall) -> ToolResult:
        await asyncio.sleep(self.seconds)
        return text_result(call, "done")


# -- the clock on its own --------------------------------------------------------


def test_the_clock_times_the_first_word_and_the_stream_after_it() -> None:
    # sent at 10; a usage-free line, the first word at 10.5, more, the counts and the end.
    clock = AnswerClock(GivenTimes(10.0, 10.5, 11.0, 12.5, 12.5))
    clock.saw(TextDelta("Hel"))
    clock.saw(TextDelta("lo"))
    clock.saw(Usage(12, 30))
    clock.saw(Done())
    stats = clock.stats()
    assert stats == AnswerStats(12, 30, first_token_seconds=0.5, streaming_seconds=2.0)
    assert stats.tokens_per_second == 15.0


def test_a_tool_call_is_a_first_word_and_what_comes_before_it_is_not() -> None:
    clock = AnswerClock(GivenTimes(0.0, 0.2, 0.9, 1.4))
    clock.saw(Usage(5, 0))  # a provider that counts its input first
    clock.saw(ToolCallEvent(ToolCall("c1", "slow")))
    clock.saw(Usage(0, 9))  # and its output at the end: each count kept
    stats = clock.stats()
    assert stats == AnswerStats(5, 9, first_token_seconds=0.9, streaming_seconds=0.5)


def test_no_counts_from_the_provider_give_no_rate() -> None:
    # The wire reports what the provider didn't say as 0: not counted, never guessed.
    clock = AnswerClock(GivenTimes(0.0, 0.3, 2.3, 2.3))
    clock.saw(TextDelta("many words here"))
    clock.saw(TextDelta("and more"))
    clock.saw(Usage(0, 0))
    stats = clock.stats()
    assert (stats.input_tokens, stats.output_tokens, stats.tokens_per_second) == (None, None, None)
    assert stats.first_token_seconds == 0.3


def test_a_stream_with_no_words_has_no_first_word() -> None:
    clock = AnswerClock(GivenTimes(0.0, 1.0, 1.0))
    clock.saw(Usage(4, 0))
    clock.saw(Done())
    assert clock.stats() == AnswerStats(input_tokens=4)


# -- through the real turn ----------------------------------------------------------


async def test_an_answers_stats_come_from_its_stream_and_are_kept(
    runner: TurnRunner, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    cid = runner.store.conversations.create()
    text = "Hello there, friend."  # five lines of four characters, then the last line
    fake_ollama.enqueue(Reply(text=text, delay=DELAY, prompt_eval_count=21, eval_count=40))
    await ask(runner, cid)
    [answer] = answers(runner.store, cid)
    stats = stats_of(answer)
    assert (stats.input_tokens, stats.output_tokens) == (21, 40)  # the server's own counts
    assert stats.first_token_seconds is not None and stats.first_token_seconds >= DELAY
    # After the first line, four more of words and the last with the counts, each after
    # the delay (the bound allows for the clock's and the loop's jitter).
    assert stats.streaming_seconds is not None and stats.streaming_seconds >= 5 * DELAY * 0.9
    # The rate is the server's own: its eval_count over its eval_duration (654 ms here).
    assert stats.generating_seconds == 0.654
    assert stats.tokens_per_second == pytest.approx(40 / 0.654)
    runner.store.close()
    with Store.open(tmp_path / "data") as reopened:
        assert stats_of(answers(reopened, cid)[0]) == stats


async def test_a_provider_that_gives_no_counts_gives_no_rate(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    cid = runner.store.conversations.create()
    fake_ollama.enqueue(Reply(text="Some words.", delay=DELAY, prompt_eval_count=0, eval_count=0))
    await ask(runner, cid)
    stats = stats_of(answers(runner.store, cid)[0])
    assert (stats.input_tokens, stats.output_tokens, stats.tokens_per_second) == (None, None, None)
    assert stats.first_token_seconds is not None and stats.first_token_seconds >= DELAY


async def test_describing_a_picture_is_not_the_answers_first_word(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    cid = runner.store.conversations.create()
    picture = make_picture("blue", label="dot.png")
    slow_look = 0.5
    fake_ollama.enqueue(Reply(text="A blue square.", delay=slow_look), Reply(text="Blue."))
    await ask(runner, cid, "look", model="ollama:gemma3:270m", pictures=(picture,))
    looked, _answered = fake_ollama.chat_requests()
    assert looked["model"] != "gemma3:270m"  # another model described it first
    stats = stats_of(answers(runner.store, cid)[0])
    assert stats.first_token_seconds is not None and stats.first_token_seconds < slow_look


async def test_each_request_of_a_turn_has_its_own_stats_without_the_tools_time(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    cid = runner.store.conversations.create()
    tool_time = 0.5
    fake_ollama.enqueue(
        Reply(tool_calls=[{"name": "slow", "arguments": {}}], prompt_eval_count=30, eval_count=8),
        Reply(text="Done it.", prompt_eval_count=55, eval_count=4),
    )
    await ask(runner, cid, "go", model="ollama:qwen2.5vl:3b", tools=[Slow(tool_time)])
    calling, answering = (stats_of(m) for m in answers(runner.store, cid))
    assert (calling.input_tokens, calling.output_tokens) == (30, 8)
    assert (answering.input_tokens, answering.output_tokens) == (55, 4)
    for stats in (calling, answering):
        assert stats.first_token_seconds is not None and stats.first_token_seconds < tool_time


async def test_a_failed_answer_keeps_what_was_measured(
    runner: TurnRunner, fake_ollama: FakeOllama
) -> None:
    cid = runner.store.conversations.create()
    fake_ollama.enqueue(Reply(text="Partial", delay=DELAY, midstream_error="runner crashed"))
    await run_turn(runner, cid, "hi", MODEL)
    [answer] = answers(runner.store, cid)
    assert answer.status == MessageStatus.FAILED
    stats = stats_of(answer)
    assert stats.first_token_seconds is not None and stats.first_token_seconds >= DELAY
    assert stats.output_tokens is None  # the stream broke before the counts


def test_the_servers_own_generating_time_gives_a_short_answer_its_rate() -> None:
    # A burst too short for this side's clock: the server said how long it took.
    clock = AnswerClock(GivenTimes(0.0, 0.2, 0.21, 0.21))
    clock.saw(TextDelta("Hi there."))
    clock.saw(Usage(5, 4, generating_seconds=0.08))
    clock.saw(Done())
    stats = clock.stats()
    assert stats.streaming_seconds == 0.01 and stats.generating_seconds == 0.08
    assert stats.tokens_per_second == 50.0
    assert AnswerStats.from_json(stats.to_json()) == stats
