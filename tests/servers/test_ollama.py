"""The fake Ollama answers in Ollama's real shapes."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from tests.servers.ollama import REFUSAL_OLD_RUNNER, FakeModel, FakeOllama, Reply
from tests.servers.ollama_library import INVALID_NAME, PULL_NOT_FOUND, PullReply


def outcomes(server: FakeOllama) -> list[str]:
    """How each pull ended, once the server's thread has noted it: the client has its last
    line (or the cut) before that thread gets there."""
    assert all(run.ended.wait(5) for run in server.pulls)
    return [run.outcome for run in server.pulls]


def pull_lines(server: FakeOllama, name: str) -> tuple[httpx.Response, list[dict]]:
    """POST /api/pull for `name`, its answer and every NDJSON line, read to the end."""
    with (
        httpx.Client(base_url=server.base_url) as client,
        client.stream("POST", "/api/pull", json={"model": name, "stream": True}) as response,
    ):
        lines = [json.loads(line) for line in response.iter_lines() if line]
    return response, lines


def tags(server: FakeOllama) -> list[str]:
    """The names GET /api/tags lists."""
    return [m["name"] for m in httpx.get(f"{server.base_url}/api/tags").json()["models"]]


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


# -- pulling and deleting -------------------------------------------------------------


def test_pull_streams_progress_in_ollamas_shape_and_installs_the_model(
    fake_ollama: FakeOllama,
) -> None:
    """Manifest, each layer's "pulling <12 hex>" lines (no `completed` while 0), verify,
    write, success; the model is then listed and shown with its capabilities."""
    response, lines = pull_lines(fake_ollama, "granite3.2-vision:2b")
    assert outcomes(fake_ollama) == ["success"]  # installed by then
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/x-ndjson"
    assert lines[0] == {"status": "pulling manifest"}
    assert lines[-3:] == [
        {"status": "verifying sha256 digest"},
        {"status": "writing manifest"},
        {"status": "success"},
    ]
    layers = lines[1:-3]
    digests = list(dict.fromkeys(line["digest"] for line in layers))
    assert len(digests) == 4  # the weights, then template, license and params
    for line in layers:
        assert list(line)[:3] == ["status", "digest", "total"]  # Go's field order
        assert line["status"] == f"pulling {line['digest'][7:19]}"
        assert len(line["digest"]) == len("sha256:") + 64
    weights = [line for line in layers if line["digest"] == digests[0]]
    assert "completed" not in weights[0]  # omitempty
    assert [w["completed"] for w in weights[1:]] == sorted(w["completed"] for w in weights[1:])
    assert weights[-1]["completed"] == weights[-1]["total"]
    assert sum(line["total"] for line in layers if "completed" not in line) == 2_400_000_000
    assert tags(fake_ollama)[-1] == "granite3.2-vision:2b"
    show = httpx.post(f"{fake_ollama.base_url}/api/show", json={"model": "granite3.2-vision:2b"})
    assert "vision" in show.json()["capabilities"]
    assert [r.name for r in fake_ollama.pulls] == ["granite3.2-vision:2b"]


def test_pull_of_a_name_the_library_lacks_ends_with_ollamas_error(fake_ollama: FakeOllama) -> None:
    response, lines = pull_lines(fake_ollama, "nosuchmodel:9b")
    assert response.status_code == 200  # the progress had begun
    assert lines == [{"status": "pulling manifest"}, {"error": PULL_NOT_FOUND}]
    assert "nosuchmodel:9b" not in tags(fake_ollama)
    assert outcomes(fake_ollama) == ["error"]


def test_pull_refuses_a_name_that_is_no_name(fake_ollama: FakeOllama) -> None:
    with httpx.Client(base_url=fake_ollama.base_url) as client:
        spaced = client.post("/api/pull", json={"model": "two words"})
        empty = client.post("/api/pull", json={})
        no_body = client.post("/api/pull")
        asked_with_get = client.get("/api/pull")
    assert spaced.status_code == empty.status_code == 400
    assert spaced.json() == {"error": INVALID_NAME}
    assert no_body.status_code == 400 and no_body.json() == {"error": "missing request body"}
    assert asked_with_get.status_code == 405
    assert fake_ollama.pulls == []


def test_pull_fails_midway_as_scripted(fake_ollama: FakeOllama) -> None:
    """An error line after so many lines, or the connection cut; neither installs it."""
    fake_ollama.enqueue_pull(PullReply(error_after=3), PullReply(drop_after=2))
    _, lines = pull_lines(fake_ollama, "moondream:1.8b")
    assert len(lines) == 4 and "no such host" in lines[-1]["error"]
    with pytest.raises(httpx.RemoteProtocolError):
        pull_lines(fake_ollama, "moondream:1.8b")
    assert outcomes(fake_ollama) == ["error", "dropped"]
    assert "moondream:1.8b" not in tags(fake_ollama)
    assert pull_lines(fake_ollama, "moondream:1.8b")[1][-1] == {"status": "success"}


def test_a_slow_pull_notices_the_client_going(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_pull(PullReply(delay=0.05, steps=200))
    with (
        httpx.Client(base_url=fake_ollama.base_url) as client,
        client.stream("POST", "/api/pull", json={"model": "llava:7b"}) as response,
    ):
        started = time.monotonic()
        lines = response.iter_lines()
        assert json.loads(next(lines)) == {"status": "pulling manifest"}
        assert time.monotonic() - started >= 0.04  # each line waits its delay
    run = fake_ollama.pulls[0]
    assert run.ended.wait(5) and run.outcome == "client gone"


def test_delete_removes_a_model_and_a_second_delete_is_ollamas_404(fake_ollama: FakeOllama) -> None:
    with httpx.Client(base_url=fake_ollama.base_url) as client:
        first = client.request("DELETE", "/api/delete", json={"model": "gemma3:270m"})
        again = client.request("DELETE", "/api/delete", json={"model": "gemma3:270m"})
        invalid = client.request("DELETE", "/api/delete", json={"model": "a b"})
        posted = client.post("/api/delete", json={"model": "llava:7b"})
        elsewhere = client.request("DELETE", "/api/tags")
    assert first.status_code == 200 and first.content == b""
    assert again.status_code == 404 and again.json() == {"error": "model 'gemma3:270m' not found"}
    assert invalid.status_code == 400 and invalid.json() == {"error": 'name "a b" is invalid'}
    assert posted.status_code == 405 and elsewhere.status_code == 405
    assert "gemma3:270m" not in tags(fake_ollama) and "llava:7b" in tags(fake_ollama)
