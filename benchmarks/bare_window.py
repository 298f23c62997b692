"""The yardstick for Sightline's start-up: a bare PySide6 window with a list, a text box, a combo.

`python -m benchmarks.bare_window` opens it, waits for its first paint the way
`sightline --smoke` does, prints the same JSON timings and exits. With `--qt-namespace`
its sidebar elides on the right, a flag from Qt's `Qt` namespace: PySide6 builds all of
that namespace's ~100 enums the first time any is used, which every real Qt window
pays and this bare one otherwise never does.
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()  # before Qt, as `run_window` starts its clock before importing Qt

import json  # noqa: E402  (after the clock starts)
import os  # noqa: E402
import sys  # noqa: E402

from PySide6.QtCore import QEvent, QTimer  # noqa: E402
from PySide6.QtWidgets import (  # noqa: E402
    QApplication,
    QComboBox,
    QListWidget,
    QMainWindow,
    QPlainTextEdit,
    QSplitter,
    QVBoxLayout,
    QWidget,
)


def process_age_s() -> float | None:
    """Seconds since this process started (Linux /proc), or None where unknown."""
    try:
        with open("/proc/self/stat", encoding="ascii") as handle:
            stat = handle.read()
        start_ticks = int(stat[stat.rindex(")") + 2 :].split()[19])
        return time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def peak_memory_mib() -> float | None:
    """This process's peak resident memory (VmHWM), as `sightline --smoke` reads its own."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


class Window(QMainWindow):
    """A sidebar list, a conversation list, a combo and a text box: Sightline's bones."""

    def __init__(self, qt_namespace: bool = False) -> None:
        self.painted_at: float | None = None
        self._painting = False  # its first paint has begun
        super().__init__()
        self.setWindowTitle("Bare window")
        self.resize(1100, 720)
        sidebar = QListWidget()
        sidebar.addItems([f"Conversation {n}" for n in range(20)])
        if qt_namespace:
            from PySide6.QtCore import Qt

            sidebar.setTextElideMode(Qt.TextElideMode.ElideRight)
        conversation = QListWidget()
        conversation.addItems([f"Message {n}" for n in range(20)])
        models = QComboBox()
        models.addItems(["Auto", "ollama:llama3.2:3b", "ollama:llava:7b"])
        composer = QPlainTextEdit()
        composer.setPlaceholderText("Message")
        right = QWidget()
        column = QVBoxLayout(right)
        column.addWidget(models)
        column.addWidget(conversation, 1)
        column.addWidget(composer)
        splitter = QSplitter()
        splitter.addWidget(sidebar)
        splitter.addWidget(right)
        self.setCentralWidget(splitter)

    def event(self, event: QEvent) -> bool:
        """The first paint, noted as Sightline's window notes it: once the whole first frame
        (the children too) is drawn, not as the window's own part of it begins."""
        handled = super().event(event)
        if not self._painting and event.type() == QEvent.Type.Paint:
            self._painting = True
            QTimer.singleShot(0, self.first_paint_done)
        return handled

    def first_paint_done(self) -> None:
        """Note the paint, print the timings and quit."""
        self.painted_at = time.perf_counter()
        timings: dict[str, object] = {"smoke": "ok"}
        timings["first_paint_s"] = round(self.painted_at - STARTED, 3)
        age = process_age_s()
        if age is not None:
            timings["since_process_start_s"] = round(
                age - (time.perf_counter() - self.painted_at), 3
            )
        timings["painted_monotonic_s"] = round(
            time.monotonic() - (time.perf_counter() - self.painted_at), 6
        )
        peak = peak_memory_mib()
        if peak is not None:
            timings["peak_rss_mib"] = round(peak, 1)
        print(json.dumps(timings), flush=True)
        QApplication.quit()


def main() -> int:
    """Open the window, exit after its first paint."""
    app = QApplication(sys.argv[:1])
    window = Window(qt_namespace="--qt-namespace" in sys.argv[1:])
    window.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
