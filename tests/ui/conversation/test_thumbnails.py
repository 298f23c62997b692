"""Thumbnails: a large picture is decoded on a worker thread and drawn once it is, a small
one as it is drawn; the view shows a faint frame, then the picture, without waiting."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QEvent, QObject, QSize
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from app.ui.conversation import thumbnails
from app.ui.conversation.thumbnails import BACKGROUND_PIXELS, ready
from routing.transcript import user_message
from tests.pictures import make_picture
from tests.ui.helpers import stored_view
from vision.pictures import Picture

BOX = QSize(120, 90)


class _Paints(QObject):
    """Counts a widget's paint events."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def _large(colour: str) -> Picture:
    picture = make_picture(colour, (800, 600))  # 480,000 pixels
    assert picture.width * picture.height > BACKGROUND_PIXELS
    return picture


def _colour_at_centre(image: QImage) -> QColor:
    return image.pixelColor(image.width() // 2, image.height() // 2)


def test_a_small_picture_is_drawn_as_it_is_asked_for(qtbot: QtBot) -> None:
    widget = QWidget()
    qtbot.addWidget(widget)
    pixmap = ready(make_picture("green", (40, 30)), BOX, 1.0, widget)
    assert pixmap is not None and _colour_at_centre(pixmap.toImage()) == QColor("green")


def test_a_large_picture_is_decoded_off_the_windows_thread_then_drawn(qtbot: QtBot) -> None:
    widget = QWidget()
    qtbot.addWidget(widget)
    widget.show()
    paints = _Paints(widget)
    # Its first paint, before the picture is asked for: a later one is the picture's.
    qtbot.waitUntil(lambda: paints.count > 0)
    picture = _large("blue")
    threads: list[str] = []
    decode = thumbnails.decode

    def watched(data: bytes, box: QSize | None = None) -> QImage:
        threads.append(threading.current_thread().name)
        return decode(data, box)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(thumbnails, "decode", watched)
        assert ready(picture, BOX, 1.0, widget) is None  # its frame now, the picture later
        assert ready(picture, BOX, 1.0, widget) is None  # asked again: decoded once
        before = paints.count
        qtbot.waitUntil(lambda: paints.count > before)  # drawn again once decoded
    assert len(threads) == 1 and threads[0].startswith("thumbnails")
    pixmap = ready(picture, BOX, 1.0, widget)
    assert pixmap is not None and pixmap is ready(picture, BOX, 1.0, widget)  # cached
    assert _colour_at_centre(pixmap.toImage()) == QColor("blue")
    assert ready(picture, BOX, 1.0, None) is pixmap  # asked with no widget: found too


def test_the_newest_picture_asked_for_is_decoded_first(qtbot: QtBot) -> None:
    # Scrolled quickly through screenshots, the ones in view now don't wait for those
    # scrolled past: while the worker decodes one, the last asked for goes next.
    widget = QWidget()
    qtbot.addWidget(widget)
    first, older, newest = _large("orange"), _large("purple"), _large("brown")
    busy, release = threading.Event(), threading.Event()
    order: list[QColor] = []
    decode = thumbnails.decode

    def held(data: bytes, box: QSize | None = None) -> QImage:
        image = decode(data, box)
        order.append(_colour_at_centre(image))
        if len(order) == 1:
            busy.set()
            release.wait(10)
        return image

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(thumbnails, "decode", held)
        assert ready(first, BOX, 1.0, widget) is None
        assert busy.wait(10)  # the worker is on the first
        assert ready(older, BOX, 1.0, widget) is None
        assert ready(newest, BOX, 1.0, widget) is None
        release.set()
        qtbot.waitUntil(lambda: ready(older, BOX, 1.0, widget) is not None)
    assert order == [QColor("orange"), QColor("brown"), QColor("purple")]


def test_a_large_picture_that_cant_be_read_is_not_waited_for_forever(qtbot: QtBot) -> None:
    widget = QWidget()
    qtbot.addWidget(widget)
    damaged = _large("red")
    damaged = Picture(damaged.data[:200], damaged.mime, damaged.width, damaged.height, "d" * 64)
    assert ready(damaged, BOX, 1.0, widget) is None
    qtbot.waitUntil(lambda: ready(damaged, BOX, 1.0, widget) is not None)
    found = ready(damaged, BOX, 1.0, widget)
    assert found is not None and found.isNull()  # drawn as a picture that can't be read


def test_a_widget_gone_before_its_picture_is_decoded_is_passed_over(qtbot: QtBot) -> None:
    widget, stays = QWidget(), QWidget()
    qtbot.addWidget(stays)
    picture = _large("yellow")
    assert ready(picture, BOX, 1.0, widget) is None
    assert ready(picture, BOX, 1.0, stays) is None
    widget.deleteLater()
    widget = None  # type: ignore[assignment]
    qtbot.waitUntil(lambda: ready(picture, BOX, 1.0, stays) is not None)


def test_a_chat_of_large_pictures_shows_their_frames_then_the_pictures(qtbot: QtBot) -> None:
    picture = make_picture("magenta", (1600, 1000))
    view, model = stored_view(qtbot, [user_message("What is this?", (picture,))])
    [(rect, _)] = view.thumbnails(model.index(0, 0))

    def centre() -> QColor:
        return _colour_at_centre(view.viewport().grab(rect).toImage())

    assert centre() != QColor("magenta")  # the first paint didn't wait: a faint frame
    qtbot.waitUntil(lambda: centre() == QColor("magenta"))  # then the picture, unasked
