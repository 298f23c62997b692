"""The official `openai` client against `sightline serve` (app/serve/openai_api.py,
app/serve/openai_request.py): text streamed and not, a picture to a blind local model, and
what OpenAI refuses, refused in its shape."""

from __future__ import annotations

import base64
import json

import httpx
import openai
import pytest

from app.store import Store
from routing.transcript import MessageStatus
from tests.app.serve.conftest import Serving
from tests.app.serve.pictures import data_url, png
from tests.conftest import SightlineHome
from tests.servers.ollama import FakeOllama


def client(serving: Serving) -> openai.AsyncOpenAI:
    """The official client, pointed at the server as docs/serving.md says."""
    return openai.AsyncOpenAI(base_url=serving.openai_url, api_key=serving.token, max_retries=0)


async def test_models_are_sightlines_refs_and_auto(serving: Serving) -> None:
    listed = [m.id async for m in client(serving).models.list()]
    assert listed[0] == "auto"
    assert {"ollama:llama3.2:3b", "ollama:llava:7b"} <= set(listed[1:])


async def test_a_text_turn_answered_whole(
    serving: Serving, fake_ollama: FakeOllama, home: SightlineHome
) -> None:
    raw = await client(serving).chat.completions.with_raw_response.create(
        model="ollama:llama3.2:3b",
        messages=[
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello!"},
            {"role": "user", "content": "How are you?"},
        ],
        temperature=0.5,
    )
    completion = raw.parse()
    assert completion.choices[0].message.content == "You said: How are you?"
    assert completion.choices[0].finish_reason == "stop"
    assert completion.model == "ollama:llama3.2:3b"
    assert completion.usage is not None and completion.model_extra is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (12, 7)
    assert completion.model_extra["sightline_notices"] == []  # the person chose: nothing told
    assert json.loads(raw.headers["x-sightline-notices"]) == []
    # The client's conversation reached the model whole, its system prompt and setting too.
    sent = fake_ollama.chat_requests()[-1]
    assert [(m["role"], m["content"]) for m in sent["messages"]] == [
        ("system", "Be brief."),
        ("user", "Hi"),
        ("assistant", "Hello!"),
        ("user", "How are you?"),
    ]
    assert sent["options"]["temperature"] == 0.5
    serving.stop()
    with Store.open(home.data) as store:
        [served] = store.conversations.list()
        assert served.title.startswith("Served to AsyncOpenAI/Python")
        messages = store.messages(served.id)
        assert [m.text for m in messages] == [
            "Hi",
            "Hello!",
            "How are you?",
            "You said: How are you?",
        ]
        assert messages[-1].status is MessageStatus.COMPLETE


async def test_a_text_turn_streamed_with_notices_in_the_last_chunk(serving: Serving) -> None:
    stream = await client(serving).chat.completions.create(
        model="auto",
        messages=[{"role": "user", "content": "Hello there"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = [chunk async for chunk in stream]
    words = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert words == "You said: Hello there"
    assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) > 1  # streamed
    finishing = next(c for c in chunks if c.choices and c.choices[0].finish_reason)
    assert finishing.choices[0].finish_reason == "stop"
    assert finishing.model_extra is not None
    [notice] = finishing.model_extra["sightline_notices"]
    assert notice["kind"] == "routing" and "ollama:llama3.2:3b answers" in notice["text"]
    usage = chunks[-1].usage
    assert chunks[-1].choices == [] and usage is not None and usage.completion_tokens == 7


async def test_a_picture_to_a_blind_local_model_is_described_by_a_local_one(
    serving: Serving, fake_ollama: FakeOllama, home: SightlineHome
) -> None:
    picture = png("red")
    completion = await client(serving).chat.completions.create(
        model="ollama:llama3.2:3b",
        messages=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What colour is it?"},
                    {"type": "image_url", "image_url": {"url": data_url(picture)}},
                ],
            }
        ],
    )
    requests = fake_ollama.chat_requests()
    blind = [r for r in requests if r["model"] == "llama3.2:3b"]
    lookers = [r for r in requests if r["model"] != "llama3.2:3b"]
    # No picture's bytes reached the blind model; a seeing model here looked at them.
    assert blind and not any(m.get("images") for r in blind for m in r["messages"])
    assert lookers and all(r["model"] in ("llava:7b", "qwen2.5vl:3b") for r in lookers)
    looked = [m for r in lookers for m in r["messages"] if m.get("images")]
    assert base64.b64decode(looked[0]["images"][0])[:8] == picture[:8]
    assert completion.model_extra is not None
    notices = completion.model_extra["sightline_notices"]
    disclosure = [n for n in notices if n["kind"] == "disclosure"]
    assert disclosure and "looked at" in disclosure[0]["text"]
    assert "127.0.0.1" in disclosure[0]["text"]  # where it looked: this computer
    # The crossing is kept with the served conversation, so its ledger lists it.
    serving.stop()
    from app.ledger import ledger

    with Store.open(home.data) as store:
        [served] = store.conversations.list()
        [crossing] = ledger(store.items(served.id))
        assert crossing.local is True and crossing.model.startswith("ollama:")


async def test_a_remote_picture_url_is_refused_as_openai_refuses(serving: Serving) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        await client(serving).chat.completions.create(
            model="ollama:llava:7b",
            messages=[
                {
                    "role": "user",
                    "content": [
                        {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
                    ],
                }
            ],
        )
    assert refused.value.status_code == 400
    assert refused.value.code == "invalid_image_url"
    assert "fetches nothing" in refused.value.message


async def test_a_damaged_picture_is_a_shaped_400(serving: Serving) -> None:
    broken = "data:image/png;base64," + base64.b64encode(b"\x89PNG not really").decode()
    with pytest.raises(openai.BadRequestError) as refused:
        await client(serving).chat.completions.create(
            model="ollama:llava:7b",
            messages=[
                {"role": "user", "content": [{"type": "image_url", "image_url": {"url": broken}}]}
            ],
        )
    assert refused.value.code == "invalid_image"


async def test_an_unknown_model_is_a_404_and_nothing_is_stored(
    serving: Serving, home: SightlineHome
) -> None:
    with pytest.raises(openai.NotFoundError) as missing:
        await client(serving).chat.completions.create(
            model="ollama:nope:1b", messages=[{"role": "user", "content": "hi"}]
        )
    assert missing.value.code == "model_not_found"
    with pytest.raises(openai.NotFoundError):
        await client(serving).chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "hi"}]
        )
    serving.stop()
    with Store.open(home.data) as store:
        assert store.conversations.list() == []


async def test_bad_requests_get_openais_error_shape(serving: Serving) -> None:
    async with httpx.AsyncClient(base_url=serving.openai_url, headers=serving.auth) as raw:
        cases = [
            (b"not json", 400, None),
            (b"[1, 2]", 400, None),
            (json.dumps({"messages": []}).encode(), 400, None),
            (json.dumps({"model": "auto"}).encode(), 400, "messages"),
            (json.dumps({"model": "auto", "messages": "hi"}).encode(), 400, "messages"),
            (
                json.dumps({"model": "auto", "messages": [{"role": "bot"}]}).encode(),
                400,
                "messages[0].role",
            ),
            (
                json.dumps(
                    {
                        "model": "auto",
                        "messages": [{"role": "user", "content": "x"}],
                        "temperature": 9,
                    }
                ).encode(),
                400,
                None,
            ),
        ]
        for body, status, param in cases:
            answer = await raw.post("/chat/completions", content=body)
            assert answer.status_code == status, body
            error = answer.json()["error"]
            assert set(error) == {"message", "type", "param", "code"}
            assert error["type"] == "invalid_request_error" and error["message"]
            assert error["param"] == param
            assert "Traceback" not in answer.text
