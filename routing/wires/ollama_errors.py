"""Ollama's failures as our errors: the words of its `error`, then the status.

Ollama's words for a refused picture or an overlong conversation are
`OLLAMA_WORDS` in routing/refusals.py; what Ollama said stays in `.detail`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from routing.addresses import OLLAMA_DEFAULT_URL as DEFAULT_BASE_URL
from routing.errors import MalformedResponse, Overloaded, ProviderError, ServerError
from routing.refusals import OLLAMA_WORDS as WORDS
from routing.refusals import says
from routing.wires.http_errors import not_in_format, refused_by_words
from routing.wires.payload import load_json
from routing.wires.retry import retry_after_seconds
from routing.wires.statuses import Failed, Failure, Sentence, failure_of, status_error

_BUSY = "Ollama is busy with other requests right now. Wait a moment and try again."


def _unauthorized(it: Failed) -> str:
    return (
        "Ollama refused the request as unauthorized. For cloud models, sign in with "
        "`ollama signin`; behind a proxy, check the provider's API key."
    )


# Ollama's own sentences (the rest are the table's, routing/wires/statuses.py).
OWN_WORDS: Mapping[Failure, Sentence] = {
    Failure.NO_MODEL: lambda it: (
        f"Ollama has no model called {it.model or 'that'}. Download it with "
        f"`ollama pull {it.model or 'NAME'}`, or pick one Ollama has."
    ),
    Failure.UNAUTHORIZED: _unauthorized,
    Failure.FORBIDDEN: _unauthorized,
    Failure.RATE_LIMITED: lambda it: "Ollama is getting too many requests: wait and try again.",
    # OLLAMA_MAX_QUEUE passed: "server busy, please try again"
    Failure.UNAVAILABLE: lambda it: _BUSY,
    Failure.SERVER: lambda it: (
        "Ollama failed while answering. Try again; if it keeps failing, check Ollama's log."
    ),
}


def classify_error(
    status: int,
    message: str,
    provider_id: str,
    *,
    model: str = "",
    headers: Mapping[str, str] | None = None,
) -> ProviderError:
    """Turn one Ollama error (HTTP status, or below 400 for a line inside a stream) into ours."""
    detail = f"HTTP {status}: {message}" if status >= 400 else f"in the stream: {message}"
    this = f"The model {model}" if model else "This model"
    kw: dict[str, Any] = {"provider_id": provider_id, "detail": detail}
    pictures = (
        f"{this} can't take pictures, so Ollama refused the message. Describe the "
        "pictures in words, or switch to a model that sees (such as llava or qwen2.5vl)."
    )
    refused = refused_by_words(status, message, WORDS, pictures, model=model, **kw)
    if refused is not None:
        return refused
    failure = failure_of(status)
    if failure is Failure.NOT_FOUND and says(message, WORDS.no_model):
        failure = Failure.NO_MODEL
    elif failure is Failure.REQUEST and says(message, WORDS.no_tools):
        failure = Failure.NO_TOOLS
    wait = retry_after_seconds(headers or {})
    failed = Failed("Ollama", status, model, wait, what=str(status), in_stream=status < 400)
    return status_error(failure, failed, OWN_WORDS, **kw)


def malformed(provider_id: str, what: str, sample: str, *, server: str = "") -> MalformedResponse:
    """An answer that is not in Ollama's format (`what` says how)."""
    return not_in_format(
        "Ollama's format",
        what,
        sample,
        f"Ollama (by default {DEFAULT_BASE_URL})",
        provider_id=provider_id,
        server=server,
    )


def error_text(raw: str) -> str | None:
    """The `error` of an Ollama error body, or None when the body isn't one."""
    try:
        obj = load_json(raw)
    except ValueError:
        return None
    error = obj.get("error") if isinstance(obj, dict) else None
    if isinstance(error, dict):  # OpenAI-style bodies from proxies in front of Ollama
        error = error.get("message")
    return error if isinstance(error, str) else None


def not_ollama(text: str, provider_id: str, *, server: str, what: str = "") -> MalformedResponse:
    """A web page, or a line that is not JSON, where Ollama's JSON should be."""
    what = what or ("a web page" if text.lstrip().startswith("<") else "a line that is not JSON")
    return malformed(provider_id, what, text, server=server)


def classify_answer(
    status: int,
    text: str,
    headers: Mapping[str, str],
    provider_id: str,
    *,
    server: str,
    model: str = "",
) -> ProviderError:
    """One error answer of Ollama's (its status, body and headers) as ours."""
    message = error_text(text)
    if message is not None:
        return classify_error(status, message, provider_id, model=model, headers=headers)
    if text.lstrip().startswith("<") or status < 500:
        return not_ollama(text, provider_id, server=server, what=f"HTTP {status} without an error")
    kw: dict[str, Any] = {"provider_id": provider_id, "detail": f"HTTP {status}: {text[:500]}"}
    if status == 503:
        return Overloaded(_BUSY, **kw)
    return ServerError(f"Ollama failed on its side (HTTP {status}). Try again later.", **kw)
