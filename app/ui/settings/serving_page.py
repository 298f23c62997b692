"""Settings ▸ Serving: the switch that serves other apps from this window, its port, whether
served turns may use Sightline's tools, and, while it serves, the two addresses and the
token to give an app, each copied with a button.

Like Appearance, it needs no Save: the switch starts or stops the server at once and the
choice is kept (app/ui/window_server.py). The port and the tools are chosen while it is
off, so what a running server was started with is what it does.
"""

from __future__ import annotations

import contextlib

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.presenters.serving_settings import ServingChoice
from app.ui.named import named_button, named_label
from app.ui.theme import show_problem
from app.ui.window_server import ServerStatus, WindowServer

OFF = "Off. Turn it on to let apps on this computer use Sightline's models."
ON = (
    "Serving on this computer only (loopback), while Sightline is open. Give an app the "
    "address and the token (as its API key). Turn it off to change the port or the tools."
)
ABOUT = (
    "Apps that speak OpenAI's or Ollama's API (an editor's assistant, a notebook, a script) "
    "ask Sightline's models here, under Sightline's rules: pictures described for a model "
    "that can't see, a local model's request kept on this computer. Each request is kept "
    "as a chat marked <i>served</i> in the list, with what crossed where in its ledger."
)
TOOLS_WORDS = (
    "&Let served requests use Sightline's tools, and their own (Sightline's asked here first)"
)


class ServingPage(QWidget):
    """The Serving tab of Settings, showing and steering the window's server."""

    def __init__(self, server: WindowServer, parent: QWidget | None = None) -> None:
        """The page for `server`, showing what it does now."""
        super().__init__(parent)
        self.setAccessibleName("Serving")
        self.server = server
        choice = server.choice
        self.switch = QCheckBox("Ser&ve other apps on this computer", self)
        self.switch.setAccessibleName("Serve other apps")
        self.port = QSpinBox(self)
        self.port.setAccessibleName("Port")
        self.port.lineEdit().setAccessibleName("Port")  # the box typed in, heard by itself too
        self.port.setRange(1, 65535)
        self.port.setValue(choice.port)
        self.port.setToolTip("The port apps connect to; choose it while serving is off")
        self.tools = QCheckBox(TOOLS_WORDS, self)
        self.tools.setAccessibleName("Let served requests use Sightline's tools, and their own")
        self.tools.setChecked(choice.tools)
        tools_words = (
            "Sightline's own (read_file, screenshot, your MCP servers), each call waiting "
            "for you on the approval card of its chat; and the tools a request brings, whose "
            "calls go back to its app to run. With this off, served requests get no tools."
        )
        self.tools.setToolTip(tools_words)
        self.tools.setAccessibleDescription(tools_words)
        self.state = named_label("", "Serving status", self)
        self.state.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.openai_field = _shown("OpenAI API address", self)
        self.ollama_field = _shown("Ollama API address", self)
        self.token_field = _shown("Token", self)
        self.token_field.setEchoMode(QLineEdit.EchoMode.Password)
        self.show_token = named_button("Sho&w", "Show token", "Show the token", self)
        self.show_token.setCheckable(True)
        self.show_token.setAutoDefault(False)
        self.copy_buttons = [
            _copy_button(field, what, self)
            for field, what in (
                (self.openai_field, "OpenAI address"),
                (self.ollama_field, "Ollama address"),
                (self.token_field, "token"),
            )
        ]
        self._build_layout()

        self.switch.toggled.connect(self._switched)
        self.show_token.toggled.connect(self._show_token)
        server.changed.connect(self.show_status)
        self.show_status(server.status)

    def _build_layout(self) -> None:
        group = QGroupBox("Serve other apps", self)
        column = QVBoxLayout(group)
        column.addWidget(named_label(ABOUT, "About serving other apps", group, rich=True))
        switch_row = QHBoxLayout()
        switch_row.addWidget(self.switch)
        switch_row.addStretch(1)
        port_label = QLabel("P&ort:", group)
        port_label.setBuddy(self.port)
        port_label.setAccessibleName("Port label")
        switch_row.addWidget(port_label)
        switch_row.addWidget(self.port)
        column.addLayout(switch_row)
        column.addWidget(self.tools)
        column.addWidget(self.state)
        grid = QGridLayout()
        rows = (
            ("OpenAI API:", self.openai_field, None),
            ("Ollama API:", self.ollama_field, None),
            ("Token:", self.token_field, self.show_token),
        )
        buttons = zip(rows, self.copy_buttons, strict=True)
        for row, ((words, field, extra), copy) in enumerate(buttons):
            label = QLabel(words, group)
            label.setBuddy(field)
            label.setAccessibleName(f"{field.accessibleName()} label")
            grid.addWidget(label, row, 0)
            # An address reaches its Copy button; the token leaves room for Show.
            grid.addWidget(field, row, 1, 1, 2 if extra is None else 1)
            if extra is not None:
                grid.addWidget(extra, row, 2)
            grid.addWidget(copy, row, 3)  # the Copy buttons in one column
        grid.setColumnStretch(1, 1)
        column.addLayout(grid)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(group)
        layout.addStretch(1)

    # -- the person's actions ---------------------------------------------------------

    def _switched(self, on: bool) -> None:
        self.server.choose(ServingChoice(on, self.port.value(), self.tools.isChecked()))

    def _show_token(self, shown: bool) -> None:
        mode = QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password
        self.token_field.setEchoMode(mode)
        self.show_token.setText("Hid&e" if shown else "Sho&w")
        self.show_token.setAccessibleName("Hide token" if shown else "Show token")

    # -- from the server ----------------------------------------------------------------

    def show_status(self, status: ServerStatus) -> None:
        """Show what the server does now: its addresses and token, or why it doesn't serve."""
        self.switch.blockSignals(True)  # showing it is not choosing it
        self.switch.setChecked(status.on)
        self.switch.blockSignals(False)
        self.switch.setEnabled(not status.busy)
        for chosen_when_off in (self.port, self.tools):
            chosen_when_off.setEnabled(not status.on and not status.busy)
        self.openai_field.setText(status.openai_url)
        self.ollama_field.setText(status.ollama_url)
        self.token_field.setText(status.token)
        for widget in (self.openai_field, self.ollama_field, self.token_field, self.show_token):
            widget.setEnabled(status.on)
        for button in self.copy_buttons:
            button.setEnabled(status.on)
            button.setText("Copy")
        busy = "Stopping…" if status.on else "Starting…"
        words = status.problem or (busy if status.busy else ON if status.on else OFF)
        show_problem(self.state, bool(status.problem))
        self.state.setText(words)

    def closing(self) -> None:
        """The dialog closes: the server goes on, unwatched."""
        with contextlib.suppress(RuntimeError):  # already, by an earlier close
            self.server.changed.disconnect(self.show_status)


def _shown(name: str, parent: QWidget) -> QLineEdit:
    """A read-only field for something to copy, named for a screen reader."""
    field = QLineEdit(parent)
    field.setReadOnly(True)
    field.setAccessibleName(name)
    return field


def _copy_button(field: QLineEdit, what: str, parent: QWidget) -> QPushButton:
    """Copy `field`'s words to the clipboard (the token's too, though it is shown as dots)."""
    button = named_button("Copy", f"Copy {what}", f"Copy the {what} to the clipboard", parent)
    button.setAutoDefault(False)

    def copy() -> None:
        QGuiApplication.clipboard().setText(field.text())
        for other in parent.findChildren(QPushButton):
            if other.text() == "Copied":
                other.setText("Copy")
        button.setText("Copied")  # said where the person looks; the name stays "Copy …"

    button.clicked.connect(copy)
    return button
