"""The sight check against servers that ignore pictures, really look, or ramble — and a real one."""

from __future__ import annotations

import random

import pytest

from routing.catalogue import Catalogue
from routing.models import ProviderConfig, SightFrom, Verdict
from routing.sight_check import (
    COLOURS,
    COUNTS,
    QUESTION,
    SHAPES,
    check_sight,
    make_probe,
    read_answer,
)
from tests.servers import ollama
from tests.servers.openai_chat import ChatModel, FakeOpenAI, Reply
from tests.servers.seeing import looks_at

MODEL = "my-model"


async def _checked(server: FakeOpenAI) -> tuple[Verdict, str, Catalogue]:
    catalogue = Catalogue([ProviderConfig("mine", "custom", server.url)])
    [model] = [m for s in (await catalogue.refresh()).values() for m in s.models]
    assert model.sight_from == SightFrom.UNKNOWN  # the listing says nothing, nor a rule
    result = await check_sight(catalogue, model)
    return result.verdict, result.answer, catalogue


async def test_a_server_that_takes_pictures_and_ignores_them_is_blind() -> None:
    with FakeOpenAI([ChatModel(MODEL)], pictures="ignore") as server:
        verdict, _, catalogue = await _checked(server)
        await catalogue.aclose()
    assert verdict == Verdict.BLIND
    [request] = server.chat_requests()
    content = request["messages"][-1]["content"]
    assert content[0] == {"type": "text", "text": QUESTION} and content[1]["type"] == "image_url"


async def test_a_model_that_really_looks_sees() -> None:
    # The server decodes the probe and reads colour, shape and count from its pixels.
    with FakeOpenAI([ChatModel(MODEL)], pictures="read") as server:
        verdict, answer, catalogue = await _checked(server)
        await catalogue.aclose()
    assert verdict == Verdict.SEES, answer


@pytest.mark.parametrize(
    "answer", ["Shapes and colours are a wonderful subject; people have studied them for ages.", ""]
)
async def test_a_rambling_or_empty_answer_is_unsure(answer: str) -> None:
    with FakeOpenAI([ChatModel(MODEL)], pictures="ignore") as server:
        server.enqueue(Reply(text=answer))
        verdict, _, catalogue = await _checked(server)
        await catalogue.aclose()
    assert verdict == Verdict.UNSURE


async def test_a_failed_request_is_unsure_not_an_error() -> None:
    with FakeOpenAI([ChatModel(MODEL)], pictures="ignore") as server:
        server.enqueue(Reply(status=500, body={"error": {"message": "boom"}}))
        server.enqueue(Reply(status=500, body={"error": {"message": "boom"}}))
        server.enqueue(Reply(status=500, body={"error": {"message": "boom"}}))
        verdict, answer, catalogue = await _checked(server)
        await catalogue.aclose()
    assert verdict == Verdict.UNSURE and "failed" in answer


def test_probes_vary_and_only_the_right_answer_sees() -> None:
    rng = random.Random(7)
    drawn = {(p.colour, p.shape, p.count) for p in (make_probe(rng) for _ in range(40))}
    assert len(drawn) > 25  # varied per check: a cached or remembered answer won't pass
    probe = make_probe(random.Random(3))
    right = f"{probe.count} {probe.colour} {probe.shape}s"
    assert read_answer(right, probe) == Verdict.SEES
    assert read_answer(looks_at(probe.picture.data), probe) == Verdict.SEES
    assert read_answer("no picture", probe) == Verdict.BLIND
    assert read_answer("I can't see any image in your message.", probe) == Verdict.BLIND
    wrong_colour = next(c for c in COLOURS if c != probe.colour)
    assert read_answer(f"{probe.count} {wrong_colour} {probe.shape}s", probe) == Verdict.BLIND
    # Naming every colour, or a right colour with the wrong count, proves nothing.
    assert read_answer(" ".join(COLOURS) + f" {probe.shape}", probe) == Verdict.UNSURE
    other = next(n for n in COUNTS if n != probe.count)
    assert read_answer(f"{other} {probe.colour} {probe.shape}s", probe) == Verdict.UNSURE


def test_a_blind_guess_rarely_passes() -> None:
    # Every fixed answer a blind model could give passes for about 1 probe in 96.
    rng = random.Random(11)
    probes = [make_probe(rng) for _ in range(960)]
    guess = "3 red circles"
    passed = sum(read_answer(guess, p) == Verdict.SEES for p in probes)
    assert passed < 30
    assert len(COLOURS) * len(SHAPES) * len(COUNTS) == 96


async def test_a_check_never_overrides_a_listing_that_says_the_model_sees(
    listed_catalogue: Catalogue, fake_ollama: ollama.FakeOllama
) -> None:
    # llava is listed with "vision"; its answer misreads the probe.
    fake_ollama.enqueue(ollama.Reply(text="There is no picture."))
    model = listed_catalogue.find("ollama:llava:7b")
    assert model is not None and model.sight_from == SightFrom.LISTING
    result = await check_sight(listed_catalogue, model)
    assert result.verdict == Verdict.BLIND
    listed_catalogue.learn_sight(model, result.verdict)
    after = listed_catalogue.find("ollama:llava:7b")
    assert after is not None
    assert (after.sees, after.sight_from, after.checked) == (True, SightFrom.LISTING, Verdict.BLIND)
    assert listed_catalogue.answer(model).gets_pictures  # a turn still sends it pictures
    # The person may mark it blind; taking the mark back gives the listing its word again.
    listed_catalogue.mark(model.ref, True)
    marked = listed_catalogue.answer(model)
    assert (marked.sees, marked.sight_from) == (False, SightFrom.MARKED)
    listed_catalogue.mark(model.ref, False)
    assert listed_catalogue.answer(model).sees is True
    # A refusal still heals as before.
    listed_catalogue.mark_blind(model.ref)
    healed = listed_catalogue.answer(model)
    assert (healed.sees, healed.sight_from) == (False, SightFrom.LEARNED)


@pytest.mark.real_engine
async def test_a_real_text_only_model_is_never_said_to_see(llama_server: str) -> None:
    catalogue = Catalogue([ProviderConfig("llamacpp", "custom", f"{llama_server}/v1")])
    statuses = await catalogue.refresh()
    [model] = [m for s in statuses.values() for m in s.models]
    verdicts = [(await check_sight(catalogue, model)).verdict for _ in range(3)]
    await catalogue.aclose()
    assert Verdict.SEES not in verdicts
