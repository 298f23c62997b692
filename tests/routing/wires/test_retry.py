"""When a wire asks again: the one reading of the wait asked, and the retry before any output."""

from __future__ import annotations

import math
import time
from collections.abc import AsyncGenerator, Callable
from email.utils import formatdate
from typing import Any

import pytest

from routing.errors import BadRequest, Overloaded, QuotaExhausted, RateLimited
from routing.wires.retry import RETRIES, retry_after_seconds, retry_wait, retrying


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
