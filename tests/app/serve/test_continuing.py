"""A client's follow-up kept in one conversation (app/serve/continuing.py): the official
`openai` client sends its earlier messages and a new question, and the store holds one
conversation; anything that doesn't match what is stored starts a new one."""

from __future__ import annotations

from typing import Any

import ollama
import openai

from app.serve.continuing import answering, fingerprint
from app.store import Store
from routing.transcript import Message, TextPart, ToolCall, ToolResult, user_message
from tests.app.serve.conftest import Serving
from tests.app.serve.pictures import as_base64, data_url, png
from tests.conftest import SightlineHome
from tests.pictures import make_picture
from tests.servers.ollama import FakeOllama, Reply

MODEL = "ollama:llama3.2:3b"  # blind: its picture is described by a local model that sees
SYSTEM = {"role": "system", "content": "Be brief."}


async def test_a_follow_up_continues_the_conversation_it_follows(
    serving: Serving, home: SightlineHome
) -> None:
    client = openai.AsyncOpenAI(base_url=serving.openai_url, api_key=serving.token, max_retries=0)
    picture = png("red")
    first: list[Any] = [
        SYSTEM,
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": data_url(picture)}},
            ],
        },
    ]
    answer = await client.chat.completions.create(model=MODEL, messages=first)
    said = answer.choices[0].message.content
    assert said and said.startswith("You said: What is this?")
    # The follow-up: its earlier messages as the client keeps them (the answer's words
    # sent back with a trailing newline, as some clients do), then a new question.
    follow_up = [
        *first,
        {"role": "assistant", "content": said + "\n"},
        {"role": "user", "content": "And the colour?"},
    ]
    again = await client.chat.completions.create(model=MODEL, messages=follow_up, stream=True)
    assert "".join([c.choices[0].delta.content or "" async for c in again if c.choices])
    # What doesn't match starts anew: another answer than the one given, another system
    # prompt, another client with the very same messages.
    changed = [*follow_up[:2], {"role": "assistant", "content": "Something else"}, follow_up[3]]
    await client.chat.completions.create(model=MODEL, messages=changed)
    other_prompt = [{"role": "system", "content": "Be long."}, *follow_up[1:]]
    await client.chat.completions.create(model=MODEL, messages=other_prompt)
    ollama_client = ollama.AsyncClient(host=serving.ollama_url, headers=serving.auth)
    await ollama_client.chat(
        model=MODEL,
        messages=[
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "What is this?", "images": [as_base64(picture)]},
            {"role": "assistant", "content": said},
            {"role": "user", "content": "And the colour?"},
        ],
        stream=False,
    )
    serving.stop()
    with Store.open(home.data) as store:
        served = store.conversations.list()
        assert len(served) == 4  # five requests: the follow-up joined the first's
        kept = min(served, key=lambda c: c.created_at)
        assert kept.title.startswith("Served to AsyncOpenAI/Python")
        messages = store.messages(kept.id)
        assert [(m.role, m.text) for m in messages[:3]] == [
            ("user", "What is this?"),
            ("assistant", said),
            ("user", "And the colour?"),
        ]
        assert messages[0].pictures[0].data == picture
        assert messages[3].role == "assistant" and messages[3].text.startswith("You said: And")
        assert store.conversations.settings(kept.id).system_prompt == "Be brief."
        # Each new one holds the client's earlier messages, its question and the answer.
        others = [c for c in served if c.id != kept.id]
        assert [len(store.messages(c.id)) for c in others] == [4, 4, 4]
        assert sum(c.title.startswith("Served to ollama-python") for c in others) == 1


async def test_a_follow_up_sent_while_another_is_answered_there_starts_anew(
    serving: Serving, fake_ollama: FakeOllama, home: SightlineHome
) -> None:
    client = openai.AsyncOpenAI(base_url=serving.openai_url, api_key=serving.token, max_retries=0)
    first: list[Any] = [{"role": "user", "content": "Hi"}]
    said = (await client.chat.completions.create(model=MODEL, messages=first)).choices[0]
    follow_up = [*first, {"role": "assistant", "content": said.message.content}]
    fake_ollama.enqueue(Reply(text="word " * 40, chunk_chars=5, delay=0.1))  # 4 s
    slow = await client.chat.completions.create(
        model=MODEL, messages=[*follow_up, {"role": "user", "content": "Slowly"}], stream=True
    )
    pieces = aiter(slow)
    while not ((await anext(pieces)).choices[0].delta.content or ""):
        pass
    # The slow follow-up joined the first conversation and is being answered in it: the
    # same history sent meanwhile no longer matches it (and its turn is going).
    await client.chat.completions.create(
        model=MODEL, messages=[*follow_up, {"role": "user", "content": "Quickly"}]
    )
    await slow.close()
    serving.stop()
    with Store.open(home.data) as store:
        served = sorted(store.conversations.list(), key=lambda c: c.created_at)
        assert [[m.text for m in store.messages(c.id)][2] for c in served] == ["Slowly", "Quickly"]


def test_a_fingerprint_is_roles_words_and_pictures() -> None:
    red, blue = make_picture(colour="red"), make_picture(colour="blue")
    asked = user_message("What is this?", (red,))
    answered = Message("assistant", (TextPart("A red square."),))
    same = fingerprint([asked, answered])
    assert fingerprint([asked, Message("assistant", (TextPart(" A red square.\n"),))]) == same
    assert fingerprint([user_message("What is this?", (blue,)), answered]) != same
    assert fingerprint([asked, Message("user", (TextPart("A red square."),))]) != same
    assert fingerprint([asked]) != same


def test_a_fingerprint_holds_tool_calls_and_results_but_not_their_ids() -> None:
    asked = user_message("Weather?")
    called = Message("assistant", (ToolCall("call_0", "get_weather", {"city": "Oslo"}),))
    answered = Message("tool", (ToolResult("call_0", "get_weather", (TextPart("sunny"),)),))
    same = fingerprint([asked, called, answered])
    # An Ollama client sends no ids back: the same calls and results are the same talk.
    renamed = Message("assistant", (ToolCall("x", "get_weather", {"city": "Oslo"}),))
    result_renamed = Message("tool", (ToolResult("x", "get_weather", (TextPart("sunny"),)),))
    assert fingerprint([asked, renamed, result_renamed]) == same
    elsewhere = Message("assistant", (ToolCall("call_0", "get_weather", {"city": "Rome"}),))
    assert fingerprint([asked, elsewhere, answered]) != same
    rainy = Message("tool", (ToolResult("call_0", "get_weather", (TextPart("rain"),)),))
    assert fingerprint([asked, called, rainy]) != same
    assert fingerprint([asked, called]) != fingerprint([asked, Message("assistant")])
    # Results sent back under the client's ids are given the stored ones, by the call's place.
    question = answering(called, renamed, result_renamed)
    assert [r.call_id for r in question.tool_results] == ["call_0"]
