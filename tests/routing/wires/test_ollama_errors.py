"""Ollama's failures as our errors: the words of its `error`, then the status."""

from __future__ import annotations

import pytest

from routing.errors import (
    BadRequest,
    ContextTooLong,
    MalformedResponse,
    ModelNotFound,
    Overloaded,
    PicturesRefused,
    ProviderError,
    RateLimited,
    ServerError,
)
from routing.wires.ollama_errors import classify_answer, classify_error
from tests.servers.ollama import REFUSAL_CLOUD, REFUSAL_LLAMA_CPP, REFUSAL_OLD_RUNNER


@pytest.mark.parametrize(
    ("status", "text", "kind"),
    [
        (500, REFUSAL_OLD_RUNNER, PicturesRefused),
        (400, REFUSAL_CLOUD, PicturesRefused),
        (500, REFUSAL_LLAMA_CPP, PicturesRefused),
        (200, REFUSAL_OLD_RUNNER, PicturesRefused),
        (400, "the request exceeds the available context size, try increasing it", ContextTooLong),
        (404, "model 'x' not found", ModelNotFound),
        (500, "context canceled", ServerError),
        (400, "invalid options", BadRequest),
        (200, "unexpected EOF", ServerError),
    ],
)
def test_classify_error(status: int, text: str, kind: type[ProviderError]) -> None:
    """The pure classifier: texts first, then the status."""
    error = classify_error(status, text, "ollama", model="m:1b")
    assert type(error) is kind
    assert text in error.detail and error.provider_id == "ollama"


def test_busy_and_limited_are_retried_as_every_wire_does() -> None:
    """A 503 (the queue is full) is the one Overloaded type; a 429 keeps the wait asked."""
    busy = classify_error(503, "server busy, please try again.", "ollama")
    assert type(busy) is Overloaded and isinstance(busy, ServerError)
    limited = classify_error(429, "too many requests", "ollama", headers={"Retry-After": "2"})
    assert type(limited) is RateLimited and limited.retry_after == 2.0


@pytest.mark.parametrize(
    ("status", "text", "kind"),
    [
        (404, '{"error": "model \'x\' not found"}', ModelNotFound),
        (500, '{"error": {"message": "proxy words"}}', ServerError),
        (502, "<html><body>Bad Gateway</body></html>", MalformedResponse),
        (400, "plain words", MalformedResponse),
        (500, "plain words", ServerError),
        (503, "Service Unavailable", Overloaded),
    ],
)
def test_an_answer_with_or_without_an_error_body(
    status: int, text: str, kind: type[ProviderError]
) -> None:
    error = classify_answer(status, text, {}, "ollama", server="127.0.0.1:11434", model="x")
    assert type(error) is kind
