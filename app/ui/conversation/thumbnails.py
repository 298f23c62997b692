"""Pictures decoded for the screen: upright (EXIF), near the size shown, and cached.

Layout asks `shown_size` for every row of a long chat, so it reads only the
file's header, once per picture. Thumbnails are decoded at about their drawn
size (JPEG decodes smaller directly) and kept as pixmaps, so scrolling redraws
without decoding anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cachetools import LRUCache
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QImage, QPixmap

if TYPE_CHECKING:
    from PySide6.QtCore import QBuffer
    from PySide6.QtGui import QImageReader

    from vision.pictures import Picture

_PIXMAPS = 300  # scaled thumbnails kept
_SIZES = 4096  # header sizes kept (tiny)

_pixmaps: LRUCache[tuple[str, int, int, float], QPixmap] = LRUCache(maxsize=_PIXMAPS)
_sizes: LRUCache[str, QSize] = LRUCache(maxsize=_SIZES)


def _reader(data: bytes) -> tuple[QImageReader, QBuffer]:
    # Qt's image reading loads with the first picture shown, not before the first paint.
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QImageReader

    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer)
    reader.setAutoTransform(True)  # a phone's photo stands as it was taken
    return reader, buffer  # the buffer must outlive the reader's reads


def _turned(reader: QImageReader) -> bool:
    from PySide6.QtGui import QImageIOHandler

    return bool(reader.transformation() & QImageIOHandler.Transformation.TransformationRotate90)


def shown_size(picture: Picture) -> QSize:
    """The picture's size as shown (after EXIF rotation), read from its header only."""
    size = _sizes.get(picture.sha256)
    if size is not None:
        return size
    reader, _buffer = _reader(picture.data)
    raw = reader.size()
    if raw.isValid():
        size = raw.transposed() if _turned(reader) else raw
    else:
        size = QSize(max(1, picture.width), max(1, picture.height))
    _sizes[picture.sha256] = size
    return size


def fit(size: QSize, box: QSize) -> QSize:
    """`size` scaled down (never up) to fit in `box`, keeping its shape; at least 1×1."""
    size = QSize(max(1, size.width()), max(1, size.height()))
    if size.width() > box.width() or size.height() > box.height():
        size = size.scaled(box, Qt.AspectRatioMode.KeepAspectRatio)
    return QSize(max(1, size.width()), max(1, size.height()))


def decode(data: bytes, box: QSize | None = None) -> QImage:
    """The picture upright, scaled down to fit `box` (None: full size); null if unreadable."""
    reader, _buffer = _reader(data)
    turned = _turned(reader)
    raw = reader.size()
    if box is not None and raw.isValid():
        shown = raw.transposed() if turned else raw
        target = fit(shown, box)
        if target != shown:
            # The scaled size applies before the EXIF turn, so it is given unturned.
            reader.setScaledSize(target.transposed() if turned else target)
    image = reader.read()
    if box is not None and not image.isNull() and image.size() != fit(image.size(), box):
        image = image.scaled(
            box, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
        )
    return image


def thumbnail(picture: Picture, size: QSize, ratio: float = 1.0) -> QPixmap:
    """The picture drawn `size` logical pixels large (sharp at `ratio`); null if unreadable."""
    ratio = round(ratio * 4) / 4 or 1.0
    key = (picture.sha256, size.width(), size.height(), ratio)
    pixmap = _pixmaps.get(key)
    if pixmap is not None:
        return pixmap
    box = QSize(max(1, round(size.width() * ratio)), max(1, round(size.height() * ratio)))
    image = decode(picture.data, box)
    pixmap = QPixmap.fromImage(image) if not image.isNull() else QPixmap()
    pixmap.setDevicePixelRatio(ratio)
    _pixmaps[key] = pixmap
    return pixmap
