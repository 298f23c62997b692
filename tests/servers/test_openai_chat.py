"""The fake OpenAI-shape server answers in the real shapes of each flavour."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.servers.openai_chat import REFUSALS, ChatModel, FakeOpenAI, Reply

PICTURE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}


def sse_payloads(client: httpx.Client, path: str, body: dict) -> list[str]:
    """The `data:` payloads of one streamed chat."""
    with client.stream("POST", path, json=body) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        return [line[6:] for line in response.iter_lines() if line.startswith("data: ")]


def test_stream_shape_like_openai() -> None:
    """Role delta first, content deltas, finish chunk, usage chunk when asked, then [DONE]."""
    body = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "hey"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    with FakeOpenAI() as server, httpx.Client(base_url=server.url) as client:
        payloads = sse_payloads(client, "/chat/completions", body)
        plain = sse_payloads(client, "/chat/completions", {**body, "stream_options": None})
    chunks = [json.loads(p) for p in payloads[:-1]]
    assert payloads[-1] == "[DONE]"
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    assert text == "You said: hey"
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] == 19
    assert all(json.loads(p).get("usage") is None for p in plain[:-1])


def test_tool_call_fragments() -> None:
    """The first fragment has id and name; arguments follow in pieces with the index."""
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "x"}], "stream": True}
    call = {"id": "call_9", "name": "f", "arguments": {"a": 1}}
    with FakeOpenAI() as server, httpx.Client(base_url=server.url) as client:
        server.enqueue(Reply(tool_calls=[call], args_chunk=2))
        payloads = sse_payloads(client, "/chat/completions", body)
    fragments = [
        f for p in payloads[:-1] for f in json.loads(p)["choices"][0]["delta"].get("tool_calls", [])
    ]
    assert fragments[0] == {
        "index": 0,
        "id": "call_9",
        "type": "function",
        "function": {"name": "f", "arguments": ""},
    }
    assert "".join(f["function"]["arguments"] for f in fragments) == '{"a":1}'
    assert all(f["index"] == 0 for f in fragments) and len(fragments) == 5


@pytest.mark.parametrize("flavour", sorted(REFUSALS))
def test_each_flavour_refuses_a_picture_to_a_blind_model(flavour: str) -> None:
    """The real status and body of each provider, with the message index filled in."""
    messages = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": [{"type": "text", "text": "look"}, PICTURE]},
    ]
    body = {"model": "text-only-7b", "messages": messages, "stream": True}
    with FakeOpenAI(flavour=flavour) as server, httpx.Client(base_url=server.url) as client:
        response = client.post("/chat/completions", json=body)
        seeing = client.post("/chat/completions", json={**body, "model": "gpt-4o-mini"})
    status, _ = REFUSALS[flavour]
    assert response.status_code == status
    assert "{n}" not in response.text
    assert seeing.status_code == 200


def test_listings_and_props() -> None:
    """Plain, OpenRouter and Mistral listings; llama.cpp's /props; 404 elsewhere."""
    models = [ChatModel("a", sees=True), ChatModel("b")]
    with FakeOpenAI(models=models, flavour="openrouter") as server:
        listing = httpx.get(f"{server.url}/models").json()
        assert httpx.get(f"{server.base_url}/v1/models").status_code == 404
    assert "object" not in listing
    assert [m["architecture"]["input_modalities"] for m in listing["data"]] == [
        ["text", "image"],
        ["text"],
    ]
    with FakeOpenAI(models=models, flavour="mistral") as server:
        caps = [
            m["capabilities"]["vision"] for m in httpx.get(f"{server.url}/models").json()["data"]
        ]
    assert caps == [True, False]
    with FakeOpenAI(models=models, flavour="llamacpp") as server:
        props = httpx.get(f"{server.base_url}/props").json()
        assert httpx.get(f"{server.base_url}/models").json()["object"] == "list"
    assert props["modalities"] == {"vision": True, "audio": False}


def test_key_and_unknown_model() -> None:
    """A wrong key is OpenAI's 401; an unknown model its 404 model_not_found."""
    with FakeOpenAI(api_key="sk-good") as server:
        bad = httpx.get(f"{server.url}/models", headers={"Authorization": "Bearer sk-bad"})
        body = {"model": "nope", "messages": []}
        missing = httpx.post(
            f"{server.url}/chat/completions", json=body, headers={"Authorization": "Bearer sk-good"}
        )
    assert bad.status_code == 401 and bad.json()["error"]["code"] == "invalid_api_key"
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "model_not_found"
