"""A panel in the empty chat area (the first run's welcome, or why no model is ready): a
large title, words in rich text with `commands` in a fixed-width font, and two buttons."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget


def code_html(text: str) -> str:
    """Plain words to rich text, with `backticked` commands in a fixed-width font."""
    import html  # here, not at the top: its entity table (~1 ms) isn't needed to paint

    parts = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


class AreaPanel(QFrame):
    """The frame and the title; a kind of panel adds its words and buttons (`lay_out`)."""

    def __init__(
        self, parent: QWidget | None, name: str, title: str, *, title_scale: float, max_width: int
    ) -> None:
        """A panel named `name` (its title "`name` title"), at most `max_width` wide."""
        super().__init__(parent)
        self.setAccessibleName(name)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setMaximumWidth(max_width)
        self.title = QLabel(title, self)
        self.title.setAccessibleName(f"{name} title")
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * title_scale)
        font.setBold(True)
        self.title.setFont(font)

    def rich_label(self, name: str) -> QLabel:
        """An empty label of the panel's for rich text, wrapped, selectable by the mouse."""
        label = QLabel(self)
        label.setAccessibleName(name)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    def lay_out(
        self,
        words: Sequence[QLabel],
        buttons: Sequence[QPushButton],
        margins: tuple[int, int, int, int],
        spacing: int,
    ) -> None:
        """The title, then `words` one under another, then `buttons` in a row on the left."""
        row = QHBoxLayout()
        for button in buttons:
            row.addWidget(button)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(*margins)
        layout.setSpacing(spacing)
        layout.addWidget(self.title)
        for label in words:
            layout.addWidget(label)
        layout.addLayout(row)
