"""A served request as one Sightline turn (app/serve/served.py), as the clients see what it
tells: why the answer stopped."""

from __future__ import annotations

import json

import httpx
import ollama
import openai
from openai.types.chat import ChatCompletionMessageParam

from tests.app.serve.conftest import Serving
from tests.servers.ollama import FakeOllama, Reply

ASK = [{"role": "user", "content": "Tell me everything"}]
OPENAI_ASK: list[ChatCompletionMessageParam] = [{"role": "user", "content": "Tell me everything"}]
MODEL = "ollama:llama3.2:3b"
CUT = Reply(text="It began like th", done_reason="length")  # stopped at num_predict


async def test_an_answer_cut_at_its_longest_says_length_in_both_apis(
    serving: Serving, fake_ollama: FakeOllama
) -> None:
    openai_client = openai.AsyncOpenAI(
        base_url=serving.openai_url, api_key=serving.token, max_retries=0
    )
    fake_ollama.enqueue(CUT)
    whole = await openai_client.chat.completions.create(
        model=MODEL, messages=OPENAI_ASK, max_tokens=4
    )
    assert whole.choices[0].finish_reason == "length"
    assert whole.choices[0].message.content == CUT.text
    assert fake_ollama.chat_requests()[-1]["options"]["num_predict"] == 4
    fake_ollama.enqueue(CUT)
    stream = await openai_client.chat.completions.create(
        model=MODEL, messages=OPENAI_ASK, stream=True
    )
    reasons = [c.choices[0].finish_reason async for c in stream if c.choices]
    assert reasons[-1] == "length" and set(reasons[:-1]) == {None}
    ollama_client = ollama.AsyncClient(host=serving.ollama_url, headers=serving.auth)
    fake_ollama.enqueue(CUT)
    answer = await ollama_client.chat(model=MODEL, messages=ASK, stream=False)
    assert answer.done_reason == "length"
    fake_ollama.enqueue(CUT)
    async with httpx.AsyncClient(base_url=serving.ollama_url, headers=serving.auth) as raw:
        lines = (await raw.post("/api/chat", json={"model": MODEL, "messages": ASK})).text
    last = json.loads(lines.splitlines()[-1])
    assert last["done"] is True and last["done_reason"] == "length"
    # An answer that ended on its own says so.
    again = await ollama_client.chat(model=MODEL, messages=ASK, stream=False)
    assert again.done_reason == "stop"
