"""The progress of one model being pulled into Ollama: words, a bar, and Cancel.

Ollama's status words become the person's ("Downloading qwen2.5vl:3b…"), its bytes
"1.2 GB of 3.2 GB · 41 % · 25 MB/s" (decimal units, as Ollama's library writes
sizes). Before Ollama knows a size (the manifest) the bar just shows it is busy.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from routing.ollama_models import PullProgress

STEPS = 1000  # the bar's range: tenths of a percent, so a large model's bar still moves

_PHASES = {
    "pulling manifest": "Asking the library for {name}…",
    "verifying sha256 digest": "Checking the download of {name}…",
    "writing manifest": "Finishing {name}…",
    "removing unused layers": "Tidying up after {name}…",
    "success": "{name} is ready.",
}


def size_words(count: float) -> str:
    """Bytes as people read a download: 3.2 GB, 850 MB, 12 KB."""
    if count >= 1e9:
        return f"{count / 1e9:.1f} GB"
    if count >= 1e6:
        return f"{count / 1e6:.0f} MB"
    if count >= 1e3:
        return f"{count / 1e3:.0f} KB"
    return f"{count:.0f} bytes"


def status_words(name: str, step: PullProgress) -> str:
    """What Ollama is doing with `name`, in words."""
    if step.status in _PHASES:
        return _PHASES[step.status].format(name=name)
    if step.digest:  # "pulling 1a2b3c4d5e6f": one layer of the model
        return f"Downloading {name}…"
    return f"{name}: {step.status}" if step.status else f"Pulling {name}…"


def amount_words(step: PullProgress) -> str:
    """ "1.2 GB of 3.2 GB · 41 % · 25 MB/s": what has come, of how much, and how fast."""
    if step.total <= 0:
        return ""
    parts = [f"{size_words(step.completed)} of {size_words(step.total)}"]
    if step.percent is not None:
        parts.append(f"{int(step.percent)} %")  # floored: 100 % only once it all came
    if step.bytes_per_second is not None and not step.done:
        parts.append(f"{size_words(step.bytes_per_second)}/s")
    return " · ".join(parts)


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
