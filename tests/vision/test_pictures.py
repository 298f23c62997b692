"""Opening pictures safely: the type from the bytes, a clear message for anything else."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

import vision.pictures as pictures
from tests.gifs import animated_gif
from tests.pictures import picture_bytes
from vision.pictures import WALK_FRAMES, WALK_PIXELS, PictureError, open_picture, sniff


@pytest.mark.parametrize(
    ("fmt", "mime"),
    [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")],
)
def test_type_and_size_come_from_the_bytes(fmt: str, mime: str) -> None:
    data = picture_bytes(size=(8, 6), fmt=fmt)
    picture = sniff(data, label="x.png")
    assert (picture.mime, picture.width, picture.height) == (mime, 8, 6)
    assert picture.sha256 == hashlib.sha256(data).hexdigest()


def test_a_jpeg_named_png_is_a_jpeg(tmp_path: Path) -> None:
    path = tmp_path / "holiday.png"
    path.write_bytes(picture_bytes(size=(8, 6), fmt="JPEG"))
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
    data = picture_bytes(size=(64, 64))
    with pytest.raises(PictureError, match="damaged or truncated"):
        sniff(data[: len(data) // 2], label="cut.png")


def test_decompression_bomb_is_refused_before_decoding() -> None:
    # A 20000×20000 one-bit PNG is tiny on disk and 400 megapixels when opened.
    data = picture_bytes(0, (20_000, 20_000), mode="1")
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

    good = picture_bytes(size=(6, 6))
    payload = b"sRGB\x00" + zlib.compress(b"not really a profile")
    chunk = struct.pack(">I", len(payload)) + b"iCCP" + payload + struct.pack(">I", 0xDEADBEEF)
    broken = good[:33] + chunk + good[33:]  # after the signature and IHDR
    picture = sniff(broken, label="tiny.png")
    assert (picture.mime, picture.width, picture.height) == ("image/png", 6, 6)


# -- hostile files and animations ----------------------------------------------------------


@pytest.mark.parametrize(("kind", "says"), [("zero", "is a device"), ("fifo", "is a pipe")])
def test_a_device_or_a_fifo_is_refused_at_once(tmp_path: Path, kind: str, says: str) -> None:
    path = Path("/dev/zero") if kind == "zero" else tmp_path / "pipe.png"
    if kind == "fifo":
        os.mkfifo(path)
    with pytest.raises(PictureError, match=says):
        open_picture(path)


def test_a_file_over_the_cap_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.png"
    with path.open("wb") as handle:
        handle.truncate(2 * 10**9)  # sparse
    with pytest.raises(PictureError, match=r"too large \(2\.0 GB\); a picture may be at most 50"):
        open_picture(path)


def test_a_huge_animation_is_opened_from_its_first_frame_in_moments() -> None:
    data = animated_gif(8000, 8000, 40)  # walking every frame took 25 s and 800 MB
    started = time.monotonic()
    picture = sniff(data, label="huge.gif")
    assert time.monotonic() - started < 3
    assert (picture.mime, picture.width, picture.height) == ("image/gif", 8000, 8000)
    assert picture.note == (
        "huge.gif was checked only up to frame 1 (its frames are too large to check them "
        "all); its later frames were not looked at. Models get its first frame."
    )


def test_the_frame_walk_stops_at_its_pixel_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    # Its clock is the other bound (tested below): a busy machine must not reach it first.
    monkeypatch.setattr(pictures, "WALK_SECONDS", 600.0)
    per_frame = 3000 * 3000
    walked = WALK_PIXELS // per_frame  # 11 frames of 9 MP within 100 MP
    picture = sniff(animated_gif(3000, 3000, 40), label="big.gif")
    assert f"checked only up to frame {walked} (its frames are too large" in picture.note


def test_the_frame_walk_stops_at_its_frame_count() -> None:
    picture = sniff(animated_gif(8, 8, WALK_FRAMES + 5), label="long.gif")
    assert f"up to frame {WALK_FRAMES} (it has over {WALK_FRAMES} frames)" in picture.note


def test_the_frame_walk_stops_at_its_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pictures, "WALK_SECONDS", 0.0)  # any walk is over time at once
    picture = sniff(animated_gif(64, 64, 5), label="slow.gif")
    assert "up to frame 1 (that would take over 0 seconds)" in picture.note


def test_a_small_animation_is_walked_whole_and_a_picture_has_no_note() -> None:
    assert sniff(animated_gif(200, 100, 30), label="small.gif").note == ""
    assert sniff(picture_bytes(0, (8000, 8000), mode="L"), label="still.png").note == ""
