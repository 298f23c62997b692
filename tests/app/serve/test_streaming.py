"""Answers sent while the client is there (app/serve/streaming.py): a client that hangs up
stops the model's request, and many clients are served at once."""

from __future__ import annotations

import asyncio
import time

import httpx
import ollama
import openai

from app.store import Store
from routing.transcript import MessageStatus
from tests.app.serve.conftest import Serving
from tests.conftest import SightlineHome
from tests.servers.ollama import FakeOllama, Reply

SLOW = Reply(text="word " * 80, chunk_chars=5, delay=0.1)  # 80 pieces over 8 s


async def wait_for(condition, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "it never happened"
        await asyncio.sleep(0.05)


async def test_a_client_that_hangs_up_mid_stream_stops_the_upstream_request(
    serving: Serving, fake_ollama: FakeOllama, home: SightlineHome
) -> None:
    fake_ollama.enqueue(SLOW)
    client = openai.AsyncOpenAI(base_url=serving.openai_url, api_key=serving.token)
    stream = await client.chat.completions.create(
        model="ollama:llama3.2:3b", messages=[{"role": "user", "content": "Go on"}], stream=True
    )
    got = 0
    async for chunk in stream:
        got += bool(chunk.choices and chunk.choices[0].delta.content)
        if got == 2:
            break
    started = time.monotonic()
    await stream.close()
    await wait_for(lambda: fake_ollama.chats_abandoned == 1)
    assert time.monotonic() - started < 5  # long before its 8 s were up
    serving.stop()
    with Store.open(home.data) as store:
        [served] = store.conversations.list()
        answer = store.messages(served.id)[-1]
        assert answer.status is MessageStatus.STOPPED
        assert answer.text.startswith("word word") and len(answer.text) < len(SLOW.text)


async def test_a_client_that_gives_up_waiting_stops_an_unstreamed_turn(
    serving: Serving, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(SLOW)
    impatient = ollama.AsyncClient(host=serving.ollama_url, headers=serving.auth, timeout=1)
    try:
        await impatient.chat(
            model="ollama:llama3.2:3b", messages=[{"role": "user", "content": "x"}], stream=False
        )
    except httpx.TimeoutException:
        pass
    else:
        raise AssertionError("the slow answer came within a second")
    await wait_for(lambda: fake_ollama.chats_abandoned == 1)


async def test_two_clients_at_once(serving: Serving, fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue(SLOW)  # the first request's answer is slow; the second's is not
    started = time.monotonic()
    slow_client = openai.AsyncOpenAI(base_url=serving.openai_url, api_key=serving.token)
    stream = await slow_client.chat.completions.create(
        model="ollama:llama3.2:3b", messages=[{"role": "user", "content": "slow"}], stream=True
    )
    pieces = aiter(stream)
    first = await anext(pieces)
    assert first.choices[0].delta.role == "assistant"
    # While the first answer is still streaming, a second client is answered whole.
    quick = await ollama.AsyncClient(host=serving.ollama_url, headers=serving.auth).chat(
        model="ollama:llama3.2:3b", messages=[{"role": "user", "content": "quick"}], stream=False
    )
    assert quick.message.content == "You said: quick"
    # Served one after the other, the quick one would have waited out the slow one's 8 s.
    assert time.monotonic() - started < 4
    assert fake_ollama.chats_abandoned == 0
    rest = [c.choices[0].delta.content or "" async for c in pieces if c.choices]
    assert "".join(rest) == SLOW.text
