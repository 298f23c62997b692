"""The picture viewer: a small picture shown as it opens, a large one decoded on a worker
thread while the viewer says it is opening it (and a screen reader told once it shows);
fitting, actual size, and a picture that can't be read."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QSize
from PySide6.QtGui import QColor, QImage
from pytestqt.qtbot import QtBot

from app.ui.conversation import thumbnails
from app.ui.conversation.picture_viewer import PictureViewer
from app.ui.conversation.thumbnails import BACKGROUND_PIXELS
from app.ui.session import Session
from tests.pictures import make_picture
from vision.pictures import Picture


def _viewer(qtbot: QtBot, picture: Picture) -> PictureViewer:
    viewer = PictureViewer(picture)
    qtbot.addWidget(viewer)
    viewer.show()
    return viewer


def _shown_colour(viewer: PictureViewer) -> QColor:
    image = viewer.label.pixmap().toImage()
    return image.pixelColor(image.width() // 2, image.height() // 2)


def test_a_small_picture_is_shown_as_the_viewer_opens(qtbot: QtBot) -> None:
    picture = make_picture("green", (300, 200))
    assert picture.width * picture.height <= BACKGROUND_PIXELS
    viewer = _viewer(qtbot, picture)
    assert not viewer.opening and viewer.actual.isEnabled()
    assert _shown_colour(viewer) == QColor("green")
    viewer.actual.click()
    assert viewer.shown_size() == QSize(300, 200)


def test_a_large_picture_is_decoded_off_the_windows_thread_while_the_viewer_shows(
    qtbot: QtBot,
) -> None:
    picture = make_picture("blue", (1600, 1000))
    threads: list[str] = []
    decode = thumbnails.decode
    release = threading.Event()

    def held(data: bytes, box: QSize | None = None) -> QImage:
        threads.append(threading.current_thread().name)
        release.wait(10)  # as a 4K screenshot's ~80 ms: the viewer is seen before it ends
        return decode(data, box)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(thumbnails, "decode", held)
        viewer = _viewer(qtbot, picture)
        said: list[str] = []
        viewer.opened.connect(said.append)
        # Open at once, at the picture's size (from its header), saying what it waits for.
        assert viewer.opening and viewer.isVisible()
        assert viewer.label.text() == "Opening the picture…"
        assert not viewer.actual.isEnabled() and "1600×1000" in viewer.info.text()
        assert viewer.width() > 360 and viewer.height() > 260
        release.set()
        qtbot.waitUntil(lambda: not viewer.opening)
    assert len(threads) == 1 and threads[0].startswith("thumbnails")
    assert viewer.fitting and _shown_colour(viewer) == QColor("blue")
    # What a screen reader hears once it shows (the window's announcer says it).
    assert said == [f"blue.png is shown: {viewer.info.text()}"] and "fitted" in said[0]
    assert viewer.shown_size().width() <= viewer.area.viewport().width()
    assert viewer.actual.isEnabled()
    viewer.actual.click()
    assert viewer.shown_size() == QSize(1600, 1000)
    assert viewer.info.text().endswith("actual size")


def test_a_large_picture_that_cant_be_read_says_so(qtbot: QtBot) -> None:
    whole = make_picture("red", (1600, 1000))
    damaged = Picture(whole.data[:200], whole.mime, whole.width, whole.height, "e" * 64)
    viewer = _viewer(qtbot, damaged)
    said: list[str] = []
    viewer.opened.connect(said.append)
    qtbot.waitUntil(lambda: not viewer.opening)
    assert viewer.label.text() == "This picture can't be shown here."
    assert said == ["The picture can't be shown here."]  # it has no name
    assert not viewer.actual.isEnabled()


def test_a_viewer_closed_before_its_picture_is_decoded_is_passed_over(qtbot: QtBot) -> None:
    decode, started, release = thumbnails.decode, threading.Event(), threading.Event()
    decoded: list[str] = []

    def held(data: bytes, box: QSize | None = None) -> QImage:
        started.set()
        release.wait(10)
        image = decode(data, box)
        decoded.append(image.pixelColor(0, 0).name())
        return image

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(thumbnails, "decode", held)
        gone = PictureViewer(make_picture("yellow", (1600, 1000)))
        assert started.wait(10)  # its decode under way, held
        gone.deleteLater()  # closed (deleted on close, as the window's viewer is)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        del gone
        viewer = _viewer(qtbot, make_picture("cyan", (1600, 1000)))
        release.set()
        qtbot.waitUntil(lambda: not viewer.opening)  # handed over after the one gone
    assert decoded == [QColor("yellow").name(), QColor("cyan").name()]
    assert _shown_colour(viewer) == QColor("cyan")


def test_the_window_tells_a_screen_reader_once_a_large_picture_shows(
    session: Session, qtbot: QtBot
) -> None:
    said: list[str] = []
    session.window.announcer.announced.connect(lambda words, _assertive: said.append(words))
    viewer = session.window.open_picture(make_picture("green", (1600, 1000)))
    assert viewer.opening and said == []
    qtbot.waitUntil(lambda: not viewer.opening)
    assert said == [f"green.png is shown: {viewer.info.text()}"]
    viewer.close()
