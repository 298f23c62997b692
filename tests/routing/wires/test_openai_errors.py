"""The OpenAI-compatible shape's error bodies, from every server that speaks it, as our errors."""

from __future__ import annotations

from typing import Any

import pytest

from routing.errors import (
    ModelNotFound,
    Overloaded,
    PicturesRefused,
    QuotaExhausted,
    RateLimited,
    ServerError,
)
from routing.models import ProviderConfig
from routing.presets import preset_for
from routing.wires.openai_errors import error_words, translate_status

PROVIDER = ProviderConfig("p", "custom", "http://127.0.0.1:9/v1")


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"error": {"message": "m", "type": "t", "code": "c"}}, "m [t, c]"),
        ({"error": "plain words"}, "plain words"),
        (
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            "Overloaded [overloaded_error]",
        ),
        (
            {"object": "error", "message": "Unexpected role", "type": "x", "code": "3230"},
            "Unexpected role [x, 3230]",
        ),
        ([{"error": {"code": 400, "message": "gemini says"}}], "gemini says [400]"),
        (
            {"error": {"message": "Provider returned error", "metadata": {"raw": "deep words"}}},
            "Provider returned error (upstream: deep words)",
        ),
        ({"detail": "fastapi says"}, "fastapi says"),
        ({"choices": []}, None),
    ],
)
def test_error_words_from_every_shape(body: Any, words: str | None) -> None:
    """OpenAI, Ollama/LM Studio, Anthropic, Mistral, Gemini, OpenRouter and FastAPI bodies."""
    assert error_words(body) == words


def translated(status: int, body: str, headers: dict[str, str] | None = None) -> Any:
    return translate_status(
        PROVIDER, status, body, headers or {}, had_pictures=True, preset=preset_for("openai")
    )


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (503, '{"error": {"message": "The server is overloaded", "type": "server_error"}}'),
        (529, '{"error": {"message": "busy"}}'),
        (429, '{"error": {"message": "The engine is currently overloaded"}}'),
        (502, "<html><body>Bad gateway</body></html>"),
    ],
    ids=["503", "529", "429-overloaded", "502-page"],
)
def test_a_busy_server_is_overloaded_a_server_error_retried_as_a_rate_limit(
    status: int, body: str
) -> None:
    error = translated(status, body)
    assert type(error) is Overloaded
    assert isinstance(error, ServerError) and isinstance(error, RateLimited)


def test_the_wait_asked_is_read_once_for_the_message_and_the_retry() -> None:
    error = translated(429, '{"error": {"message": "slow down"}}', {"retry-after": "7"})
    assert type(error) is RateLimited and error.retry_after == 7
    assert "Wait 7 seconds" in error.message


def test_out_of_credit_is_a_quota_not_a_wait() -> None:
    error = translated(429, '{"error": {"message": "x", "code": "insufficient_quota"}}')
    assert type(error) is QuotaExhausted and error.retry_after is None


def test_the_data_policy_is_neither_pictures_nor_a_name() -> None:
    words = '{"error": {"message": "No endpoints found matching your data policy", "code": 404}}'
    error = translated(404, words)
    assert type(error) is ModelNotFound and not isinstance(error, PicturesRefused)
    assert "openrouter.ai/settings/privacy" in error.message


def test_a_server_of_your_own_is_named_by_its_address() -> None:
    error = translate_status(
        PROVIDER, 500, '{"error": "boom"}', {}, had_pictures=False, preset=preset_for("custom")
    )
    assert error.message.startswith("The server at 127.0.0.1:9 failed while answering")
