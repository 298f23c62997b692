"""`screenshot`: the screen (or Sightline's own window) as a picture, with its size in pixels.

This is the one tool that uses Qt: grabbing the screen is what Qt's QScreen does.
It must run on the Qt thread, which is the asyncio thread in both the window
(qasync) and `sightline ask` (plain asyncio on the main thread). Only the grab does:
the PNG is made and checked on a worker thread (a 4K screen: ~160 ms to encode and
~60 to check, which the window would otherwise wait through).
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import TYPE_CHECKING

from app.tools.base import error_result
from routing.transcript import PicturePart, TextPart, ToolCall, ToolResult
from routing.wires.base import ToolSpec
from vision.pictures import Picture, PictureError, sniff

if TYPE_CHECKING:
    from PySide6.QtGui import QImage, QPixmap

SPEC = ToolSpec(
    name="screenshot",
    description=(
        "Take a screenshot of the whole screen, or of Sightline's own window "
        '(window: "sightline"). Returns the picture and its size in pixels.'
    ),
    parameters={
        "type": "object",
        "properties": {
            "screen": {"type": "integer", "description": "Which screen, from 1 (default 1)."},
            "window": {"type": "string", "enum": ["sightline"], "description": "Only this window."},
        },
    },
)

COORDINATES = (
    "Coordinates: x counts pixels right from the left edge, y counts pixels down from the "
    "top edge, both in this picture's pixels."
)
_NO_SCREEN_PLATFORMS = {"offscreen", "minimal", "vnc"}
_keep: list[object] = []


def _no_display() -> str:
    return (
        "There is no display to take a screenshot of (no graphical session here). "
        "Run Sightline on a desktop to use this tool."
    )


class Screenshot:
    """The built-in `screenshot` tool."""

    spec = SPEC

    async def run(self, call: ToolCall) -> ToolResult:
        """Grab the screen or window the call names."""
        from PySide6.QtGui import QGuiApplication

        if QGuiApplication.instance() is None:
            has_display = any(os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY"))
            if not has_display and sys.platform.startswith("linux"):
                return error_result(call, _no_display())
            # `sightline ask` has no Qt application; one is made once and kept.
            _keep.append(QGuiApplication(sys.argv[:1]))
        if QGuiApplication.platformName() in _NO_SCREEN_PLATFORMS:
            return error_result(call, _no_display())
        screens = QGuiApplication.screens()
        window = call.arguments.get("window")
        if window == "sightline":
            pixmap = _own_window()
            if pixmap is None:
                return error_result(call, "Sightline has no window open to capture.")
            what = "Sightline's window"
        else:
            number = call.arguments.get("screen", 1)
            if not isinstance(number, int) or not 1 <= number <= len(screens):
                return error_result(
                    call, f"There is no screen {number!r}; screens: 1-{len(screens)}."
                )
            pixmap = screens[number - 1].grabWindow(0)
            what = f"screen {number} of {len(screens)}"
        if pixmap.isNull():
            return error_result(call, "The screen could not be captured (the system refused).")
        try:
            picture = await asyncio.to_thread(_png, pixmap.toImage())
        except PictureError as exc:
            return error_result(call, str(exc))
        words = f"Screenshot of {what}: {picture.width}×{picture.height} pixels. {COORDINATES}"
        return ToolResult(call.id, call.name, (TextPart(words), PicturePart(picture)))


def _png(image: QImage) -> Picture:
    """The grabbed pixels as a checked PNG (on a worker thread: QImage may leave the Qt one)."""
    from PySide6.QtCore import QBuffer, QIODevice
    from PySide6.QtGui import QImageWriter

    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not QImageWriter(buffer, b"png").write(image):
        raise PictureError("The screenshot could not be made a PNG.")
    return sniff(bytes(buffer.data().data()), label="screenshot.png")


def _own_window() -> QPixmap | None:
    """Sightline's main window as a pixmap, when the window is open."""
    try:
        from PySide6.QtWidgets import QApplication
    except ImportError:  # pragma: no cover - QtWidgets ships with PySide6-Essentials
        return None
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return None
    windows = [w for w in app.topLevelWidgets() if w.isVisible() and w.isWindow()]
    return windows[0].grab() if windows else None
