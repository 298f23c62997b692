"""The bar above the chat: its title (renamed in place), the model picker, and the chat's tools."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QWidget

from app.presenters.ledger_words import TITLE as LEDGER_TITLE
from app.ui.chat_list import UNTITLED
from app.ui.edits import TitleEdit
from app.ui.models.model_picker import ModelPicker
from app.ui.named import named_button

NARROW = 720  # below this width the bar drops the word "Model"
MARK_BLIND, UNMARK_BLIND = "Mark blind", "Unmark blind"
MARK_BLIND_TIP = (
    "Its listing says this model sees pictures, but a sight check said it doesn't. Mark it "
    "blind if it doesn't see yours: Sightline then puts pictures into words for it."
)
UNMARK_BLIND_TIP = (
    "You marked this model blind, so Sightline puts pictures into words for it. Unmark it "
    "to go by its listing again."
)


class TopBar(QWidget):
    """Title | Model [picker] | Data ledger | Chat ▾ | Settings…; reports, decides nothing."""

    def __init__(self, parent: QWidget | None = None) -> None:
        """The bar for a new chat."""
        super().__init__(parent)
        self.setAccessibleName("Chat bar")
        self.title = TitleEdit(UNTITLED, self)
        self.picker = ModelPicker(self)
        # An agent's chat: the folder the agent works in (hidden for a model's chat).
        self.folder_label = QLabel("", self)
        self.folder_label.setAccessibleName("Working folder")
        self.folder_label.hide()
        self.model_label = QLabel("Model", self)
        self.model_label.setBuddy(self.picker)
        self.model_label.setAccessibleName("Model label")
        self.ledger_button = named_button(
            "Data ledger",
            LEDGER_TITLE,
            f"{LEDGER_TITLE}: every picture, page and message of this chat that went to "
            "another model or to the cloud (Ctrl+Shift+L)",
            self,
        )
        self.ledger_button.setCheckable(True)
        self.check_again_button = named_button(
            "Check again",
            "Check again whether this model sees",
            "This model once refused pictures, so Sightline describes pictures for it. "
            "Check again if the model has changed.",
            self,
        )
        self.check_again_button.hide()
        self.check_sight_button = named_button(
            "Check sight",
            "Check whether this model sees",
            "Nobody says whether this model sees pictures. Sightline can ask it about a "
            "small probe picture and go by its answer.",
            self,
        )
        self.check_sight_button.hide()
        # Its listing says it sees and a sight check said not; or the person marked it blind.
        self.mark_blind_button = named_button(
            MARK_BLIND, "Mark this model blind", MARK_BLIND_TIP, self
        )
        self.mark_blind_button.hide()
        # What is done to the open chat as a whole: its own settings, and export. One
        # button with a menu, so the bar still fits an 800-pixel-wide window.
        self.chat_button = named_button(
            "Chat", "This chat", "This chat's system prompt and parameters, and export", self
        )
        self.chat_menu = QMenu(self.chat_button)
        self.chat_menu.setAccessibleName("This chat")
        self.chat_settings_action = self.chat_menu.addAction("Chat settings…")
        self.chat_settings_action.setToolTip(
            "This chat's system prompt, temperature and answer length"
        )
        self.export_action = self.chat_menu.addAction("Export…")
        self.export_action.setToolTip("Save this chat as Markdown or JSON (Ctrl+S)")
        self.chat_button.setMenu(self.chat_menu)
        self.settings_button = named_button(
            "Settings…", "Settings", "Providers, tools and the data folder (Ctrl+,)", self
        )

        layout = QHBoxLayout(self)
        layout.setContentsMargins(18, 10, 16, 10)
        layout.setSpacing(8)
        layout.addWidget(self.title, 1)
        layout.addWidget(self.folder_label)
        layout.addWidget(self.model_label)
        layout.addWidget(self.picker)
        layout.addWidget(self.check_again_button)
        layout.addWidget(self.check_sight_button)
        layout.addWidget(self.mark_blind_button)
        layout.addSpacing(4)
        layout.addWidget(self.ledger_button)
        layout.addWidget(self.chat_button)
        layout.addWidget(self.settings_button)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """In a narrow window the word "Model" gives its room to the title (the picker
        still says what it is to a screen reader)."""
        super().resizeEvent(event)
        self.model_label.setVisible(event.size().width() >= NARROW)

    def show_title(self, title: str, chat: str) -> None:
        """Show the open chat's title; only a saved chat (an id) can be renamed or exported."""
        self.title.show_title(title, chat)
        self.export_action.setEnabled(bool(chat))

    def show_folder(self, folder: Path | None) -> None:
        """Name the open chat's working folder (an agent's chat), or hide the label."""
        self.folder_label.setVisible(folder is not None)
        if folder is None:
            self.folder_label.clear()
            return
        self.folder_label.setText(f"in {folder.name or folder}")
        self.folder_label.setToolTip(f"The agent works in {folder}")
        self.folder_label.setAccessibleDescription(f"The agent works in {folder}")
