"""The OpenAI-compatible shape's error bodies, from every server that speaks it, as our errors."""

from __future__ import annotations

from typing import Any

import pytest

from routing.errors import (
    BadRequest,
    ModelNotFound,
    Overloaded,
    ParameterRefused,
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


@pytest.mark.parametrize(
    ("body", "param"),
    [
        # OpenAI's reasoning models, on both endpoints: the param and its code name it.
        (
            '{"error": {"message": "Unsupported parameter: \'temperature\' is not supported '
            'with this model.", "type": "invalid_request_error", "param": "temperature", '
            '"code": "unsupported_parameter"}}',
            "temperature",
        ),
        (
            '{"error": {"message": "Unsupported value: \'temperature\' does not support 0.5 '
            'with this model. Only the default (1) value is supported.", "type": '
            '"invalid_request_error", "param": "temperature", "code": "unsupported_value"}}',
            "temperature",
        ),
        (
            '{"error": {"message": "Unsupported parameter: \'max_tokens\' is not supported '
            'with this model. Use \'max_completion_tokens\' instead.", "type": '
            '"invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}',
            "max_tokens",
        ),
        # Anthropic's OpenAI-compatible endpoint names it in words only (param null).
        (
            '{"error": {"code": "invalid_request_error", "message": "temperature is deprecated '
            'for this model.", "type": "invalid_request_error", "param": null}}',
            "temperature",
        ),
        # Gemini's compatibility endpoint, its errors in a list.
        (
            '[{"error": {"code": 400, "message": "Invalid JSON payload received. Unknown name '
            '\\"temperature\\": Cannot find field.", "status": "INVALID_ARGUMENT"}}]',
            "temperature",
        ),
    ],
)
def test_a_refused_setting_is_named_not_called_a_bug(body: str, param: str) -> None:
    error = translated(400, body)
    assert isinstance(error, ParameterRefused) and error.param == param
    assert "Sightline bug" not in error.message


@pytest.mark.parametrize(
    "body",
    [
        # A param that is no chat setting: the request's shape, Sightline's to mend.
        '{"error": {"message": "Unsupported parameter: \'stream_options\' is not supported '
        'with this model.", "type": "invalid_request_error", "param": "stream_options", '
        '"code": "unsupported_parameter"}}',
        '{"error": {"message": "Invalid value for \'temperature\': too large.", "type": '
        '"invalid_request_error", "param": "temperature", "code": "decimal_above_max_value"}}',
    ],
)
def test_a_refusal_of_no_setting_a_model_may_lack_stays_a_bad_request(body: str) -> None:
    error = translated(400, body)
    assert isinstance(error, BadRequest) and not isinstance(error, ParameterRefused)
