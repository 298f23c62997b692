"""Opening a long stored chat in the window's conversation model and view, offscreen.

`python -m benchmarks.qt_long_chat DATA_FOLDER CONVERSATION_ID` reads the
conversation's items, loads them into `ConversationModel`, and waits for the
`ConversationView` to paint them; it prints the timings as one JSON line.
"""

from __future__ import annotations

import gc
import json
import sys
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QEventLoop, QObject
from PySide6.QtWidgets import QApplication

from app.store import Store
from app.ui.conversation.conversation_model import ConversationModel
from app.ui.conversation.conversation_view import ConversationView

DEADLINE_S = 60.0


class PaintWatch(QObject):
    """Counts the paints of one widget."""

    def __init__(self) -> None:
        super().__init__()
        self.paints = 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Count, never consume."""
        if event.type() == QEvent.Type.Paint:
            self.paints += 1
        return False


def wait_for_paint(app: QApplication, watch: PaintWatch) -> None:
    """Run Qt's events until the watched widget paints once more."""
    before, deadline = watch.paints, time.perf_counter() + DEADLINE_S
    while watch.paints == before:
        if time.perf_counter() > deadline:
            raise TimeoutError("the view did not paint")
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)


def main(folder: str, conversation_id: str) -> int:
    """Measure and print the timings."""
    app = QApplication(sys.argv[:1])
    started = time.perf_counter()
    with Store.open(Path(folder)) as store:
        items = store.items(conversation_id)
    read_s = time.perf_counter() - started

    model = ConversationModel()
    view = ConversationView(model)
    view.resize(900, 700)
    watch = PaintWatch()
    view.viewport().installEventFilter(watch)
    view.show()
    wait_for_paint(app, watch)  # the empty view first, as when the window opens

    started = time.perf_counter()
    model.set_items(items)
    loaded_s = time.perf_counter() - started
    view.scrollToBottom()  # a chat opens at its newest message
    wait_for_paint(app, watch)
    shown_s = time.perf_counter() - started
    print(
        json.dumps({"rows": len(items), "read_s": read_s, "model_s": loaded_s, "shown_s": shown_s})
    )
    # Tear down in order: a filter or view left to the interpreter's exit may outlive Qt.
    view.viewport().removeEventFilter(watch)
    view.close()
    del view, model, watch
    gc.collect()
    app.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
