"""Local models ▸ Installed: one row per model the listing has on the provider, each with
the picker's eye badge where it sees, its size on disk as Ollama lists it, and Delete,
asked first ("Delete … from Ollama on this computer?", Keep it the default).

The rows are rebuilt only when the names change, so a Delete button keeps its focus
while the listing comes again (a badge or size that changed is shown in place). The
dialog runs the delete the person confirmed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMessageBox, QScrollArea, QVBoxLayout, QWidget

from app.presenters.pull_words import size_words
from app.ui.icons import BADGE, badges_icon
from app.ui.models.model_picker import sight_words
from app.ui.named import named_button, named_label

if TYPE_CHECKING:
    from routing.models import ModelInfo


class InstalledRow(QWidget):
    """One installed model: its eye badge (where it sees), name, size, and Delete."""

    def __init__(self, name: str, parent: QWidget) -> None:
        """A row for `name`; `show_model` fills in its badge and size."""
        super().__init__(parent)
        self.setAccessibleName(name)
        self.badge = QLabel(self)
        self.badge.setFixedSize(QSize(BADGE, BADGE))
        self.name = named_label(name, f"Installed model {name}", self)
        self.amount = named_label("", f"Size of {name}", self)
        self.amount.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.delete = named_button("Delete", f"Delete {name}", "", self)
        line = QHBoxLayout(self)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.badge)
        line.addWidget(self.name, 1)
        line.addWidget(self.amount)
        line.addWidget(self.delete)

    def show_model(self, model: ModelInfo) -> None:
        """Its badge (eye: sees; faint: nobody says; none: it doesn't) and size, as listed."""
        color = self.palette().color(QPalette.ColorGroup.Active, QPalette.ColorRole.Text)
        icon = badges_icon(model.sees, False, color)
        if icon.isNull():
            self.badge.clear()
        else:
            self.badge.setPixmap(icon.pixmap(QSize(BADGE, BADGE)))
        sight = sight_words(model)[0]
        self.badge.setToolTip(sight)
        self.badge.setAccessibleName(sight)
        self.amount.setText(size_words(model.size) if model.size else "")
        said = f"{model.name}, {sight}" + (f", {self.amount.text()}" if model.size else "")
        self.name.setToolTip(said)
        self.setAccessibleDescription(said)


class InstalledModels(QScrollArea):
    """The installed models' rows; `delete_confirmed(name)` once the person said Delete."""

    delete_confirmed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        """No rows yet."""
        super().__init__(parent)
        self.setAccessibleName("Installed models")
        self.setWidgetResizable(True)
        self.setMinimumHeight(150)  # four rows before it scrolls
        self.list = QWidget(self)
        self.list.setAccessibleName("Installed models list")
        self.setWidget(self.list)
        self.rows: dict[str, InstalledRow] = {}
        self.note = named_label("", "Installed models note", self.list)
        self.confirm: QMessageBox | None = None  # the open "Delete …?" question, if any
        rows = QVBoxLayout(self.list)
        rows.addWidget(self.note)
        rows.addStretch(1)

    def show_installed(self, models: Sequence[ModelInfo], listing: bool) -> None:
        """One row per model (a note while none: still looking, or none yet)."""
        names = [m.name for m in models]
        if list(self.rows) != names:  # rebuilt only when the names change
            for row in self.rows.values():
                row.deleteLater()
            self.rows = {}
            rows = self.list.layout()
            assert isinstance(rows, QVBoxLayout)
            for at, name in enumerate(names, start=1):
                row = InstalledRow(name, self.list)
                row.delete.clicked.connect(lambda _=False, n=name: self.confirm_delete(n))
                rows.insertWidget(at, row)
                self.rows[name] = row
        for model in models:
            self.rows[model.name].show_model(model)
        waiting = "Looking for models…" if listing else "No models yet: pull one below."
        self.note.setText("" if names else waiting)
        self.note.setVisible(not names)

    def set_deletable(self, name: str, deletable: bool) -> None:
        """Enable or disable a model's Delete (off while its delete runs)."""
        if row := self.rows.get(name):
            row.delete.setEnabled(deletable)

    def confirm_delete(self, name: str) -> None:
        """Ask before deleting `name` (the answer comes back through the event loop)."""
        self.close_question()
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Delete model")
        box.setAccessibleName("Delete model")
        box.setText(
            f"Delete {name} from Ollama on this computer? Its disk space is freed; you can "
            "pull it again later."
        )
        yes = box.addButton("Delete", QMessageBox.ButtonRole.DestructiveRole)
        no = box.addButton("Keep it", QMessageBox.ButtonRole.RejectRole)
        yes.setAccessibleName(f"Delete {name} now")
        no.setAccessibleName(f"Keep {name}")
        for shown in box.findChildren(QLabel):  # the text and the icon, read out by name
            shown.setAccessibleName(shown.text() or "Question")
        box.setDefaultButton(no)
        box.setEscapeButton(no)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def answered(_result: int) -> None:
            if self.confirm is box:
                self.confirm = None
            if box.clickedButton() is yes:
                self.delete_confirmed.emit(name)

        box.finished.connect(answered)
        self.confirm = box
        box.open()

    def close_question(self) -> None:
        """Dismiss an open question (another one, or the dialog closing)."""
        if self.confirm is not None:
            self.confirm.reject()
