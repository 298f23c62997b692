"""Settings ▸ Providers: the providers in the person's order, each editable and tested, and
the servers found on this computer, offered to be kept.

The list's order is the order routing and the describer try providers in. The page
only edits the dialog's `ProviderList`; nothing is written until the dialog's Save.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.keys import KeyStore
from app.presenters.listing import ModelListing
from app.presenters.provider_drafts import ProviderDraft, menu_kinds, preset_label
from app.presenters.settings_model import ProviderList
from app.ui.named import named_button
from app.ui.settings.provider_form import ProviderForm
from routing.endpoints import endpoint_name
from routing.models import ProviderConfig
from routing.presets import preset_for

SERIAL = Qt.ItemDataRole.UserRole + 1  # a draft's serial; 0 on a server found here
FOUND = "found on this computer"


def found_in(listing: ModelListing) -> list[tuple[ProviderConfig, bool]]:
    """Each provider listed so far, and whether it answered."""
    return [(s.provider, s.error is None) for s in listing.statuses]


class ProvidersPage(QWidget):
    """The list (drafts, then servers found here) beside the selected one's form."""

    edited = Signal()  # a draft changed: the dialog's message is out of date
    local_models_requested = Signal()

    def __init__(
        self,
        providers: ProviderList,
        keys: KeyStore,
        environ: Mapping[str, str],
        parent: QWidget | None = None,
    ) -> None:
        """The page for `providers`, its first row selected."""
        super().__init__(parent)
        self.providers = providers
        self.environ = environ
        self.remove_box: QMessageBox | None = None

        self.list = QListWidget(self)
        self.list.setAccessibleName("Providers")
        self.list.setAccessibleDescription("In the order Sightline tries them")
        self.list.setDragDropMode(QListWidget.DragDropMode.InternalMove)
        self.list.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.list.setSpacing(2)
        self.add_button = named_button("Add provider", "Add provider", "Add a provider", self)
        self.add_menu = QMenu(self.add_button)
        self.add_menu.setAccessibleName("Provider kinds")
        self.add_button.setMenu(self.add_menu)
        self.remove_button = named_button("Remove", "Remove provider", "Remove this provider", self)
        self.up_button = named_button("Up", "Move up", "Try this provider earlier", self)
        self.local_models_button = named_button(
            "Local models…",
            "Local models",
            "Download models to this computer through Ollama, or remove them",
            self,
        )
        self.down_button = named_button("Down", "Move down", "Try this provider later", self)
        self.form = ProviderForm(keys, environ, self)
        self.found_text = QLabel(self)
        self.found_text.setAccessibleName("Server found on this computer")
        self.found_text.setWordWrap(True)
        self.add_found_button = named_button(
            "Add to my providers", "Add found server", "Keep it, with its own settings", self
        )
        self.empty_text = QLabel(
            "No providers yet. Add one, or start a server on this computer such as Ollama.", self
        )
        self.empty_text.setAccessibleName("No providers")
        self.empty_text.setWordWrap(True)
        self.stack = QStackedWidget(self)
        self.stack.setAccessibleName("Selected provider")
        self._build_layout()
        self._connect()
        self._render(0)

    def _build_layout(self) -> None:
        for kind in menu_kinds():
            if kind == "lmstudio":
                self.add_menu.addSection("On this computer")
            action = self.add_menu.addAction(preset_label(kind))
            action.triggered.connect(lambda _=False, k=kind: self.add_provider(k))

        heading = QLabel("Sightline tries providers in this order:", self)
        heading.setAccessibleName("Providers heading")
        heading.setWordWrap(True)
        buttons = QHBoxLayout()
        for shown in (self.add_button, self.remove_button, self.up_button, self.down_button):
            buttons.addWidget(shown)
        buttons.addStretch(1)
        left = QVBoxLayout()
        left.addWidget(heading)
        left.addWidget(self.list, 1)
        left.addLayout(buttons)
        left.addWidget(self.local_models_button)

        found_page = QWidget(self)
        found_layout = QVBoxLayout(found_page)
        found_layout.setContentsMargins(0, 0, 0, 0)
        found_layout.addWidget(self.found_text)
        found_layout.addWidget(self.add_found_button, 0, Qt.AlignmentFlag.AlignLeft)
        found_layout.addStretch(1)
        empty_page = QWidget(self)
        empty_layout = QVBoxLayout(empty_page)
        empty_layout.addWidget(self.empty_text)
        empty_layout.addStretch(1)
        for page in (self.form, found_page, empty_page):
            self.stack.addWidget(page)

        columns = QHBoxLayout(self)
        columns.addLayout(left, 2)
        columns.addSpacing(12)
        columns.addWidget(self.stack, 3)

    def _connect(self) -> None:
        self.list.currentRowChanged.connect(self._selected)
        self.list.model().rowsMoved.connect(lambda *_: QTimer.singleShot(0, self._dragged))
        self.remove_button.clicked.connect(self.ask_to_remove)
        self.local_models_button.clicked.connect(self.local_models_requested)
        self.up_button.clicked.connect(lambda: self.move_selected(-1))
        self.down_button.clicked.connect(lambda: self.move_selected(1))
        self.add_found_button.clicked.connect(self.add_found)
        self.form.edited.connect(self._edited)

    # -- the list -----------------------------------------------------------------

    def _render(self, select: int) -> None:
        """Show the drafts, then the servers found here, and select a row."""
        self.list.blockSignals(True)
        self.list.clear()
        for draft in self.providers.drafts:
            item = QListWidgetItem(self._draft_text(draft))
            item.setData(SERIAL, draft.serial)
            item.setToolTip(draft.reach_url(self.environ))
            self.list.addItem(item)
        for provider in self.providers.found:
            where = endpoint_name(provider.base_url)
            item = QListWidgetItem(f"{preset_label(provider.kind)}\n{where} · {FOUND}")
            item.setData(SERIAL, 0)
            item.setToolTip(provider.base_url)
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsDragEnabled)
            font = QFont(item.font())
            font.setItalic(True)
            item.setFont(font)
            self.list.addItem(item)
        self.list.blockSignals(False)
        row = min(select, self.list.count() - 1)
        self.list.setCurrentRow(row)
        self._selected(row)

    def _draft_text(self, draft: ProviderDraft) -> str:
        """Two lines: the name (and kind), then where it is and whether it is off."""
        name = draft.id if draft.id == draft.kind else f"{draft.id} · {draft.label}"
        where = endpoint_name(draft.reach_url(self.environ))
        return f"{name}\n{where}" + ("" if draft.enabled else " · off")

    def _selected(self, row: int) -> None:
        drafts = len(self.providers.drafts)
        if 0 <= row < drafts:
            self.stack.setCurrentIndex(0)
            self.form.show_draft(self.providers, row)
        else:
            self.form.stop_test()  # its provider is no longer shown
            found = row - drafts
            if 0 <= found < len(self.providers.found):
                self.found_text.setText(self._found_words(self.providers.found[found]))
            self.stack.setCurrentIndex(1 if 0 <= found < len(self.providers.found) else 2)
        self.remove_button.setEnabled(0 <= row < drafts)
        self.up_button.setEnabled(0 < row < drafts)
        self.down_button.setEnabled(0 <= row < drafts - 1)

    @staticmethod
    def _found_words(found: ProviderConfig) -> str:
        return (
            f"{preset_label(found.kind)} answered at {endpoint_name(found.base_url)}, "
            "on this computer. "
            "Sightline uses it while it answers; add it to choose its place in the order, "
            "turn it off, or change its settings."
        )

    def _edited(self) -> None:
        row = self.list.currentRow()
        item = self.list.item(row)
        if item is not None and row < len(self.providers.drafts):
            item.setText(self._draft_text(self.providers.drafts[row]))
        self.edited.emit()

    def _dragged(self) -> None:
        serials = [self.list.item(r).data(SERIAL) for r in range(self.list.count())]
        current = self.list.currentItem()
        moved = current.data(SERIAL) if current is not None else 0
        self.providers.reorder([s for s in serials if s])
        rows = [d.serial for d in self.providers.drafts]
        self._render(rows.index(moved) if moved in rows else 0)

    def listing_changed(self, listing: ModelListing) -> None:
        """Offer the servers found here that answered in the newest listing."""
        before = list(self.providers.found)
        self.providers.set_found(found_in(listing))
        if self.providers.found != before:
            self._render(self.list.currentRow())

    # -- the person's actions ---------------------------------------------------------

    # -- the person's actions ---------------------------------------------------------

    def add_provider(self, kind: str) -> None:
        """Add a provider of this kind and select it, ready for its key or address."""
        self._render(self.providers.add(kind))
        field = self.form.key_edit if preset_for(kind).needs_key else self.form.url_edit
        field.setFocus()

    def offer_add_menu(self) -> None:
        """Open the menu of providers to add, under its button (first-run's way in)."""
        self.add_button.setFocus()
        # popup, not exec: no nested event loop under qasync.
        self.add_menu.popup(self.add_button.mapToGlobal(self.add_button.rect().bottomLeft()))

    def add_found(self) -> None:
        """Turn the selected server found here into a configured provider."""
        row = self.list.currentRow() - len(self.providers.drafts)
        if 0 <= row < len(self.providers.found):
            self._render(self.providers.add_found(row))

    def move_selected(self, delta: int) -> None:
        """Move the selected provider up (-1) or down (+1) in the order."""
        row = self.list.currentRow()
        if 0 <= row < len(self.providers.drafts):
            self._render(self.providers.move(row, delta))

    def ask_to_remove(self) -> None:
        """Ask before removing the selected provider (the answer arrives without blocking)."""
        row = self.list.currentRow()
        if not 0 <= row < len(self.providers.drafts):
            return
        draft = self.providers.drafts[row]
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Remove provider",
            f"Remove “{draft.id}”? Its saved API key is forgotten too when you save.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setAccessibleName("Remove provider")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.button(QMessageBox.StandardButton.Yes).setText("Remove")

        def answered(result: int) -> None:
            self.remove_box = None
            if result == QMessageBox.StandardButton.Yes:
                self.providers.remove(row)
                self._render(row)

        box.finished.connect(answered)
        self.remove_box = box
        box.open()
