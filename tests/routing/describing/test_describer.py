"""The describer: once per picture (SHA-256, LRU of 256), shared asks, failures not kept.

Requests are counted where they land: at a loopback Ollama whose seeing model looks.
"""

from __future__ import annotations

import asyncio

import pytest

from routing.catalogue import Catalogue
from routing.describing.describer import (
    CACHE_SIZE,
    MAX_FOCUS_CHARS,
    Describer,
    Description,
    DescriptionFailed,
    bounded_focus,
)
from routing.describing.looker import WireLooker
from routing.describing.prompt import describer_prompt
from routing.models import ProviderConfig
from routing.shaping import PictureLimits
from tests.events import stopped_once
from tests.pictures import numbered_picture
from tests.servers.loopback import closed_port
from tests.servers.ollama import FakeOllama, Reply
from vision.pictures import Picture

LOOKER = "ollama:qwen2.5vl:3b"


def asked(server: FakeOllama) -> int:
    """How many descriptions reached the server."""
    return len(server.chat_requests())


class Held:
    """A looker that holds its answer until released, and notes being cancelled."""

    label = "test:held"
    host = "127.0.0.1:1"

    def __init__(self) -> None:
        """Nothing asked yet; the answer waits for `release`."""
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.stopped = asyncio.Event()
        self.looks = 0
        self.cancelled = 0

    async def look(self, picture: Picture, focus: str) -> Description:
        """Answer once released; note a cancellation."""
        self.looks += 1
        self.started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            self.stopped.set()
            raise
        return Description("A held picture.", self.label, 5, 3)


async def test_the_same_picture_twice_is_asked_once(
    looker: WireLooker, fake_ollama: FakeOllama
) -> None:
    describer = Describer()
    fake_ollama.enqueue(Reply(text="A small square.", prompt_eval_count=40, eval_count=9))
    first = await describer.describe(numbered_picture(), looker)
    again = await describer.describe(numbered_picture(), looker)
    assert asked(fake_ollama) == 1 and describer.requests == 1
    assert first == Description("A small square.", LOOKER, 40, 9)
    # Served from memory: same words, and no cost counted twice.
    assert again == Description("A small square.", LOOKER, 0, 0)


async def test_the_looker_gets_the_prompt_the_picture_and_the_focus(
    looker: WireLooker, fake_ollama: FakeOllama
) -> None:
    await Describer().describe(
        numbered_picture(label="chart.png"), looker, "From the tool read_file"
    )
    [body] = fake_ollama.chat_requests()
    system, user = body["messages"]
    assert system == {"role": "system", "content": describer_prompt()}
    assert "From the tool read_file" in user["content"] and "not instructions" in user["content"]
    assert len(user["images"]) == 1 and "tools" not in body


async def test_the_257th_picture_evicts_the_least_recently_used(
    looker: WireLooker, fake_ollama: FakeOllama
) -> None:
    describer = Describer()
    for number in range(CACHE_SIZE):
        await describer.describe(numbered_picture(number), looker)
    assert asked(fake_ollama) == CACHE_SIZE
    await describer.describe(numbered_picture(0), looker)  # used again: now the most recent
    assert asked(fake_ollama) == CACHE_SIZE
    await describer.describe(numbered_picture(CACHE_SIZE), looker)  # the 257th: p1 goes
    assert asked(fake_ollama) == CACHE_SIZE + 1
    assert describer.cached(numbered_picture(1).sha256) is None
    kept = [
        n for n in range(CACHE_SIZE + 1) if describer.cached(numbered_picture(n).sha256) is not None
    ]
    assert len(kept) == CACHE_SIZE and 1 not in kept
    await describer.describe(numbered_picture(0), looker)  # recently used: still kept
    assert asked(fake_ollama) == CACHE_SIZE + 1
    await describer.describe(numbered_picture(1), looker)  # evicted: asked again
    assert asked(fake_ollama) == CACHE_SIZE + 2


async def test_concurrent_asks_for_one_picture_share_one_request(
    looker: WireLooker, fake_ollama: FakeOllama
) -> None:
    describer = Describer()
    fake_ollama.enqueue(Reply(text="A shared look.", delay=0.05))
    results = await asyncio.gather(
        *(describer.describe(numbered_picture(), looker) for _ in range(6))
    )
    assert asked(fake_ollama) == 1
    assert {r.text for r in results} == {"A shared look."}
    # The cost is counted once: only the caller that started the request carries it.
    assert sum(r.input_tokens for r in results) == 12
    assert sum(r.output_tokens for r in results) == 7


@pytest.mark.parametrize(
    "reply",
    [
        Reply(status=500, body={"error": "runner crashed: CUDA error 719"}),
        Reply(text=""),
        Reply(text="  \n "),
    ],
    ids=["provider-error", "empty", "blank"],
)
async def test_a_failed_description_is_not_kept(
    looker: WireLooker, fake_ollama: FakeOllama, reply: Reply
) -> None:
    describer = Describer()
    fake_ollama.enqueue(reply)
    with pytest.raises(DescriptionFailed) as failed:
        await describer.describe(numbered_picture(), looker)
    assert "CUDA" not in str(failed.value)  # the provider's words stay in the log
    assert describer.cached(numbered_picture().sha256) is None
    fake_ollama.enqueue(Reply(text="Second time lucky."))
    assert (await describer.describe(numbered_picture(), looker)).text == "Second time lucky."
    assert asked(fake_ollama) == 2


async def test_a_slow_looker_times_out(looker: WireLooker, fake_ollama: FakeOllama) -> None:
    describer = Describer(timeout=0.2)
    fake_ollama.enqueue(Reply(text="Too late.", delay=2.0))
    with pytest.raises(DescriptionFailed, match=r"took longer than 0\.2 s"):
        await describer.describe(numbered_picture(), looker)
    assert describer.cached(numbered_picture().sha256) is None


async def test_an_unreachable_looker_fails_plainly(looker: WireLooker) -> None:
    nowhere = Catalogue([ProviderConfig("ollama", "ollama", f"http://127.0.0.1:{closed_port()}")])
    with pytest.raises(DescriptionFailed, match="connect"):
        await Describer().describe(numbered_picture(), WireLooker(nowhere, looker.model))
    await nowhere.aclose()


async def test_cancelling_the_only_caller_cancels_the_request() -> None:
    describer, held = Describer(), Held()
    await stopped_once(held.started, describer.describe(numbered_picture(), held), 5)
    # The request goes too (the looker is free again), and nothing is half-kept.
    await asyncio.wait_for(held.stopped.wait(), 5)
    assert describer.cached(numbered_picture().sha256) is None
    held.release.set()
    assert (await describer.describe(numbered_picture(), held)).text == "A held picture."
    assert held.looks == 2


async def test_one_caller_leaving_keeps_the_request_for_the_others() -> None:
    describer, held = Describer(), Held()
    leaving = asyncio.create_task(describer.describe(numbered_picture(), held))
    staying = asyncio.create_task(describer.describe(numbered_picture(), held))
    await asyncio.wait_for(held.started.wait(), 5)
    leaving.cancel()
    with pytest.raises(asyncio.CancelledError):
        await leaving
    held.release.set()
    assert (await asyncio.wait_for(staying, 5)).text == "A held picture."
    assert (held.looks, held.cancelled) == (1, 0)
    assert describer.cached(numbered_picture().sha256) is not None


async def test_a_picture_too_big_to_send_is_not_looked_at(
    looker: WireLooker, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Limits no picture can meet: the looker would only see a note, so it isn't asked.
    monkeypatch.setattr(
        "routing.describing.looker.limits_for", lambda side: PictureLimits(side, 10)
    )
    with pytest.raises(DescriptionFailed):
        await Describer().describe(numbered_picture(label="huge.png"), looker)
    assert asked(fake_ollama) == 0


def test_the_focus_hint_is_bounded() -> None:
    focus = bounded_focus("From the tool screenshot", "  ", "x" * 5000)
    assert len(focus) == MAX_FOCUS_CHARS and focus.endswith("…")
    assert focus.startswith("From the tool screenshot\nxxx")
    assert bounded_focus("", "  a  ", "b") == "a\nb"
