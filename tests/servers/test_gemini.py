"""The fake Gemini server answers, and refuses, as Gemini's own API does."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.servers.gemini import (
    BAD_KEY,
    DEFAULT_KEY,
    NO_KEY,
    NO_MULTIMODAL_RESPONSES,
    FakeGemini,
    Reply,
)

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 8).decode()
STREAM = "/models/gemini-2.5-flash:streamGenerateContent?alt=sse"


@pytest.fixture
def http() -> Iterator[tuple[FakeGemini, httpx.Client]]:
    with FakeGemini() as server:
        headers = {"x-goog-api-key": DEFAULT_KEY}
        with httpx.Client(base_url=server.url, headers=headers) as client:
            yield server, client


def user(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": list(parts)}]}


def test_the_stream_is_sse_of_whole_responses(http: tuple[FakeGemini, httpx.Client]) -> None:
    server, client = http
    server.enqueue(Reply(text="Hello there", tool_calls=[{"name": "f", "args": {"a": 1}}]))
    with client.stream("POST", STREAM, json=user({"text": "hi"})) as response:
        assert response.headers["content-type"] == "text/event-stream"
        raw = response.read().decode()
    events = [json.loads(e[6:]) for e in raw.split("\r\n\r\n") if e.startswith("data: ")]
    assert raw.endswith("\r\n\r\n")
    parts = [p for e in events for p in e["candidates"][0].get("content", {}).get("parts", [])]
    assert "".join(p.get("text", "") for p in parts) == "Hello there"
    assert parts[-1] == {"functionCall": {"name": "f", "args": {"a": 1}}}  # 2.5 gives no id
    assert events[-1]["candidates"][0]["finishReason"] == "STOP"
    assert events[-1]["usageMetadata"]["totalTokenCount"] == 25


def test_gemini_3_signs_its_first_call_and_gives_ids() -> None:
    with FakeGemini() as server:
        server.enqueue(Reply(tool_calls=[{"name": "f"}, {"name": "g"}]))
        answer = httpx.post(
            f"{server.url}/models/gemini-3-pro-preview:streamGenerateContent",  # no alt: a list
            json=user({"text": "go"}),
            headers={"x-goog-api-key": DEFAULT_KEY},
        ).json()
    first, second = (c["candidates"][0]["content"]["parts"][0] for c in answer[:2])
    assert first["thoughtSignature"] in server.signatures and "thoughtSignature" not in second
    assert first["functionCall"]["id"] and second["functionCall"]["id"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"contents": [], "temperature": 1}, 'Unknown name "temperature"'),
        (
            {**user({"text": "x"}), "generationConfig": {"max_tokens": 5}},
            'Unknown name "max_tokens"',
        ),
        (
            {"contents": [{"role": "assistant", "parts": [{"text": "x"}]}]},
            "Please use a valid role: user, model.",
        ),
        (
            user({"text": "x", "inlineData": {"mimeType": "image/png", "data": PNG}}),
            "oneof field 'data'",
        ),
        (
            user({"inlineData": {"mimeType": "image/png", "data": f"data:image/png;base64,{PNG}"}}),
            "Base64 decoding failed",
        ),
        (
            user({"inlineData": {"mimeType": "image/gif", "data": PNG}}),
            "Unsupported MIME type: image/gif",
        ),
        (
            user(
                {
                    "inlineData": {
                        "mimeType": "image/png",
                        "data": base64.b64encode(b"junk").decode(),
                    }
                }
            ),
            "Provided image is not valid.",
        ),
        (
            user(
                {
                    "functionResponse": {
                        "name": "f",
                        "response": {},
                        "parts": [{"inlineData": {"mimeType": "image/png", "data": PNG}}],
                    }
                }
            ),
            NO_MULTIMODAL_RESPONSES,
        ),
        (
            {
                **user({"text": "x"}),
                "tools": [
                    {
                        "functionDeclarations": [
                            {
                                "name": "f",
                                "parameters": {"type": "object", "additionalProperties": False},
                            }
                        ]
                    }
                ],
            },
            'Unknown name "additionalProperties"',
        ),
    ],
)
def test_what_the_api_refuses_in_its_words(
    http: tuple[FakeGemini, httpx.Client], body: dict[str, Any], words: str
) -> None:
    _, client = http
    answer = client.post(STREAM, json=body)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert words in error["message"] and error["status"] == "INVALID_ARGUMENT"


def test_the_newest_models_take_pictures_in_responses_and_json_schema_tools() -> None:
    body: dict[str, Any] = {
        "contents": [
            {"role": "user", "parts": [{"text": "look"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "name": "f",
                            "response": {"output": ""},
                            "parts": [{"inlineData": {"mimeType": "image/png", "data": PNG}}],
                        }
                    }
                ],
            },
        ],
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "f",
                        "parametersJsonSchema": {"type": "object", "additionalProperties": False},
                    }
                ]
            }
        ],
    }
    with FakeGemini() as server:
        server.signatures.add("known")
        body["contents"][1]["parts"][0]["thoughtSignature"] = "known"
        url = f"{server.url}/models/gemini-3-pro-preview:streamGenerateContent?alt=sse"
        answered = httpx.post(url, json=body, headers={"x-goog-api-key": DEFAULT_KEY})
        body["contents"][1]["parts"][0]["thoughtSignature"] = "made up"
        corrupted = httpx.post(url, json=body, headers={"x-goog-api-key": DEFAULT_KEY})
        del body["contents"][1]["parts"][0]["thoughtSignature"]
        missing = httpx.post(url, json=body, headers={"x-goog-api-key": DEFAULT_KEY})
    chunks = [json.loads(e[6:]) for e in answered.text.split("\r\n\r\n") if e.startswith("data: ")]
    said = "".join(
        p.get("text", "") for c in chunks for p in c["candidates"][0]["content"]["parts"]
    )
    assert answered.status_code == 200 and "(1 pictures inside, 0 after)" in said
    assert corrupted.json()["error"]["message"] == "Corrupted thought signature."
    assert "missing a thought_signature" in missing.json()["error"]["message"]


def test_keys_payload_size_models_and_paths() -> None:
    with FakeGemini(page_size=2, payload_limit=100) as server:
        bare = httpx.post(f"{server.url}{STREAM}", json=user({"text": "x"}))
        wrong = httpx.post(
            f"{server.url}{STREAM}", json=user({"text": "x"}), headers={"x-goog-api-key": "no"}
        )
        big = httpx.post(f"{server.url}{STREAM}&key={DEFAULT_KEY}", json=user({"text": "x" * 200}))
        page = httpx.get(f"{server.url}/models?pageSize=1000&key={DEFAULT_KEY}").json()
        nothing = httpx.get(f"{server.url}/nothing?key={DEFAULT_KEY}")
        unknown = httpx.post(
            f"{server.url}/models/gemini-9:generateContent?key={DEFAULT_KEY}",
            json=user({"text": "x"}),
        )
    assert (bare.status_code, bare.json()) == (403, NO_KEY)
    assert (wrong.status_code, wrong.json()) == (400, BAD_KEY)
    assert big.json()["error"]["message"] == "Request payload size exceeds the limit: 100 bytes."
    assert [m["name"] for m in page["models"]] == [
        "models/gemini-3-pro-preview",
        "models/gemini-2.5-flash",
    ]
    assert page["nextPageToken"] == "2"
    assert nothing.status_code == 404 and nothing.json()["error"]["status"] == "NOT_FOUND"
    assert "is not found for API version v1beta" in unknown.json()["error"]["message"]
