"""The one status table: a status names a failure, the failure an error and its words."""

from __future__ import annotations

import pytest

from routing.errors import (
    BadRequest,
    KeyProblem,
    MalformedResponse,
    Overloaded,
    ProviderError,
    QuotaExhausted,
    RateLimited,
    ServerError,
    TimedOut,
)
from routing.wires.ollama_errors import classify_error
from routing.wires.statuses import ERRORS, WORDS, Failed, Failure, failure_of, status_error


@pytest.mark.parametrize(
    ("status", "failure"),
    [
        (401, Failure.UNAUTHORIZED),
        (403, Failure.FORBIDDEN),
        (402, Failure.NO_CREDIT),
        (404, Failure.NOT_FOUND),
        (408, Failure.GAVE_UP),
        (413, Failure.TOO_LARGE),
        (429, Failure.RATE_LIMITED),
        (503, Failure.UNAVAILABLE),
        (529, Failure.OVERLOADED),
        (500, Failure.SERVER),
        (502, Failure.SERVER),
        (200, Failure.SERVER),  # an error inside the stream
        (400, Failure.REQUEST),
        (422, Failure.REQUEST),
    ],
)
def test_a_status_names_one_failure(status: int, failure: Failure) -> None:
    assert failure_of(status) is failure


def test_every_failure_has_an_error_and_words() -> None:
    assert set(ERRORS) == set(WORDS) == set(Failure)
    for failure in Failure:
        error = status_error(failure, Failed("Acme", 400), provider_id="p", detail="d")
        assert isinstance(error, ERRORS[failure]) and error.message.strip()
        assert (error.provider_id, error.detail) == ("p", "d")


def test_a_wait_is_kept_on_a_rate_limit_never_on_a_quota() -> None:
    failed = Failed("Acme", 429, wait=7.0)
    limited = status_error(Failure.RATE_LIMITED, failed, provider_id="p", detail="")
    assert type(limited) is RateLimited and limited.retry_after == 7.0
    assert limited.message == "Acme is limiting requests. Wait 7 seconds and try again."
    quota = status_error(Failure.NO_CREDIT, failed, provider_id="p", detail="")
    assert type(quota) is QuotaExhausted and quota.retry_after is None


def test_a_shapes_own_words_replace_the_tables() -> None:
    own = {Failure.SERVER: lambda it: f"{it.name} fell over ({it.where})."}
    failed = Failed("Acme", 500, in_stream=True)
    error = status_error(Failure.SERVER, failed, own, provider_id="p", detail="")
    assert type(error) is ServerError and error.message == "Acme fell over (in the stream)."


@pytest.mark.parametrize(
    ("status", "kind", "words"),
    [
        (402, QuotaExhausted, "Ollama says the account is out of credit or quota."),
        (408, TimedOut, "Ollama gave up waiting for the request (HTTP 408)."),
        (413, BadRequest, "The request is too large for Ollama (HTTP 413)."),
        (404, MalformedResponse, "Ollama has no such API path (HTTP 404)."),
        (529, Overloaded, "Ollama is overloaded."),
        (401, KeyProblem, "Ollama refused the request as unauthorized."),
    ],
)
def test_a_shape_that_names_no_words_for_a_status_says_the_tables(
    status: int, kind: type[ProviderError], words: str
) -> None:
    error = classify_error(status, "some words", "ollama")
    assert type(error) is kind and error.message.startswith(words)
