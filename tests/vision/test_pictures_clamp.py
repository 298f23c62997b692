"""Getting pictures ready to leave: upright, plain formats, bounded size and bytes.

Every picture here is made by the test with Pillow: nothing is downloaded.
"""

from __future__ import annotations

import io
import os

import pytest
from PIL import Image

from tests.pictures import encoded
from vision.pictures import MAX_SEND_BYTES, PictureError, PictureTooLarge, clamp, sniff


def opened(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def test_a_picture_that_fits_is_left_alone() -> None:
    picture = sniff(encoded(Image.new("RGB", (640, 480), "teal"), "PNG"), "small.png")
    assert clamp(picture) is picture


def test_an_8k_png_is_scaled_to_the_side_limit_and_keeps_its_shape() -> None:
    picture = sniff(encoded(Image.new("RGB", (7680, 4320), "navy"), "PNG"), "8k.png")
    out = clamp(picture, max_side=1568)
    # A whole factor (5) lands within a quarter under the limit: a box reduce, exact.
    assert (out.width, out.height) == (1536, 864)
    assert out.size_bytes <= MAX_SEND_BYTES and out.mime == "image/png"
    assert out.sha256 != picture.sha256 and out.label == "8k.png"


@pytest.mark.parametrize(
    ("size", "limit", "expected"),
    [
        ((3840, 2160), 2048, (1920, 1080)),  # a 4K screen halved: a box reduce
        ((3840, 2160), 1568, (1280, 720)),  # Claude's side: a third
        ((2560, 1440), 2048, (2048, 1152)),  # a half would lose too much: bicubic to the limit
        ((2049, 1000), 2048, (2048, 1000)),  # just over: bicubic, not halved
    ],
)
def test_a_large_picture_lands_within_a_quarter_under_the_limit(
    size: tuple[int, int], limit: int, expected: tuple[int, int]
) -> None:
    picture = sniff(encoded(Image.new("RGB", size, "navy"), "PNG"), "big.png")
    out = clamp(picture, max_side=limit)
    assert (out.width, out.height) == expected
    assert limit * 3 // 4 <= max(expected) <= limit


def test_noise_that_no_png_can_hold_under_a_megabyte_becomes_a_jpeg() -> None:
    noise = Image.frombytes("RGB", (1800, 1800), os.urandom(1800 * 1800 * 3))
    out = clamp(sniff(encoded(noise, "PNG"), "noise.png"))
    assert out.mime == "image/jpeg" and out.size_bytes <= MAX_SEND_BYTES


def test_a_large_bmp_becomes_a_sendable_format() -> None:
    picture = sniff(encoded(Image.new("RGB", (3000, 2000), "orange"), "BMP"), "scan.bmp")
    assert picture.mime == "image/bmp" and picture.size_bytes > MAX_SEND_BYTES
    out = clamp(picture)
    assert out.mime in ("image/png", "image/jpeg") and max(out.width, out.height) == 2048


def test_cmyk_jpeg_becomes_rgb() -> None:
    picture = sniff(encoded(Image.new("CMYK", (200, 100), (0, 255, 255, 0)), "JPEG"), "print.jpg")
    out = clamp(picture)
    assert opened(out.data).mode == "RGB" and out.mime == "image/jpeg"


def test_sixteen_bit_png_becomes_eight_bit_without_going_white() -> None:
    grey16 = Image.new("I;16", (64, 64), 32768)  # mid-grey in 16 bits
    picture = sniff(encoded(grey16, "PNG"), "depth.png")
    out = opened(clamp(picture).data)
    assert out.mode == "L"
    assert 120 <= out.getpixel((10, 10)) <= 136  # type: ignore[operator]


def test_palette_png_with_transparency_keeps_its_alpha() -> None:
    image = Image.new("P", (50, 50), 0)
    image.putpalette([255, 0, 0, 0, 255, 0] + [0] * 762)
    image.info["transparency"] = 0
    out = opened(clamp(sniff(encoded(image, "PNG", transparency=0), "icon.png")).data)
    assert out.mode == "RGBA" and out.getpixel((1, 1))[3] == 0  # type: ignore[index]


def test_animated_gif_sends_its_first_frame() -> None:
    frames = [Image.new("RGB", (40, 40), colour) for colour in ("red", "blue", "green")]
    data = encoded(frames[0], "GIF", save_all=True, append_images=frames[1:], duration=100)
    out = clamp(sniff(data, "spin.gif"))
    image = opened(out.data)
    assert out.mime == "image/png" and not getattr(image, "is_animated", False)
    red, _green, blue = image.convert("RGB").getpixel((5, 5))  # type: ignore[misc]
    assert red > 200 and blue < 50


def test_exif_rotation_is_applied() -> None:
    wide = Image.new("RGB", (300, 100), "white")
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90° clockwise to display"
    picture = sniff(encoded(wide, "JPEG", exif=exif), "phone.jpg")
    out = clamp(picture)
    assert (out.width, out.height) == (100, 300)
    assert opened(out.data).getexif().get(0x0112, 1) == 1


def test_truncated_jpeg_is_refused_when_opened() -> None:
    data = encoded(Image.new("RGB", (400, 400), "green"), "JPEG")
    with pytest.raises(PictureError, match="damaged or truncated"):
        sniff(data[: len(data) // 3], "cut.jpg")


def test_what_cannot_fit_becomes_a_note_saying_what_to_do() -> None:
    noise = Image.frombytes("RGB", (600, 600), os.urandom(600 * 600 * 3))
    with pytest.raises(PictureTooLarge) as caught:
        clamp(sniff(encoded(noise, "PNG"), "static.png"), max_bytes=2_000)
    note = str(caught.value)
    assert "static.png" in note and "Crop it or save a smaller copy" in note
