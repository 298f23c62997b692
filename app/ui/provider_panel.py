"""What the chat area says when no model is ready: what was tried, and how to fix it."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.presenters.model_status import LOOKING, Explanation


def _code(text: str) -> str:
    """Plain words to rich text, with `backticked` commands in a fixed-width font."""
    import html  # here, not at the top: its entity table (~1 ms) isn't needed to paint

    parts = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


class ProviderPanel(QFrame):
    """Shown instead of an empty picker: the listing's progress or why nothing is ready."""

    retry_requested = Signal()
    settings_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        """A panel saying models are being looked for."""
        super().__init__(parent)
        self.setObjectName("providerPanel")
        self.setAccessibleName("Model status")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setMaximumWidth(780)
        self.title = QLabel(LOOKING, self)
        self.title.setAccessibleName("Model status title")
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.title.setFont(font)
        self.details = QLabel(self)
        self.details.setAccessibleName("What was tried")
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.retry = QPushButton("Try again", self)
        self.retry.setAccessibleName("Try again")
        self.retry.setToolTip("Ask every provider for its models again")
        self.retry.clicked.connect(self.retry_requested)
        self.settings = QPushButton("Provider settings…", self)
        self.settings.setAccessibleName("Provider settings")
        self.settings.setToolTip("Add a provider, or fix one's address or key")
        self.settings.clicked.connect(self.settings_requested)

        buttons = QHBoxLayout()
        buttons.addWidget(self.retry)
        buttons.addWidget(self.settings)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(22, 18, 22, 18)
        layout.setSpacing(10)
        layout.addWidget(self.title)
        layout.addWidget(self.details)
        layout.addLayout(buttons)
        self.show_explanation(Explanation(LOOKING))

    def show_explanation(self, explanation: Explanation) -> None:
        """Show a title, what was tried and the advice (details only when nothing is ready)."""
        self.title.setText(explanation.title)
        self.setAccessibleDescription(explanation.title)
        if explanation.tried or explanation.advice:
            import html  # here, not at the top: see `_code`

            items = "".join(
                f"<li><b>{html.escape(where)}</b><br>{_code(outcome)}</li>"
                for where, outcome in explanation.tried
            )
            self.details.setText(
                f"<p>Sightline asked:</p><ul style='margin-left:-18px'>{items}</ul>"
                f"<p><b>What to do:</b> {_code(explanation.advice)}</p>"
            )
            self.details.show()
            self.retry.show()
            self.settings.show()
        else:
            self.details.clear()
            self.details.hide()
            self.retry.hide()
            self.settings.hide()

    def text(self) -> str:
        """Everything the panel says, as plain text (for tests and screen readers)."""
        return f"{self.title.text()}\n{self.details.text()}"
