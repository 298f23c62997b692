"""Settings: the providers in the person's order, each editable, tested and saved; and tools.

The list's order is the order routing and the describer try providers in.
Nothing is written until Save: then the config file (never a key), the keys
(OS keyring), the MCP servers file, and the controller lists models with the
new providers. The Agents page is app.ui.agents.agents_page, the Tools page
app.ui.settings.tools_page.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.config import ConfigError
from app.presenters.settings_model import (
    ProviderDraft,
    ProviderList,
    menu_kinds,
    preset_label,
    write_settings,
)
from app.presenters.tools_settings import mcp_path, read_mcp_text, write_tools_settings
from app.ui.agents.agents_page import AgentsPage
from app.ui.controller import Controller, ModelListing
from app.ui.settings.appearance_page import AppearancePage
from app.ui.settings.provider_form import ERROR_STYLE, ProviderForm
from app.ui.settings.tools_page import ToolsPage
from routing.endpoints import endpoint_name
from routing.models import ProviderConfig
from routing.presets import preset_for

log = logging.getLogger(__name__)

SERIAL = Qt.ItemDataRole.UserRole + 1  # a draft's serial; 0 on a server found here
FOUND = "found on this computer"


def _found(listing: ModelListing) -> list[tuple[ProviderConfig, bool]]:
    """Each provider listed so far, and whether it answered."""
    return [(s.provider, s.error is None) for s in listing.statuses]


def _button(text: str, name: str, tip: str, parent: QWidget) -> QPushButton:
    button = QPushButton(text, parent)
    button.setAccessibleName(name)
    button.setToolTip(tip)
    return button


class SettingsDialog(QDialog):
    """The Settings window; open it with `open()` (never `exec()` under qasync)."""

    saved = Signal()

    def __init__(self, controller: Controller, parent: QWidget | None = None) -> None:
        """Drafts of the configured providers; keys are looked up in the background."""
        super().__init__(parent)
        self.controller = controller
        self.setWindowTitle("Settings")
        self.setAccessibleName("Settings")
        self.providers = ProviderList(controller.config.providers, controller.environ)
        self.providers.set_found(_found(controller.listing))
        self.remove_box: QMessageBox | None = None
        self._saving: asyncio.Task[None] | None = None

        self.list = QListWidget(self)
        self.list.setAccessibleName("Providers")
        self.list.setAccessibleDescription("In the order Sightline tries them")
        self.list.setDragDropMode(QListWidget.DragDropMode.InternalMove)
        self.list.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.list.setSpacing(2)
        self.add_button = _button("Add provider", "Add provider", "Add a provider", self)
        self.add_menu = QMenu(self.add_button)
        self.add_menu.setAccessibleName("Provider kinds")
        self.add_button.setMenu(self.add_menu)
        self.remove_button = _button("Remove", "Remove provider", "Remove this provider", self)
        self.up_button = _button("Up", "Move up", "Try this provider earlier", self)
        self.local_models_button = _button(
            "Local models…",
            "Local models",
            "Download models to this computer through Ollama, or remove them",
            self,
        )
        self.down_button = _button("Down", "Move down", "Try this provider later", self)
        self.form = ProviderForm(controller.keys, controller.environ, self)
        config = controller.config
        self.mcp_file = mcp_path(config, controller.config_path)
        self.tools_page = ToolsPage(
            config, read_mcp_text(self.mcp_file), controller.listing.models, self
        )
        self.agents_page = AgentsPage(self.providers, controller.environ, self)
        self.found_text = QLabel(self)
        self.found_text.setAccessibleName("Server found on this computer")
        self.found_text.setWordWrap(True)
        self.add_found_button = _button(
            "Add to my providers", "Add found server", "Keep it, with its own settings", self
        )
        self.empty_text = QLabel(
            "No providers yet. Add one, or start a server on this computer such as Ollama.", self
        )
        self.empty_text.setAccessibleName("No providers")
        self.empty_text.setWordWrap(True)
        self.stack = QStackedWidget(self)
        self.stack.setAccessibleName("Selected provider")
        self.message = QLabel(self)
        self.message.setAccessibleName("Settings message")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setAccessibleName("Save")
        self.cancel_button = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        self.cancel_button.setAccessibleName("Cancel")
        self._build_layout()
        self._connect()
        self._render(0)
        self.resize(880, 660)  # the Tools page fits without scrolling
        self._lookup = asyncio.ensure_future(self._look_up_keys())

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
        for button in (self.add_button, self.remove_button, self.up_button, self.down_button):
            buttons.addWidget(button)
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

        page = QWidget(self)
        columns = QHBoxLayout(page)
        columns.addLayout(left, 2)
        columns.addSpacing(12)
        columns.addWidget(self.stack, 3)
        self.tabs = QTabWidget(self)
        self.tabs.setAccessibleName("Settings pages")
        self.tabs.addTab(page, "&Providers")
        self.tabs.addTab(self.agents_page, "A&gents")
        self.tabs.addTab(self.tools_page, "&Tools")
        self.tabs.addTab(self.tools_page.privacy_page, "Privacy && &routing")
        self.appearance_page = AppearancePage(getattr(self.parent(), "appearance", None), self)
        self.tabs.addTab(self.appearance_page, "&Appearance")

        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)

    def _connect(self) -> None:
        self.list.currentRowChanged.connect(self._selected)
        self.list.model().rowsMoved.connect(lambda *_: QTimer.singleShot(0, self._dragged))
        self.remove_button.clicked.connect(self.ask_to_remove)
        self.local_models_button.clicked.connect(self._open_local_models)
        self.up_button.clicked.connect(lambda: self.move_selected(-1))
        self.down_button.clicked.connect(lambda: self.move_selected(1))
        self.add_found_button.clicked.connect(self.add_found)
        self.form.edited.connect(self._edited)
        self.save_button.clicked.connect(self.save)
        self.cancel_button.clicked.connect(self.reject)
        self.controller.models_changed.connect(self._listing_changed)

    # -- the list -----------------------------------------------------------------

    def _render(self, select: int) -> None:
        """Show the drafts, then the servers found here, and select a row."""
        self.list.blockSignals(True)
        self.list.clear()
        for draft in self.providers.drafts:
            item = QListWidgetItem(self._draft_text(draft))
            item.setData(SERIAL, draft.serial)
            item.setToolTip(draft.reach_url(self.controller.environ))
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
        where = endpoint_name(draft.reach_url(self.controller.environ))
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
        self.message.clear()

    def _dragged(self) -> None:
        serials = [self.list.item(r).data(SERIAL) for r in range(self.list.count())]
        current = self.list.currentItem()
        moved = current.data(SERIAL) if current is not None else 0
        self.providers.reorder([s for s in serials if s])
        rows = [d.serial for d in self.providers.drafts]
        self._render(rows.index(moved) if moved in rows else 0)

    def _listing_changed(self, listing: ModelListing) -> None:
        before = list(self.providers.found)
        self.providers.set_found(_found(listing))
        if self.providers.found != before:
            self._render(self.list.currentRow())

    # -- the person's actions ---------------------------------------------------------

    def _open_local_models(self) -> None:
        local_models = getattr(self.parent(), "local_models", None)
        if local_models is not None:
            local_models.open()

    def add_provider(self, kind: str) -> None:
        """Add a provider of this kind and select it, ready for its key or address."""
        self._render(self.providers.add(kind))
        field = self.form.key_edit if preset_for(kind).needs_key else self.form.url_edit
        field.setFocus()

    def offer_cloud(self) -> None:
        """Show the Providers page with the menu of providers to add open (first-run's way in)."""
        self.tabs.setCurrentIndex(0)
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

    # -- keys and saving ---------------------------------------------------------------

    async def _look_up_keys(self) -> None:
        keys = self.controller.keys
        sources = await asyncio.to_thread(self.providers.look_up_keys, keys)
        self.providers.use_key_sources(sources)
        self.form.refresh()

    @property
    def keys_known(self) -> bool:
        """Whether the background look-up of where keys are kept has finished."""
        return self._lookup.done()

    @property
    def saving(self) -> bool:
        """Whether Save is under way."""
        return self._saving is not None and not self._saving.done()

    def save(self) -> None:
        """Check every provider, then write and apply them; problems stay in the dialog."""
        if self.saving:
            return
        problem = self.providers.first_problem()
        if problem is not None:
            self.list.setCurrentRow(problem.index)
            self.form.focus_field(problem.field)
            self._say(f"“{self.providers.drafts[problem.index].id}”: {problem.message}")
            return
        if self.agents_page.pending:
            self.tabs.setCurrentWidget(self.agents_page)
            self.agents_page.paste_edit.setFocus()
            self._say("Agents: press Add agents to keep what is pasted, or clear the box.")
            return
        if not self.tools_page.check().ok:
            self.tabs.setCurrentWidget(self.tools_page)
            self.tools_page.mcp_edit.setFocus()
            self._say("Tools: the MCP servers JSON can't be used; see beside the box.")
            return
        self._saving = asyncio.ensure_future(self._save())

    async def _save(self) -> None:
        self._busy(True)
        self._say("Saving…", error=False)
        path = self.controller.config_path
        try:
            await asyncio.to_thread(write_settings, path, self.providers, self.controller.keys)
            await asyncio.to_thread(
                write_tools_settings,
                path,
                self.controller.config,
                self.tools_page.settings(),
                mcp_changed=self.tools_page.mcp_changed,
            )
            await self.controller.apply_settings()
        except ConfigError as exc:
            self._busy(False)
            self._say(str(exc))
            return
        except Exception as exc:  # keep the dialog (and the person's edits) on any failure
            log.exception("saving settings failed")
            self._busy(False)
            self._say(f"The settings could not be saved: {exc}")
            return
        self.saved.emit()
        self.accept()

    def _busy(self, busy: bool) -> None:
        self.tabs.setEnabled(not busy)
        self.save_button.setEnabled(not busy)
        self.cancel_button.setEnabled(not busy)

    def _say(self, text: str, *, error: bool = True) -> None:
        self.message.setStyleSheet(ERROR_STYLE if error else "")
        self.message.setText(text)

    def reject(self) -> None:
        """Close without changing anything (not while a save is being written)."""
        if not self.saving:
            super().reject()

    def done(self, result: int) -> None:
        """Stop the background work with the dialog."""
        self.form.stop_test()
        if not self._lookup.done():
            self._lookup.cancel()
        with contextlib.suppress(RuntimeError):  # already disconnected by an earlier close
            self.controller.models_changed.disconnect(self._listing_changed)
        super().done(result)
