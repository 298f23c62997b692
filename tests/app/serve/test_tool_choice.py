"""OpenAI's `tool_choice` through `sightline serve --allow-tools` (app/serve/client_tools.py,
the turn's first request, each wire): the official `openai` client asks for a call
("required", or a function named); an OpenAI-shaped model behind the server is sent the
choice in its API's form, the loopback Ollama (whose API has none) only the tool named,
and the client is told so in `sightline_notices`. A choice that can't be honoured as
asked is a 400 in OpenAI's shape."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from tests.app.serve.conftest import Serving, running
from tests.app.serve.test_client_tools import (
    ASKED,
    MODEL,
    WEATHER,
    add_provider,
    calling,
    openai_client,
)
from tests.conftest import SightlineHome
from tests.servers.ollama import FakeOllama, Reply
from tests.servers.openai_chat import ChatModel, FakeOpenAI
from tests.servers.openai_chat import Reply as OpenAIReply

TIME: Any = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "The time in a city now.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
NAMED: Any = {"type": "function", "function": {"name": "get_weather"}}


def notices(completion: Any) -> list[str]:
    """The words of the notices a completion carries."""
    assert completion.model_extra is not None
    return [n["text"] for n in completion.model_extra["sightline_notices"]]


async def test_an_openai_shaped_model_is_sent_the_choice_on_the_first_request_only(
    home: SightlineHome,
) -> None:
    with FakeOpenAI([ChatModel("tool-model")]) as upstream:
        add_provider(home, upstream.url)
        called = {"id": "call_abc", "name": "get_weather", "arguments": {"city": "Oslo"}}
        upstream.enqueue(
            OpenAIReply(tool_calls=[called]),
            OpenAIReply(tool_calls=[{**called, "id": "call_def"}]),
            OpenAIReply(text="Sunny."),
        )
        with running(home, "--allow-tools") as served:
            client = openai_client(served)
            model = "mine:tool-model"
            required = await client.chat.completions.create(
                model=model, messages=[ASKED], tools=[WEATHER, TIME], tool_choice="required"
            )
            named = await client.chat.completions.create(
                model=model, messages=[ASKED], tools=[WEATHER, TIME], tool_choice=NAMED
            )
            message: Any = named.choices[0].message.model_dump(exclude_none=True)
            result: Any = {"role": "tool", "tool_call_id": "call_def", "content": "sunny"}
            # The client's follow-up leaves the choice out: the model answers freely.
            answered = await client.chat.completions.create(
                model=model, messages=[ASKED, message, result], tools=[WEATHER, TIME]
            )
        assert required.choices[0].finish_reason == "tool_calls"
        assert named.choices[0].finish_reason == "tool_calls"
        assert answered.choices[0].message.content == "Sunny."
        first, second, third = upstream.chat_requests()
        assert first["tool_choice"] == "required"
        assert second["tool_choice"] == NAMED
        assert [t["function"]["name"] for t in second["tools"]] == ["get_weather", "get_time"]
        assert "tool_choice" not in third
        assert not any("tool_choice" in text for text in notices(named))


async def test_an_ollama_model_is_offered_only_the_tool_named_and_the_client_told(
    serving_tools: Serving, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(calling())
    client = openai_client(serving_tools)
    first = await client.chat.completions.create(
        model=MODEL, messages=[ASKED], tools=[WEATHER, TIME], tool_choice=NAMED
    )
    [call] = first.choices[0].message.tool_calls or []
    assert call.type == "function" and call.function.name == "get_weather"
    sent = fake_ollama.chat_requests()[0]
    assert "tool_choice" not in sent  # Ollama's API has none
    assert [t["function"]["name"] for t in sent["tools"]] == ["get_weather"]
    [told] = [t for t in notices(first) if "can't be made to call a tool" in t]
    assert told.startswith(MODEL) and "offered only get_weather" in told


async def test_an_ollama_model_that_answers_in_words_when_required_is_told_of(
    serving_tools: Serving, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(Reply(text="It is sunny in Oslo."))
    client = openai_client(serving_tools)
    stream = await client.chat.completions.create(
        model=MODEL, messages=[ASKED], tools=[WEATHER, TIME], tool_choice="required", stream=True
    )
    chunks = [chunk async for chunk in stream]
    words = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert words == "It is sunny in Oslo."
    offered = fake_ollama.chat_requests()[0]["tools"]
    assert [t["function"]["name"] for t in offered] == ["get_weather", "get_time"]
    texts = [n["text"] for c in chunks for n in (c.model_extra or {}).get("sightline_notices", [])]
    assert any("can't be made to call a tool" in t for t in texts)
    assert any("answered in words" in t and "one of its tools" in t for t in texts)


@pytest.mark.parametrize(
    ("tools", "choice", "param"),
    [
        ([WEATHER], {"type": "function", "function": {"name": "get_time"}}, "function.name"),
        ([WEATHER], {"type": "function", "function": {}}, "function.name"),
        ([WEATHER], {"type": "allowed_tools", "allowed_tools": {}}, "type"),
        ([WEATHER], "always", ""),
        ([], "required", ""),
    ],
)
async def test_a_choice_that_cant_be_honoured_is_refused_as_openai_refuses(
    serving_tools: Serving, fake_ollama: FakeOllama, tools: list[Any], choice: Any, param: str
) -> None:
    client = openai_client(serving_tools)
    with pytest.raises(openai.BadRequestError) as refused:
        await client.chat.completions.create(
            model=MODEL, messages=[ASKED], tools=tools, tool_choice=choice
        )
    assert refused.value.status_code == 400
    assert refused.value.param == ("tool_choice." + param if param else "tool_choice")
    body = refused.value.body
    assert isinstance(body, dict) and body.get("type") == "invalid_request_error"
    assert "Traceback" not in json.dumps(body)
    assert fake_ollama.chat_requests() == []
