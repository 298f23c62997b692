"""The chat's own settings, reached from the chat's header: its system prompt, and the
temperature, longest answer and context length of its requests.

Each field left empty is the default: the system prompt from Settings, the rest
the server's own (nothing is sent). What is typed is checked by
routing/chat_settings.py, and a value that can't be used is said under the fields,
in the words the command line uses too; nothing is kept until Save. Under each
parameter the chat's model doesn't take (routing/parameters.py), a note says so and
why: it is never sent to that model.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from app.ui.theme import show_problem
from routing.chat_settings import ChatSettings, SettingsInvalid, checked
from routing.models import ModelInfo
from routing.parameters import BECAUSE, WORDS

SERVER_DEFAULT = "the server's default"


class ChatSettingsPanel(QDialog):
    """System prompt and parameters of one chat; `save` is given what the person chose."""

    def __init__(
        self,
        title: str,
        settings: ChatSettings,
        default_prompt: str,
        save: Callable[[ChatSettings], None],
        parent: QWidget | None = None,
        model: ModelInfo | None = None,
    ) -> None:
        """A panel showing `settings`, the chat's own; `default_prompt` is Settings'; `model`
        the chat's (None for Auto), whose settings it doesn't take are noted."""
        super().__init__(parent)
        self.setWindowTitle(f"Chat settings — {title}")
        self.setAccessibleName("Chat settings")
        self._save = save
        self._default_prompt = default_prompt
        self.own_prompt = QCheckBox("This chat has its own system prompt", self)
        self.prompt = QPlainTextEdit(self)
        self.prompt.setAccessibleName("System prompt")
        self.prompt.setTabChangesFocus(True)
        self.prompt.setPlaceholderText("What the model is told before the conversation")
        self.prompt.setMinimumHeight(110)
        self.default_note = QLabel(self)
        self.default_note.setWordWrap(True)
        self.default_note.setTextFormat(Qt.TextFormat.PlainText)
        self.temperature = self._field("Temperature", "0 to 2", settings.temperature)
        self.max_tokens = self._field("Longest answer", "tokens", settings.max_tokens)
        self.context_length = self._field(
            "Context length", "tokens (Ollama)", settings.context_length
        )
        # What the chat does once it outgrows its model's window (routing/fitting.py).
        self.overflow = QComboBox(self)
        self.overflow.setAccessibleName("Past the model's window")
        self.overflow.view().setAccessibleName("Past the model's window: choices")
        for words, choice in (
            ("As in Settings", None),
            ("Leave out the oldest turns (the first message and the newest kept)", "leave_out"),
            ("Stop at the limit and say so", "stop"),
        ):
            self.overflow.addItem(words, choice)
        chosen = settings.overflow.value if settings.overflow is not None else None
        self.overflow.setCurrentIndex(max(0, self.overflow.findData(chosen)))
        self.problem = QLabel(self)
        self.problem.setAccessibleName("Problem with the settings")
        self.problem.setWordWrap(True)
        show_problem(self.problem)
        self.problem.hide()

        own = settings.system_prompt
        has_own = own is not None
        self.own_prompt.setChecked(has_own)
        self.prompt.setPlainText(own if own is not None else default_prompt)
        self.own_prompt.toggled.connect(self._follow_default)
        self._follow_default(has_own)

        form = QFormLayout()
        self.notes: dict[str, QLabel] = {}  # by setting: why the model doesn't take it
        for label, field, setting in (
            ("Temperature", self.temperature, "temperature"),
            ("Longest answer", self.max_tokens, "max_tokens"),
            ("Context length", self.context_length, "context_length"),
        ):
            form.addRow(label, field)
            if model is not None and (why := model.why_not(setting)) is not None:
                note = QLabel(
                    f"{model.ref} doesn't take a {WORDS[setting]} ({BECAUSE[why]}): "
                    "it isn't sent to it.",
                    self,
                )
                note.setAccessibleName(f"{label}: not taken")
                note.setWordWrap(True)
                note.setTextFormat(Qt.TextFormat.PlainText)
                form.addRow("", note)
                self.notes[setting] = note
        form.addRow("Past the window", self.overflow)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self.try_save)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        layout = QVBoxLayout(self)
        layout.addWidget(self.own_prompt)
        layout.addWidget(self.prompt, 1)
        layout.addWidget(self.default_note)
        layout.addLayout(form)
        layout.addWidget(
            QLabel(f"A field left empty is {SERVER_DEFAULT}: nothing is sent for it.", self)
        )
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.resize(560, 460)

    def _field(self, name: str, unit: str, value: float | int | None) -> QLineEdit:
        field = QLineEdit("" if value is None else f"{value:g}", self)
        field.setAccessibleName(name)
        field.setPlaceholderText(f"{SERVER_DEFAULT} ({unit})")
        return field

    def _follow_default(self, own: bool) -> None:
        self.prompt.setReadOnly(not own)
        if not own:
            self.prompt.setPlainText(self._default_prompt)
        if own:
            self.default_note.setText("Only this chat uses it. Empty: no system prompt at all.")
        elif self._default_prompt:
            self.default_note.setText("The default from Settings, which every chat uses.")
        else:
            self.default_note.setText("No system prompt: Settings has no default.")

    def chosen(self) -> ChatSettings:
        """What the fields say, checked; SettingsInvalid says what to change."""
        return checked(
            self.prompt.toPlainText() if self.own_prompt.isChecked() else None,
            self.temperature.text().strip() or None,
            self.max_tokens.text().strip() or None,
            self.context_length.text().strip() or None,
            self.overflow.currentData(),
        )

    def try_save(self) -> None:
        """Keep the settings and close, or say what is wrong and stay open."""
        try:
            settings = self.chosen()
        except SettingsInvalid as exc:
            self.problem.setText(str(exc))
            self.problem.show()
            return
        self._save(settings)
        self.accept()
