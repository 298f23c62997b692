"""The official `ollama` client against `sightline serve` (app/serve/ollama_api.py,
app/serve/ollama_request.py): text streamed and not, a picture as base64 to a blind local
model, the model list, show and version, and Ollama's own error shape."""

from __future__ import annotations

import json
import time

import httpx
import ollama
import pytest

from app.store import Store
from tests.app.serve.conftest import Serving, running
from tests.app.serve.pictures import as_base64, png
from tests.conftest import SightlineHome
from tests.servers.ollama import FakeOllama, Reply


def client(serving: Serving) -> ollama.AsyncClient:
    """The official client, pointed at the server with the token, as docs/serving.md says."""
    return ollama.AsyncClient(host=serving.ollama_url, headers=serving.auth)


async def test_a_text_turn_answered_whole(serving: Serving, fake_ollama: FakeOllama) -> None:
    answer = await client(serving).chat(
        model="ollama:llama3.2:3b",
        messages=[{"role": "user", "content": "Hi"}],
        stream=False,
        options={"temperature": 0.2, "num_predict": -1},
    )
    assert answer.message.content == "You said: Hi"
    assert answer.done and answer.done_reason == "stop"
    assert (answer.prompt_eval_count, answer.eval_count) == (12, 7)
    assert fake_ollama.chat_requests()[-1]["options"]["temperature"] == 0.2


async def test_the_last_object_says_what_it_cost_and_how_long_it_took(
    serving: Serving, fake_ollama: FakeOllama
) -> None:
    ollama_client = client(serving)
    ask = [{"role": "user", "content": "Hi"}]
    # The model's server timed its answer: its own eval_duration is told.
    began = time.perf_counter_ns()
    answer = await ollama_client.chat(model="ollama:llama3.2:3b", messages=ask, stream=False)
    took = time.perf_counter_ns() - began
    assert (answer.prompt_eval_count, answer.eval_count) == (12, 7)
    assert answer.eval_duration == 654_321_000
    assert answer.prompt_eval_duration is not None and 0 < answer.prompt_eval_duration < took
    assert answer.total_duration is not None and answer.eval_duration is not None
    assert answer.total_duration >= answer.prompt_eval_duration + answer.eval_duration
    assert answer.load_duration == 0
    # One that didn't: the time from the first words to the end, measured here, streamed.
    fake_ollama.enqueue(Reply(text="one two three four", delay=0.05, eval_duration=None))
    began = time.perf_counter_ns()
    parts = [
        part
        async for part in await ollama_client.chat(
            model="ollama:llama3.2:3b", messages=ask, stream=True
        )
    ]
    took = time.perf_counter_ns() - began
    last = parts[-1]
    assert last.done and (last.prompt_eval_count, last.eval_count) == (12, 7)
    assert last.eval_duration is not None and last.prompt_eval_duration is not None
    assert 0.1e9 < last.eval_duration < took  # four pieces 50 ms apart, after the first
    assert 0 < last.prompt_eval_duration < took
    assert last.total_duration is not None and last.total_duration <= took
    assert last.total_duration >= last.prompt_eval_duration + last.eval_duration


async def test_a_text_turn_streamed_ends_with_the_notices(serving: Serving) -> None:
    parts = [
        part
        async for part in await client(serving).chat(
            model="auto", messages=[{"role": "user", "content": "Hello there"}], stream=True
        )
    ]
    assert "".join(p.message.content or "" for p in parts) == "You said: Hello there"
    assert len(parts) > 2 and not any(p.done for p in parts[:-1]) and parts[-1].done
    # The client drops fields it doesn't know; the line itself carries them.
    async with httpx.AsyncClient(base_url=serving.ollama_url, headers=serving.auth) as raw:
        body = {"model": "auto", "messages": [{"role": "user", "content": "Hi"}]}
        lines = (await raw.post("/api/chat", json=body)).text.splitlines()
    last = json.loads(lines[-1])
    assert last["done"] is True
    [notice] = last["sightline_notices"]
    assert notice["kind"] == "routing"


async def test_a_picture_to_a_blind_local_model_never_reaches_it(
    serving: Serving, fake_ollama: FakeOllama
) -> None:
    picture = as_base64(png("blue"))
    answer = await client(serving).chat(
        model="ollama:gemma3:270m",
        messages=[{"role": "user", "content": "What is this?", "images": [picture]}],
        stream=False,
    )
    assert (answer.message.content or "").startswith("You said: What is this?")
    requests = fake_ollama.chat_requests()
    blind = [r for r in requests if r["model"] == "gemma3:270m"]
    assert blind and not any(m.get("images") for r in blind for m in r["messages"])
    looked = [r for r in requests if r["model"] in ("llava:7b", "qwen2.5vl:3b")]
    assert any(picture in m.get("images", []) for r in looked for m in r["messages"])
    # Unstreamed, the notices are in a header the client leaves alone but keeps (another
    # picture: the first one's words are kept, and told as such).
    picture = as_base64(png("green"))
    async with httpx.AsyncClient(base_url=serving.ollama_url, headers=serving.auth) as raw:
        body = {
            "model": "ollama:gemma3:270m",
            "stream": False,
            "messages": [{"role": "user", "content": "Again?", "images": [picture]}],
        }
        answered = await raw.post("/api/chat", json=body)
    kinds = [n["kind"] for n in json.loads(answered.headers["x-sightline-notices"])]
    assert "disclosure" in kinds
    assert answered.json()["sightline_notices"] == json.loads(
        answered.headers["x-sightline-notices"]
    )


async def test_tags_show_and_version(serving: Serving) -> None:
    ollama_client = client(serving)
    listed = [m.model for m in (await ollama_client.list()).models]
    assert listed[0] == "auto" and "ollama:llava:7b" in listed
    shown = await ollama_client.show("ollama:llama3.2:3b")
    assert "vision" in (shown.capabilities or [])  # through Sightline every model takes pictures
    async with httpx.AsyncClient(base_url=serving.ollama_url, headers=serving.auth) as raw:
        version = (await raw.get("/api/version")).json()
        about = (await raw.post("/api/show", json={"model": "ollama:llama3.2:3b"})).json()
    assert version["version"].count(".") == 2 and version["sightline"]
    assert about["sightline"] == {"sees": False, "from": "listing", "local": True}


async def test_show_says_vision_for_every_model_and_sightlines_own_verdict(
    home: SightlineHome,
) -> None:
    with Store.open(home.data) as store:
        store.learned.remember_marked("ollama:qwen2.5vl:3b")  # the person marked it blind
    with running(home) as serving:
        ollama_client = client(serving)
        async with httpx.AsyncClient(base_url=serving.ollama_url, headers=serving.auth) as raw:
            for name, verdict in [
                ("ollama:llava:7b", {"sees": True, "from": "listing", "local": True}),
                ("ollama:gemma3:270m", {"sees": False, "from": "listing", "local": True}),
                ("ollama:qwen2.5vl:3b", {"sees": False, "from": "marked", "local": True}),
                ("auto", {"sees": None, "from": None, "local": None}),
            ]:
                shown = await ollama_client.show(name)  # the official client still reads it
                assert "vision" in (shown.capabilities or []) and "completion" in (
                    shown.capabilities or []
                )
                about = (await raw.post("/api/show", json={"model": name})).json()
                assert about["sightline"] == verdict, name


async def test_errors_are_ollamas(serving: Serving) -> None:
    ollama_client = client(serving)
    with pytest.raises(ollama.ResponseError) as missing:
        await ollama_client.chat(
            model="ollama:nope:1b", messages=[{"role": "user", "content": "x"}]
        )
    assert missing.value.status_code == 404
    assert missing.value.error == 'model "ollama:nope:1b" not found, try pulling it first'
    with pytest.raises(ollama.ResponseError) as shown:
        await ollama_client.show("ollama:nope:1b")
    assert shown.value.status_code == 404
    with pytest.raises(ollama.ResponseError) as broken:
        await ollama_client.chat(
            model="auto", messages=[{"role": "user", "content": "x", "images": ["!!!"]}]
        )
    assert broken.value.status_code == 400 and "base64" in broken.value.error
    async with httpx.AsyncClient(base_url=serving.ollama_url, headers=serving.auth) as raw:
        for body, words in [
            ({}, "model is required"),
            (
                {"model": "auto", "messages": [{"role": "user", "content": ["x"]}]},
                "unmarshal array",
            ),
            (
                {"model": "auto", "messages": [{"role": "user", "content": "x"}], "tools": [{}]},
                "--allow-tools",
            ),
        ]:
            answer = await raw.post("/api/chat", json=body)
            assert answer.status_code == 400
            assert list(answer.json()) == ["error"] and words in answer.json()["error"]
