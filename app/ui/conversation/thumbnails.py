"""Pictures decoded for the screen: upright (EXIF), near the size shown, and cached.

Layout asks `shown_size` for every row of a long chat, so it reads only the
file's header, once per picture. Thumbnails are decoded at about their drawn
size (JPEG decodes smaller directly) and kept as pixmaps, so scrolling redraws
without decoding anything.

A large picture's first decode is not the window's to wait for: a PNG is read whole
before it is scaled (a 1280×800 screenshot takes ~14 ms, a 4K one ~90), so a chat of
screenshots opened or scrolled through would stop for each. The conversation draws such
a thumbnail's frame at once (`ready`), and the picture as soon as a worker thread has
decoded it (Qt's reader lets go of Python's lock while it reads). The picture viewer has
its large pictures decoded whole the same way (`decode_whole`), uncached.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from cachetools import LRUCache
from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QAbstractScrollArea, QWidget

if TYPE_CHECKING:
    from PySide6.QtCore import QBuffer
    from PySide6.QtGui import QImageReader

    from vision.pictures import Picture

log = logging.getLogger(__name__)

_PIXMAPS = 300  # scaled thumbnails kept
_SIZES = 4096  # header sizes kept (tiny)
# Pictures of more pixels are decoded on a worker thread the first time (500×500: ~3 ms).
BACKGROUND_PIXELS = 250_000

_Key = tuple[str, int, int, float]  # sha256, drawn width and height, device pixel ratio
_Waiting = tuple[QWidget, "Callable[[], None] | None"]  # who drew a frame, what to call


class _Whole:
    """A picture asked for whole by `widget` (a viewer, which holds it itself: not cached)."""

    def __init__(self, widget: QWidget, then: Callable[[QImage], None]) -> None:
        self.widget = widget
        self.then = then


_Asked = tuple["_Key | _Whole", bytes, "QSize | None"]  # what for, the file, the box
_pixmaps: LRUCache[_Key, QPixmap] = LRUCache(maxsize=_PIXMAPS)
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


def ready(
    picture: Picture,
    size: QSize,
    ratio: float,
    widget: QWidget | None,
    then: Callable[[], None] | None = None,
) -> QPixmap | None:
    """The picture drawn `size` logical pixels large (sharp at `ratio`; a null pixmap if it
    can't be read), cached; or None while a large one is decoded on a worker thread for
    `widget`: once it is, `then` is called, or else `widget` is drawn again (neither once
    the widget is gone). With no widget, it is decoded as it is asked for."""
    key, box = _key(picture, size, ratio)
    pixmap = _pixmaps.get(key)
    if pixmap is not None:
        return pixmap
    if picture.width * picture.height <= BACKGROUND_PIXELS or widget is None:
        return _kept(key, decode(picture.data, box))
    _decoding().ask(key, picture.data, box, (widget, then))
    return None


def decode_whole(data: bytes, widget: QWidget, then: Callable[[QImage], None]) -> None:
    """Decode a picture at full size on the worker thread; `then` gets it (null if it can't
    be read) on the window's thread, unless `widget` is gone by then."""
    _decoding().ask_whole(data, _Whole(widget, then))


def _key(picture: Picture, size: QSize, ratio: float) -> tuple[_Key, QSize]:
    """The cache's key for a thumbnail, and the device pixels it is decoded to."""
    ratio = round(ratio * 4) / 4 or 1.0
    box = QSize(max(1, round(size.width() * ratio)), max(1, round(size.height() * ratio)))
    return (picture.sha256, size.width(), size.height(), ratio), box


def _kept(key: _Key, image: QImage) -> QPixmap:
    """A decoded thumbnail made a pixmap (on the window's thread) and cached."""
    pixmap = QPixmap.fromImage(image) if not image.isNull() else QPixmap()
    pixmap.setDevicePixelRatio(key[3])
    _pixmaps[key] = pixmap
    return pixmap


class _Decoding(QObject):
    """Thumbnails decoded on one worker thread, each handed back to the window's thread;
    the newest asked for first (scrolled quickly through a chat of screenshots, the ones
    now in view don't wait behind those scrolled past)."""

    # From the worker: what it was for (a key, or a _Whole) and its QImage, queued to the
    # thread this object lives in.
    _decoded = Signal(object, object)

    def __init__(self) -> None:
        super().__init__()
        self._waiting: dict[_Key, list[_Waiting]] = {}  # a decode under way: who draws it
        self._asked: list[_Asked] = []  # not begun yet, newest last
        self._asking = threading.Lock()  # `_asked` is shared with the worker
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="thumbnails")
        self._decoded.connect(self._keep)

    def ask(self, key: _Key, data: bytes, box: QSize, waiting: _Waiting) -> None:
        """Decode `data` to `box` for `key`, unless it is under way; `waiting` told."""
        already = self._waiting.get(key)
        if already is not None:
            if waiting not in already:
                already.append(waiting)
            return
        self._waiting[key] = [waiting]
        self._queue((key, data, QSize(box)))

    def ask_whole(self, data: bytes, whole: _Whole) -> None:
        """Decode `data` at full size for `whole`, each time asked (a viewer asks once)."""
        self._queue((whole, data, None))

    def _queue(self, asked: _Asked) -> None:
        with self._asking:
            self._asked.append(asked)
        self._worker.submit(self._decode_newest)  # one job for each picture asked for

    def _decode_newest(self) -> None:
        """On the worker: the newest picture asked for and not begun, decoded (a null
        image for one that can't be)."""
        with self._asking:
            wanted, data, box = self._asked.pop()
        try:
            image = decode(data, box)
        except Exception as exc:  # never left waiting: drawn as a picture that can't be read
            log.warning("a picture could not be decoded: %s", type(exc).__name__)
            image = QImage()
        self._decoded.emit(wanted, image)

    def _keep(self, wanted: _Key | _Whole, image: QImage) -> None:
        """On the window's thread: a thumbnail cached, and each widget that drew its frame
        drawn again; a whole picture handed to its viewer."""
        if isinstance(wanted, _Whole):
            if _alive(wanted.widget):
                wanted.then(image)
            return
        key = wanted
        _kept(key, image)
        for widget, then in self._waiting.pop(key, []):
            if not _alive(widget):
                continue
            if then is not None:
                then()
            elif isinstance(widget, QAbstractScrollArea):
                widget.viewport().update()
            else:
                widget.update()


def _alive(widget: QWidget) -> bool:
    """Whether a widget is still there (its Qt side is deleted with its window or card)."""
    try:
        widget.objectName()
    except RuntimeError:  # "Internal C++ object already deleted"
        return False
    return True


_decoder: _Decoding | None = None


def _decoding() -> _Decoding:
    """The one decoder, made with the first large picture drawn."""
    global _decoder
    if _decoder is None:
        _decoder = _Decoding()
    return _decoder
