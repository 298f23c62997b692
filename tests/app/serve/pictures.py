"""A small picture as clients send it: PNG bytes, base64 (Ollama) or a data URL (OpenAI)."""

from __future__ import annotations

import base64
import io

from PIL import Image


def png(colour: str = "red", side: int = 8) -> bytes:
    """A small PNG of one colour."""
    out = io.BytesIO()
    Image.new("RGB", (side, side), colour).save(out, format="PNG")
    return out.getvalue()


def as_base64(data: bytes) -> str:
    """The bytes as Ollama's `images` take them: base64, no prefix."""
    return base64.b64encode(data).decode()


def data_url(data: bytes) -> str:
    """The bytes as an OpenAI `image_url` data URL."""
    return "data:image/png;base64," + as_base64(data)
