"""Real pictures made by the tests with Pillow: one colour or a ramp, any size and format,
as bytes, as the `Picture` the app sniffs from them, or as a file; PNGs that lie about
their size; and the clamps a module makes, watched for the thread they run on."""

from __future__ import annotations

import io
import random
import struct
import threading
import zlib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from PIL import Image

from vision.pictures import Picture, clamp, sniff

Colour = str | int | tuple[int, ...]


def encoded(image: Image.Image, fmt: str, **options: object) -> bytes:
    """A Pillow image saved as `fmt` (a Pillow format name), with its save options."""
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def picture_bytes(
    colour: Colour = "red", size: tuple[int, int] = (4, 4), fmt: str = "PNG", mode: str = "RGB"
) -> bytes:
    """A picture of one colour (in Pillow's `mode`), encoded as `fmt`."""
    return encoded(Image.new(mode, size, colour), fmt)


def gradient(size: tuple[int, int] = (40, 24)) -> Image.Image:
    """A grey ramp in RGB: a picture with detail, where one colour would squeeze to
    nothing (and a decoder meets real data to damage)."""
    return Image.linear_gradient("L").resize(size).convert("RGB")


def noise_png(size: tuple[int, int], seed: int = 1) -> bytes:
    """A PNG of random pixels: it compresses to nothing, so it stays as large as it is."""
    pixels = random.Random(seed).randbytes(size[0] * size[1] * 3)
    return encoded(Image.frombytes("RGB", size, pixels), "PNG")


def make_picture(
    colour: Colour = "red", size: tuple[int, int] = (4, 4), *, fmt: str = "PNG", label: str = ""
) -> Picture:
    """The same, sniffed as the app would; labelled after its colour unless told."""
    named = colour if isinstance(colour, str) else "picture"
    return sniff(picture_bytes(colour, size, fmt), label=label or f"{named}.{fmt.lower()}")


def named_picture(label: str, colour: Colour = "blue", size: tuple[int, int] = (8, 6)) -> Picture:
    """A small PNG of one colour under the name a person gave it (a file's name)."""
    return make_picture(colour, size, label=label)


def numbered_picture(
    number: int = 0, label: str = "", *, size: tuple[int, int] = (4, 4)
) -> Picture:
    """A PNG different for every number (up to 65,536), so each has its own hash;
    labelled `p{number}.png` unless told."""
    colour = (number % 256, number // 256 % 256, 7)
    return make_picture(colour, size, label=label or f"p{number}.png")


def picture_file(path: Path, colour: Colour = "red", size: tuple[int, int] = (8, 8)) -> Path:
    """A picture saved at `path`, in the format its suffix names."""
    Image.new("RGB", size, colour).save(path)
    return path


def png_claiming(width: int, height: int) -> bytes:
    """A PNG whose header claims a size its (empty) data does not have: a decompression
    bomb's shape, for the checks that must refuse it before decoding."""
    chunk = b"IHDR" + struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    header = struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk))
    return b"\x89PNG\r\n\x1a\n" + header + b"\x00\x00\x00\x00IEND\xaeB`\x82"


def watch_clamps(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> list[tuple[str, bool]]:
    """Each clamp `module` makes from here on (it calls `clamp` by that name): the picture's
    label, and whether it ran on the main thread (the window's, where a turn runs)."""
    made: list[tuple[str, bool]] = []

    def watched(picture: Picture, **limits: Any) -> Picture:
        made.append((picture.label, threading.current_thread() is threading.main_thread()))
        return clamp(picture, **limits)

    monkeypatch.setattr(module, "clamp", watched)
    return made
