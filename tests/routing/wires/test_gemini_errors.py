"""Gemini's error bodies as our errors, in its own words (as its API sends them)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from routing.errors import (
    BadRequest,
    ContextTooLong,
    KeyProblem,
    MalformedResponse,
    ModelNotFound,
    Overloaded,
    ParameterRefused,
    PicturesRefused,
    ProviderError,
    QuotaExhausted,
    RateLimited,
    ServerError,
    TimedOut,
)
from routing.models import ProviderConfig
from routing.presets import preset_for
from routing.wires.gemini_errors import classify_gemini, error_fields, refuses_tool_pictures
from tests.servers.gemini import (
    BAD_KEY,
    NO_KEY,
    NO_MULTIMODAL_RESPONSES,
    error_body,
    quota_failure,
    retry_info,
)

GEMINI = ProviderConfig("g", "gemini", "https://generativelanguage.googleapis.com/v1beta")


def classify(status: int, body: Any, headers: dict[str, str] | None = None) -> ProviderError:
    text = body if isinstance(body, str) else json.dumps(body)
    error = classify_gemini(
        GEMINI,
        preset_for("gemini"),
        status,
        text,
        headers or {},
        had_pictures=True,
        model="gemini-2.5-flash",
    )
    assert error.message and "\n" not in error.message and "{" not in error.message
    return error


@pytest.mark.parametrize(
    ("status", "kind", "message", "expected"),
    [
        (400, "INVALID_ARGUMENT", "Provided image is not valid.", PicturesRefused),
        (
            400,
            "INVALID_ARGUMENT",
            "Unable to process input image. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
            PicturesRefused,
        ),
        (
            400,
            "INVALID_ARGUMENT",
            "Request payload size exceeds the limit: 20971520 bytes.",
            BadRequest,
        ),
        (
            400,
            "INVALID_ARGUMENT",
            "The input token count (1200000) exceeds the maximum number of tokens allowed "
            "(1048576).",
            ContextTooLong,
        ),
        (
            404,
            "NOT_FOUND",
            "models/gemini-9 is not found for API version v1beta, or is not supported for "
            "generateContent. Call ListModels to see the list of available models and their "
            "supported methods.",
            ModelNotFound,
        ),
        (404, "NOT_FOUND", "Requested entity was not found.", MalformedResponse),
        (
            500,
            "INTERNAL",
            "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
            ServerError,
        ),
        (503, "UNAVAILABLE", "The model is overloaded. Please try again later.", Overloaded),
        (504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete.", TimedOut),
        (
            400,
            "INVALID_ARGUMENT",
            "Function call is missing a thought_signature in functionCall parts.",
            BadRequest,
        ),
        (400, "FAILED_PRECONDITION", "User location is not supported for the API use.", BadRequest),
    ],
)
def test_each_error_in_its_words(status: int, kind: str, message: str, expected: type) -> None:
    error = classify(status, error_body(status, kind, message))
    assert type(error) is expected
    assert message in error.detail and error.detail.startswith(f"HTTP {status}")


def test_a_request_too_large_says_what_to_do() -> None:
    error = classify(
        400,
        error_body(
            400, "INVALID_ARGUMENT", "Request payload size exceeds the limit: 20971520 bytes."
        ),
    )
    assert "too large for Gemini" in error.message and "fewer or smaller pictures" in error.message


@pytest.mark.parametrize(
    "body",
    [
        BAD_KEY,
        NO_KEY,
        error_body(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."),
    ],
)
def test_key_problems(body: dict[str, Any]) -> None:
    error = classify(body["error"]["code"], body)
    assert isinstance(error, KeyProblem) and "GEMINI_API_KEY" in error.message


def test_a_per_minute_limit_waits_as_its_retry_info_says() -> None:
    body = error_body(
        429,
        "RESOURCE_EXHAUSTED",
        "You exceeded your current quota, please check your plan and billing details.",
        quota_failure("GenerateRequestsPerMinutePerProjectPerModel-FreeTier"),
        retry_info("37s"),
    )
    error = classify(429, body)
    assert type(error) is RateLimited and error.retry_after == 37 and "37 seconds" in error.message


def test_a_limit_without_retry_info_reads_the_header() -> None:
    error = classify(
        429,
        error_body(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."),
        {"retry-after": "4"},
    )
    assert type(error) is RateLimited and error.retry_after == 4


def test_a_daily_quota_is_exhausted_not_limited() -> None:
    body = error_body(
        429,
        "RESOURCE_EXHAUSTED",
        "You exceeded your current quota.",
        quota_failure("GenerateRequestsPerDayPerProjectPerModel-FreeTier"),
        retry_info("5s"),
    )
    error = classify(429, body)
    assert isinstance(error, QuotaExhausted) and error.retry_after is None


def test_an_error_inside_the_stream_carries_its_code() -> None:
    limited = classify(200, error_body(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted."))
    assert type(limited) is RateLimited and limited.detail.startswith("in the stream")
    failed = classify(200, error_body(500, "INTERNAL", "An internal error has occurred."))
    assert type(failed) is ServerError


@pytest.mark.parametrize(
    ("status", "expected"), [(200, MalformedResponse), (502, Overloaded), (503, Overloaded)]
)
def test_a_web_page_instead_of_the_api(status: int, expected: type) -> None:
    error = classify(status, "<!doctype html><html><body>Sign in to the Wi-Fi</body></html>")
    assert type(error) is expected


def test_the_refusal_of_pictures_inside_a_response_is_recognised() -> None:
    error = classify(400, error_body(400, "INVALID_ARGUMENT", NO_MULTIMODAL_RESPONSES))
    assert isinstance(error, BadRequest) and refuses_tool_pictures(error)
    assert not refuses_tool_pictures(
        classify(400, error_body(400, "INVALID_ARGUMENT", "Provided image is not valid."))
    )


def test_error_fields_read_a_list_and_ignore_what_is_not_an_error() -> None:
    listed = json.dumps([error_body(400, "INVALID_ARGUMENT", "first")])
    assert error_fields(listed).message == "first"  # type: ignore[union-attr]
    assert error_fields('{"error": "words"}') is None and error_fields("not json") is None
    assert error_fields(json.dumps({"error": {"code": "400"}})).code == 0  # type: ignore[union-attr]


def test_an_unknown_generation_field_names_the_setting_it_is() -> None:
    message = (
        'Invalid JSON payload received. Unknown name "maxOutputTokens" at '
        "'generation_config': Cannot find field."
    )
    violation = {
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        "fieldViolations": [{"field": "generation_config", "description": message}],
    }
    error = classify(400, error_body(400, "INVALID_ARGUMENT", message, violation))
    assert isinstance(error, ParameterRefused) and error.param == "max_tokens"
    assert "longest answer" in error.message


def test_an_unknown_name_that_is_no_setting_stays_a_bad_request() -> None:
    message = (
        'Invalid JSON payload received. Unknown name "const" at '
        "'tools[0].function_declarations[5].parameters.properties[8]': Cannot find field."
    )
    error = classify(400, error_body(400, "INVALID_ARGUMENT", message))
    assert isinstance(error, BadRequest) and not isinstance(error, ParameterRefused)
