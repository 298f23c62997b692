"""The fake Ollama answers in Ollama's real shapes."""

from __future__ import annotations

import json

import httpx

from tests.servers.ollama import (
    REFUSAL_OLD_RUNNER,
    FakeModel,
    FakeOllama,
    Reply,
)


def test_root_version_and_tags_shape(fake_ollama: FakeOllama) -> None:
    """GET /, /api/version and /api/tags look like Ollama's."""
    with httpx.Client(base_url=fake_ollama.base_url) as client:
        assert client.get("/").text == "Ollama is running"
        assert client.get("/api/version").json() == {"version": "0.12.0"}
        models = client.get("/api/tags").json()["models"]
    assert [m["name"] for m in models] == ["llama3.2:3b", "llava:7b", "qwen2.5vl:3b", "gemma3:270m"]
    first = models[0]
    assert set(first) == {"name", "model", "modified_at", "size", "digest", "details"}
    assert set(first["details"]) == {
        "format",
        "family",
        "families",
        "parameter_size",
        "quantization_level",
    }
    assert len(first["digest"]) == 64
    assert [path for _, path, _ in fake_ollama.requests] == ["/", "/api/version", "/api/tags"]


def test_show_shape_and_unknown_model(fake_ollama: FakeOllama) -> None:
    """/api/show reports capabilities and `<family>.context_length`; unknown is a 404."""
    with httpx.Client(base_url=fake_ollama.base_url) as client:
        show = client.post("/api/show", json={"model": "qwen2.5vl:3b"}).json()
        missing = client.post("/api/show", json={"model": "nope:1b"})
    assert show["capabilities"] == ["completion", "vision", "tools"]
    assert show["model_info"]["general.architecture"] == "qwen25vl"
    assert show["model_info"]["qwen25vl.context_length"] == 128000
    assert {"template", "parameters", "details", "modelfile"} <= set(show)
    assert missing.status_code == 404
    assert missing.json() == {"error": "model 'nope:1b' not found"}
    assert fake_ollama.requests[0] == ("POST", "/api/show", {"model": "qwen2.5vl:3b"})


def test_show_leaves_out_empty_capabilities() -> None:
    """An Ollama too old to report capabilities has no `capabilities` key at all."""
    with FakeOllama([FakeModel("old:1b", ())]) as server:
        show = httpx.post(f"{server.base_url}/api/show", json={"model": "old:1b"}).json()
    assert "capabilities" not in show


def test_chat_streams_ndjson_and_echoes(fake_ollama: FakeOllama) -> None:
    """The default reply echoes the last user message, in 4-character NDJSON chunks."""
    body = {"model": "llama3.2:3b", "messages": [{"role": "user", "content": "hello"}]}
    with (
        httpx.Client(base_url=fake_ollama.base_url) as client,
        client.stream("POST", "/api/chat", json=body) as response,
    ):
        assert response.headers["content-type"] == "application/x-ndjson"
        lines = [json.loads(line) for line in response.iter_lines() if line]
    assert "".join(x["message"]["content"] for x in lines) == "You said: hello"
    assert all(not x["done"] for x in lines[:-1])
    assert lines[-1]["done"] is True and lines[-1]["done_reason"] == "stop"
    assert lines[-1]["prompt_eval_count"] == 12 and lines[-1]["eval_count"] == 7
    assert fake_ollama.chat_requests() == [body]


def test_chat_not_streamed_and_errors(fake_ollama: FakeOllama) -> None:
    """`stream: false` gives one object; unknown models and blind models get real errors."""
    picture = "iVBORw0KGgo="
    with httpx.Client(base_url=fake_ollama.base_url) as client:
        whole = client.post(
            "/api/chat",
            json={
                "model": "llava:7b",
                "stream": False,
                "messages": [{"role": "user", "content": "look", "images": [picture]}],
            },
        ).json()
        unknown = client.post("/api/chat", json={"model": "x", "messages": []})
        blind = client.post(
            "/api/chat",
            json={
                "model": "gemma3:270m",
                "messages": [{"role": "user", "content": "look", "images": [picture]}],
            },
        )
        prefixed = client.post(
            "/api/chat",
            json={
                "model": "llava:7b",
                "messages": [{"role": "user", "content": "", "images": ["data:image/png;base64,"]}],
            },
        )
    assert whole["message"]["content"] == "You said: look (I see 1 pictures)"
    assert whole["done"] is True
    assert unknown.status_code == 404
    assert unknown.json() == {"error": 'model "x" not found, try pulling it first'}
    assert blind.status_code == 500 and blind.json() == {"error": REFUSAL_OLD_RUNNER}
    assert prefixed.status_code == 400 and "illegal base64" in prefixed.json()["error"]


def test_enqueued_replies_come_in_order(fake_ollama: FakeOllama) -> None:
    """Queued replies answer the next chats; then the default echo returns."""
    fake_ollama.enqueue(Reply(text="one"), Reply(status=503, body={"error": "busy"}))
    body = {"model": "llama3.2:3b", "stream": False, "messages": [{"role": "user", "content": "q"}]}
    with httpx.Client(base_url=fake_ollama.base_url) as client:
        first = client.post("/api/chat", json=body)
        second = client.post("/api/chat", json=body)
        third = client.post("/api/chat", json=body)
    assert first.json()["message"]["content"] == "one"
    assert second.status_code == 503 and second.json() == {"error": "busy"}
    assert third.json()["message"]["content"] == "You said: q"
