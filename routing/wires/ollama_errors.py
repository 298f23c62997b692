"""Ollama's failures as our errors: the words of its `error`, then the status.

Ollama's words for a refused picture or an overlong conversation are
`OLLAMA_WORDS` in routing/refusals.py; what Ollama said stays in `.detail`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from routing.addresses import OLLAMA_DEFAULT_URL as DEFAULT_BASE_URL
from routing.errors import (
    BadRequest,
    ContextTooLong,
    KeyProblem,
    MalformedResponse,
    ModelNotFound,
    Overloaded,
    PicturesRefused,
    ProviderError,
    RateLimited,
    ServerError,
)
from routing.refusals import OLLAMA_WORDS as WORDS
from routing.refusals import is_context_too_long, refuses_pictures, says
from routing.wires.http_errors import no_longer_fits, sightline_bug
from routing.wires.payload import load_json
from routing.wires.retry import retry_after_seconds

_BUSY = "Ollama is busy with other requests right now. Wait a moment and try again."


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
    if refuses_pictures(status, message, words=WORDS):
        return PicturesRefused(
            f"{this} can't take pictures, so Ollama refused the message. Describe the "
            "pictures in words, or switch to a model that sees (such as llava or qwen2.5vl).",
            **kw,
        )
    if is_context_too_long(message, WORDS):
        return ContextTooLong(no_longer_fits(model), **kw)
    if status == 404 and says(message, WORDS.no_model):
        return ModelNotFound(
            f"Ollama has no model called {model or 'that'}. Download it with "
            f"`ollama pull {model or 'NAME'}`, or pick one Ollama has.",
            **kw,
        )
    if status in (401, 403):
        return KeyProblem(
            "Ollama refused the request as unauthorized. For cloud models, sign in with "
            "`ollama signin`; behind a proxy, check the provider's API key.",
            **kw,
        )
    wait = retry_after_seconds(headers or {})
    if status == 429:
        return RateLimited(
            "Ollama is getting too many requests: wait and try again.", retry_after=wait, **kw
        )
    if status == 503:  # OLLAMA_MAX_QUEUE passed: "server busy, please try again"
        return Overloaded(_BUSY, retry_after=wait, **kw)
    if status >= 500 or status < 400:
        return ServerError(
            "Ollama failed while answering. Try again; if it keeps failing, check Ollama's log.",
            **kw,
        )
    if says(message, WORDS.no_tools):
        return BadRequest(
            f"{this} can't use tools. Pick a model that can, or turn tools off for this chat.",
            **kw,
        )
    return BadRequest(sightline_bug("Ollama", str(status)), **kw)


def malformed(provider_id: str, what: str, sample: str, *, server: str = "") -> MalformedResponse:
    """An answer that is not in Ollama's format (`what` says how)."""
    source = f"The answer from {server}" if server else "The answer"
    return MalformedResponse(
        f"{source} was not in Ollama's format ({what}). Check that the provider's address "
        f"points at Ollama (by default {DEFAULT_BASE_URL}).",
        provider_id=provider_id,
        detail=sample[:500],
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
