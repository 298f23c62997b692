"""Nobody else gets in (app/serve/guard.py, app/serve/bodies.py): a wrong or missing token is
a bare 401 to both clients, a body past the cap a 413, and no CORS header is ever sent."""

from __future__ import annotations

import httpx
import ollama
import openai
import pytest

from tests.app.serve.conftest import Serving
from tests.servers.ollama import FakeOllama


@pytest.mark.parametrize("token", ["wrong-token-of-enough-length", ""])
async def test_a_wrong_or_missing_token_is_401_for_both_clients(
    serving: Serving, fake_ollama: FakeOllama, token: str
) -> None:
    before = len(fake_ollama.requests)
    openai_client = openai.AsyncOpenAI(
        base_url=serving.openai_url, api_key=token or "-", max_retries=0
    )
    if not token:  # no Authorization header at all
        openai_client = openai_client.with_options(default_headers={"Authorization": ""})
    with pytest.raises(openai.AuthenticationError) as refused:
        await openai_client.chat.completions.create(
            model="auto", messages=[{"role": "user", "content": "hi"}]
        )
    assert refused.value.status_code == 401
    assert refused.value.body == {  # nothing about why
        "message": "Unauthorized.",
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_api_key",
    }
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with pytest.raises(ollama.ResponseError) as also:
        await ollama.AsyncClient(host=serving.ollama_url, headers=headers).list()
    assert also.value.status_code == 401 and also.value.error == "unauthorized"
    async with httpx.AsyncClient(base_url=serving.ollama_url) as raw:
        for path in ("/", "/api/version", "/v1/models", "/no/such/path"):
            answer = await raw.get(path, headers=headers)
            assert answer.status_code == 401, path
            assert serving.token not in answer.text
    assert len(fake_ollama.requests) == before  # nothing reached a model server


async def test_the_right_token_and_no_cors(serving: Serving) -> None:
    async with httpx.AsyncClient(base_url=serving.ollama_url, headers=serving.auth) as raw:
        answer = await raw.get("/api/version", headers={"Origin": "https://example.com"})
        preflight = await raw.options(
            "/v1/chat/completions",
            headers={"Origin": "https://example.com", "Access-Control-Request-Method": "POST"},
        )
    assert answer.status_code == 200
    for response in (answer, preflight):
        assert not [h for h in response.headers if h.lower().startswith("access-control-")]


async def test_a_body_past_the_cap_is_413_in_each_shape(serving: Serving) -> None:
    big = b"x" * (32 * 1024 * 1024 + 1)

    async def chunked():  # no Content-Length: the cap counts what arrives
        for start in range(0, len(big), 1 << 20):
            yield big[start : start + (1 << 20)]

    async with httpx.AsyncClient(headers=serving.auth, timeout=60) as raw:
        told = await raw.post(f"{serving.openai_url}/chat/completions", content=big)
        counted = await raw.post(f"{serving.ollama_url}/api/chat", content=chunked())
    assert told.status_code == 413
    assert told.json()["error"]["code"] == "request_too_large"
    assert counted.status_code == 413 and "32 MB" in counted.json()["error"]
