"""The OpenAI-compatible shape's failures as our errors, for every server that speaks it.

OpenAI, OpenRouter, Mistral, Groq, Gemini's compatibility endpoint, LM Studio,
llama.cpp and the rest each put their words in a body of their own; `error_words`
finds them, and `translate_status` reads them with the shape's `Words` (in
routing/refusals.py) before the status, since providers refuse pictures with 400,
404, 422 and 500 alike; the status then says the rest (routing/wires/statuses.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from routing.errors import BadRequest, MalformedResponse, ModelNotFound, ProviderError
from routing.models import ProviderConfig
from routing.presets import Preset
from routing.refusals import OPENAI_WORDS as WORDS
from routing.refusals import is_role_order_error, refused_setting, says, setting_of
from routing.wires.http_errors import (
    address,
    key_hint,
    looks_like_html,
    refused_by_words,
    server,
    setting_refused,
    who,
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


# OpenAI's codes for a field its model doesn't take, or takes only at its default value.
REFUSED_CODES = ("unsupported_parameter", "unsupported_value")


def refused_param(body_text: str, words: str) -> str | None:
    """The chat's setting a refusal names: OpenAI's `param` under one of its unsupported
    codes, else the words of a server that names it only there (`words`); or None."""
    try:
        body = load_json(body_text)
    except ValueError:
        body = None
    if isinstance(body, list):  # Gemini's compatibility endpoint wraps errors in a list
        body = next((item for item in body if isinstance(item, dict)), None)
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and error.get("code") in REFUSED_CODES:
        param = error.get("param")
        if isinstance(param, str) and (setting := setting_of(param)) is not None:
            return setting
    return refused_setting(words, WORDS)


def parse_error_body(text: str) -> str | None:
    """The provider's message from a raw error body, or None when it isn't JSON we know."""
    try:
        return error_words(load_json(text))
    except ValueError:
        return None


# The OpenAI shape's own sentence for a wrong path (the rest are the table's).
OWN_WORDS: Mapping[Failure, Sentence] = {
    Failure.NOT_FOUND: lambda it: (
        f"{it.at} has no such API path (HTTP 404). Check the provider's base URL "
        "(for OpenAI-compatible servers it usually ends in /v1)."
    )
}
# The failures a status names outright, whatever else the words say.
_NAMED_BY_STATUS = (
    Failure.UNAUTHORIZED,
    Failure.FORBIDDEN,
    Failure.NO_CREDIT,
    Failure.RATE_LIMITED,
    Failure.OVERLOADED,
)


def failure_said(status: int, text: str) -> Failure:
    """What went wrong, by the status (routing/wires/statuses.py) read with the shape's words
    (`text`, in lower case): an error inside a 200 stream has only its words."""
    failure = failure_of(status)
    overloaded = says(text, WORDS.overloaded)
    if status < 400 and (overloaded or says(text, WORDS.rate_limit)):
        failure = Failure.OVERLOADED if overloaded else Failure.RATE_LIMITED
    elif failure is Failure.RATE_LIMITED and says(text, WORDS.no_credit):
        failure = Failure.NO_CREDIT
    elif failure is Failure.RATE_LIMITED and overloaded:
        failure = Failure.OVERLOADED
    if failure in _NAMED_BY_STATUS:
        return failure
    if says(text, WORDS.data_policy) or (400 <= status < 500 and says(text, WORDS.no_model)):
        return Failure.NO_MODEL
    if failure in (Failure.NOT_FOUND, Failure.GAVE_UP):
        return failure
    if overloaded:
        return Failure.UNAVAILABLE
    if failure is Failure.REQUEST and says(text, WORDS.too_large):
        return Failure.TOO_LARGE
    if failure is Failure.REQUEST and says(text, WORDS.no_tools):
        return Failure.NO_TOOLS
    return failure


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
    name = who(provider, preset)
    at = server(provider, preset) if address(provider, preset) else name
    subject = f"The model {model}" if model else "This model"
    words = parse_error_body(body_text)
    where = f"HTTP {status}" if status >= 400 else "in the stream"
    detail = f"{where}: {(words if words is not None else body_text)[:2000]}"
    kw: dict[str, Any] = {"provider_id": provider.id, "detail": detail}
    failed = Failed(name, status, model, at=at, key_hint=key_hint(preset), in_stream=status < 400)
    if words is None and looks_like_html(body_text):
        if status in GATEWAY_STATUSES:
            return status_error(Failure.GATEWAY_DOWN, failed, **kw)
        return MalformedResponse(
            f"{at} answered with a web page, not an API: a sign-in page of the network "
            "(a captive portal) or a wrong address. Sign in to the network, or check the "
            "provider's base URL.",
            **kw,
        )
    text = (words if words is not None else body_text).lower()
    if says(text, WORDS.no_such_path):  # LM Studio's answer to a wrong path, even as 200
        return MalformedResponse(f"{at} has no such API path. Check the provider's base URL.", **kw)
    if is_role_order_error(text, WORDS):
        return BadRequest(
            f"{name} refused the order of the messages. This is a Sightline bug: please report "
            "it with the details.",
            **kw,
        )
    if 400 <= status < 500 and (param := refused_param(body_text, text)) is not None:
        return setting_refused(name, model, param, f"HTTP {status}", **kw)
    pictures = (
        f"{subject} can't take pictures, so {name} refused the message. Describe the "
        "pictures in words, or pick a model that sees."
    )
    # The whole body too: llama.cpp's states the window (n_ctx) beside its words.
    refused = refused_by_words(
        status, text, WORDS, pictures, model=model, had_pictures=had_pictures, body=body_text, **kw
    )
    if refused is not None:
        return refused
    failure = failure_said(status, text)
    if failure is Failure.NO_MODEL and says(text, WORDS.data_policy):
        # OpenRouter's 404 when the account's privacy settings exclude every endpoint.
        return ModelNotFound(
            f"OpenRouter has no endpoint for {model or 'this model'} that your data policy "
            "allows. Change it at openrouter.ai/settings/privacy, or pick another model.",
            **kw,
        )
    if failure in (Failure.RATE_LIMITED, Failure.OVERLOADED):
        failed = replace(failed, wait=retry_after_seconds(headers, text))
    return status_error(failure, failed, OWN_WORDS, **kw)
