"""Opening pictures safely: the type from the bytes, a clear message for anything else."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest
from PIL import Image

from vision.pictures import PictureError, open_picture, sniff


def encoded(fmt: str, size: tuple[int, int] = (8, 6), mode: str = "RGB") -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, size, (200, 30, 30) if mode == "RGB" else 0).save(buffer, format=fmt)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("fmt", "mime"),
    [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")],
)
def test_type_and_size_come_from_the_bytes(fmt: str, mime: str) -> None:
    data = encoded(fmt)
    picture = sniff(data, label="x.png")
    assert (picture.mime, picture.width, picture.height) == (mime, 8, 6)
    assert picture.sha256 == hashlib.sha256(data).hexdigest()


def test_a_jpeg_named_png_is_a_jpeg(tmp_path: Path) -> None:
    path = tmp_path / "holiday.png"
    path.write_bytes(encoded("JPEG"))
    assert open_picture(path).mime == "image/jpeg"


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.png"
    path.write_bytes(b"")
    with pytest.raises(PictureError, match=r"empty\.png is empty"):
        open_picture(path)


def test_text_with_an_image_name() -> None:
    with pytest.raises(PictureError, match="not a picture"):
        sniff(b"hello, I am not a picture at all", label="notes.jpg")


def test_truncated_png() -> None:
    data = encoded("PNG", (64, 64))
    with pytest.raises(PictureError, match="damaged or truncated"):
        sniff(data[: len(data) // 2], label="cut.png")


def test_decompression_bomb_is_refused_before_decoding() -> None:
    # A 20000×20000 one-bit PNG is tiny on disk and 400 megapixels when opened.
    data = encoded("PNG", (20_000, 20_000), mode="1")
    assert len(data) < 2_000_000
    with pytest.raises(PictureError, match="too large to open safely"):
        sniff(data, label="bomb.png")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PictureError, match="Can't read"):
        open_picture(tmp_path / "nowhere.png")


def test_a_png_with_a_broken_optional_chunk_still_opens() -> None:
    # Pillow refuses a colour-profile chunk with a bad checksum; browsers don't care.
    # (The reference MCP server's own tiny image is such a PNG.)
    import struct
    import zlib

    good = encoded("PNG", (6, 6))
    payload = b"sRGB\x00" + zlib.compress(b"not really a profile")
    chunk = struct.pack(">I", len(payload)) + b"iCCP" + payload + struct.pack(">I", 0xDEADBEEF)
    broken = good[:33] + chunk + good[33:]  # after the signature and IHDR
    picture = sniff(broken, label="tiny.png")
    assert (picture.mime, picture.width, picture.height) == ("image/png", 6, 6)
