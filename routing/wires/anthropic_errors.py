"""Anthropic's failures as our errors: its `error.type` first, then the status and its words.

Anthropic's words for a refused picture, an overlong conversation or a setting a model
doesn't take are `ANTHROPIC_WORDS` in routing/refusals.py; what it said stays in `.detail`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from routing.endpoints import endpoint_name
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
    RateLimited,
    ServerError,
)
from routing.models import ProviderConfig
from routing.refusals import ANTHROPIC_WORDS as WORDS
from routing.refusals import is_context_too_long, refused_setting, refuses_pictures, says
from routing.wires.http_errors import no_longer_fits, setting_refused, sightline_bug
from routing.wires.payload import load_json
from routing.wires.retry import retry_after_seconds, wait_words

DEFAULT_BASE_URL = "https://api.anthropic.com"
KEY_ENV = "ANTHROPIC_API_KEY"


def anthropic_base_url(configured: str | None) -> str:
    """The API root without a trailing slash or `/v1` (the paths add it)."""
    url = (configured or "").strip().rstrip("/") or DEFAULT_BASE_URL
    return url[: -len("/v1")] if url.endswith("/v1") else url


def malformed(provider: ProviderConfig, what: str, sample: str) -> MalformedResponse:
    """An answer that is not in Anthropic's format (`what` says how)."""
    server = endpoint_name(anthropic_base_url(provider.base_url))
    return MalformedResponse(
        f"The answer from {server} was not in Anthropic's format ({what}). Check that the "
        f"provider's address points at the Anthropic API (normally {DEFAULT_BASE_URL}).",
        provider_id=provider.id,
        detail=sample[:500],
    )


def missing_key(provider: ProviderConfig) -> KeyProblem:
    """The error for no key, raised before any request."""
    return KeyProblem(
        f"Anthropic needs an API key: set {KEY_ENV}, or add it in Settings → Providers",
        provider_id=provider.id,
    )


def error_fields(body_text: str) -> tuple[str, str]:
    """(error.type, error.message) of an Anthropic error body, or ("", "")."""
    try:
        obj = load_json(body_text)
    except ValueError:
        return "", ""
    error = obj.get("error") if isinstance(obj, dict) else None
    if not isinstance(error, dict):
        return "", ""
    return str(error.get("type") or ""), str(error.get("message") or "")


def classify_anthropic_error(
    status: int,
    body_text: str,
    headers: Mapping[str, str],
    provider: ProviderConfig,
    *,
    model: str = "",
) -> ProviderError:
    """Turn one Anthropic failure (an HTTP error, or status 200 for an `error` event) into ours."""
    kind, said = error_fields(body_text)
    text = said.lower()
    where = "in the stream" if status == 200 else f"HTTP {status}"
    kw: dict[str, Any] = {"provider_id": provider.id, "detail": f"{where}: {body_text[:500]}"}
    name = model or "that model"
    if status == 413 or kind == "request_too_large":
        return BadRequest(
            "The request was too large for Anthropic (over 32 MB, mostly pictures and files). "
            "Send fewer or smaller pictures, or start a new chat.",
            **kw,
        )
    if status in (503, 529) or kind == "overloaded_error":
        return Overloaded(
            "Anthropic is overloaded right now: try again in a few seconds.",
            retry_after=retry_after_seconds(headers),
            **kw,
        )
    if status == 429 or kind == "rate_limit_error":
        wait = retry_after_seconds(headers)
        when = f"in {wait_words(wait)}" if wait is not None else "in a minute"
        return RateLimited(
            f"Anthropic's rate limit for this API key was reached: try again {when}.",
            retry_after=wait,
            **kw,
        )
    if not kind and body_text.lstrip().startswith("<") and status < 500:
        return malformed(provider, "the address answered with a web page", body_text)
    if status == 401 or kind == "authentication_error":
        return KeyProblem(
            f"Anthropic refused the API key. Check {KEY_ENV}, or replace the key in "
            "Settings → Providers.",
            **kw,
        )
    if status == 403 or kind == "permission_error":
        return KeyProblem(
            f"This Anthropic API key is not allowed to use {name}. Check the key's workspace in "
            f"the Anthropic Console, or set another key ({KEY_ENV}, or Settings → Providers).",
            **kw,
        )
    if status == 402 or kind == "billing_error" or says(text, WORDS.no_credit):
        return KeyProblem(
            "Anthropic refused the request for billing reasons (the credit balance may be too "
            "low). Add credits in the Anthropic Console, or use another key.",
            **kw,
        )
    if status == 404 or kind == "not_found_error":
        if text.startswith("model:") or (model and model in said):
            return ModelNotFound(
                f"Anthropic has no model called {name}, or this key can't use it. Pick one "
                "from the model list.",
                **kw,
            )
        return malformed(provider, "the address has no Messages API", body_text)
    refused = refused_setting(said, WORDS) if kind == "invalid_request_error" else None
    if refused is not None:  # `temperature` is deprecated for this model (Opus 4.7 on)
        return ParameterRefused(
            setting_refused("Anthropic", model, refused, where), param=refused, **kw
        )
    if is_context_too_long(text, WORDS):
        return ContextTooLong(no_longer_fits(name), **kw)
    if refuses_pictures(status, text, words=WORDS):
        return PicturesRefused(
            "Anthropic could not use a picture in this message (it may be damaged, too large, "
            "or in a format Claude does not take). Describe it in words, or attach it again "
            "as PNG or JPEG.",
            **kw,
        )
    if status >= 500 or kind == "api_error" or (status == 200 and kind):
        return ServerError(
            f"Anthropic failed on its side ({where}). Try again in a moment.",
            **kw,
        )
    if not kind:
        return malformed(provider, f"{where} without an Anthropic error", body_text)
    return BadRequest(sightline_bug("Anthropic", f"{where}, {kind}"), **kw)
