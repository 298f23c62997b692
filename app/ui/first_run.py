"""The welcome in the empty chat the first time: which local servers answered, and what next.

First time means no config file and no conversations yet. `welcome`
(app/presenters/welcome.py) puts the model listing into words; `FirstRunPanel`
shows them.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.presenters.welcome import WELCOME, Welcome

_READY, _NOT_READY = "#16a34a", "#8a94a0"  # a server with models; one without, or none


def _code(text: str) -> str:
    """Plain words to rich text, with `backticked` commands in a fixed-width font."""
    import html  # here, not at the top: its entity table (~1 ms) isn't needed to paint

    parts = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


class FirstRunPanel(QFrame):
    """The welcome: servers found (or not) on this computer, the next step, and a way out."""

    retry_requested = Signal()
    cloud_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        """An empty panel; `show_welcome` fills it."""
        super().__init__(parent)
        self.setObjectName("firstRunPanel")
        self.setAccessibleName("Welcome")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setMaximumWidth(680)
        self.title = QLabel(WELCOME, self)
        self.title.setAccessibleName("Welcome title")
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.title.setFont(font)
        self.servers = QLabel(self)
        self.servers.setAccessibleName("Servers on this computer")
        self.servers.setWordWrap(True)
        self.servers.setTextFormat(Qt.TextFormat.RichText)
        self.servers.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.next_step = QLabel(self)
        self.next_step.setAccessibleName("What to do next")
        self.next_step.setWordWrap(True)
        self.next_step.setTextFormat(Qt.TextFormat.RichText)
        self.next_step.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.retry = QPushButton("Try again", self)
        self.retry.setAccessibleName("Look for local servers again")
        self.retry.setToolTip("Look for Ollama, LM Studio and llama.cpp again")
        self.cloud = QPushButton("Add a cloud provider…", self)
        self.cloud.setAccessibleName("Add a cloud provider")
        self.cloud.setToolTip("OpenAI, Anthropic, OpenRouter, Gemini and others, with your key")
        self.retry.clicked.connect(self.retry_requested)
        self.cloud.clicked.connect(self.cloud_requested)

        buttons = QHBoxLayout()
        buttons.addWidget(self.retry)
        buttons.addWidget(self.cloud)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(26, 22, 26, 22)
        layout.setSpacing(12)
        layout.addWidget(self.title)
        layout.addWidget(self.servers)
        layout.addWidget(self.next_step)
        layout.addLayout(buttons)

    def show_welcome(self, shown: Welcome) -> None:
        """Say what was found and what to do next."""
        import html  # here, not at the top: see `_code`

        rows = "".join(
            f"<tr><td style='color:{_READY if s.found and s.models else _NOT_READY}'>"
            f"{'✓' if s.found and s.models else '✗' if not s.found else '!'}</td>"
            f"<td>{html.escape(s.words)}</td></tr>"
            for s in shown.servers
        )
        looked = "Sightline looked for model servers on this computer:"
        self.servers.setText(
            f"<p>{looked}</p><table cellspacing='0' cellpadding='2' style='margin-left:8px'>"
            f"{rows}</table>"
        )
        self.next_step.setText(f"<p><b>Next:</b> {_code(shown.next_step)}</p>")
        self.retry.setVisible(shown.can_retry)
        self.setAccessibleDescription(shown.next_step)

    def text(self) -> str:
        """Everything the panel says, as plain text (for tests and screen readers)."""
        return f"{self.title.text()}\n{self.servers.text()}\n{self.next_step.text()}"
