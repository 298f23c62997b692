"""When a wire asks again: the one reading of the wait asked, and the retry before any output."""

from __future__ import annotations

import math
import time
from collections.abc import AsyncGenerator, Callable
from email.utils import formatdate
from typing import Any

import pytest

from routing.errors import BadRequest, Overloaded, ProviderError, QuotaExhausted, RateLimited
from routing.models import ProviderConfig
from routing.transcript import user_message
from routing.wires.anthropic import AnthropicWire
from routing.wires.base import ChatRequest, Wire
from routing.wires.gemini import GeminiWire
from routing.wires.openai_chat import OpenAIChatWire
from routing.wires.retry import RETRIES, retry_after_seconds, retry_wait, retrying, wait_words
from tests.servers import anthropic, gemini, openai_chat


def test_retry_after_in_every_form() -> None:
    """Seconds, milliseconds, an HTTP date, reset durations, and the words of the message."""
    assert retry_after_seconds({"Retry-After": "3"}) == 3
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_seconds({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    soon = formatdate(time.time() + 30, usegmt=True)
    assert 25 <= (retry_after_seconds({"retry-after": soon}) or 0) <= 31
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert retry_after_seconds({"x-ratelimit-reset-requests": "6m0s"}) == 360
    assert retry_after_seconds({"x-ratelimit-reset-tokens": "20ms"}) == pytest.approx(0.02)
    assert retry_after_seconds({}, "rate limit reached. please try again in 1.5s.") == 1.5
    assert retry_after_seconds({}, "please retry in 41.4s") == pytest.approx(41.4)
    assert retry_after_seconds({}, "try again in 2m") == 120
    assert retry_after_seconds({}, "slow down") is None
    assert retry_after_seconds({}) is None


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({"retry-after": "nan"}, ""),
        ({"retry-after": "inf"}, ""),
        ({"retry-after": "1e400"}, ""),
        ({"retry-after-ms": "nan"}, ""),
        ({"retry-after": "Mon, 01 Jan 99999 00:00:00 GMT"}, ""),
        ({"x-ratelimit-reset-requests": "9" * 400 + "s"}, ""),
        ({}, "try again in " + "9" * 400 + " seconds"),
    ],
    ids=["nan", "inf", "1e400", "ms-nan", "year-99999", "huge-duration", "huge-hint"],
)
def test_a_wait_is_never_nan_infinite_or_negative(headers: dict[str, str], message: str) -> None:
    wait = retry_after_seconds(headers, message)
    assert wait is None or (math.isfinite(wait) and wait >= 0)


def test_the_policy() -> None:
    """The wait asked within the cap, else exponential; never for a quota or another error."""
    assert retry_wait(RateLimited("busy", retry_after=0.5), 0) == 0.5
    assert retry_wait(RateLimited("busy", retry_after=30), 0) is None  # the person's call
    assert retry_wait(Overloaded("down"), 1, base=1.0) == 2.0
    assert retry_wait(RateLimited("busy"), 3, base=1.0, cap=5.0) == 5.0
    assert retry_wait(QuotaExhausted("no credit"), 0) is None
    assert retry_wait(BadRequest("no"), 0) is None


Attempt = Callable[[], AsyncGenerator[str, None]]


def script(*steps: str | Exception) -> tuple[list[int], Attempt]:
    """An attempt that, on each call, yields the next step's words or raises its error."""
    calls: list[int] = []
    remaining = list(steps)

    async def attempt() -> AsyncGenerator[str, None]:
        calls.append(len(calls))
        step = remaining.pop(0)
        if isinstance(step, Exception):
            raise step
        for word in step.split():
            yield word

    return calls, attempt


async def run(attempt: Attempt, **options: Any) -> tuple[list[str], list[float]]:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    words = [w async for w in retrying(attempt, sleep=sleep, **options)]
    return words, waits


async def test_waits_as_asked_then_backs_off() -> None:
    calls, attempt = script(RateLimited("busy", retry_after=0.5), Overloaded("down"), "ok then")
    words, waits = await run(attempt, base_delay=1.0)
    assert words == ["ok", "then"] and waits == [0.5, 2.0] and len(calls) == 3


async def test_at_most_two_retries_within_the_cap() -> None:
    busy = [RateLimited("busy") for _ in range(RETRIES + 1)]
    calls, attempt = script(*busy, "too late")
    with pytest.raises(RateLimited):
        await run(attempt, base_delay=1.0, cap=1.5)
    assert len(calls) == RETRIES + 1


async def test_never_after_the_first_item() -> None:
    """Once part of the answer was shown, a rate limit ends it: asking again would repeat it."""
    calls: list[int] = []

    async def attempt() -> AsyncGenerator[str, None]:
        calls.append(1)
        yield "partial"
        raise RateLimited("busy", retry_after=0)

    with pytest.raises(RateLimited):
        await run(attempt)
    assert len(calls) == 1


async def test_other_errors_and_quotas_are_not_retried() -> None:
    for error in (BadRequest("no"), QuotaExhausted("no credit")):
        calls, attempt = script(error, "never")
        with pytest.raises(type(error)):
            await run(attempt)
        assert len(calls) == 1


def test_a_wait_in_words() -> None:
    assert [wait_words(s) for s in (0, 1, 7.4, 90, 119, 120, 1500, 3600)] == [
        "a second",
        "a second",
        "7 seconds",
        "90 seconds",
        "119 seconds",
        "2 minutes",
        "25 minutes",
        "60 minutes",
    ]
    for absurd in (3601, 999_999_999, 1e300, math.inf, math.nan):
        assert wait_words(absurd) == "more than an hour"


# -- a wait of years, asked for by a real server on loopback -------------------------------

YEARS = "999999999"  # seconds: about 31 years


async def refused(wire: Wire, model: str) -> ProviderError:
    """The error of one request (the wire closed after)."""
    try:
        with pytest.raises(ProviderError) as caught:
            async for _ in wire.stream(ChatRequest(model, (user_message("hi"),))):
                pass
    finally:
        await wire.aclose()
    return caught.value


def assert_told_not_waited(error: ProviderError, requests: int) -> None:
    assert isinstance(error, RateLimited) and error.retry_after == float(YEARS)
    assert "more than an hour" in error.message and YEARS not in error.message
    assert requests == 1  # not waited out, not asked again


async def test_openai_s_retry_after_of_years_is_told_as_more_than_an_hour() -> None:
    body = {"error": {"message": "Rate limit reached", "type": "requests", "code": None}}
    with openai_chat.FakeOpenAI() as server:
        server.enqueue(openai_chat.Reply(status=429, body=body, headers={"retry-after": YEARS}))
        provider = ProviderConfig("openai", "openai", server.url, api_key="sk-test")
        error = await refused(OpenAIChatWire(provider), "gpt-4o-mini")
        assert_told_not_waited(error, len(server.chat_requests()))
    assert error.message.endswith("Wait more than an hour and try again.")


async def test_anthropic_s_retry_after_of_years_is_told_as_more_than_an_hour() -> None:
    with anthropic.FakeAnthropic() as server:
        server.enqueue(
            anthropic.error_reply(429, "rate_limit_error", "Rate limited", retry_after=YEARS)
        )
        provider = ProviderConfig("a", "anthropic", server.base_url, api_key=anthropic.DEFAULT_KEY)
        error = await refused(AnthropicWire(provider), "claude-sonnet-4-5-20250929")
        assert_told_not_waited(error, len(server.message_requests()))
    assert "try again in more than an hour" in error.message


async def test_gemini_s_retry_delay_of_years_is_told_as_more_than_an_hour() -> None:
    with gemini.FakeGemini() as server:
        limited = gemini.error_reply(
            429, "RESOURCE_EXHAUSTED", "Resource exhausted.", gemini.retry_info(f"{YEARS}s")
        )
        server.enqueue(limited)
        provider = ProviderConfig("g", "gemini", server.base_url, api_key=gemini.DEFAULT_KEY)
        error = await refused(GeminiWire(provider), "gemini-2.5-flash")
        assert_told_not_waited(
            error,
            len(
                server.received(
                    lambda r: "generateContent" in r.path or "GenerateContent" in r.path
                )
            ),
        )
