"""Local models ▸ Installed: one row per model the listing has on the provider, each with
Delete, asked first ("Delete … from Ollama on this computer?", Keep it the default).

The rows are rebuilt only when the names change, so a Delete button keeps its focus
while the listing comes again. The dialog runs the delete the person confirmed.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.ui.named import named_button, named_label


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
        self.rows: dict[str, tuple[QLabel, QPushButton]] = {}
        self._row_widgets: list[QWidget] = []
        self.note = named_label("", "Installed models note", self.list)
        self.confirm: QMessageBox | None = None  # the open "Delete …?" question, if any
        rows = QVBoxLayout(self.list)
        rows.addWidget(self.note)
        rows.addStretch(1)

    def show_installed(self, names: Sequence[str], listing: bool) -> None:
        """One row per name (a note while none: still looking, or none yet)."""
        if list(self.rows) != list(names):  # rebuilt only when the names change
            for widget in self._row_widgets:
                widget.deleteLater()
            self._row_widgets, self.rows = [], {}
            rows = self.list.layout()
            assert isinstance(rows, QVBoxLayout)
            for at, name in enumerate(names, start=1):
                row = QWidget(self.list)
                row.setAccessibleName(name)
                shown = named_label(name, f"Installed model {name}", row)
                delete = named_button("Delete", f"Delete {name}", "", row)
                delete.clicked.connect(lambda _=False, n=name: self.confirm_delete(n))
                line = QHBoxLayout(row)
                line.setContentsMargins(0, 0, 0, 0)
                line.addWidget(shown, 1)
                line.addWidget(delete)
                rows.insertWidget(at, row)
                self._row_widgets.append(row)
                self.rows[name] = (shown, delete)
        waiting = "Looking for models…" if listing else "No models yet: pull one below."
        self.note.setText("" if names else waiting)
        self.note.setVisible(not names)

    def set_deletable(self, name: str, deletable: bool) -> None:
        """Enable or disable a model's Delete (off while its delete runs)."""
        if row := self.rows.get(name):
            row[1].setEnabled(deletable)

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
