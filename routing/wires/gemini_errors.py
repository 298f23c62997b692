"""Gemini's failures as our errors: its `{"error": {code, status, message, details}}` body.

The words that mean a refused picture, an overlong conversation or a request too
large are `GEMINI_WORDS` in routing/refusals.py; a 429's `RetryInfo` says how long
to wait, and a `QuotaFailure` naming a daily quota means waiting won't help. The
refusal of pictures inside a function response is the wire's to learn from
(routing/wires/gemini.py): `refuses_tool_pictures`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from routing.errors import BadRequest, MalformedResponse, ProviderError
from routing.models import ProviderConfig
from routing.presets import Preset
from routing.refusals import GEMINI_WORDS as WORDS
from routing.refusals import refused_setting, says
from routing.wires.http_errors import (
    key_hint,
    looks_like_html,
    refused_by_words,
    server,
    setting_refused,
)
from routing.wires.payload import load_json
from routing.wires.retry import retry_after_seconds
from routing.wires.statuses import (
    GATEWAY_STATUSES,
    Failed,
    Failure,
    Sentence,
    failure_of,
    status_error,
)

NAME = "Gemini"


@dataclass(frozen=True)
class GeminiError:
    """The fields of one error body ("" and () where it has none)."""

    code: int = 0
    status: str = ""  # INVALID_ARGUMENT, RESOURCE_EXHAUSTED, ...
    message: str = ""
    details: tuple[Mapping[str, Any], ...] = field(default_factory=tuple)

    def reason(self) -> str:
        """The ErrorInfo reason (API_KEY_INVALID, ...), or ""."""
        return next((str(d.get("reason") or "") for d in self.details if "reason" in d), "")

    def retry_delay(self) -> float | None:
        """RetryInfo's retryDelay ("37s") in seconds, or None."""
        delay = next((d.get("retryDelay") for d in self.details if "retryDelay" in d), None)
        if not isinstance(delay, str) or not delay.endswith("s"):
            return None
        try:  # a protobuf Duration in JSON: seconds with an "s"
            seconds = float(delay[:-1])
        except ValueError:
            return None
        return seconds if 0 <= seconds < float("inf") else None

    def violations(self) -> tuple[str, ...]:
        """The descriptions of a BadRequest's field violations (each names its field)."""
        return tuple(
            str(v.get("description") or "")
            for d in self.details
            for v in d.get("fieldViolations") or []
            if isinstance(v, dict)
        )

    def daily_quota(self) -> bool:
        """Whether a QuotaFailure names a daily quota (waiting a minute won't help)."""
        for detail in self.details:
            for violation in detail.get("violations") or []:
                if isinstance(violation, dict) and "PerDay" in str(violation.get("quotaId", "")):
                    return True
        return False


def error_fields(body_text: str) -> GeminiError | None:
    """The error in a body (or in the first of a list of them), or None when it has none."""
    try:
        body = load_json(body_text)
    except ValueError:
        return None
    if isinstance(body, list) and body:  # errors of a stream answered whole come as a list
        body = body[0]
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None
    code = error.get("code")
    details = tuple(d for d in error.get("details") or [] if isinstance(d, dict))
    return GeminiError(
        code if isinstance(code, int) else 0,
        str(error.get("status") or ""),
        str(error.get("message") or ""),
        details,
    )


def refuses_tool_pictures(error: ProviderError) -> bool:
    """Whether a refusal says this model takes no pictures inside a function response."""
    return says(error.detail, WORDS.tool_pictures)


# How Gemini's body names a failure (its `status`), as the table's.
_NAMED = {
    "UNAUTHENTICATED": Failure.UNAUTHORIZED,
    "PERMISSION_DENIED": Failure.FORBIDDEN,
    "RESOURCE_EXHAUSTED": Failure.RATE_LIMITED,
    "NOT_FOUND": Failure.NOT_FOUND,
    "UNAVAILABLE": Failure.UNAVAILABLE,
    "DEADLINE_EXCEEDED": Failure.GAVE_UP,
}

# Gemini's own sentences (the rest are the table's, routing/wires/statuses.py).
OWN_WORDS: Mapping[Failure, Sentence] = {
    Failure.NO_CREDIT: lambda it: (
        f"{NAME} says this key's quota is used up for now (its daily limit, or "
        "billing). Raise the limit in Google AI Studio, wait until it resets, or pick another "
        "provider."
    ),
    Failure.RATE_LIMITED: lambda it: f"{NAME} is limiting requests for this key. {it.wait_advice}",
    Failure.NOT_FOUND: lambda it: (
        f"{it.at} has no such API path (HTTP 404). Check the provider's base URL "
        "(Gemini's is https://generativelanguage.googleapis.com/v1beta)."
    ),
    Failure.TOO_LARGE: lambda it: (
        f"The request is too large for {NAME} (its limit is about 20 MB of pictures "
        "and PDFs in one request). Send fewer or smaller pictures, or start a new chat."
    ),
    Failure.GAVE_UP: lambda it: f"{NAME} gave up answering in time (HTTP {it.status}). Try again.",
    Failure.SERVER: lambda it: f"{NAME} failed while answering ({it.where}). Try again later.",
}


def failure_said(status: int, fields: GeminiError) -> Failure:
    """What went wrong, by the status or by the body's own `status` (an error inside the
    stream has only its body), read with Gemini's words."""
    text = fields.message.lower()
    failure, named = failure_of(status), _NAMED.get(fields.status)
    said = {failure, named}
    bad_key = fields.reason() == "API_KEY_INVALID" or "api key not valid" in text
    if bad_key or Failure.UNAUTHORIZED in said or Failure.FORBIDDEN in said:
        return Failure.UNAUTHORIZED
    if Failure.RATE_LIMITED in said:
        quota = fields.daily_quota() or says(text, WORDS.no_credit)
        return Failure.NO_CREDIT if quota else Failure.RATE_LIMITED
    if Failure.NOT_FOUND in said:
        no_model = says(text, WORDS.no_model) or "models/" in text
        return Failure.NO_MODEL if no_model else Failure.NOT_FOUND
    if Failure.UNAVAILABLE in said or says(text, WORDS.overloaded):
        return Failure.UNAVAILABLE
    if status == 504 or named is Failure.GAVE_UP:  # Gemini's deadline passed
        return Failure.GAVE_UP
    return failure


def classify_gemini(
    provider: ProviderConfig,
    preset: Preset | None,
    status: int,
    body_text: str,
    headers: Mapping[str, str],
    *,
    had_pictures: bool = False,
    model: str = "",
) -> ProviderError:
    """One Gemini failure (an HTTP error, or status 200 for one inside the stream) as ours."""
    fields = error_fields(body_text)
    where = f"HTTP {status}" if status != 200 else "in the stream"
    kw: dict[str, Any] = {"provider_id": provider.id, "detail": f"{where}: {body_text[:2000]}"}
    at = server(provider, preset)
    if fields is None:
        if status in GATEWAY_STATUSES:
            return status_error(Failure.GATEWAY_DOWN, Failed(NAME, status), **kw)
        what = "a web page" if looks_like_html(body_text) else "an answer that is not Gemini's"
        return MalformedResponse(
            f"{at} answered with {what}: a sign-in page of the network "
            "or a wrong address. Sign in to the network, or check the provider's base URL.",
            **kw,
        )
    in_stream = status == 200
    if in_stream and 400 <= fields.code < 600:
        status = fields.code  # an error inside the stream carries its HTTP code
    text, subject = fields.message.lower(), f"The model {model or ''}".strip()
    failed = Failed(
        NAME,
        status,
        model,
        at=at,
        key_hint=key_hint(preset),
        what=f"HTTP {status}, {fields.status or 'no status'}",
        in_stream=in_stream,
    )
    if says(text, WORDS.tool_pictures):
        return BadRequest(f"{subject} takes no pictures inside a tool's answer.", **kw)
    refused = next(
        (r for m in (fields.message, *fields.violations()) if (r := refused_setting(m, WORDS))),
        None,
    )
    if refused is not None and 400 <= status < 500:  # Unknown name "temperature" at ...
        return setting_refused(NAME, model, refused, f"HTTP {status}", **kw)
    if status == 413 or says(text, WORDS.too_large):
        return status_error(Failure.TOO_LARGE, failed, OWN_WORDS, **kw)
    pictures = (
        f"{NAME} could not use a picture in this message (it may be damaged or in a format "
        "it does not take). Describe it in words, or attach it again as PNG or JPEG."
    )
    said_no = refused_by_words(
        status, text, WORDS, pictures, model=model, had_pictures=had_pictures, **kw
    )
    if said_no is not None:
        return said_no
    failure = failure_said(status, fields)
    if failure is Failure.RATE_LIMITED:  # RetryInfo's delay, else the headers' or the words'
        wait = fields.retry_delay() or retry_after_seconds(headers, fields.message)
    else:
        wait = retry_after_seconds(headers)
    return status_error(failure, replace(failed, wait=wait), OWN_WORDS, **kw)
