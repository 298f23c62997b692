"""What a first send needs, loaded while the window waits for the person to type.

The send and the rows it shows are kept out of the first paint's way (they load on
first use), so the first Enter after a start loaded them: 23 ms from Enter to the
request in a new chat, where a second send in that chat takes 4–5 (`python -m benchmarks
send`); loaded ahead, 11. Once the window has painted and asyncio runs, these modules load one
at a time, each in an event-loop turn of its own, so a key pressed meanwhile waits for
one import at most; then the Qt classes the send uses first (PySide6 builds a class,
with all its enums, the first time Python touches it). `tests/ui/test_warm_up.py`
sends a first message after the warm-up and fails on any Sightline module it still
loads or Qt class it still builds, so these lists can't fall behind the code.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from functools import partial

from PySide6.QtCore import QObject, QTimer

log = logging.getLogger(__name__)

# After the window's first paint and the models' listing begin: that listing is what a
# person waits for first.
DELAY_MS = 400

FIRST_SEND = (
    "concurrent.futures.thread",  # asyncio's default executor, for clamps and file reads
    "app.json_text",
    "app.store.fields",  # a chat's items, read back for the request
    "app.store.parts",
    "app.store.part_reader",
    "app.store.item_rows",
    "app.store.pages",  # the turn's end, where Auto looks for this turn's pictures
    "app.toolbox",
    "app.tools.mcp.config",
    "app.tools.read_file",
    "app.tools.screenshot",
    "app.presenters.turn_tools",
    "app.turn.agent_folder",
    "app.ui.conversation.markdown",
    "app.ui.conversation.switch",
    "app.ui.conversation.thumbnails",
    "app.ui.conversation.pdf_tiles",
    "app.ui.conversation.message_rows",
    "app.ui.conversation.notice_rows",
)
# The Qt classes a first send builds (as tests/ui/test_warm_up.py finds them): the screen
# reader's announcement of the new message (app/ui/announcer.py), and the style and
# painter Qt hands Sightline's drawing code as the new chat is first drawn.
FIRST_SEND_QT = (
    "QtGui.QAccessible",
    "QtGui.QAccessibleEvent",
    "QtGui.QAccessibleAnnouncementEvent",
    "QtWidgets.QCommonStyle",
    "QtWidgets.QStylePainter",
)


class WarmUp(QObject):
    """Loads FIRST_SEND's modules, then builds FIRST_SEND_QT's classes, one step an
    event-loop turn, starting DELAY_MS from now."""

    def __init__(self, parent: QObject) -> None:
        """Start counting down; the work goes with `parent` (the window) if it closes first."""
        super().__init__(parent)
        steps: list[Callable[[], object]] = [
            partial(importlib.import_module, name) for name in FIRST_SEND
        ]
        steps += [partial(_build, name) for name in FIRST_SEND_QT]
        self._pending = steps[::-1]  # the next step last
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._next)
        self._timer.start(DELAY_MS)

    @property
    def done(self) -> bool:
        """Whether every step is taken."""
        return not self._pending

    def _next(self) -> None:
        if not self._pending:
            return
        step = self._pending.pop()
        try:
            step()
        except ImportError as exc:  # a broken install: the send will say so, not the warm-up
            log.warning("could not load ahead of the first send: %s", exc)
        if self._pending:
            self._timer.start(0)


def _build(qt_class: str) -> None:
    """A PySide6 class ("QtGui.QAccessible"), built as it is first touched."""
    module, name = qt_class.split(".")
    getattr(importlib.import_module(f"PySide6.{module}"), name, None)
