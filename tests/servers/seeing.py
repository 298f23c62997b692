"""What a loopback server's model "sees" in a picture: the probe's colour, shapes and count.

A fake model that really looks at the pictures it is sent, for the sight check's
tests: it decodes the picture and reads it the way a person would describe the
probe ("4 blue circles"), from its pixels alone, never from the check's own data.
"""

from __future__ import annotations

import base64
import io
from collections import Counter

from PIL import Image

from routing.sight_check import COLOURS


def _nearest(rgb: tuple[int, int, int]) -> str:
    return min(
        COLOURS, key=lambda n: sum((a - b) ** 2 for a, b in zip(COLOURS[n], rgb, strict=True))
    )


def looks_at(data: bytes) -> str:
    """The picture in words: how many shapes of which kind, in which colour."""
    image = Image.open(io.BytesIO(data)).convert("RGB")
    image.thumbnail((192, 96))
    width = image.size[0]
    raw = image.tobytes()  # RGB, row by row
    flat = [(raw[i], raw[i + 1], raw[i + 2]) for i in range(0, len(raw), 3)]
    pixels = {(i % width, i // width): rgb for i, rgb in enumerate(flat)}
    ink = {(x, y) for (x, y), rgb in pixels.items() if sum(rgb) < 600}
    if not ink:
        return "a blank white picture"
    # The commonest ink colour: a shape's edges are blended with the white around it.
    colour = _nearest(Counter(pixels[p] for p in ink).most_common(1)[0][0])
    shapes: list[set[tuple[int, int]]] = []
    left = set(ink)
    while left:  # connected blobs of ink, one per shape
        stack, blob = [left.pop()], set()
        while stack:
            x, y = stack.pop()
            blob.add((x, y))
            for near in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if near in left:
                    left.remove(near)
                    stack.append(near)
        if len(blob) > 4:
            shapes.append(blob)
    xs = [p[0] for p in shapes[0]]
    ys = [p[1] for p in shapes[0]]
    filled = len(shapes[0]) / ((max(xs) - min(xs) + 1) * (max(ys) - min(ys) + 1))
    kind = "squares" if filled > 0.9 else "circles"
    return f"{len(shapes)} {colour} {kind}"


def looks_at_data_url(url: str) -> str:
    """`looks_at` for a `data:image/...;base64,` URL as the OpenAI shape sends it."""
    return looks_at(base64.b64decode(url.split(",", 1)[1]))
