"""A client's own tools passed through `sightline serve --allow-tools` (app/serve/client_tools.py
and the turn's handed-back tools): the official `openai` and `ollama` clients offer a tool,
the loopback Ollama behind the server calls it, the client gets the call, runs it itself,
sends the result, and gets the answer; the model was offered the tool, then read the
result; and the round trip is one stored conversation."""

from __future__ import annotations

import json
from typing import Any

import ollama
import openai
import pytest

from app.store import Store
from routing.transcript import ToolCall, ToolResult
from tests.app.serve.conftest import Serving, running
from tests.app.serve.pictures import data_url, png
from tests.conftest import SightlineHome
from tests.servers.ollama import FakeOllama, Reply
from tests.servers.openai_chat import ChatModel, FakeOpenAI
from tests.servers.openai_chat import Reply as OpenAIReply

MODEL = "ollama:llama3.2:3b"
WEATHER: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city now.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
ASKED: Any = {"role": "user", "content": "Weather in Oslo?"}


def openai_client(serving: Serving) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=serving.openai_url, api_key=serving.token, max_retries=0)


def calling(city: str = "Oslo") -> Reply:
    """The model's answer that calls the client's tool."""
    return Reply(tool_calls=[{"name": "get_weather", "arguments": {"city": city}}])


def add_provider(home: SightlineHome, url: str) -> None:
    """An OpenAI-shaped server at `url` in the home's config, as provider "mine"."""
    with open(home.config, "a", encoding="utf-8") as config:
        config.write(f'\n[[providers]]\nid = "mine"\nkind = "custom"\nbase_url = "{url}"\n')


def stored_round_trip(home: SightlineHome) -> list[tuple[str, str]]:
    """The one served conversation, each message as (role, what it says or does)."""
    with Store.open(home.data) as store:
        [served] = store.conversations.list()
        said: list[tuple[str, str]] = []
        for message in store.messages(served.id):
            for part in message.parts:
                if isinstance(part, ToolCall):
                    said.append((message.role, f"call {part.name} {dict(part.arguments)}"))
                elif isinstance(part, ToolResult):
                    said.append((message.role, f"result {part.name}: {part.text}"))
            if message.text:
                said.append((message.role, message.text))
        return said


async def test_openai_a_tool_call_handed_back_and_its_result_answered(
    serving_tools: Serving, fake_ollama: FakeOllama, home: SightlineHome
) -> None:
    fake_ollama.enqueue(calling(), Reply(text="Sunny, 21 °C."))
    client = openai_client(serving_tools)
    first = await client.chat.completions.create(model=MODEL, messages=[ASKED], tools=[WEATHER])
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    [call] = choice.message.tool_calls or []
    assert call.type == "function" and call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Oslo"}
    offered = fake_ollama.chat_requests()[0]["tools"]
    assert offered == [WEATHER]
    # The client runs its tool and sends the result.
    follow_up: Any = [
        ASKED,
        choice.message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": '{"sky": "sunny", "c": 21}'},
    ]
    second = await client.chat.completions.create(model=MODEL, messages=follow_up, tools=[WEATHER])
    assert second.choices[0].message.content == "Sunny, 21 °C."
    assert second.choices[0].finish_reason == "stop"
    sent = fake_ollama.chat_requests()[-1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool"]
    assert sent[1]["tool_calls"][0]["function"] == {
        "name": "get_weather",
        "arguments": {"city": "Oslo"},
    }
    assert sent[2]["content"] == '{"sky": "sunny", "c": 21}'
    assert sent[2]["tool_name"] == "get_weather"
    serving_tools.stop()
    # One conversation: the follow-up continued the one that called the tool.
    assert stored_round_trip(home) == [
        ("user", "Weather in Oslo?"),
        ("assistant", "call get_weather {'city': 'Oslo'}"),
        ("tool", 'result get_weather: {"sky": "sunny", "c": 21}'),
        ("assistant", "Sunny, 21 °C."),
    ]


async def test_openai_streamed_tool_calls_assemble_in_the_clients_helper(
    serving_tools: Serving, fake_ollama: FakeOllama
) -> None:
    two = Reply(
        text="Checking both.",
        tool_calls=[
            {"name": "get_weather", "arguments": {"city": "Oslo"}},
            {"name": "get_weather", "arguments": {"city": "Bergen"}},
        ],
    )
    fake_ollama.enqueue(two, Reply(text="Oslo sunny, Bergen rain."))
    client = openai_client(serving_tools)
    async with client.chat.completions.stream(
        model=MODEL, messages=[ASKED], tools=[WEATHER]
    ) as stream:
        async for _ in stream:
            pass
        whole = await stream.get_final_completion()
    choice = whole.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Checking both."
    calls = choice.message.tool_calls or []
    assert [json.loads(c.function.arguments)["city"] for c in calls] == ["Oslo", "Bergen"]
    assert len({c.id for c in calls}) == 2
    results: Any = [
        {"role": "tool", "tool_call_id": c.id, "content": f"weather {n}"}
        for n, c in enumerate(reversed(calls))  # answered in another order: ids pair them
    ]
    message: Any = choice.message.model_dump(exclude_none=True, exclude={"parsed"})
    again = await client.chat.completions.create(
        model=MODEL, messages=[ASKED, message, *results], tools=[WEATHER], stream=True
    )
    words = "".join([c.choices[0].delta.content or "" async for c in again if c.choices])
    assert words == "Oslo sunny, Bergen rain."
    sent = fake_ollama.chat_requests()[-1]["messages"]
    assert [(m["role"], m["content"]) for m in sent[2:]] == [
        ("tool", "weather 1"),
        ("tool", "weather 0"),
    ]


async def test_an_openai_shaped_model_gets_the_tools_and_the_call_ids_back(
    home: SightlineHome,
) -> None:
    with FakeOpenAI([ChatModel("tool-model")]) as upstream:
        add_provider(home, upstream.url)
        called = {"id": "call_abc", "name": "get_weather", "arguments": {"city": "Oslo"}}
        upstream.enqueue(OpenAIReply(tool_calls=[called]), OpenAIReply(text="Sunny."))
        with running(home, "--allow-tools") as served:
            client = openai_client(served)
            first = await client.chat.completions.create(
                model="mine:tool-model", messages=[ASKED], tools=[WEATHER], stream=True
            )
            deltas = [c.choices[0].delta async for c in first if c.choices]
            [opening, arguments] = [d.tool_calls[0] for d in deltas if d.tool_calls]
            assert (opening.index, opening.id, opening.type) == (0, "call_abc", "function")
            assert opening.function is not None and arguments.function is not None
            assert arguments.function.arguments == '{"city": "Oslo"}'
            message: Any = {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "call_abc",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                    }
                ],
            }
            result: Any = {"role": "tool", "tool_call_id": "call_abc", "content": "sunny"}
            await client.chat.completions.create(
                model="mine:tool-model", messages=[ASKED, message, result], tools=[WEATHER]
            )
        first_sent, then_sent = upstream.chat_requests()
        assert first_sent["tools"] == [WEATHER]
        sent = then_sent["messages"]
        assert sent[1]["tool_calls"][0]["id"] == "call_abc"
        assert sent[2] == {"role": "tool", "tool_call_id": "call_abc", "content": "sunny"}


async def test_openai_a_picture_in_a_tool_result_is_described_for_a_blind_model(
    serving_tools: Serving, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(calling())
    client = openai_client(serving_tools)
    first = await client.chat.completions.create(model=MODEL, messages=[ASKED], tools=[WEATHER])
    message: Any = first.choices[0].message.model_dump(exclude_none=True)
    [call] = first.choices[0].message.tool_calls or []
    result: Any = {
        "role": "tool",
        "tool_call_id": call.id,
        "content": [
            {"type": "text", "text": "The radar:"},
            {"type": "image_url", "image_url": {"url": data_url(png("blue"))}},
        ],
    }
    await client.chat.completions.create(
        model=MODEL, messages=[ASKED, message, result], tools=[WEATHER]
    )
    # llama3.2:3b is blind: the picture reached a local model that sees, never it.
    chats = fake_ollama.chat_requests()
    blind = [c for c in chats if c["model"] == "llama3.2:3b"][-1]
    assert not any(m.get("images") for m in blind["messages"])
    assert any(c["model"] != "llama3.2:3b" and _has_images(c) for c in chats)


def _has_images(chat: dict[str, Any]) -> bool:
    return any(m.get("images") for m in chat["messages"])


async def test_ollama_a_tool_call_handed_back_and_its_result_answered(
    serving_tools: Serving, fake_ollama: FakeOllama, home: SightlineHome
) -> None:
    fake_ollama.enqueue(calling(), Reply(text="Sunny."))
    client = ollama.AsyncClient(host=serving_tools.ollama_url, headers=serving_tools.auth)
    pieces = [
        part
        async for part in await client.chat(
            model=MODEL, messages=[ASKED], tools=[WEATHER], stream=True
        )
    ]
    calls = [c for p in pieces for c in p.message.tool_calls or []]
    assert [(c.function.name, dict(c.function.arguments)) for c in calls] == [
        ("get_weather", {"city": "Oslo"})
    ]
    assert pieces[-1].done and pieces[-1].done_reason == "stop"
    assert fake_ollama.chat_requests()[0]["tools"] == [WEATHER]
    answer = await client.chat(
        model=MODEL,
        messages=[
            ASKED,
            {"role": "assistant", "content": "", "tool_calls": calls},
            {"role": "tool", "content": "sunny", "tool_name": "get_weather"},
        ],
        tools=[WEATHER],
        stream=False,
    )
    assert answer.message.content == "Sunny." and answer.done_reason == "stop"
    sent = fake_ollama.chat_requests()[-1]["messages"]
    assert sent[-1] == {"role": "tool", "content": "sunny", "tool_name": "get_weather"}
    serving_tools.stop()
    assert stored_round_trip(home) == [
        ("user", "Weather in Oslo?"),
        ("assistant", "call get_weather {'city': 'Oslo'}"),
        ("tool", "result get_weather: sunny"),
        ("assistant", "Sunny."),
    ]


async def test_ollama_an_unstreamed_call(serving_tools: Serving, fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue(calling("Rome"))
    client = ollama.AsyncClient(host=serving_tools.ollama_url, headers=serving_tools.auth)
    answer = await client.chat(model=MODEL, messages=[ASKED], tools=[WEATHER], stream=False)
    [call] = answer.message.tool_calls or []
    assert call.function.name == "get_weather" and call.function.arguments == {"city": "Rome"}


async def test_refused_without_the_allowance_in_both_apis(
    serving: Serving, fake_ollama: FakeOllama
) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        await openai_client(serving).chat.completions.create(
            model=MODEL, messages=[ASKED], tools=[WEATHER]
        )
    assert refused.value.param == "tools"
    words = refused.value.message
    assert "--allow-tools" in words and "Let served requests use Sightline's tools" in words
    client = ollama.AsyncClient(host=serving.ollama_url, headers=serving.auth)
    with pytest.raises(ollama.ResponseError) as also:
        await client.chat(
            model=MODEL,
            messages=[ASKED, {"role": "tool", "content": "x", "tool_name": "get_weather"}],
        )
    assert also.value.status_code == 400 and "--allow-tools" in also.value.error
    assert fake_ollama.chat_requests() == []


async def test_tool_choice_none_offers_nothing_and_functions_are_refused(
    serving_tools: Serving, fake_ollama: FakeOllama
) -> None:
    """("required" and a function named: tests/app/serve/test_tool_choice.py.)"""
    client = openai_client(serving_tools)
    await client.chat.completions.create(
        model=MODEL, messages=[ASKED], tools=[WEATHER], tool_choice="none"
    )
    assert "tools" not in fake_ollama.chat_requests()[-1]
    with pytest.raises(openai.BadRequestError) as legacy:
        await client.chat.completions.create(
            model=MODEL, messages=[ASKED], functions=[WEATHER["function"]]
        )
    assert legacy.value.param == "functions" and "'tools'" in legacy.value.message
