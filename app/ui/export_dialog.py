"""Where to save a chat: the window's export dialog, Markdown or JSON.

The file's suffix follows the format chosen; the writing itself is the chat list's
(`Chats.export`), in the background. Opened window-modal, never with a nested loop.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QStandardPaths, Qt
from PySide6.QtWidgets import QFileDialog, QWidget

MARKDOWN_FILTER = "Markdown, pictures in a folder beside it (*.md)"
JSON_FILTER = "JSON, everything in one file (*.json)"


def ask_export_path(parent: QWidget, title: str, chosen: Callable[[Path], object]) -> QFileDialog:
    """Open the dialog over `parent`, offering a file named after the chat's `title`;
    `chosen` gets the path saved to (nothing happens on Cancel)."""
    from app.export import file_name_for  # on first export: the first paint doesn't need it

    folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    dialog = QFileDialog(parent, "Export conversation")
    dialog.setAccessibleName("Export conversation")
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setNameFilters([MARKDOWN_FILTER, JSON_FILTER])
    dialog.setDefaultSuffix("md")
    dialog.setDirectory(folder or str(Path.home()))
    dialog.selectFile(file_name_for(title) + ".md")

    def suffix_follows_format(format_chosen: str) -> None:
        suffix = "json" if format_chosen == JSON_FILTER else "md"
        dialog.setDefaultSuffix(suffix)
        typed = dialog.selectedFiles()
        if typed:
            dialog.selectFile(Path(typed[0]).with_suffix(f".{suffix}").name)

    dialog.filterSelected.connect(suffix_follows_format)
    dialog.fileSelected.connect(lambda path: chosen(Path(path)))
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()  # window-modal, no nested event loop under qasync
    return dialog
