"""When to ask a provider again: the one reading of how long it asked to wait, and the policy.

A rate limit or an overloaded server (`RateLimited`, `Overloaded` among it) is
tried again before any part of the answer came, at most `RETRIES` times: after the
wait the provider asked for, when it said one within `RETRY_CAP`, else after an
exponential backoff. A longer wait is the person's to decide, and a quota
(`QuotaExhausted`) is never waited out. Every wire retries through `retrying`.
`wait_words` tells a wait asked for; anything past `LONGEST_TOLD` (an hour) is told
as "more than an hour", however many seconds a server names.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from contextlib import aclosing
from email.utils import parsedate_to_datetime
from typing import TypeVar

from routing.errors import ProviderError, QuotaExhausted, RateLimited

log = logging.getLogger(__name__)
T = TypeVar("T")

RETRIES = 2
RETRY_CAP = 20.0  # seconds; a longer wait is the person's to decide
RETRY_BASE = 1.0  # seconds before the first retry when the provider said none
LONGEST_TOLD = 3600.0  # seconds; a longer wait asked is "more than an hour"

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_HINT = re.compile(
    r"(?:try again|retry) in (\d+(?:\.\d+)?)\s*"
    r"(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)\b"
)
_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def _finite(seconds: float) -> float | None:
    return max(seconds, 0.0) if math.isfinite(seconds) else None


def _duration(value: str) -> float | None:
    """Seconds from "20", "1.5", "20ms", "6m0s" or "1m30.5s"; None for anything else."""
    value = value.strip().lower()
    try:
        return _finite(float(value))
    except ValueError:
        pass
    parts = _DURATION.findall(value)
    if not parts or "".join(n + u for n, u in parts) != value:
        return None
    return _finite(sum(float(n) * _UNIT[u] for n, u in parts))


def retry_after_seconds(headers: Mapping[str, str], message: str = "") -> float | None:
    """How long the provider asked us to wait, from its headers or its words; None if unsaid.

    Read in order: `retry-after-ms`, `retry-after` (seconds or an HTTP date), the
    `x-ratelimit-reset-*` durations, then "try again in 1.5s" in the message. Never
    negative, NaN or infinite.
    """
    lower = {k.lower(): v for k, v in headers.items()}
    if (ms := lower.get("retry-after-ms")) is not None and (waited := _duration(ms)) is not None:
        return waited / 1000.0
    if (value := lower.get("retry-after")) is not None:
        if (seconds := _duration(value)) is not None:
            return seconds
        try:  # an HTTP date
            return _finite(parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError, IndexError, OverflowError):
            pass
    for name in ("x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"):
        if (value := lower.get(name)) is not None and (seconds := _duration(value)) is not None:
            return seconds
    if hint := _HINT.search(message.lower()):
        unit = hint.group(2)
        scale = 0.001 if unit.startswith(("ms", "milli")) else 60.0 if unit[0] == "m" else 1.0
        return _finite(float(hint.group(1)) * scale)
    return None


def wait_words(seconds: float) -> str:
    """A wait a provider asked for, as a person reads it: "a second", "40 seconds",
    "5 minutes", or "more than an hour" past `LONGEST_TOLD` (nothing waits that long
    by itself: `retrying` waits at most `RETRY_CAP`)."""
    if not math.isfinite(seconds) or seconds > LONGEST_TOLD:
        return "more than an hour"
    if seconds <= 1:
        return "a second"
    if seconds < 120:
        return f"{round(seconds)} seconds"
    return f"{math.ceil(seconds / 60)} minutes"


def retry_wait(
    error: ProviderError, attempt: int, *, cap: float = RETRY_CAP, base: float = RETRY_BASE
) -> float | None:
    """Seconds to wait before attempt `attempt + 1`, or None when trying again won't help."""
    if not isinstance(error, RateLimited) or isinstance(error, QuotaExhausted):
        return None
    if error.retry_after is not None:
        return error.retry_after if error.retry_after <= cap else None
    return min(cap, base * 2.0**attempt)


async def retrying(
    attempt: Callable[[], AsyncGenerator[T, None]],
    *,
    retries: int = RETRIES,
    cap: float = RETRY_CAP,
    base_delay: float = RETRY_BASE,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> AsyncGenerator[T, None]:
    """What `attempt()` yields; made again after a rate limit or overload before its first item."""
    for n in range(retries + 1):
        started = False
        try:
            async with aclosing(attempt()) as items:
                async for item in items:
                    started = True
                    yield item
            return
        except RateLimited as error:
            wait = (
                None if started or n == retries else retry_wait(error, n, cap=cap, base=base_delay)
            )
            if wait is None:
                raise
            log.info("provider %s busy (%s); retrying in %.2f s", error.provider_id, error, wait)
            await sleep(wait)
