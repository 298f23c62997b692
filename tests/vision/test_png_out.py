"""The clamp's PNG writer: every plain mode comes back pixel for pixel, in valid PNG."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from vision import png_out

_DEPTHS = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4}


def _read(data: bytes) -> Image.Image:
    with Image.open(io.BytesIO(data)) as checked:
        checked.verify()  # the chunks' checksums and order
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@settings(max_examples=60, deadline=None)
@given(
    mode=st.sampled_from(sorted(_DEPTHS)),
    width=st.integers(1, 40),
    height=st.integers(1, 40),
    seed=st.binary(min_size=1, max_size=64),
)
def test_every_plain_mode_round_trips_exactly(
    mode: str, width: int, height: int, seed: bytes
) -> None:
    count = width * height * _DEPTHS[mode]
    pixels = (seed * (count // len(seed) + 1))[:count]
    image = Image.frombytes(mode, (width, height), pixels)

    back = _read(png_out.png_bytes(image))

    assert (back.mode, back.size) == (mode, (width, height))
    assert back.tobytes() == image.tobytes()


def test_a_screenshot_sized_picture_round_trips_and_deflates() -> None:
    image = Image.new("RGB", (1920, 1080), (236, 236, 236))
    image.paste((20, 90, 200), (100, 100, 900, 400))

    data = png_out.png_bytes(image)

    assert _read(data).tobytes() == image.tobytes()
    assert len(data) < 1920 * 1080 * 3 // 100  # flat panels deflate to a sliver


def test_deflated_rows_split_over_several_data_chunks_still_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(png_out, "_MAX_CHUNK", 7)
    image = Image.frombytes("RGB", (16, 16), bytes(range(256)) * 3)

    data = png_out.png_bytes(image)

    assert data.count(b"IDAT") > 2
    assert _read(data).tobytes() == image.tobytes()


@pytest.mark.parametrize("mode", ["1", "P", "I;16", "I", "F", "CMYK", "YCbCr", "RGBX"])
def test_other_modes_are_left_to_pillow(mode: str) -> None:
    assert not png_out.writable(Image.new(mode, (4, 4)))
