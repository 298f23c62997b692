"""A picture as Sightline carries it: its bytes, real type, SHA-256 and pixel size.

Opening is defensive: the type comes from the bytes (never the file name), and a
bomb, a truncated file, an empty file or a non-image becomes a `PictureError`
with a message a person can act on. Pillow is imported by the functions that
decode: carrying, storing and sending pictures needs none of it, and a command
that never opens one (`sightline ask` without attachments) starts faster.
"""

from __future__ import annotations

import io
import logging
import struct
import time
import warnings
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from vision.files import FileRefused, content_hash, read_capped, too_large
from vision.labels import shown_name

if TYPE_CHECKING:  # Pillow loads when a picture is first opened, not with this module
    from PIL import Image

log = logging.getLogger(__name__)

# Pillow's own guard is a warning at 89 MP; we refuse earlier and always.
MAX_PIXELS = 64_000_000
MAX_FILE_BYTES = 50_000_000
# Opening walks an animation's frames to find one cut short, within these bounds
# (40 frames of 8000×8000 took 25 s and 800 MB before there were any). Only the
# first frame is ever sent, so a frame not looked at is never one a model gets.
WALK_PIXELS = 100_000_000  # decoded over all the frames walked, the first included
# A frame after the first is held at 4 bytes a pixel, two or three times over while
# it decodes: past 16 MP (about 200 MB) the walk stops at the first frame.
WALK_FRAME_PIXELS = 16_000_000
WALK_SECONDS = 2.0
WALK_FRAMES = 1000

_MIME_BY_FORMAT = {
    "PNG": "image/png",
    "JPEG": "image/jpeg",
    "GIF": "image/gif",
    "WEBP": "image/webp",
    "BMP": "image/bmp",
    "TIFF": "image/tiff",
    "ICO": "image/x-icon",
}


class PictureError(ValueError):
    """A file that can't be used as a picture; the message says why and what to do."""


@dataclass(frozen=True)
class Picture:
    """An image's bytes with facts read from them; does no I/O."""

    data: bytes = field(repr=False)
    mime: str
    width: int
    height: int
    sha256: str
    label: str = ""
    # What opening it could not check (an animation's later frames); not kept in the store.
    note: str = field(default="", compare=False)

    @property
    def size_bytes(self) -> int:
        """How many bytes the encoded picture takes."""
        return len(self.data)


def sniff(data: bytes, label: str = "") -> Picture:
    """Read a picture's real type and size from its bytes, refusing anything unsafe."""
    try:
        return _sniff(data, label)
    except PictureError:
        mended = without_broken_png_chunks(data)
        if mended is None:
            raise
        return _sniff(mended, label)


def _sniff(data: bytes, label: str) -> Picture:
    from PIL import Image, UnidentifiedImageError

    name = label or "the picture"
    if not data:
        raise PictureError(f"{name} is empty (0 bytes); attach the file again.")
    if len(data) > MAX_FILE_BYTES:
        raise PictureError(too_large(name, len(data), MAX_FILE_BYTES, "picture"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                fmt = image.format or ""
                width, height = image.size
                _check_pixels(name, width, height)
                image.load()  # a truncated file fails here, not later in a wire
                note = _walk_frames(image, name)
    except PictureError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise PictureError(f"{name} is too large to open safely ({exc}).") from None
    except UnidentifiedImageError:
        raise PictureError(
            f"{name} is not a picture Sightline can read (PNG, JPEG, GIF, WebP, BMP, TIFF)."
        ) from None
    except MemoryError:
        raise PictureError(f"{name} is too large to open with the memory there is.") from None
    except Exception as exc:  # Pillow's decoders raise any type on corrupt data
        raise PictureError(f"{name} is damaged or truncated and can't be opened ({exc}).") from None
    mime = _MIME_BY_FORMAT.get(fmt)
    if mime is None:
        raise PictureError(f"{name} is a {fmt or 'unknown'} image, which Sightline can't send.")
    return Picture(
        data=data,
        mime=mime,
        width=width,
        height=height,
        sha256=content_hash(data),
        label=label,
        note=note,
    )


def _check_pixels(name: str, width: int, height: int) -> None:
    """Refuse a frame whose size is a decompression bomb's, before it is decoded."""
    from PIL import Image

    limit = min(MAX_PIXELS, Image.MAX_IMAGE_PIXELS or MAX_PIXELS)  # Pillow's guard, if stricter
    if width * height > limit:
        raise PictureError(f"{name} is {width}×{height} pixels, too large to open safely.")


def _walk_frames(image: Image.Image, name: str) -> str:
    """Decode the frames after the first (the first is loaded) within the walk's bounds.

    Finds an animation damaged past its first frame. Returns "" when every frame
    was looked at, else a note saying which were not.
    """
    too_big = "its frames are too large to check them all"
    if image.size[0] * image.size[1] > WALK_FRAME_PIXELS:
        # Seeking on would already turn the first frame into 4 bytes a pixel.
        return _not_walked(name, 1, too_big) if getattr(image, "is_animated", False) else ""
    decoded = image.size[0] * image.size[1]
    deadline = time.monotonic() + WALK_SECONDS
    for frame in range(1, WALK_FRAMES + 1):
        try:
            image.seek(frame)  # reads the frame's header; a cut one fails here
        except EOFError:
            return ""
        pixels = image.size[0] * image.size[1]  # a TIFF's pages each have their own size
        if frame == WALK_FRAMES:
            return _not_walked(name, frame, f"it has over {WALK_FRAMES} frames")
        if pixels > WALK_FRAME_PIXELS or decoded + pixels > WALK_PIXELS:
            return _not_walked(name, frame, too_big)
        if time.monotonic() > deadline:
            return _not_walked(name, frame, f"that would take over {WALK_SECONDS:g} seconds")
        image.load()
        decoded += pixels
    return ""


def _not_walked(name: str, checked: int, why: str) -> str:
    note = (
        f"{name} was checked only up to frame {checked} ({why}); its later frames were "
        "not looked at. Models get its first frame."
    )
    log.info("%s", note)
    return note


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def without_broken_png_chunks(data: bytes) -> bytes | None:
    """The PNG without its optional chunks whose checksum is wrong; None if that changes nothing.

    Pillow refuses a PNG whose colour profile (iCCP) has a bad checksum, which browsers
    shrug off; server-everything's own get-tiny-image is such a PNG. Optional (ancillary)
    chunks only describe the pixels, so leaving a broken one out keeps the picture.
    """
    if not data.startswith(_PNG_SIGNATURE):
        return None
    kept, pos, dropped = [_PNG_SIGNATURE], len(_PNG_SIGNATURE), False
    while pos + 12 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        end = pos + 12 + length
        if end > len(data):
            return None  # truncated: nothing a checksum can mend
        kind = data[pos + 4 : pos + 8]
        (crc,) = struct.unpack(">I", data[end - 4 : end])
        if zlib.crc32(data[pos + 4 : end - 4]) != crc and kind[0] & 0x20:  # 0x20: ancillary
            dropped = True
        else:
            kept.append(data[pos:end])
        pos = end
        if kind == b"IEND":
            break
    return b"".join(kept) if dropped else None


def open_picture(path: Path) -> Picture:
    """Read and sniff a picture file (a regular file within MAX_FILE_BYTES); errors name it."""
    try:
        data = read_capped(path, MAX_FILE_BYTES, what="picture")
    except FileRefused as exc:
        raise PictureError(str(exc)) from None
    return sniff(data, label=shown_name(path.name))


# -- getting a picture ready to leave -------------------------------------------

MAX_SEND_BYTES = 1_000_000
DEFAULT_MAX_SIDE = 2048
SENDABLE = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_PLAIN_MODES = frozenset({"RGB", "RGBA", "L", "LA"})
_SMALLEST_SIDE = 256  # below this a picture says too little to be worth sending


class PictureTooLarge(PictureError):
    """A picture that could not be brought under the limits; the message is the note to send."""


def clamp(
    picture: Picture,
    *,
    max_side: int = DEFAULT_MAX_SIDE,
    max_bytes: int = MAX_SEND_BYTES,
    sendable: frozenset[str] = SENDABLE,
) -> Picture:
    """The picture as a provider takes it: upright, a plain format, within size and bytes.

    A picture that already fits is returned as it is (same bytes, same SHA-256).
    """
    label = picture.label or "A picture"
    try:
        frame = _prepared(picture, max_side, max_bytes, sendable)
        if frame is None:
            return picture
        for attempt in _encodings(frame, prefer_jpeg=picture.mime == "image/jpeg"):
            data, mime = attempt
            if len(data) <= max_bytes:
                return _made(data, mime, picture.label)
    except MemoryError:  # a stored picture must not end a turn, whatever it holds
        raise PictureError(f"{label} is too large to prepare with the memory there is.") from None
    except Exception as exc:  # Pillow's decoders raise any type on corrupt data
        raise PictureError(f"{label} is damaged ({exc}).") from None
    raise PictureTooLarge(
        f"[{picture.label or 'A picture'} ({picture.width}×{picture.height}) could not be made "
        f"smaller than {max_bytes // 1000} KB to send, so it was left out. Crop it or save "
        "a smaller copy, then attach that.]"
    )


def _shrunk(image: Image.Image, max_side: int) -> Image.Image:
    """The image within `max_side`, its shape kept.

    When a whole factor lands within a quarter under the limit (a 4K screen halved
    to 1920 for 2048), a box reduce does it: exact, crisp on text, and about a
    tenth of a bicubic resample's time. Otherwise bicubic with a reducing gap,
    nearly Lanczos's sharpness on text at half its cost.
    """
    from PIL import Image

    longest = max(image.size)
    if longest <= max_side:
        return image
    factor = -(-longest // max_side)  # the smallest whole factor that fits
    if factor > 1 and longest // factor >= max_side * 3 // 4:
        return image.reduce(factor)
    image.thumbnail((max_side, max_side), Image.Resampling.BICUBIC, reducing_gap=2.0)
    return image


def _prepared(
    picture: Picture, max_side: int, max_bytes: int, sendable: frozenset[str]
) -> Image.Image | None:
    """None when the picture already fits; else its first frame, upright, plain, within size."""
    from PIL import Image, ImageOps

    with Image.open(io.BytesIO(picture.data)) as image:
        animated = bool(getattr(image, "is_animated", False))
        orientation = image.getexif().get(0x0112, 1)
        fits = (
            picture.mime in sendable
            and image.mode in _PLAIN_MODES
            and not animated
            and orientation == 1
            and max(picture.width, picture.height) <= max_side
            and picture.size_bytes <= max_bytes
        )
        if fits:
            return None
        image.seek(0)  # an animation's first frame
        # Upright, plain and within size, each step a new image only where it changes
        # something. Closing the opened image frees its pixels, so it is copied only when
        # no step made a new one (a 4K frame's copy costs a fifth of its decode).
        frame = image if orientation == 1 else ImageOps.exif_transpose(image) or image
        frame = _shrunk(_plain_mode(frame), max_side)
        return frame.copy() if frame is image else frame


def _plain_mode(image: Image.Image) -> Image.Image:
    """Convert modes providers choke on (CMYK, 16-bit, palette, ...) to RGB(A) or L."""
    if image.mode in _PLAIN_MODES:
        image.load()
        return image
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        # 16-bit grey: keep the top 8 bits rather than clipping everything to white.
        return image.point(lambda value: value / 256).convert("L")
    if (image.mode == "P" and "transparency" in image.info) or image.mode == "PA":
        return image.convert("RGBA")
    return image.convert("RGB")


def _encodings(image: Image.Image, *, prefer_jpeg: bool) -> Iterator[tuple[bytes, str]]:
    """Encodings to try, smallest-risk first; each later one gives up more quality."""
    from PIL import Image

    has_alpha = image.mode in ("RGBA", "LA")
    current = image
    while True:
        if not prefer_jpeg or has_alpha:
            yield _encode(current, "PNG"), "image/png"
        flat = _flatten(current) if has_alpha else current
        for quality in (85, 70):
            yield _encode(flat, "JPEG", quality=quality), "image/jpeg"
        width, height = current.size
        if max(width, height) * 3 // 4 < _SMALLEST_SIDE:
            return
        current = current.resize(
            (max(1, width * 3 // 4), max(1, height * 3 // 4)), Image.Resampling.BICUBIC
        )


def _flatten(image: Image.Image) -> Image.Image:
    """Alpha onto white, for JPEG (which has no alpha)."""
    from PIL import Image

    background = Image.new("RGB", image.size, "white")
    background.paste(image.convert("RGBA"), mask=image.convert("RGBA").getchannel("A"))
    return background


def _encode(image: Image.Image, fmt: str, **options: int) -> bytes:
    buffer = io.BytesIO()
    if fmt == "JPEG" and image.mode not in ("RGB", "L"):
        image = image.convert("RGB")
    if fmt == "PNG":
        from vision import png_out  # with zlib-ng, only once a picture is clamped

        if png_out.writable(image):  # the plain modes: a sixth of Pillow's time
            return png_out.png_bytes(image)
        options.setdefault("compress_level", 3)  # 'optimize' costs 4x the time for 0.3% bytes
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def _made(data: bytes, mime: str, label: str) -> Picture:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        width, height = image.size
    return Picture(data, mime, width, height, content_hash(data), label)
