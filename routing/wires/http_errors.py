"""Failures of the SSE wires (OpenAI shape, LM Studio, Anthropic) turned into our errors.

Every HTTP failure passes through here once: the provider's words go to `.detail`
for the log, and `.message` tells the person what to do. `with_retry` waits out a
rate limit or an overloaded server before any word of the answer was shown.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import httpx

from routing.endpoints import endpoint_name, without_credentials
from routing.errors import (
    BadRequest,
    CannotConnect,
    ContextTooLong,
    KeyProblem,
    MalformedResponse,
    ModelNotFound,
    PicturesRefused,
    ProviderError,
    RateLimited,
    ServerError,
    TimedOut,
)
from routing.models import ProviderConfig
from routing.presets import Preset
from routing.refusals import is_context_too_long, is_role_order_error, refuses_pictures
from routing.wires.client import proxy_for
from routing.wires.payload import load_json

log = logging.getLogger(__name__)
T = TypeVar("T")

RETRIES = 2
RETRY_CAP = 20.0  # seconds; a longer wait is the person's to decide
RETRY_BASE = 1.0


class QuotaExhausted(RateLimited):
    """Out of credit or quota: waiting a few seconds will not help, so it is never retried."""


class Overloaded(ServerError):
    """The provider is overloaded for now (503): worth one more try after a pause."""


# -- reading the provider's words ------------------------------------------------


def error_words(body: Any) -> str | None:
    """The provider's message from a parsed error body, with its type and code, or None."""
    if isinstance(body, list):  # Gemini's compatibility endpoint wraps errors in a list
        # One level only: a list inside a list is no provider's error shape.
        return next(
            (w for item in body if isinstance(item, dict) and (w := error_words(item))), None
        )
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    if isinstance(error, str) and error:  # Ollama, LM Studio, xAI
        return error
    if isinstance(error, dict):  # OpenAI, Anthropic, OpenRouter, llama.cpp
        return _with_labels(error) or None
    if body.get("object") == "error" or isinstance(body.get("message"), str):
        return _with_labels(body) or None  # Mistral, vLLM
    detail = body.get("detail")  # FastAPI servers (llama-cpp-python's validation errors)
    if detail:
        return detail if isinstance(detail, str) else str(detail)[:1000]
    return None


def _with_labels(error: Mapping[str, Any]) -> str:
    words = str(error.get("message") or "")
    labels = [str(error[k]) for k in ("type", "code") if error.get(k) not in (None, "")]
    metadata = error.get("metadata")
    if isinstance(metadata, dict) and metadata.get("raw"):  # OpenRouter: the upstream's words
        words += f" (upstream: {str(metadata['raw'])[:1000]})"
    return words + (f" [{', '.join(labels)}]" if labels else "")


def parse_error_body(text: str) -> str | None:
    """The provider's message from a raw error body, or None when it isn't JSON we know."""
    try:
        return error_words(load_json(text))
    except ValueError:
        return None


def looks_like_html(text: str) -> bool:
    """Whether a body is a web page rather than an API's answer."""
    head = text.lstrip()[:200].lower()
    return head.startswith(("<!doctype html", "<html", "<head", "<body")) or (
        head.startswith("<") and "<html" in text[:2000].lower()
    )


# -- waiting ---------------------------------------------------------------------

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_HINT = re.compile(
    r"(?:try again|retry) in (\d+(?:\.\d+)?)\s*"
    r"(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)\b"
)
_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def _duration(value: str) -> float | None:
    """Seconds from "20", "1.5", "20ms", "6m0s" or "1m30.5s"."""
    value = value.strip().lower()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(seconds, 0.0) if math.isfinite(seconds) else None
    parts = _DURATION.findall(value)
    if not parts or "".join(n + u for n, u in parts) != value:
        return None
    total = sum(float(n) * _UNIT[u] for n, u in parts)
    return total if math.isfinite(total) else None


def retry_after_seconds(headers: Mapping[str, str], message: str = "") -> float | None:
    """How long the provider asked us to wait, from its headers or its words; None if unsaid."""
    lower = {k.lower(): v for k, v in headers.items()}
    if (ms := lower.get("retry-after-ms")) is not None:
        with_ms = _duration(ms)
        if with_ms is not None:
            return with_ms / 1000.0
    if (value := lower.get("retry-after")) is not None:
        seconds = _duration(value)
        if seconds is not None:
            return seconds
        try:  # an HTTP date
            return max(parsedate_to_datetime(value).timestamp() - time.time(), 0.0)
        except (TypeError, ValueError, IndexError):
            pass
    for name in ("x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"):
        if (value := lower.get(name)) is not None and (seconds := _duration(value)) is not None:
            return seconds
    if hint := _HINT.search(message.lower()):
        unit = hint.group(2)
        if unit.startswith(("ms", "milli")):
            return float(hint.group(1)) / 1000.0
        return float(hint.group(1)) * (60.0 if unit.startswith("m") else 1.0)
    return None


# -- translation -----------------------------------------------------------------


def _seconds(wait: float) -> str:
    return "a second" if wait <= 1 else f"{round(wait)} seconds"


def _address(provider: ProviderConfig, preset: Preset | None) -> str:
    return provider.base_url or (preset.base_url if preset else "")


def _server(provider: ProviderConfig, preset: Preset | None) -> str:
    """The server by host and port: the base URL's credentials and path stay out of words."""
    return f"The server at {endpoint_name(_address(provider, preset))}"


def _who(provider: ProviderConfig, preset: Preset | None) -> str:
    if preset is not None and preset.kind != "custom":
        return preset.label
    return _server(provider, preset)


def _key_hint(preset: Preset | None) -> str:
    if preset is not None and preset.key_env:
        return f"set {preset.key_env}, or add it in Settings → Providers"
    return "add it in Settings → Providers"


def missing_key(provider: ProviderConfig, preset: Preset | None) -> KeyProblem:
    """The error for a provider that needs a key and has none (raised before any request)."""
    return KeyProblem(
        f"{_who(provider, preset)} needs an API key: {_key_hint(preset)}.",
        provider_id=provider.id,
        detail="no API key configured",
    )


_MODEL_MISSING = (
    "model_not_found",
    "model not found",
    "does not exist",
    "no such model",
    "unknown model",
    "invalid model",
    "model not exist",
    "is not found",
    "not a valid model",
)
_QUOTA = ("insufficient_quota", "exceeded your current quota", "insufficient balance", "credit")


def translate_status(
    provider: ProviderConfig,
    status: int,
    body_text: str,
    headers: Mapping[str, str],
    *,
    had_pictures: bool,
    preset: Preset | None,
    model: str = "",
) -> ProviderError:
    """One HTTP failure (or an error inside a 200 stream) as an error of our tree."""
    who = _who(provider, preset)
    server = _server(provider, preset) if _address(provider, preset) else who
    model_name = model or "this model"
    subject = f"The model {model}" if model else "This model"
    words = parse_error_body(body_text)
    where = f"HTTP {status}" if status >= 400 else "in the stream"
    detail = f"{where}: {(words if words is not None else body_text)[:2000]}"
    kw: dict[str, Any] = {"provider_id": provider.id, "detail": detail}
    if words is None and looks_like_html(body_text):
        if status in (502, 503, 504):
            return Overloaded(f"{who} is unavailable right now (HTTP {status}). Try again.", **kw)
        return MalformedResponse(
            f"{server} answered with a web page, not an API: a sign-in page of the network "
            "(a captive portal) or a wrong address. Sign in to the network, or check the "
            "provider's base URL.",
            **kw,
        )
    text = (words if words is not None else body_text).lower()
    if "unexpected endpoint or method" in text:  # LM Studio's answer to a wrong path, even as 200
        return MalformedResponse(
            f"{server} has no such API path. Check the provider's base URL.",
            **kw,
        )
    if is_role_order_error(text):
        return BadRequest(
            f"{who} refused the order of the messages. This is a Sightline bug: please report "
            "it with the details.",
            **kw,
        )
    if refuses_pictures(status, text, had_pictures):
        return PicturesRefused(
            f"{subject} can't take pictures, so {who} refused the message. Describe the "
            "pictures in words, or pick a model that sees.",
            **kw,
        )
    if is_context_too_long(text):
        return ContextTooLong(
            f"The conversation no longer fits {model_name}'s context. Start a new chat, or "
            "remove earlier messages or pictures.",
            **kw,
        )
    if status in (401, 403):
        return KeyProblem(f"{who} refused the API key (HTTP {status}): {_key_hint(preset)}.", **kw)
    if status == 402 or (status == 429 and any(marker in text for marker in _QUOTA)):
        return QuotaExhausted(
            f"{who} says the account is out of credit or quota. Add credit or raise the "
            "limit in the provider's console, or pick another provider.",
            retry_after=None,
            **kw,
        )
    if status in (429, 529) or (status < 400 and ("rate limit" in text or "overloaded" in text)):
        wait = retry_after_seconds(headers, text)
        after = (
            f" Wait {_seconds(wait)} and try again." if wait else " Wait a moment and try again."
        )
        busy = "is overloaded" if status == 529 or "overloaded" in text else "is limiting requests"
        return RateLimited(f"{who} {busy}.{after}", retry_after=wait, **kw)
    if "data policy" in text:  # OpenRouter's 404 when privacy settings exclude every endpoint
        return ModelNotFound(
            f"OpenRouter has no endpoint for {model_name} that your data policy allows. Change "
            "it at openrouter.ai/settings/privacy, or pick another model.",
            **kw,
        )
    if 400 <= status < 500 and any(marker in text for marker in _MODEL_MISSING):
        return ModelNotFound(
            f"{who} has no model called {model or 'that'}. Pick one of its models.", **kw
        )
    if status == 404:
        return MalformedResponse(
            f"{server} has no such API path (HTTP 404). Check the provider's base URL (for "
            "OpenAI-compatible servers it usually ends in /v1).",
            **kw,
        )
    if status == 408:
        return TimedOut(f"{who} gave up waiting for the request (HTTP 408). Try again.", **kw)
    if status == 503 or "overloaded" in text:
        return Overloaded(f"{who} is overloaded right now. Try again in a moment.", **kw)
    if status >= 500 or status < 400:
        return ServerError(
            f"{who} failed while answering{f' (HTTP {status})' if status >= 500 else ''}. "
            "Try again later.",
            **kw,
        )
    if status == 413 or "request_too_large" in text:
        return BadRequest(
            f"The request is too large for {who} (HTTP {status}). Send fewer or smaller "
            "pictures, or start a new chat.",
            **kw,
        )
    if "does not support tools" in text or "tool use is not supported" in text:
        return BadRequest(
            f"{subject} can't use tools. Pick a model that can, or turn tools off for this chat.",
            **kw,
        )
    return BadRequest(
        f"{who} rejected the request (HTTP {status}). This is a Sightline bug: please report "
        "it with the details.",
        **kw,
    )


def cut_off(provider: ProviderConfig, preset: Preset | None, detail: str) -> ServerError:
    """An answer that stopped before the provider said it was done."""
    who = _who(provider, preset)
    who = f"the {who[4:]}" if who.startswith("The ") else who  # mid-sentence
    return ServerError(
        f"The answer was cut off: the connection to {who} dropped before it finished. Try again.",
        provider_id=provider.id,
        detail=detail,
    )


def translate_transport(
    provider: ProviderConfig, exc: httpx.HTTPError, *, preset: Preset | None = None
) -> ProviderError:
    """A failure to talk to the provider at all (refused, timed out, cut off) as our error."""
    address = _address(provider, preset)
    name = endpoint_name(address)
    who = _who(provider, preset)
    # httpx's words may quote the address, user-info and all; the log gets them without.
    kw: dict[str, Any] = {
        "provider_id": provider.id,
        "detail": without_credentials(f"{type(exc).__name__}: {exc}"),
    }
    proxy = proxy_for(address, local=provider.is_local)
    if proxy is not None and isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        # Through a proxy, the connection that failed is the one to the proxy.
        return CannotConnect(
            f"Nothing answered at the proxy in {proxy.variable} ({proxy.name}) on the way to "
            f"{name}. Start the proxy, or fix or unset {proxy.variable}.",
            **kw,
        )
    if isinstance(exc, httpx.ProxyError):
        through = f"The proxy in {proxy.variable} ({proxy.name})" if proxy else "The proxy"
        fix = f"fix or unset {proxy.variable}" if proxy else "check the proxy settings"
        return CannotConnect(
            f"{through} could not reach {name}. Check your connection, or {fix}.", **kw
        )
    start = ""
    if preset is not None and preset.kind == "lmstudio":
        start = " Start LM Studio's server (Developer → Start Server, or `lms server start`)."
    elif preset is not None and preset.kind == "ollama":
        start = (
            " Is Ollama running? Start it with `ollama serve`, or set OLLAMA_HOST or the "
            "provider's base_url."
        )
    elif provider.is_local:
        start = " Start the server, or fix the provider's base URL."
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        # A connect timeout means nothing answered: the same next step as a refusal.
        return CannotConnect(
            f"Nothing answered at {name}.{start or ' Check your connection.'}", **kw
        )
    if isinstance(exc, httpx.TimeoutException):
        return TimedOut(
            f"{who} stopped answering in time. Try again, or pick a lighter model.", **kw
        )
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
        return cut_off(provider, preset, kw["detail"])
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return CannotConnect(
            f"The base URL of {name or 'the provider'} is not an http:// or https:// address: "
            "fix it in the provider's settings.",
            **kw,
        )
    return ServerError(f"Talking to {who} failed. Try again.", **kw)


# -- retrying --------------------------------------------------------------------


def _retry_wait(error: ProviderError, attempt: int, cap: float, base: float) -> float | None:
    """Seconds to wait before trying again, or None when trying again won't help."""
    if isinstance(error, QuotaExhausted):
        return None
    asked = error.retry_after if isinstance(error, RateLimited) else None
    if asked is not None:
        return asked if asked <= cap else None
    return min(cap, base * (2**attempt))


async def with_retry(
    attempt: Callable[[], Awaitable[T]],
    *,
    retries: int = RETRIES,
    cap: float = RETRY_CAP,
    base_delay: float = RETRY_BASE,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> T:
    """Run `attempt`, trying again after a rate limit or overload (only before any output)."""
    for n in range(retries + 1):
        try:
            return await attempt()
        except (RateLimited, Overloaded) as error:
            wait = _retry_wait(error, n, cap, base_delay) if n < retries else None
            if wait is None:
                raise
            log.info("provider %s busy (%s); retrying in %.2f s", error.provider_id, error, wait)
            await sleep(wait)
    raise AssertionError("unreachable: the last attempt returns or raises")
