"""The Settings dialog's form for one provider: name, address, key, on/off, locality, a test.

It edits a `ProviderDraft` in place; the checks and words come from
`settings_model`. The key field never shows a saved key: only where it is.
"""

from __future__ import annotations

import asyncio
import base64
import html
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.keys import KeyStore
from app.presenters.connection_test import list_provider, listing_words, shown_models
from app.presenters.provider_drafts import KeySource, ProviderDraft, key_note, url_problem
from app.presenters.settings_model import ProviderList
from app.ui.icons import badge_image
from app.ui.theme import show_problem
from routing.endpoints import endpoint_name, known_locality
from routing.models import ProviderConfig
from routing.presets import preset_for

if TYPE_CHECKING:
    from routing.catalogue import ProviderStatus

LOCAL_CHOICES = (None, True, False)  # rows of the "On this computer" box


@cache
def _eye_uri(color: str) -> str:
    """The eye badge as a data URL, for rich text (QLabel loads data: images)."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # The stubs say bytes, but PySide6 accepts only a str format here.
    badge_image("eye", QColor(color), 14, 2.0).save(buffer, "PNG")  # type: ignore[call-overload]
    return "data:image/png;base64," + base64.b64encode(bytes(data.data())).decode("ascii")


def _note(text: str, name: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setAccessibleName(name)
    label.setWordWrap(True)
    return label


class ProviderForm(QWidget):
    """Edits one provider draft; `edited` fires on every change the person makes."""

    edited = Signal()

    def __init__(
        self, keys: KeyStore, environ: Mapping[str, str], parent: QWidget | None = None
    ) -> None:
        """An empty form; `show_draft` fills it."""
        super().__init__(parent)
        self.setAccessibleName("Provider settings")
        self._keys = keys
        self._environ = environ
        self._providers: ProviderList | None = None
        self._index = -1
        self._loading = False
        self._test: asyncio.Task[None] | None = None

        self.id_edit = QLineEdit(self)
        self.id_edit.setAccessibleName("Name")
        self.id_edit.setToolTip("How Sightline names it, as in name:model")
        self.id_error = _note("", "Name problem", self)
        self.kind_label = _note("", "Kind", self)
        self.url_edit = QLineEdit(self)
        self.url_edit.setAccessibleName("Base URL")
        self.url_error = _note("", "Base URL problem", self)
        self.key_edit = QLineEdit(self)
        self.key_edit.setAccessibleName("API key")
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_toggle = QToolButton(self)
        self.key_toggle.setText("Show")
        self.key_toggle.setAccessibleName("Show the typed key")
        self.key_toggle.setCheckable(True)
        self.key_note = _note("", "Where the key is kept", self)
        self.clear_key = QPushButton("Forget saved key", self)
        self.clear_key.setAccessibleName("Forget saved key")
        self.enabled = QCheckBox("Use this provider", self)
        self.enabled.setAccessibleName("Enabled")
        self.local = QComboBox(self)
        self.local.setAccessibleName("On this computer")
        self.local.setToolTip("Whether pictures and chats sent to it stay on this computer")
        self.local.addItems(["Automatic", "Yes", "No"])
        self.local.view().setAccessibleName("On this computer choices")
        self.test_button = QPushButton("Test connection", self)
        self.test_button.setAccessibleName("Test connection")
        self.test_button.setToolTip("List its models with these settings (nothing is saved)")
        self.test_result = _note("", "Connection test result", self)
        self.test_result.setTextFormat(Qt.TextFormat.RichText)
        self.test_result.setToolTip("An eye marks the models that see pictures")
        self.test_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        for error in (self.id_error, self.url_error):
            show_problem(error)
            error.hide()
        self._build_layout()
        self._connect()

    def _build_layout(self) -> None:
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setVerticalSpacing(6)

        def row(text: str, field: QWidget, *below: QWidget) -> None:
            label = QLabel(text, self)
            label.setAccessibleName(f"{field.accessibleName()} label")
            label.setBuddy(field)
            column = QVBoxLayout()
            column.setSpacing(2)
            column.addWidget(field)
            for widget in below:
                column.addWidget(widget)
            form.addRow(label, column)

        key_row = QHBoxLayout()
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.key_toggle)
        key_box = QWidget(self)
        key_box.setLayout(key_row)
        key_box.setAccessibleName("API key")
        key_row.setContentsMargins(0, 0, 0, 0)
        key_note_row = QHBoxLayout()
        key_note_row.addWidget(self.key_note, 1)
        key_note_row.addWidget(self.clear_key, 0, Qt.AlignmentFlag.AlignTop)
        key_notes = QWidget(self)
        key_notes.setLayout(key_note_row)
        key_note_row.setContentsMargins(0, 0, 0, 0)

        row("&Name:", self.id_edit, self.id_error)
        row("Kind:", self.kind_label)
        row("Base &URL:", self.url_edit, self.url_error)
        row("API &key:", key_box, key_notes)
        row("", self.enabled)
        row("On this &computer:", self.local)

        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(form)
        layout.addSpacing(8)
        layout.addLayout(test_row)
        layout.addWidget(self.test_result)
        layout.addStretch(1)

    def _connect(self) -> None:
        self.id_edit.textEdited.connect(self._id_edited)
        self.url_edit.textEdited.connect(self._url_edited)
        self.key_edit.textChanged.connect(self._key_edited)
        self.key_toggle.toggled.connect(self._show_key)
        self.clear_key.clicked.connect(self._forget_key)
        self.enabled.toggled.connect(self._enabled_edited)
        self.local.activated.connect(self._local_edited)
        self.test_button.clicked.connect(self.test_connection)

    # -- showing ----------------------------------------------------------------

    @property
    def draft(self) -> ProviderDraft | None:
        """The draft being edited."""
        if self._providers is None or not 0 <= self._index < len(self._providers.drafts):
            return None
        return self._providers.drafts[self._index]

    def show_draft(self, providers: ProviderList, index: int) -> None:
        """Edit the draft at `index` (a test of another provider is stopped)."""
        previous = self.draft
        self._providers, self._index = providers, index
        draft = self.draft
        if draft is None:
            return
        if draft is not previous:
            self.stop_test()
            self.test_result.clear()
        self._loading = True
        try:
            self.id_edit.setText(draft.id)
            self.kind_label.setText(draft.label)
            self.url_edit.setText(draft.base_url)
            self.url_edit.setPlaceholderText(draft.default_url(self._environ))
            self.key_edit.setText(draft.new_key)
            self.key_toggle.setChecked(False)
            self.enabled.setChecked(draft.enabled)
            self.local.setCurrentIndex(LOCAL_CHOICES.index(draft.local))
        finally:
            self._loading = False
        self.refresh()

    def refresh(self) -> None:
        """Show the draft's problems, key note and automatic locality again."""
        draft, providers = self.draft, self._providers
        if draft is None or providers is None:
            return
        problems = providers.problems(self._index)
        for field, label in (("id", self.id_error), ("base_url", self.url_error)):
            label.setText(problems.get(field, ""))
            label.setVisible(field in problems)
        placeholder, note = key_note(draft, self._keys.problem)
        self.key_edit.setPlaceholderText(placeholder)
        self.key_note.setText(note)
        self.clear_key.setVisible(draft.key_source is KeySource.SAVED and not draft.clear_key)
        # Never a DNS lookup per keystroke: a name not looked up yet says "from its address".
        local = known_locality(draft.reach_url(self._environ))
        said = "" if local is None else f"{'yes' if local else 'no'}, "
        self.local.setItemText(0, f"Automatic ({said}from its address)")

    def focus_field(self, field: str) -> None:
        """Put the cursor in a field that needs fixing."""
        (self.id_edit if field == "id" else self.url_edit).setFocus()

    # -- edits --------------------------------------------------------------------

    def _edit(self) -> ProviderDraft | None:
        return None if self._loading else self.draft

    def _changed(self) -> None:
        self.refresh()
        self.edited.emit()

    def _id_edited(self, text: str) -> None:
        if draft := self._edit():
            draft.id = text.strip()
            self._changed()

    def _url_edited(self, text: str) -> None:
        if draft := self._edit():
            draft.base_url = text.strip()
            self._changed()

    def _key_edited(self, text: str) -> None:
        if draft := self._edit():
            draft.new_key = text
            if text:
                draft.clear_key = False
            self._changed()

    def _show_key(self, shown: bool) -> None:
        # Only ever a key typed in this dialog: a saved key is never read into it.
        mode = QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password
        self.key_edit.setEchoMode(mode)
        self.key_toggle.setText("Hide" if shown else "Show")
        self.key_toggle.setAccessibleName("Hide the typed key" if shown else "Show the typed key")

    def _forget_key(self) -> None:
        if draft := self._edit():
            draft.clear_key = True
            draft.new_key = ""
            self.key_edit.clear()
            self._changed()

    def _enabled_edited(self, on: bool) -> None:
        if draft := self._edit():
            draft.enabled = on
            self._changed()

    def _local_edited(self, row: int) -> None:
        if draft := self._edit():
            draft.local = LOCAL_CHOICES[row]
            self._changed()

    # -- connection test -----------------------------------------------------------

    def test_connection(self) -> None:
        """List the provider's models with what is typed; a second click starts over."""
        draft, providers = self.draft, self._providers
        if draft is None or providers is None:
            return
        self.stop_test()
        problem = url_problem(draft.base_url)
        if problem:
            self.test_result.setText(html.escape(problem))
            return
        self._test = asyncio.ensure_future(self._run_test(providers, draft))

    def stop_test(self) -> None:
        """Cancel a running test (its result would be for other settings)."""
        if self._test is not None and not self._test.done():
            self._test.cancel()
        self._test = None

    @property
    def testing(self) -> bool:
        """Whether a connection test runs."""
        return self._test is not None and not self._test.done()

    async def _run_test(self, providers: ProviderList, draft: ProviderDraft) -> None:
        url = draft.reach_url(self._environ)
        self.test_result.setText(f"Connecting to {html.escape(endpoint_name(url))}…")
        try:
            key = await asyncio.to_thread(providers.key_for_test, draft, self._keys)
            preset = preset_for(draft.kind)
            if preset.needs_key and not key:
                # The person is at the key's field: say so, not where keys are set.
                also = f" (or set {preset.key_env})" if preset.key_env else ""
                self.test_result.setText(
                    html.escape(f"Enter the API key above{also}, then test again.")
                )
                return
            name = draft.id or draft.kind
            provider = ProviderConfig(name, draft.kind, url, key, local=draft.local)
            status = await list_provider(provider)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug in a wire must still end "Connecting…"
            show_problem(self.test_result)
            self.test_result.setText(html.escape(f"The test failed: {exc}"))
            return
        self.show_result(status)

    def show_result(self, status: ProviderStatus) -> None:
        """Show what a test found: the models (an eye on those that see) or the error."""
        self.test_result.setAccessibleDescription(listing_words(status))
        show_problem(self.test_result, status.error is not None)
        if status.error is not None or not status.models:
            self.test_result.setText(html.escape(listing_words(status)))
            return
        color = self.palette().color(QPalette.ColorRole.WindowText).name()
        eye = f"<img src='{_eye_uri(color)}' width='14' height='14'>&nbsp;"
        models, more = shown_models(status)
        names = ", ".join((eye if m.sees else "") + html.escape(m.name) for m in models)
        count = len(status.models)
        self.test_result.setText(
            f"Found {count} model{'s' if count != 1 else ''}: {names}" + ("…" if more else "")
        )
