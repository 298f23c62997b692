"""Real animated GIFs made by the tests, fast even when they are huge.

Pillow takes about a second to encode each 8000×8000 frame (and compares frames
as it saves), so a 40-frame one would take most of a minute. One frame is
encoded once and its image block repeated behind each frame's control block:
what a decoder meets is a true animation of that many full-size frames.
"""

from __future__ import annotations

import io
import struct
from functools import cache

from PIL import Image


@cache
def _one_frame(width: int, height: int) -> tuple[bytes, bytes]:
    """The header (with its colour table) and the image block of a one-colour GIF."""
    image = Image.new("P", (width, height), 1)
    image.putpalette([0, 0, 0, 200, 40, 40, 40, 160, 60] + [0] * (253 * 3))
    buffer = io.BytesIO()
    image.save(buffer, format="GIF")
    data = buffer.getvalue()
    packed = data[10]
    table = 3 * (2 ** ((packed & 0x07) + 1)) if packed & 0x80 else 0
    head = data[: 13 + table]
    start = data.index(b"\x2c", 13 + table)  # the image descriptor (after any extension)
    assert data.endswith(b"\x3b")
    return head, data[start:-1]


def animated_gif(width: int, height: int, frames: int) -> bytes:
    """A looping GIF of `frames` full-size frames of `width`×`height` pixels."""
    head, block = _one_frame(width, height)
    loop = b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
    control = b"\x21\xf9\x04\x04" + struct.pack("<H", 10) + b"\x00\x00"  # keep, 0.1 s
    return head + loop + (control + block) * frames + b"\x3b"
