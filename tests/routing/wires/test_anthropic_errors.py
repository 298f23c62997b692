"""Anthropic's failures as our errors: its error type first, then the status and its words."""

from __future__ import annotations

import json

import pytest

from routing.errors import (
    BadRequest,
    KeyProblem,
    MalformedResponse,
    Overloaded,
    ParameterRefused,
    PicturesRefused,
    RateLimited,
    ServerError,
)
from routing.models import ProviderConfig
from routing.wires.anthropic_errors import anthropic_base_url, classify_anthropic_error


def provider(url: str = "https://api.anthropic.com") -> ProviderConfig:
    return ProviderConfig(id="anthropic", kind="anthropic", base_url=url, api_key="sk-ant-x")


def body(kind: str, message: str) -> str:
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}})


def test_classify_without_an_anthropic_body() -> None:
    """Non-model 404s point at the address; plain-text 5xx are server errors."""
    config = provider()
    not_found = body("not_found_error", "x")
    assert isinstance(classify_anthropic_error(404, not_found, {}, config), MalformedResponse)
    assert isinstance(classify_anthropic_error(503, "upstream reset", {}, config), ServerError)
    assert isinstance(classify_anthropic_error(400, "plain words", {}, config), MalformedResponse)
    billing = body(
        "invalid_request_error", "Your credit balance is too low to access the Anthropic API."
    )
    assert isinstance(classify_anthropic_error(400, billing, {}, config), KeyProblem)


@pytest.mark.parametrize(
    ("status", "text"),
    [(529, body("overloaded_error", "Overloaded")), (200, body("overloaded_error", "x"))],
    ids=["529", "in-the-stream"],
)
def test_overloaded_is_the_one_overloaded_type(status: int, text: str) -> None:
    """The same type as a 503 of the OpenAI shape's or Ollama's, still a rate limit."""
    error = classify_anthropic_error(status, text, {"retry-after": "3"}, provider())
    assert type(error) is Overloaded and isinstance(error, RateLimited)
    assert error.retry_after == 3.0


def test_a_picture_it_could_not_use() -> None:
    text = body("invalid_request_error", "messages.0.content.1.image.source.base64: bad")
    assert isinstance(classify_anthropic_error(400, text, {}, provider()), PicturesRefused)


def test_base_url() -> None:
    """`/v1` and slashes are trimmed; nothing configured is Anthropic's own."""
    assert anthropic_base_url("https://api.anthropic.com/v1/") == "https://api.anthropic.com"
    assert anthropic_base_url("") == "https://api.anthropic.com"


@pytest.mark.parametrize(
    "message",
    ["`temperature` is deprecated for this model.", "temperature: Extra inputs are not permitted"],
)
def test_a_setting_the_model_does_not_take_is_named(message: str) -> None:
    error = classify_anthropic_error(
        400, body("invalid_request_error", message), {}, provider(), model="claude-opus-4-7"
    )
    assert isinstance(error, ParameterRefused) and error.param == "temperature"
    assert error.message == (
        "claude-opus-4-7 doesn't take the chat's temperature: Anthropic refused it (HTTP 400). "
        "Clear the temperature in the chat's settings, or pick another model."
    )


def test_a_field_that_is_no_setting_stays_a_bad_request() -> None:
    said = body(
        "invalid_request_error", "messages.0.content.0.citations: Extra inputs are not permitted"
    )
    error = classify_anthropic_error(400, said, {}, provider())
    assert isinstance(error, BadRequest) and not isinstance(error, ParameterRefused)
