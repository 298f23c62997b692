"""Scroll areas whose viewport Python made, so asking for it costs nothing.

PySide6 builds its Python classes lazily. The first time Python is handed a widget
that Qt made itself (a scroll area's own viewport), PySide6 must tell which of its
QWidget classes that widget is, and to do so it builds every one of them: about 70
classes and 20–25 ms on a two-core machine, all before the first paint. A viewport
made from Python is already known, so `viewport()` simply returns it.
"""

from __future__ import annotations

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QAbstractScrollArea, QWidget


def own_viewport(area: QAbstractScrollArea) -> QWidget:
    """Give `area` a viewport made here, set up as Qt sets up its own; returns it."""
    viewport = QWidget(area)
    viewport.setObjectName("qt_scrollarea_viewport")  # as Qt names it (style sheets, tests)
    viewport.setBackgroundRole(QPalette.ColorRole.Base)
    viewport.setAutoFillBackground(True)
    area.setViewport(viewport)
    return viewport
