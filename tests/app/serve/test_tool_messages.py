"""A client's bad tools and tool messages (app/serve/tool_messages.py,
app/serve/client_tools.py), refused with a 400 in OpenAI's error shape naming the parameter,
or in Ollama's, before anything reaches a model or the store."""

from __future__ import annotations

import json
from typing import Any, cast

import httpx

from app.serve.tool_messages import ToolAnswer, joined
from routing.transcript import Message, TextPart, ToolCall, user_message
from tests.app.serve.conftest import Serving
from tests.servers.ollama import FakeOllama

ASKED = {"role": "user", "content": "Weather?"}
TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
CALLED = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
        }
    ],
}


def with_arguments(arguments: str) -> dict[str, Any]:
    call = {**cast(list[dict[str, Any]], CALLED["tool_calls"])[0]}
    call["function"] = {"name": "get_weather", "arguments": arguments}
    return {**CALLED, "tool_calls": [call]}


def tool_said(call_id: str = "call_1") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "sunny"}


def function(**fields: Any) -> dict[str, Any]:
    return {"tools": [{"type": "function", "function": fields}]}


BAD: list[tuple[dict[str, Any], str | None]] = [
    (function(name="bad name!"), "tools[0].function.name"),
    (function(name="f", parameters={"type": "array"}), "tools[0].function.parameters"),
    ({"tools": [{"type": "retrieval"}]}, "tools[0].type"),
    ({"tools": [TOOL, TOOL]}, "tools"),
    ({"tools": [TOOL] * 129}, "tools"),
    (function(name="f", description="x" * 600_000), "tools"),
    ({"messages": [ASKED, with_arguments("{city: Oslo"), tool_said()]}, None),
    ({"messages": [ASKED, with_arguments("[1]"), tool_said()]}, None),
    ({"messages": [ASKED, CALLED, tool_said("call_9")]}, "messages[2].tool_call_id"),
    ({"messages": [ASKED, CALLED, {"role": "tool", "content": "x"}]}, "messages[2].tool_call_id"),
    ({"messages": [ASKED, tool_said()]}, "messages[1].role"),
    ({"messages": [ASKED, CALLED, ASKED]}, "messages[1].tool_calls"),
    ({"messages": [ASKED, CALLED]}, "messages"),
    ({"messages": [ASKED, {"role": "function", "name": "f", "content": "x"}]}, "messages[1].role"),
]


async def test_bad_tool_input_is_openais_400(
    serving_tools: Serving, fake_ollama: FakeOllama
) -> None:
    async with httpx.AsyncClient(
        base_url=serving_tools.openai_url, headers=serving_tools.auth
    ) as raw:
        for change, param in BAD:
            body = {"model": "ollama:llama3.2:3b", "messages": [ASKED], **change}
            answer = await raw.post("/chat/completions", json=body)
            assert answer.status_code == 400, (change, answer.text)
            error = answer.json()["error"]
            assert set(error) == {"message", "type", "param", "code"}
            assert error["type"] == "invalid_request_error" and error["message"]
            if param is not None:
                assert error["param"] == param, (change, error)
            else:
                assert error["param"].endswith(".function.arguments"), error
            assert "Traceback" not in answer.text
    assert fake_ollama.chat_requests() == []


async def test_bad_tool_messages_are_ollamas_400(
    serving_tools: Serving, fake_ollama: FakeOllama
) -> None:
    called = {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}],
    }
    cases: list[list[dict[str, Any]]] = [
        [ASKED, called, {"role": "tool", "content": "x", "tool_name": "get_time"}],
        [ASKED, {"role": "tool", "content": "x"}],
        [
            ASKED,
            {**called, "tool_calls": [{"function": {"name": "f", "arguments": "not json"}}]},
            {"role": "tool", "content": "x"},
        ],
    ]
    async with httpx.AsyncClient(
        base_url=serving_tools.ollama_url, headers=serving_tools.auth
    ) as raw:
        for messages in cases:
            body = {"model": "ollama:llama3.2:3b", "messages": messages, "stream": False}
            answer = await raw.post("/api/chat", content=json.dumps(body))
            assert answer.status_code == 400, answer.text
            assert set(answer.json()) == {"error"} and answer.json()["error"]
    assert fake_ollama.chat_requests() == []


def test_answers_join_into_one_tool_message_in_the_calls_order() -> None:
    calls = (ToolCall("a", "f", {}), ToolCall("b", "g", {}))
    said: list[tuple[int, Message | ToolAnswer]] = [
        (0, user_message("Go")),
        (1, Message("assistant", calls)),
        (2, ToolAnswer(2, None, "g", (TextPart("from g"),))),  # by name
        (3, ToolAnswer(3, None, None, (TextPart("from f"),))),  # the one left
    ]
    [_, _, results] = joined(said)
    assert [(r.call_id, r.name, r.text) for r in results.tool_results] == [
        ("a", "f", "from f"),
        ("b", "g", "from g"),
    ]
