"""Pictures a client sends, made Sightline's `Picture`s: data URLs (OpenAI) and bare base64
(Ollama), decoded within a cap, their type read from their bytes.

A remote `http(s)` URL is refused rather than fetched: fetching would make this server a
door from any client to any address, and a local model's picture would be whatever that
address served.
"""

from __future__ import annotations

import base64
import binascii

from app.serve.errors import ClientError
from vision.pictures import Picture, PictureError, sniff

MAX_PICTURE_BYTES = 20 * 1024 * 1024  # one decoded picture (OpenAI takes 20 MB a picture)
MAX_PICTURES = 32  # in one request, every message together


def from_data_url(url: str, label: str, param: str) -> Picture:
    """An `image_url` part's URL as a picture; `ClientError` (400) for anything else."""
    if url.startswith(("http://", "https://")):
        raise ClientError(
            400,
            "This Sightline server takes pictures as data URLs (data:image/png;base64,...), "
            "not as web addresses: it fetches nothing. Download the picture and send its bytes.",
            param=param,
            code="invalid_image_url",
        )
    head, comma, data = url.partition(",")
    if not url.startswith("data:") or not comma or not head.endswith(";base64"):
        raise ClientError(
            400,
            "Invalid image URL: expected a base64 data URL, such as data:image/png;base64,....",
            param=param,
            code="invalid_image_url",
        )
    return from_base64(data, label, param)


def from_base64(data: str, label: str, param: str) -> Picture:
    """Base64 text (no `data:` prefix) as a picture, within the cap."""
    # Four characters carry three bytes: refuse before decoding what would be too large.
    if len(data) // 4 * 3 > MAX_PICTURE_BYTES:
        raise ClientError(
            413,
            f"{label} is larger than {MAX_PICTURE_BYTES // (1024 * 1024)} MB: send it smaller.",
            param=param,
            code="image_too_large",
        )
    try:
        raw = base64.b64decode("".join(data.split()), validate=True)
    except (binascii.Error, ValueError):
        raise ClientError(
            400, f"{label} is not valid base64.", param=param, code="invalid_base64_image"
        ) from None
    try:
        return sniff(raw, label)
    except PictureError as exc:
        raise ClientError(400, str(exc), param=param, code="invalid_image") from None


def check_count(count: int) -> None:
    """Refuse a request with more pictures than one turn takes."""
    if count > MAX_PICTURES:
        raise ClientError(
            400, f"The request has {count} pictures; this server takes at most {MAX_PICTURES}."
        )
