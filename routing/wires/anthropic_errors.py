"""Anthropic's failures as our errors: its `error.type` or status first, then its words.

Anthropic's words for a refused picture, an overlong conversation or a setting a model
doesn't take are `ANTHROPIC_WORDS` in routing/refusals.py; what it said stays in `.detail`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from routing.endpoints import endpoint_name
from routing.errors import KeyProblem, MalformedResponse, ProviderError
from routing.models import ProviderConfig
from routing.refusals import ANTHROPIC_WORDS as WORDS
from routing.refusals import refused_setting, says
from routing.wires.http_errors import not_in_format, refused_by_words, setting_refused
from routing.wires.payload import load_json
from routing.wires.retry import retry_after_seconds, wait_words
from routing.wires.statuses import Failed, Failure, Sentence, failure_of, status_error

DEFAULT_BASE_URL = "https://api.anthropic.com"
KEY_ENV = "ANTHROPIC_API_KEY"


def anthropic_base_url(configured: str | None) -> str:
    """The API root without a trailing slash or `/v1` (the paths add it)."""
    url = (configured or "").strip().rstrip("/") or DEFAULT_BASE_URL
    return url[: -len("/v1")] if url.endswith("/v1") else url


def malformed(provider: ProviderConfig, what: str, sample: str) -> MalformedResponse:
    """An answer that is not in Anthropic's format (`what` says how)."""
    return not_in_format(
        "Anthropic's format",
        what,
        sample,
        f"the Anthropic API (normally {DEFAULT_BASE_URL})",
        provider_id=provider.id,
        server=endpoint_name(anthropic_base_url(provider.base_url)),
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


# How Anthropic's body names a failure (its `error.type`), as the table's.
_NAMED = {
    "request_too_large": Failure.TOO_LARGE,
    "overloaded_error": Failure.OVERLOADED,
    "rate_limit_error": Failure.RATE_LIMITED,
    "authentication_error": Failure.UNAUTHORIZED,
    "permission_error": Failure.FORBIDDEN,
    "billing_error": Failure.NO_CREDIT,
    "not_found_error": Failure.NOT_FOUND,
    "api_error": Failure.SERVER,
}
# The failures a status or an error type names outright, before any words are read, in
# the order they are asked.
_NAMED_FIRST = (
    Failure.TOO_LARGE,
    Failure.UNAVAILABLE,
    Failure.OVERLOADED,
    Failure.RATE_LIMITED,
    Failure.UNAUTHORIZED,
    Failure.FORBIDDEN,
    Failure.NO_CREDIT,
    Failure.NOT_FOUND,
)


def _overloaded(it: Failed) -> str:
    return "Anthropic is overloaded right now: try again in a few seconds."


# Anthropic's own sentences (the rest are the table's, routing/wires/statuses.py).
OWN_WORDS: Mapping[Failure, Sentence] = {
    Failure.TOO_LARGE: lambda it: (
        "The request was too large for Anthropic (over 32 MB, mostly pictures and "
        "files). Send fewer or smaller pictures, or start a new chat."
    ),
    Failure.UNAVAILABLE: _overloaded,
    Failure.OVERLOADED: _overloaded,
    Failure.RATE_LIMITED: lambda it: (
        "Anthropic's rate limit for this API key was reached: try again "
        f"{f'in {wait_words(it.wait)}' if it.wait is not None else 'in a minute'}."
    ),
    Failure.UNAUTHORIZED: lambda it: (
        f"Anthropic refused the API key. Check {KEY_ENV}, or replace the key in "
        "Settings → Providers."
    ),
    Failure.FORBIDDEN: lambda it: (
        f"This Anthropic API key is not allowed to use {it.model or 'that model'}. "
        "Check the key's workspace in the Anthropic Console, or set another key "
        f"({KEY_ENV}, or Settings → Providers)."
    ),
    Failure.NO_MODEL: lambda it: (
        f"Anthropic has no model called {it.model or 'that model'}, or this key "
        "can't use it. Pick one from the model list."
    ),
    Failure.SERVER: lambda it: f"Anthropic failed on its side ({it.where}). Try again in a moment.",
}


def failure_said(status: int, kind: str, text: str) -> Failure:
    """What went wrong, by the status or the body's `error.type` (whichever names a failure
    first, in `_NAMED_FIRST`'s order), or its words about credit."""
    said = {failure_of(status), _NAMED.get(kind)}
    for failure in _NAMED_FIRST:
        if failure is Failure.NOT_FOUND and says(text, WORDS.no_credit):
            return Failure.NO_CREDIT
        if failure in said:
            return failure
    return Failure.SERVER if Failure.SERVER in said else failure_of(status)


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
    wait = retry_after_seconds(headers)
    failed = Failed(
        "Anthropic", status, model, wait, what=f"{where}, {kind}", in_stream=status == 200
    )
    failure = failure_said(status, kind, text)
    early = failure in (Failure.TOO_LARGE, Failure.RATE_LIMITED) or status >= 500
    if not kind and body_text.lstrip().startswith("<") and not early:
        return malformed(provider, "the address answered with a web page", body_text)
    if failure is Failure.NOT_FOUND:
        if not (text.startswith("model:") or (model and model in said)):
            return malformed(provider, "the address has no Messages API", body_text)
        failure = Failure.NO_MODEL
    if failure is Failure.NO_CREDIT:  # Anthropic refuses the key's account, not the request
        return KeyProblem(
            "Anthropic refused the request for billing reasons (the credit balance may be too "
            "low). Add credits in the Anthropic Console, or use another key.",
            **kw,
        )
    if failure in (*_NAMED_FIRST, Failure.NO_MODEL):
        return status_error(failure, failed, OWN_WORDS, **kw)
    refused = refused_setting(said, WORDS) if kind == "invalid_request_error" else None
    if refused is not None:  # `temperature` is deprecated for this model (Opus 4.7 on)
        return setting_refused("Anthropic", model, refused, where, **kw)
    pictures = (
        "Anthropic could not use a picture in this message (it may be damaged, too large, "
        "or in a format Claude does not take). Describe it in words, or attach it again "
        "as PNG or JPEG."
    )
    said_no = refused_by_words(status, text, WORDS, pictures, model=model or "that model", **kw)
    if said_no is not None:
        return said_no
    if status >= 500 or kind == "api_error" or (status == 200 and kind):
        return status_error(Failure.SERVER, failed, OWN_WORDS, **kw)
    if not kind:
        return malformed(provider, f"{where} without an Anthropic error", body_text)
    return status_error(Failure.REQUEST, failed, OWN_WORDS, **kw)
