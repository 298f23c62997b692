"""Buttons and labels made with the name a screen reader says: every control has one."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton, QWidget


def named_button(
    text: str, name: str, tip: str, parent: QWidget | None, *, never_default: bool = False
) -> QPushButton:
    """A push button with its accessible name and tooltip ("" for none). `never_default`:
    Enter pressed elsewhere in its window never presses it."""
    # Not QPushButton(text, parent): PySide6 weighs that against (QIcon, text) and builds
    # QIcon's 157-name enum to do so, before the first paint.
    button = QPushButton(parent)
    button.setText(text)
    button.setAccessibleName(name)
    if tip:
        button.setToolTip(tip)
    if never_default:
        button.setAutoDefault(False)
        button.setDefault(False)
    return button


def named_label(text: str, name: str, parent: QWidget | None, *, rich: bool = False) -> QLabel:
    """A label that wraps its words, with its accessible name; `rich`: the words are rich
    text (a note with <b> and <code> in it)."""
    label = QLabel(text, parent)
    label.setAccessibleName(name)
    label.setWordWrap(True)
    if rich:
        label.setTextFormat(Qt.TextFormat.RichText)
    return label


def small_label(text: str, name: str, parent: QWidget, scale: float = 0.88) -> QLabel:
    """A label in a smaller font, named for screen readers."""
    label = QLabel(text, parent)
    label.setAccessibleName(name)
    font = label.font()
    font.setPointSizeF(max(7.0, font.pointSizeF() * scale))
    label.setFont(font)
    return label
