"""The Responses API's failures as our errors: image codes, stream failures, the lessons."""

from __future__ import annotations

import json

import pytest

from routing.errors import (
    BadRequest,
    ContextTooLong,
    KeyProblem,
    PicturesRefused,
    ProviderError,
    QuotaExhausted,
    RateLimited,
    ServerError,
)
from routing.models import ProviderConfig
from routing.presets import preset_for
from routing.refusals import IMAGE_ERROR_CODES
from routing.wires.responses_errors import (
    classify_responses,
    error_code,
    refuses_encrypted_reasoning,
    refuses_tool_pictures,
    stream_failure,
)

OPENAI = ProviderConfig("oa", "openai", "https://api.openai.com/v1")


def body(message: str, code: str | None = None) -> str:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": code}
    return json.dumps({"error": error})


def classify(status: int, text: str, headers: dict[str, str] | None = None) -> ProviderError:
    error = classify_responses(
        OPENAI, preset_for("openai"), status, text, headers or {}, had_pictures=True, model="m"
    )
    assert error.message and "\n" not in error.message and "{" not in error.message
    return error


@pytest.mark.parametrize("code", IMAGE_ERROR_CODES)
def test_every_image_code_is_a_picture_refusal(code: str) -> None:
    error = classify(400, body("That image can't be used.", code))
    assert isinstance(error, PicturesRefused)
    assert code in error.message and "That image can't be used." in error.detail


@pytest.mark.parametrize("code", ["invalid_image", "image_too_large"])
def test_an_image_code_inside_the_stream_is_a_picture_refusal_too(code: str) -> None:
    failed = {"type": "response.failed", "response": {"error": {"code": code, "message": "No."}}}
    error = classify(200, stream_failure(failed))
    assert isinstance(error, PicturesRefused) and error.detail.startswith("in the stream")


@pytest.mark.parametrize(
    ("event", "kind"),
    [
        (
            {"type": "error", "code": "rate_limit_exceeded", "message": "Rate limit reached."},
            RateLimited,
        ),
        ({"type": "error", "code": "server_error", "message": "The model failed."}, ServerError),
        (
            {
                "type": "response.failed",
                "response": {
                    "error": {
                        "code": "insufficient_quota",
                        "message": "You exceeded your current quota.",
                    }
                },
            },
            QuotaExhausted,
        ),
        (
            {
                "type": "response.failed",
                "response": {
                    "error": {
                        "code": "context_length_exceeded",
                        "message": "Your input exceeds the context window of this model.",
                    }
                },
            },
            ContextTooLong,
        ),
        ({"type": "response.failed", "response": {"error": None}}, ServerError),
    ],
)
def test_stream_failures_by_their_code(event: dict, kind: type[ProviderError]) -> None:
    error = classify(200, stream_failure(event))
    assert type(error) is kind


def test_the_openai_words_serve_the_http_errors() -> None:
    assert isinstance(
        classify(401, body("Incorrect API key provided.", "invalid_api_key")), KeyProblem
    )
    limited = classify(429, body("Rate limit reached", "rate_limit_exceeded"), {"retry-after": "2"})
    assert isinstance(limited, RateLimited) and limited.retry_after == 2
    odd = classify(400, body("Unknown parameter: 'x'.", "unknown_parameter"))
    assert isinstance(odd, BadRequest) and "Sightline bug" in odd.message


def test_error_code_reads_only_a_code_string() -> None:
    assert error_code(body("x", "invalid_image")) == "invalid_image"
    assert error_code(json.dumps({"error": {"code": 400}})) == ""
    assert error_code("<html>") == "" and error_code('{"error": "words"}') == ""


@pytest.mark.parametrize(
    "words",
    [
        "json: cannot unmarshal array into Go struct field X.input.output of type string",
        "1 validation error: input.3.output Input should be a valid string",
        "Expected string, received array at input[2].output",
    ],
)
def test_servers_refusing_list_outputs_are_recognised(words: str) -> None:
    assert refuses_tool_pictures(BadRequest("no", detail=f"HTTP 400: {words}"))


def test_other_refusals_teach_nothing() -> None:
    plain = BadRequest("no", detail="HTTP 400: Unknown parameter: 'include'.")
    assert not refuses_tool_pictures(plain) and not refuses_encrypted_reasoning(plain)
    no_reasoning = BadRequest(
        "no", detail="HTTP 400: Encrypted content is not supported with this model."
    )
    assert refuses_encrypted_reasoning(no_reasoning)
