"""Any bytes given as a picture: a Picture with true facts, or a PictureError saying why.

Arbitrary bytes, and real PNG, JPEG, GIF, WebP, BMP, TIFF and ICO files with bytes
flipped, cut, inserted or deleted, go through `sniff`; whatever it accepts then
goes through `clamp`, which must bring it within the limits or say it can't.
"""

from __future__ import annotations

import hashlib
import io
import time
from functools import cache

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from PIL import Image

import vision.pictures as pictures
from tests.fuzz.strategies import EXAMPLES, FEW, FUZZ, known_bugs
from tests.gifs import animated_gif
from tests.pictures import encoded, gradient, png_claiming
from vision.pictures import (
    Picture,
    PictureError,
    PictureTooLarge,
    clamp,
    sniff,
    without_broken_png_chunks,
)

# Pillow warns about the damage it reads past (corrupt EXIF, say); damage is the point here.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:PIL")

MIMES = {"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/tiff"}
MIMES |= {"image/x-icon"}


@cache
def real_pictures() -> tuple[bytes, ...]:
    """Small real files of every format Sightline reads, in modes that need converting."""
    ramp = gradient()
    rgba = ramp.convert("RGBA")
    rgba.putalpha(128)
    exif = Image.Exif()
    exif[0x0112] = 6  # rotated: clamp must turn it upright
    frames = [ramp, ramp.rotate(90)]
    animated = io.BytesIO()
    frames[0].save(animated, format="GIF", save_all=True, append_images=frames[1:], loop=0)
    return (
        encoded(ramp, "PNG"),
        encoded(rgba, "PNG"),
        encoded(ramp.convert("P"), "PNG", transparency=0),
        encoded(ramp.convert("I;16"), "PNG"),
        encoded(ramp, "JPEG", quality=70, exif=exif.tobytes()),
        encoded(ramp.convert("CMYK"), "JPEG"),
        animated.getvalue(),
        encoded(rgba, "WEBP"),
        encoded(ramp, "BMP"),
        encoded(ramp, "TIFF"),
        encoded(ramp, "ICO"),
    )


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A real picture file with a few bytes flipped, cut, inserted or deleted."""
    data = bytearray(draw(st.sampled_from(real_pictures())))
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        if not data:
            break
        at = draw(st.integers(min_value=0, max_value=len(data) - 1))
        operation = draw(st.sampled_from(["flip", "set", "cut", "insert", "delete"]))
        if operation == "flip":
            data[at] ^= 1 << draw(st.integers(min_value=0, max_value=7))
        elif operation == "set":
            data[at] = draw(st.sampled_from([0x00, 0xFF, 0x7F, 0x80]))
        elif operation == "cut":
            del data[at:]
        elif operation == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
        else:
            del data[at : at + draw(st.integers(min_value=1, max_value=64))]
    return bytes(data)


def sniffed(data: bytes) -> Picture | None:
    """The Picture `sniff` makes, checked against the bytes; None when it refuses them."""
    try:
        picture = sniff(data, label="fuzz.bin")
    except PictureError as error:
        assert "fuzz.bin" in str(error)  # says which file it refuses, and why
        return None
    assert picture.mime in MIMES
    assert picture.width > 0 and picture.height > 0
    assert picture.sha256 == hashlib.sha256(picture.data).hexdigest()
    return picture


@FUZZ
@given(st.binary(max_size=512))
@example(b"")
@example(b"\x89PNG\r\n\x1a\n")
@example(png_claiming(100_000, 100_000))
@example(png_claiming(0, 5))
def test_any_bytes_are_a_picture_or_a_picture_error(data: bytes) -> None:
    read_back(data)


@FUZZ
@given(mutated())
def test_damaged_real_pictures_are_a_picture_or_a_picture_error(data: bytes) -> None:
    read_back(data)


def read_back(data: bytes) -> None:
    """A Picture is these bytes (or them without a broken PNG chunk), and reading its
    bytes again gives the same facts."""
    picture = sniffed(data)
    if picture is not None:
        assert picture.data in (data, without_broken_png_chunks(data))
        assert picture.label == "fuzz.bin"
        assert sniff(picture.data, label="fuzz.bin") == picture


def truncated_gif() -> bytes:
    """An animated GIF cut inside its second frame's header: its first frame is whole."""
    whole = real_pictures()[6]
    return whole[: whole.rindex(b"\x21\xf9\x04") + 4]


CLAMP_BUG = known_bugs(
    "vision/pictures.py:180 clamp: `image.is_animated` on a truncated animated GIF (which sniff "
    "accepts: its first frame loads) raises IndexError or struct.error, not a PictureError"
)


@CLAMP_BUG
def test_a_truncated_animated_gif_is_refused_or_clamped() -> None:
    # sniff walks the frames, so it refuses the animation cut short (a clear PictureError).
    assert sniffed(truncated_gif()) is None


SIDES = st.sampled_from([16, 300, 2048])  # a provider's longest side
BUDGETS = st.sampled_from([800, 5_000, 1_000_000])  # and its bytes


@CLAMP_BUG
@FEW
@given(mutated() | st.sampled_from(real_pictures()), SIDES, BUDGETS)
@example(truncated_gif(), 2048, 1_000_000)
def test_whatever_sniff_accepts_clamp_brings_within_limits(
    data: bytes, max_side: int, max_bytes: int
) -> None:
    clamped_if_sniffed(data, max_side, max_bytes)


@FEW
@given(mutated().filter(lambda data: not data.startswith(b"GIF")), SIDES, BUDGETS)
def test_guard_clamp_brings_within_limits_without_gifs(
    data: bytes, max_side: int, max_bytes: int
) -> None:
    clamped_if_sniffed(data, max_side, max_bytes)


def clamped_if_sniffed(data: bytes, max_side: int, max_bytes: int) -> None:
    """Whatever sniff takes of `data`, clamp brings within the limits or says why."""
    picture = sniffed(data)
    if picture is not None:
        fits_or_says_why(picture, max_side, max_bytes)


def fits_or_says_why(picture: Picture, max_side: int, max_bytes: int) -> None:
    """`clamp` brings the picture within the limits, or says in a note why it can't."""
    try:
        out = clamp(picture, max_side=max_side, max_bytes=max_bytes)
    except PictureTooLarge as error:
        assert str(error).startswith("[") and "left out" in str(error)
        return
    assert out.mime in {"image/png", "image/jpeg", "image/gif", "image/webp"}
    assert max(out.width, out.height) <= max_side
    assert out.size_bytes <= max_bytes
    assert sniffed(out.data) is not None  # what leaves is itself a readable picture


# -- animations of any size and length ---------------------------------------------------


@settings(max_examples=max(EXAMPLES // 15, 6), deadline=None)  # each decodes real frames
@given(
    st.integers(min_value=1, max_value=4500),
    st.integers(min_value=1, max_value=4500),
    st.integers(min_value=1, max_value=60),
)
@example(8000, 8000, 40)
@example(4000, 4000, 40)
@example(1, 1, pictures.WALK_FRAMES + 2)
def test_an_animation_is_walked_within_its_bounds_and_says_what_it_left(
    width: int, height: int, frames: int
) -> None:
    started = time.monotonic()
    picture = sniffed(animated_gif(width, height, frames))
    took = time.monotonic() - started
    assert picture is not None and (picture.width, picture.height) == (width, height)
    assert took < pictures.WALK_SECONDS + 2  # one frame past the deadline at most
    pixels = width * height
    whole = frames == 1 or (
        frames <= pictures.WALK_FRAMES
        and pixels <= pictures.WALK_FRAME_PIXELS
        and frames * pixels <= pictures.WALK_PIXELS
    )
    if whole:  # walked to its end, unless this machine took over the time to do it
        assert picture.note == "" or "seconds" in picture.note
    else:
        assert "its later frames were not looked at" in picture.note
    fits_or_says_why(picture, 2048, 1_000_000)  # what leaves is its first frame, clamped
