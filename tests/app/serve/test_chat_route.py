"""Both APIs' chat routes (app/serve/chat_route.py), through the official clients: a turn that
fails before its first word is a real error status in each API's shape, even streamed; one
that fails after words were sent ends its stream with the API's own error."""

from __future__ import annotations

import json

import httpx
import ollama
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from tests.app.serve.conftest import Serving
from tests.servers.ollama import FakeOllama, Reply

ASK = [{"role": "user", "content": "Hi"}]
OPENAI_ASK: list[ChatCompletionMessageParam] = [{"role": "user", "content": "Hi"}]
MODEL = "ollama:llama3.2:3b"


@pytest.mark.parametrize("stream", [True, False])
async def test_a_turn_that_fails_before_its_first_word_is_a_real_error_status(
    serving: Serving, fake_ollama: FakeOllama, stream: bool
) -> None:
    fake_ollama.enqueue(Reply(status=500, body={"error": "the runner crashed"}))
    openai_client = openai.AsyncOpenAI(
        base_url=serving.openai_url, api_key=serving.token, max_retries=0
    )
    with pytest.raises(openai.APIStatusError) as failed:
        await openai_client.chat.completions.create(model=MODEL, messages=OPENAI_ASK, stream=stream)
    assert failed.value.status_code == 502
    assert isinstance(failed.value.body, dict) and failed.value.body["type"] == "server_error"
    fake_ollama.enqueue(Reply(status=500, body={"error": "the runner crashed"}))
    ollama_client = ollama.AsyncClient(host=serving.ollama_url, headers=serving.auth)
    with pytest.raises(ollama.ResponseError) as also:
        if stream:
            async for _ in await ollama_client.chat(model=MODEL, messages=ASK, stream=True):
                pass
        else:
            await ollama_client.chat(model=MODEL, messages=ASK, stream=False)
    assert also.value.status_code == 502 and "Traceback" not in also.value.error


async def test_a_turn_that_fails_after_words_ends_the_stream_with_the_apis_error(
    serving: Serving, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(Reply(text="Partly there", midstream_error="the runner crashed"))
    openai_client = openai.AsyncOpenAI(
        base_url=serving.openai_url, api_key=serving.token, max_retries=0
    )
    stream = await openai_client.chat.completions.create(
        model=MODEL, messages=OPENAI_ASK, stream=True
    )
    words: list[str] = []
    with pytest.raises(openai.APIError):
        async for chunk in stream:
            words.append(chunk.choices[0].delta.content or "" if chunk.choices else "")
    assert "".join(words) == "Partly there"
    fake_ollama.enqueue(Reply(text="Partly there", midstream_error="the runner crashed"))
    async with httpx.AsyncClient(base_url=serving.ollama_url, headers=serving.auth) as raw:
        answer = await raw.post("/api/chat", json={"model": MODEL, "messages": ASK})
    assert answer.status_code == 200  # the status line went with the first words
    *sent, last = [json.loads(line) for line in answer.text.splitlines()]
    assert "".join(line["message"]["content"] for line in sent) == "Partly there"
    assert set(last) == {"error", "sightline_notices"} and last["error"]
