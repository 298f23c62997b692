"""The progress of one model being pulled into Ollama: words (app/presenters/pull_words.py),
a bar, and Cancel. Before Ollama knows a size (the manifest) the bar just shows it is busy.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from app.presenters.pull_words import amount_words, status_words
from routing.ollama_models import PullProgress

STEPS = 1000  # the bar's range: tenths of a percent, so a large model's bar still moves


class PullProgressBox(QWidget):
    """The running pull: its status, a progress bar with the amounts, and Cancel."""

    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        """Hidden until `start`."""
        super().__init__(parent)
        self.setAccessibleName("Download")
        self.status = QLabel(self)
        self.status.setAccessibleName("Download status")
        self.status.setWordWrap(True)
        self.bar = QProgressBar(self)
        self.bar.setAccessibleName("Download progress")
        self.bar.setTextVisible(False)  # the amounts below say it in words
        self.amount = QLabel(self)
        self.amount.setAccessibleName("Downloaded so far")
        self.cancel = QPushButton("Cancel", self)
        self.cancel.setAccessibleName("Cancel the download")
        self.cancel.setToolTip("Stop pulling; Ollama keeps what it has, so a new pull carries on")
        self.cancel.clicked.connect(self.cancel_requested)

        row = QHBoxLayout()
        row.addWidget(self.bar, 1)
        row.addWidget(self.cancel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.status)
        layout.addLayout(row)
        layout.addWidget(self.amount)
        self.hide()

    def start(self, name: str) -> None:
        """Show a pull of `name` beginning (busy until Ollama knows its size)."""
        self.status.setText(f"Pulling {name}…")
        self.amount.setText("")
        self.bar.setRange(0, 0)
        self.bar.setAccessibleDescription("")
        self.cancel.setEnabled(True)
        self.show()

    def show_step(self, name: str, step: PullProgress) -> None:
        """Show where the pull is now."""
        self.status.setText(status_words(name, step))
        words = amount_words(step)
        self.amount.setText(words)
        self.bar.setAccessibleDescription(words)
        if step.percent is None:
            self.bar.setRange(0, 0)  # busy: nothing to measure yet
        else:
            self.bar.setRange(0, STEPS)
            self.bar.setValue(round(step.percent * STEPS / 100))

    def finish(self) -> None:
        """The pull is over (done, failed or cancelled): the dialog's message says how."""
        self.hide()
