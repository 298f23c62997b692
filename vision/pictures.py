"""A picture as Sightline carries it: its bytes, real type, SHA-256 and pixel size.

Opening is defensive: the type comes from the bytes (never the file name), and a
bomb, a truncated file, an empty file or a non-image becomes a `PictureError`
with a message a person can act on.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, UnidentifiedImageError

# Pillow's own guard is a warning at 89 MP; we refuse earlier and always.
MAX_PIXELS = 64_000_000
MAX_FILE_BYTES = 50 * 1024 * 1024

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

    @property
    def size_bytes(self) -> int:
        """How many bytes the encoded picture takes."""
        return len(self.data)


def sniff(data: bytes, label: str = "") -> Picture:
    """Read a picture's real type and size from its bytes, refusing anything unsafe."""
    name = label or "the picture"
    if not data:
        raise PictureError(f"{name} is empty (0 bytes); attach the file again.")
    if len(data) > MAX_FILE_BYTES:
        raise PictureError(
            f"{name} is {len(data) // (1024 * 1024)} MB; pictures over "
            f"{MAX_FILE_BYTES // (1024 * 1024)} MB are not accepted."
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                fmt = image.format or ""
                width, height = image.size
                if width * height > MAX_PIXELS:
                    raise PictureError(
                        f"{name} is {width}×{height} pixels, too large to open safely."
                    )
                image.load()  # a truncated file fails here, not later in a wire
    except PictureError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise PictureError(f"{name} is too large to open safely ({exc}).") from None
    except UnidentifiedImageError:
        raise PictureError(
            f"{name} is not a picture Sightline can read (PNG, JPEG, GIF, WebP, BMP, TIFF)."
        ) from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise PictureError(f"{name} is damaged or truncated and can't be opened ({exc}).") from None
    mime = _MIME_BY_FORMAT.get(fmt)
    if mime is None:
        raise PictureError(f"{name} is a {fmt or 'unknown'} image, which Sightline can't send.")
    return Picture(
        data=data,
        mime=mime,
        width=width,
        height=height,
        sha256=hashlib.sha256(data).hexdigest(),
        label=label,
    )


def open_picture(path: Path) -> Picture:
    """Read and sniff a picture file; errors name the file."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise PictureError(f"{path.name} is {size // (1024 * 1024)} MB, too large to attach.")
        data = path.read_bytes()
    except PictureError:
        raise
    except OSError as exc:
        raise PictureError(f"Can't read {path}: {exc.strerror or exc}.") from None
    return sniff(data, label=path.name)
