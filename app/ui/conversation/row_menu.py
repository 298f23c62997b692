"""A conversation row's menu (a right click, the Menu key, Shift+F10): copy the message or
one of its code blocks, open it, open and describe its pictures, open its PDFs, and what a
row offers besides (app/ui/conversation/message_actions.py)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPersistentModelIndex
from PySide6.QtWidgets import QMenu

from app.ui.conversation.message_actions import add_actions

if TYPE_CHECKING:
    from app.ui.conversation.conversation_view import ConversationView

_Index = QModelIndex | QPersistentModelIndex


def row_menu(view: ConversationView, index: _Index) -> QMenu:
    """The actions a row offers: copy it, copy each code block, open it, show its pictures."""
    menu = QMenu(view)
    menu.setAccessibleName("Message menu")
    menu.addAction("Copy message", partial(view.copy_row, QPersistentModelIndex(index)))
    for block in view.code_blocks(index):
        language = f" ({block.language})" if block.language else ""
        menu.addAction(
            f"Copy code block {block.number + 1}{language}",
            partial(view.copy_code, QPersistentModelIndex(index), block.number),
        )
    row = view.row_at(index)
    if row.expandable:
        words = "Hide details" if row.expanded else "Show details"
        menu.addAction(words, partial(view.toggle_row, index.row()))
    thumbnails = view.thumbnails(index)
    for number, (_rect, picture) in enumerate(thumbnails, start=1):
        name = picture.label or f"picture {number}"
        menu.addAction(f"Open {name}", partial(view.picture_clicked.emit, picture))
    for number, (_rect, picture) in enumerate(thumbnails, start=1):
        # Words a seeing model says: for a screen reader's description, and for everyone.
        name = "this picture" if len(thumbnails) == 1 else picture.label or f"picture {number}"
        menu.addAction(f"Describe {name}", partial(view.describe_clicked.emit, picture))
    for _rect, pdf in view.documents(index):
        menu.addAction(f"Open {pdf.name or 'the PDF'}", partial(view.pdf_clicked.emit, pdf))
    add_actions(menu, row, view.models_for_menu(), view.action_requested.emit)
    return menu
