"""A request's JSON body, read within a cap: 413 past it, 400 for what isn't a JSON object.

The cap is counted on the bytes as they arrive, not only on `Content-Length`: a chunked
body says no length, and a body longer than it said is cut where the cap falls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.serve.errors import MAX_BODY_BYTES, ClientError, too_large
from routing.wires.payload import MAX_NESTING, load_json, too_deep

if TYPE_CHECKING:
    from starlette.requests import Request


async def json_object(request: Request, limit: int = MAX_BODY_BYTES) -> dict[str, Any]:
    """The body as a JSON object; `ClientError` (413 or 400) when it is none."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise too_large(limit)
    chunks: list[bytes] = []
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > limit:
            raise too_large(limit)
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        raise ClientError(400, "The request has no body: send a JSON object.")
    try:
        body = load_json(raw)
    except ValueError as exc:  # UnicodeDecodeError and a nesting past Python's limit too
        raise ClientError(400, f"The body is not valid JSON ({exc}).") from None
    if too_deep(body):
        raise ClientError(400, f"The JSON body is nested deeper than {MAX_NESTING} levels.")
    if not isinstance(body, dict):
        raise ClientError(400, "The body must be a JSON object.")
    return body
