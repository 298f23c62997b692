""" "Get a model that sees": the small models that see, each with its size and a Pull button.

The models and their approximate sizes are routing/ollama_models.py's
`VISION_MODELS`; a size Ollama reports during a pull replaces the approximate one.
A model already installed shows "Installed" instead of Pull.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGridLayout, QGroupBox, QLabel, QPushButton, QWidget

from app.presenters.pull_words import size_words
from routing.ollama_models import VISION_MODELS

SEES_HEADING = "Get a model that sees"


class VisionOffer(QGroupBox):
    """The offer of small models that see; `pull_requested(name)` when one's Pull is pressed."""

    pull_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        """One row a model, in `VISION_MODELS`' order."""
        super().__init__(SEES_HEADING, parent)
        self.setAccessibleName(SEES_HEADING)
        self.rows: dict[str, tuple[QLabel, QLabel, QPushButton]] = {}
        grid = QGridLayout(self)
        intro = QLabel("Small models that see; what they look at stays on this computer.", self)
        intro.setAccessibleName("About the models that see")
        intro.setWordWrap(True)
        grid.addWidget(intro, 0, 0, 1, 3)
        for row, (name, size) in enumerate(VISION_MODELS, start=1):
            title = QLabel(name, self)
            title.setAccessibleName(f"Model {name}")
            amount = QLabel(f"about {size_words(size)}", self)
            amount.setAccessibleName(f"Download size of {name}")
            button = QPushButton("Pull", self)
            button.setAccessibleName(f"Pull {name}")
            button.clicked.connect(lambda _=False, n=name: self.pull_requested.emit(n))
            grid.addWidget(title, row, 0)
            grid.addWidget(amount, row, 1)
            grid.addWidget(button, row, 2)
            self.rows[name] = (title, amount, button)

    def show_installed(self, names: Iterable[str]) -> None:
        """Mark the offered models already installed (no Pull for those)."""
        installed = set(names)
        for name, (_title, _amount, button) in self.rows.items():
            here = name in installed
            button.setText("Installed" if here else "Pull")
            button.setAccessibleName(f"{name} is installed" if here else f"Pull {name}")
            button.setEnabled(not here)

    def show_size(self, name: str, total: int) -> None:
        """The download size Ollama reports for `name`, in place of the approximate one."""
        if name in self.rows and total > 0:
            self.rows[name][1].setText(size_words(total))
