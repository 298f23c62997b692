"""The fake Responses server answers, and refuses, in the shapes of the real API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.servers.openai_responses import WORDS_ONLY_REFUSAL, FakeResponses, Reply

PNG = "data:image/png;base64,iVBORw0KGgo="


@pytest.fixture
def client() -> Iterator[tuple[FakeResponses, httpx.Client]]:
    with FakeResponses() as server, httpx.Client(base_url=server.url) as client:
        yield server, client


def events(client: httpx.Client, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(event name, data) of every event of one streamed answer."""
    out: list[tuple[str, dict[str, Any]]] = []
    with client.stream("POST", "/responses", json={**body, "stream": True}) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        name = ""
        for line in response.iter_lines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                out.append((name, json.loads(line[6:])))
    return out


def ask(content: Any = "hey", **extra: Any) -> dict[str, Any]:
    return {"model": "gpt-5-mini", "input": [{"role": "user", "content": content}], **extra}


def test_the_stream_is_named_numbered_and_ends_completed(
    client: tuple[FakeResponses, httpx.Client],
) -> None:
    server, http = client
    server.enqueue(
        Reply(text="Hi there", reasoning="hm", tool_calls=[{"name": "f", "arguments": {"a": 1}}])
    )
    got = events(http, ask(include=["reasoning.encrypted_content"], store=False))
    assert all(name == data["type"] for name, data in got)
    assert [data["sequence_number"] for _, data in got] == list(range(len(got)))
    names = [name for name, _ in got]
    assert names[:2] == ["response.created", "response.in_progress"]
    assert names[-1] == "response.completed"
    done = [data["item"] for name, data in got if name == "response.output_item.done"]
    assert [item["type"] for item in done] == ["reasoning", "message", "function_call"]
    assert done[0]["encrypted_content"].startswith("gAAAA")
    deltas = [d["delta"] for n, d in got if n == "response.function_call_arguments.delta"]
    assert "".join(deltas) == '{"a":1}' and done[2]["arguments"] == '{"a":1}'
    text = "".join(d["delta"] for n, d in got if n == "response.output_text.delta")
    assert text == "Hi there"
    final = got[-1][1]["response"]
    assert final["status"] == "completed" and final["usage"]["total_tokens"] == 30
    assert [item["type"] for item in final["output"]] == ["reasoning", "message", "function_call"]


def test_without_the_include_a_reasoning_item_has_no_encrypted_content(
    client: tuple[FakeResponses, httpx.Client],
) -> None:
    server, http = client
    server.enqueue(Reply(text="x", reasoning="hm"))
    done = [d["item"] for n, d in events(http, ask()) if n == "response.output_item.done"]
    assert "encrypted_content" not in done[0]


def test_a_whole_answer_when_not_streamed(client: tuple[FakeResponses, httpx.Client]) -> None:
    _, http = client
    answer = http.post("/responses", json=ask("hi")).json()
    assert answer["object"] == "response" and answer["status"] == "completed"
    assert answer["output"][0]["content"][0]["text"] == "You said: hi"


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        (ask(max_tokens=5), 400, "Unknown parameter: 'max_tokens'."),
        (ask([{"type": "input_image", "image_url": PNG}]), 400, "'input[0].content[0].detail'"),
        (ask([{"type": "image_url", "image_url": PNG}]), 400, "Invalid value: 'image_url'"),
        (ask(include=["reasoning"]), 400, "Invalid value: 'reasoning'"),
        (
            ask(
                tools=[
                    {
                        "type": "function",
                        "name": "f",
                        "parameters": {"type": "object", "properties": {"a": {"type": "string"}}},
                    }
                ]
            ),
            400,
            "Invalid schema for function 'f'",
        ),
        (
            {
                "model": "gpt-5-mini",
                "input": [{"type": "function_call_output", "call_id": "c", "output": "x"}],
            },
            400,
            "No tool call found for function call output with call_id c.",
        ),
        (
            {
                "model": "gpt-5-mini",
                "store": False,
                "input": [{"type": "reasoning", "id": "rs_1", "summary": []}],
            },
            404,
            "Items are not persisted when `store` is set to false.",
        ),
        ({**ask(), "model": "gpt-9"}, 404, "The model `gpt-9` does not exist"),
        (
            ask(include=["reasoning.encrypted_content"], model="gpt-4.1-mini"),
            400,
            "Encrypted content is not supported",
        ),
        (
            ask(
                [{"type": "input_image", "image_url": PNG, "detail": "auto"}], model="text-only-7b"
            ),
            400,
            "image_url is only supported by certain models",
        ),
        (
            ask(
                [
                    {
                        "type": "input_image",
                        "image_url": "data:image/bmp;base64,Qk0=",
                        "detail": "auto",
                    }
                ]
            ),
            400,
            "unsupported image",
        ),
    ],
)
def test_what_the_api_refuses_in_its_words(
    client: tuple[FakeResponses, httpx.Client], body: dict[str, Any], status: int, words: str
) -> None:
    _, http = client
    answer = http.post("/responses", json=body)
    assert answer.status_code == status
    error = answer.json()["error"]
    assert words in error["message"] and set(error) == {"message", "type", "param", "code"}


def test_a_tool_output_may_be_a_list_unless_the_server_takes_words_only() -> None:
    items = [
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {
            "type": "function_call_output",
            "call_id": "c",
            "output": [{"type": "input_image", "image_url": PNG}],
        },
    ]
    body = {"model": "gpt-5-mini", "input": items}
    with FakeResponses() as lists, FakeResponses(lists_in_outputs=False) as words:
        assert httpx.post(f"{lists.url}/responses", json=body).status_code == 200
        refused = httpx.post(f"{words.url}/responses", json=body)
    assert refused.status_code == 400 and refused.json() == {"error": WORDS_ONLY_REFUSAL}


def test_the_key_is_checked_when_one_is_set() -> None:
    with FakeResponses(api_key="sk-right") as server:
        wrong = httpx.post(
            f"{server.url}/responses", json=ask(), headers={"Authorization": "Bearer x"}
        )
        right = httpx.get(f"{server.url}/models", headers={"Authorization": "Bearer sk-right"})
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "invalid_api_key"
    assert next(m["id"] for m in right.json()["data"]) == "gpt-5-mini"
