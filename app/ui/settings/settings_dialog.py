"""Settings: the providers in the person's order, each editable, tested and saved; agents,
tools, privacy and routing, serving other apps, and the appearance.

Nothing is written until Save: then the config file (never a key), the keys
(OS keyring), the MCP servers file, and the controller lists models with the
new providers. The pages are their own modules: providers_page.py, tools_page.py,
serving_page.py, appearance_page.py, and app/ui/agents/agents_page.py. Serving and
Appearance act the moment they are changed, and need no Save.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTabWidget, QVBoxLayout, QWidget

from app.config import ConfigError
from app.presenters.settings_model import ProviderList, write_settings
from app.presenters.tools_settings import mcp_path, read_mcp_text, write_tools_settings
from app.ui.agents.agents_page import AgentsPage
from app.ui.controller import Controller
from app.ui.settings.appearance_page import AppearancePage
from app.ui.settings.providers_page import ProvidersPage, found_in
from app.ui.settings.serving_page import ServingPage
from app.ui.settings.tools_page import ToolsPage
from app.ui.theme import show_problem

log = logging.getLogger(__name__)


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
        self.providers.set_found(found_in(controller.listing))
        self._saving: asyncio.Task[None] | None = None

        self.providers_page = ProvidersPage(
            self.providers, controller.keys, controller.environ, self
        )
        config = controller.config
        self.mcp_file = mcp_path(config, controller.config_path)
        self.tools_page = ToolsPage(
            config, read_mcp_text(self.mcp_file), controller.listing.models, self
        )
        self.agents_page = AgentsPage(self.providers, controller.environ, self)
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
        self.resize(880, 660)  # the Tools page fits without scrolling
        self._lookup = asyncio.ensure_future(self._look_up_keys())

    def _build_layout(self) -> None:
        self.tabs = QTabWidget(self)
        self.tabs.setAccessibleName("Settings pages")
        self.tabs.addTab(self.providers_page, "&Providers")
        self.tabs.addTab(self.agents_page, "A&gents")
        self.tabs.addTab(self.tools_page, "&Tools")
        self.tabs.addTab(self.tools_page.privacy_page, "Privacy && &routing")
        self.serving_page = ServingPage(self.controller.serving, self)  # acts at once, as below
        self.tabs.addTab(self.serving_page, "S&erving")
        self.appearance_page = AppearancePage(getattr(self.parent(), "appearance", None), self)
        self.tabs.addTab(self.appearance_page, "&Appearance")

        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)

    def _connect(self) -> None:
        self.providers_page.edited.connect(self.message.clear)
        self.providers_page.local_models_requested.connect(self._open_local_models)
        self.save_button.clicked.connect(self.save)
        self.cancel_button.clicked.connect(self.reject)
        self.controller.models_changed.connect(self.providers_page.listing_changed)

    # -- the person's actions ---------------------------------------------------------

    def _open_local_models(self) -> None:
        local_models = getattr(self.parent(), "local_models", None)
        if local_models is not None:
            local_models.open()

    def offer_cloud(self) -> None:
        """Show the Providers page with the menu of providers to add open (first-run's way in)."""
        self.tabs.setCurrentIndex(0)
        self.providers_page.offer_add_menu()

    # -- keys and saving ---------------------------------------------------------------

    async def _look_up_keys(self) -> None:
        keys = self.controller.keys
        sources = await asyncio.to_thread(self.providers.look_up_keys, keys)
        self.providers.use_key_sources(sources)
        self.providers_page.form.refresh()

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
            self.providers_page.list.setCurrentRow(problem.index)
            self.providers_page.form.focus_field(problem.field)
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
        show_problem(self.message, bool(error))
        self.message.setText(text)

    def reject(self) -> None:
        """Close without changing anything (not while a save is being written)."""
        if not self.saving:
            super().reject()

    def done(self, result: int) -> None:
        """Stop the background work with the dialog."""
        self.providers_page.form.stop_test()
        self.serving_page.closing()
        if not self._lookup.done():
            self._lookup.cancel()
        with contextlib.suppress(RuntimeError):  # already disconnected by an earlier close
            self.controller.models_changed.disconnect(self.providers_page.listing_changed)
        super().done(result)
