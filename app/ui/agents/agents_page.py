"""Settings → Agents: the agents Sightline can start, and Zed's `agent_servers` pasted as is.

The page only shows and collects: reading the JSON is app.agent_servers's, the
agents are the dialog's `ProviderList.agents`, and the dialog's Save writes them
to the config file as `[[providers]]` of kind "acp". Check never runs a command;
it only looks for it. An agent's env values are shown masked, never in full.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QCheckBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.agent_commands import masked_env, shown_command
from app.agent_drafts import AgentDraft
from app.agent_servers import AgentPaste, read_agent_servers
from app.presenters.settings_model import ProviderList
from app.ui.named import named_button, named_label
from app.ui.settings.json_paste import json_paste_box, put_cursor_at
from app.ui.theme import show_problem

AGENTS_PLACEHOLDER = """{
  "agent_servers": {
    "OpenCode": {
      "command": "opencode",
      "args": ["acp"],
      "env": {"OPENCODE_DISABLE_MODELS_FETCH": "1"}
    }
  }
}"""
ABOUT_AGENTS = (
    "An agent is a program that works on its own with its own model and tools, such as "
    "OpenCode or Gemini CLI; Sightline starts it when you pick it and speaks the Agent "
    "Client Protocol with it."
)
ABOUT_PASTE = (
    "Paste the <code>agent_servers</code> JSON from Zed's settings, as it is (comments "
    "too). <b>Check</b> reads it and looks for each command without running it; "
    "<b>Add</b> puts the agents in the list above, and Save writes them."
)
LOCAL_WORDS = "Its model runs on this computer"
COLUMNS = ("Agent", "Command", "Environment", "Its model runs")


class AgentsPage(QWidget):
    """The Agents tab of Settings: the configured agents and the paste box."""

    def __init__(
        self,
        providers: ProviderList,
        environ: Mapping[str, str] = os.environ,
        parent: QWidget | None = None,
    ) -> None:
        """The page showing `providers.agents`; its edits go to them."""
        super().__init__(parent)
        self.setAccessibleName("Agents")
        self.providers = providers
        self.environ = environ

        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setAccessibleName("Agents")
        self.table.setAccessibleDescription("The agents Sightline can start")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        local_header = self.table.horizontalHeaderItem(3)
        if local_header is not None:
            local_header.setToolTip(LOCAL_WORDS)
        header.setAccessibleName("Agent columns")
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setAccessibleName("Agent rows")
        self.table.setCornerButtonEnabled(False)
        for corner in self.table.findChildren(QAbstractButton):
            corner.setAccessibleName("Select every agent")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setMinimumHeight(90)
        self.empty_text = QLabel("No agents yet: paste some from Zed below.", self)
        self.empty_text.setAccessibleName("No agents")
        self.remove_button = named_button(
            "Re&move agent",
            "Remove agent",
            "Remove the selected agent (on Save)",
            self,
            never_default=True,
        )
        self.local_boxes: list[QCheckBox] = []

        self.paste_edit = json_paste_box(
            self,
            "Agent servers JSON",
            "Paste the agent_servers JSON from Zed's settings, as it is",
            AGENTS_PLACEHOLDER,
        )
        self.check_button = named_button(
            "C&heck",
            "Check agents",
            "Read the JSON and look for each agent's command",
            self,
            never_default=True,
        )
        self.add_button = named_button(
            "A&dd agents",
            "Add agents",
            "Add the pasted agents to the list",
            self,
            never_default=True,
        )
        self.result = QLabel(self)
        self.result.setAccessibleName("Agents check result")
        self.result.setWordWrap(True)
        self.result.setTextFormat(Qt.TextFormat.PlainText)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._build_layout()

        self.check_button.clicked.connect(self.check)
        self.add_button.clicked.connect(self.add)
        self.remove_button.clicked.connect(self.remove_selected)
        self.paste_edit.textChanged.connect(self.result.clear)
        self.table.itemSelectionChanged.connect(self._selected)
        self.show_agents()

    def _build_layout(self) -> None:
        agents = QGroupBox("Agents", self)
        agents_layout = QVBoxLayout(agents)
        agents_layout.addWidget(named_label(ABOUT_AGENTS, "About agents", agents, rich=True))
        agents_layout.addWidget(self.table, 1)
        agents_layout.addWidget(self.empty_text)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.remove_button)
        agents_layout.addLayout(row)

        paste = QGroupBox("Add agents from Zed", self)
        paste_layout = QVBoxLayout(paste)
        paste_layout.addWidget(named_label(ABOUT_PASTE, "About pasting agents", paste, rich=True))
        paste_layout.addWidget(self.paste_edit, 1)
        result_row = QHBoxLayout()
        result_row.addWidget(self.result, 1)
        buttons = QVBoxLayout()
        buttons.addWidget(self.check_button)
        buttons.addWidget(self.add_button)
        buttons.addStretch(1)
        result_row.addLayout(buttons)
        paste_layout.addLayout(result_row)

        column = QVBoxLayout(self)
        column.setContentsMargins(4, 4, 4, 4)
        column.setSpacing(10)
        column.addWidget(agents, 1)
        column.addWidget(paste, 1)

    # -- the list ----------------------------------------------------------------------

    def show_agents(self, select: int = -1) -> None:
        """Show the agents, one row each, and select one."""
        agents = self.providers.agents
        for box in self.local_boxes:  # Qt deletes them later; out of sight now
            box.hide()
        self.table.setRowCount(0)
        self.table.setRowCount(len(agents))
        self.local_boxes = []
        for row, agent in enumerate(agents):
            self._fill_row(row, agent)
        self.table.setVisible(bool(agents))
        self.empty_text.setVisible(not agents)
        if 0 <= select < len(agents):
            self.table.selectRow(select)
        else:
            self.table.clearSelection()
        self._selected()

    def _fill_row(self, row: int, agent: AgentDraft) -> None:
        line = shown_command(agent.command, agent.args)
        cells = (agent.id + ("" if agent.enabled else " (off)"), line, masked_env(agent.env) or "—")
        for column, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setToolTip(text)
            self.table.setItem(row, column, item)
        box = QCheckBox("on this computer", self.table)
        box.setAccessibleName(f"{agent.id}: {LOCAL_WORDS.lower()}")
        box.setToolTip(LOCAL_WORDS)
        box.setChecked(agent.local)
        box.toggled.connect(lambda checked, a=agent: self._set_local(a, checked))
        self.table.setCellWidget(row, 3, box)
        self.local_boxes.append(box)

    def _set_local(self, agent: AgentDraft, local: bool) -> None:
        agent.local = local

    def _selected(self) -> None:
        self.remove_button.setEnabled(self.selected_row() >= 0)

    def selected_row(self) -> int:
        """The selected agent's index, or -1."""
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else -1

    # -- the person's actions ---------------------------------------------------------

    def read(self) -> AgentPaste:
        """The pasted text read, with ids free among the providers and agents now."""
        return read_agent_servers(self.paste_edit.toPlainText(), self.providers.ids())

    def check(self) -> AgentPaste:
        """Read the pasted JSON and say, per agent, what it starts and whether it is there."""
        paste = self.read()
        self._show(paste, paste.words(self.environ))
        return paste

    def add(self) -> AgentPaste:
        """Add the pasted agents to the list (written on Save); the text read."""
        paste = self.read()
        if not paste.ok:
            self._show(paste, paste.words(self.environ))
            return paste
        first = len(self.providers.agents)
        added = self.providers.add_agents(paste.agents)
        self.show_agents(first)
        self.paste_edit.blockSignals(True)
        self.paste_edit.clear()
        self.paste_edit.blockSignals(False)
        count = len(added)
        words = [
            f"Added {count} agent{'s' * (count != 1)}: {', '.join(a.id for a in added)}. "
            "Tick “on this computer” for one whose model runs here; Save writes them."
        ]
        words += [f"“{s.name}” was skipped: {s.reason}" for s in paste.skipped]
        self._show(paste, "\n".join(words))
        return paste

    def remove_selected(self) -> None:
        """Remove the selected agent (the config file loses it on Save)."""
        row = self.selected_row()
        if not 0 <= row < len(self.providers.agents):
            return
        agent = self.providers.remove_agent(row)
        self.show_agents(min(row, len(self.providers.agents) - 1))
        self.result.setStyleSheet("")
        self.result.setText(f"Removed {agent.id}; Save writes the change, Cancel keeps it.")

    def _show(self, paste: AgentPaste, words: str) -> None:
        show_problem(self.result, bool(paste.error))
        self.result.setText(words)
        put_cursor_at(self.paste_edit, paste.position)

    # -- for the dialog ------------------------------------------------------------------

    @property
    def pending(self) -> bool:
        """Whether pasted text holds agents (or a mistake) that Add hasn't taken yet."""
        if not self.paste_edit.toPlainText().strip():
            return False
        paste = self.read()
        return paste.ok or bool(paste.error)
