"""A box for JSON pasted as it is (the MCP servers, Zed's agent_servers), and its cursor
put where a mistake in it is."""

from __future__ import annotations

from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from app.ui.conversation.painting import code_font


def json_paste_box(
    parent: QWidget, name: str, description: str, placeholder: str
) -> QPlainTextEdit:
    """A box for JSON pasted as it is: code font, no wrapping, Tab leaves it."""
    box = QPlainTextEdit(parent)
    box.setAccessibleName(name)
    box.setAccessibleDescription(description)
    box.setPlaceholderText(placeholder)
    box.setFont(code_font(parent.font(), 0.95))
    box.setTabChangesFocus(True)
    box.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    box.setMinimumHeight(100)
    return box


def put_cursor_at(box: QPlainTextEdit, position: tuple[int, int] | None) -> None:
    """Put the box's cursor at (line, column), both from 1, where the JSON breaks; nowhere
    for None."""
    if position is None:
        return
    line, column = position
    block = box.document().findBlockByNumber(line - 1)
    if block.isValid():
        cursor = QTextCursor(block)
        cursor.movePosition(QTextCursor.MoveOperation.Right, n=min(column - 1, block.length() - 1))
        box.setTextCursor(cursor)
