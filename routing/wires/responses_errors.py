"""The Responses API's failures as our errors: its image codes first, then the OpenAI words.

An HTTP error carries the OpenAI body (`{"error": {message, type, param, code}}`);
inside a stream a failure is a `response.failed` event (its `response.error` holds
`code` and `message`) or a standalone `error` event (`code`, `message`, `param`).
An image error code (`invalid_image`, `image_too_large`, ...) means a picture was
refused, so it becomes `PicturesRefused` and the turn heals; the rest are read as
routing/wires/openai_errors.py reads every OpenAI-shape server. Two refusals are
the wire's to learn from (routing/wires/responses.py): pictures inside a tool's
output, and the encrypted reasoning a model without reasoning can't give.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from routing.errors import PicturesRefused, ProviderError
from routing.models import ProviderConfig
from routing.presets import Preset
from routing.refusals import IMAGE_ERROR_CODES, RESPONSES_WORDS, says
from routing.wires.http_errors import who
from routing.wires.openai_errors import parse_error_body, translate_status
from routing.wires.payload import load_json

# Codes of a failure inside the stream that mean an HTTP status (the classifier reads both).
_STREAM_STATUS = {
    "rate_limit_exceeded": 429,
    "insufficient_quota": 429,
    "context_length_exceeded": 400,
    "unsupported_parameter": 400,  # a field this model doesn't take, with its `param`
    "unsupported_value": 400,
    "server_error": 500,
}


def error_code(body_text: str) -> str:
    """The `code` of an error body or a failed response's error, or ""."""
    try:
        body = load_json(body_text)
    except ValueError:
        return ""
    error = body.get("error") if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, str) else ""


def classify_responses(
    provider: ProviderConfig,
    preset: Preset | None,
    status: int,
    body_text: str,
    headers: Mapping[str, str],
    *,
    had_pictures: bool,
    model: str = "",
) -> ProviderError:
    """One failure (an HTTP error, or status 200 for one inside the stream) as our error."""
    code = error_code(body_text)
    if code in IMAGE_ERROR_CODES:
        words = parse_error_body(body_text) or body_text
        where = f"HTTP {status}" if status >= 400 else "in the stream"
        return PicturesRefused(
            f"{who(provider, preset)} could not use a picture in this message ({code}). "
            "Describe it in words, or attach it again as PNG or JPEG.",
            provider_id=provider.id,
            detail=f"{where}: {words[:2000]}",
        )
    if status == 200:
        status = _STREAM_STATUS.get(code, 200)
    return translate_status(
        provider, status, body_text, headers, had_pictures=had_pictures, preset=preset, model=model
    )


def stream_failure(event: Mapping[str, Any]) -> str:
    """A `response.failed` or `error` event as an OpenAI error body, for the classifier."""
    if event.get("type") == "response.failed":
        response = event.get("response")
        error = response.get("error") if isinstance(response, dict) else None
    else:
        error = event
    fields = error if isinstance(error, dict) else {}
    code, message, param = fields.get("code"), fields.get("message"), fields.get("param")
    return json.dumps(
        {
            "error": {
                "message": str(message or "the response failed"),
                "type": "response_failed",
                "code": code if isinstance(code, str) else None,
                "param": param if isinstance(param, str) else None,
            }
        }
    )


def refuses_tool_pictures(error: ProviderError) -> bool:
    """Whether a refusal says the server takes a tool's output as words only."""
    return says(error.detail, RESPONSES_WORDS.tool_pictures)


def refuses_encrypted_reasoning(error: ProviderError) -> bool:
    """Whether a refusal says the model gives no encrypted reasoning (it has none)."""
    return says(error.detail, RESPONSES_WORDS.unsupported_option)
