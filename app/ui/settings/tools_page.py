"""Settings → Tools: MCP servers as pasted, how approval works, routing, and the data folder.

The page only shows and collects; checking the JSON and saving are
app.presenters.tools_settings's, and the dialog's Save writes everything at once.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.config import Config
from app.presenters.tools_settings import McpCheck, ToolsSettings, check_mcp, vision_choices
from app.ui.named import named_label
from app.ui.settings.json_paste import json_paste_box, put_cursor_at
from app.ui.theme import show_problem
from routing.models import ModelInfo

MCP_PLACEHOLDER = """{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/path/to/folder"]
    }
  }
}"""
APPROVAL_WORDS = (
    "Sightline asks before every tool call. <b>Allow once</b> runs that one call; "
    "<b>Allow in this chat</b> lets the same tool run again in that conversation "
    "without asking, and is kept with the conversation (after a restart too). "
    "<b>Don't allow</b> tells the model the call was not run."
)
VISION_WORDS = (
    "Naming a vision model allows Sightline to send it the pictures of chats whose "
    "model can't see, so it can describe them in words. Chats with a model on this "
    "computer only ever use models on this computer."
)


class ToolsPage(QWidget):
    """The Tools tab of Settings."""

    def __init__(
        self,
        config: Config,
        mcp_text: str,
        models: tuple[ModelInfo, ...],
        parent: QWidget | None = None,
    ) -> None:
        """The page showing `config`'s choices and the MCP file's text."""
        super().__init__(parent)
        self.setAccessibleName("Tools")
        self._saved_mcp = mcp_text
        self.data_dir = config.data_dir

        self.mcp_edit = json_paste_box(
            self,
            "MCP servers JSON",
            "Paste the mcpServers JSON that Claude Desktop and others use, as it is",
            MCP_PLACEHOLDER,
        )
        self.mcp_edit.setPlainText(mcp_text)
        self.check_button = QPushButton("C&heck", self)
        self.check_button.setAccessibleName("Check MCP servers")
        self.check_button.setToolTip("Read the JSON and list the servers it starts")
        self.check_button.setAutoDefault(False)
        self.mcp_result = QLabel(self)
        self.mcp_result.setAccessibleName("MCP check result")
        self.mcp_result.setWordWrap(True)
        self.mcp_result.setTextFormat(Qt.TextFormat.PlainText)
        self.mcp_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        # Standing permission for the built-in tools; MCP tools are always asked about.
        self.always_boxes: dict[str, QCheckBox] = {}
        for name, words in (
            ("read_file", "Run read_file without asking (it reads files on this computer)"),
            ("screenshot", "Run screenshot without asking (it captures the screen)"),
        ):
            box = QCheckBox(words, self)
            box.setAccessibleName(f"Always allow {name}")
            box.setChecked(name in config.always_allow_tools)
            self.always_boxes[name] = box
        self.cloud_box = QCheckBox(
            "&Auto may use cloud models when nothing on this computer fits", self
        )
        self.cloud_box.setAccessibleName("Auto may use cloud models")
        self.cloud_box.setChecked(config.auto_may_use_cloud)
        self.sight_box = QCheckBox(
            "Check a model's sight before its first picture when nobody says whether it sees", self
        )
        self.sight_box.setAccessibleName("Check sight automatically")
        self.sight_box.setToolTip(
            "Sightline asks such a model about a small probe picture first, so a server that "
            "takes pictures and ignores them is caught. Off: pictures go to it as they are."
        )
        self.sight_box.setChecked(config.check_sight)
        self.vision_combo = QComboBox(self)
        self.vision_combo.setAccessibleName("Vision model")
        self.vision_combo.view().setAccessibleName("Vision model choices")
        for label, ref in vision_choices(models, config.vision_model):
            self.vision_combo.addItem(label, ref)
        self.vision_combo.setCurrentIndex(max(0, self.vision_combo.findData(config.vision_model)))

        self.prompt_edit = QPlainTextEdit(config.system_prompt, self)
        self.prompt_edit.setAccessibleName("System prompt for every chat")
        self.prompt_edit.setPlaceholderText(
            "What every chat tells its model first (empty: nothing); a chat can have its own"
        )
        self.prompt_edit.setTabChangesFocus(True)
        self.prompt_edit.setFixedHeight(64)
        # What a chat does once it outgrows its model's window (routing/fitting.py).
        self.overflow_combo = QComboBox(self)
        self.overflow_combo.setAccessibleName("Past the model's window")
        self.overflow_combo.view().setAccessibleName("Past the model's window: choices")
        self.overflow_combo.addItem(
            "Leave out the oldest turns (the first message and the newest kept)", "leave_out"
        )
        self.overflow_combo.addItem("Stop at the limit and say so", "stop")
        self.overflow_combo.setCurrentIndex(
            max(0, self.overflow_combo.findData(str(config.context_overflow)))
        )

        self.data_edit = QLineEdit(str(config.data_dir), self)
        self.data_edit.setAccessibleName("Data folder")
        self.data_edit.setReadOnly(True)
        self.open_button = QPushButton("&Open folder", self)
        self.open_button.setAccessibleName("Open data folder")
        self.open_button.setToolTip("Show the folder in your file manager")
        self.open_button.setAutoDefault(False)
        self._build_layout()

        self.check_button.clicked.connect(self.check)
        self.mcp_edit.textChanged.connect(self.mcp_result.clear)
        self.open_button.clicked.connect(self.open_data_folder)

    def _build_layout(self) -> None:
        mcp = QGroupBox("MCP servers", self)
        mcp_layout = QVBoxLayout(mcp)
        mcp_layout.addWidget(
            named_label(
                "Paste the <code>mcpServers</code> JSON from Claude Desktop, Cursor or a "
                "server's instructions, as it is. Their tools join read_file and screenshot.",
                "About MCP servers",
                mcp,
                rich=True,
            )
        )
        mcp_layout.addWidget(self.mcp_edit, 1)
        check_row = QHBoxLayout()
        check_row.addWidget(self.mcp_result, 1)
        check_row.addWidget(self.check_button, 0, Qt.AlignmentFlag.AlignTop)
        mcp_layout.addLayout(check_row)

        approval = QGroupBox("Approval", self)
        approval_layout = QVBoxLayout(approval)
        approval_layout.addWidget(
            named_label(APPROVAL_WORDS, "How tool approval works", approval, rich=True)
        )
        for box in self.always_boxes.values():
            approval_layout.addWidget(box)

        routing = QGroupBox("Routing", self)
        routing_layout = QVBoxLayout(routing)
        routing_layout.addWidget(self.cloud_box)
        routing_layout.addWidget(self.sight_box)
        vision_row = QHBoxLayout()
        vision_label = QLabel("&Vision model:", routing)
        vision_label.setBuddy(self.vision_combo)
        vision_label.setAccessibleName("Vision model label")
        vision_row.addWidget(vision_label)
        vision_row.addWidget(self.vision_combo, 1)
        routing_layout.addLayout(vision_row)
        routing_layout.addWidget(
            named_label(VISION_WORDS, "About the vision model", routing, rich=True)
        )

        chats = QGroupBox("Chats", self)
        chats_layout = QVBoxLayout(chats)
        chats_layout.addWidget(
            _label_for(self.prompt_edit, "&System prompt for every chat:", "System prompt", chats)
        )
        chats_layout.addWidget(self.prompt_edit)
        chats_layout.addWidget(
            named_label(
                "A chat's own prompt (Chat ▸ Chat settings…) takes its place there. It goes "
                "only to the model that answers, with the conversation.",
                "About the system prompt",
                chats,
                rich=True,
            )
        )
        words = "When a chat outgrows the model's &window:"
        chats_layout.addWidget(
            _label_for(self.overflow_combo, words, "Past the model's window", chats)
        )
        chats_layout.addWidget(self.overflow_combo)

        data = QGroupBox("Data", self)
        data_row = QHBoxLayout(data)
        data_row.addWidget(
            _label_for(self.data_edit, "Conversations are kept in", "Data folder", data)
        )
        data_row.addWidget(self.data_edit, 1)
        data_row.addWidget(self.open_button)

        column = QVBoxLayout(self)
        column.setContentsMargins(4, 4, 4, 4)
        column.setSpacing(10)
        column.addWidget(mcp, 1)  # the JSON box takes whatever room there is
        column.addWidget(approval)
        column.addWidget(chats)
        # Where pictures and chats may go, and where they are kept: a tab of their own
        # (Settings ▸ Privacy & routing), still saved with this page.
        self.privacy_page = QWidget(self)
        self.privacy_page.setAccessibleName("Privacy and routing")
        privacy = QVBoxLayout(self.privacy_page)
        privacy.setContentsMargins(4, 4, 4, 4)
        privacy.setSpacing(10)
        privacy.addWidget(routing)
        privacy.addWidget(data)
        privacy.addStretch(1)

    # -- the person's actions ---------------------------------------------------------

    def check(self) -> McpCheck:
        """Read the pasted JSON and show the servers it names, or what is wrong and where."""
        result = check_mcp(self.mcp_edit.toPlainText())
        show_problem(self.mcp_result, bool(result.error))
        self.mcp_result.setText(result.words())
        put_cursor_at(self.mcp_edit, result.position)
        return result

    def open_data_folder(self) -> None:
        """Show the data folder in the file manager."""
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(Path(self.data_dir))))

    # -- for the dialog ------------------------------------------------------------------

    @property
    def mcp_changed(self) -> bool:
        """Whether the JSON differs from the file's."""
        return self.mcp_edit.toPlainText().strip() != self._saved_mcp.strip()

    def settings(self) -> ToolsSettings:
        """The choices on the page."""
        return ToolsSettings(
            mcp_text=self.mcp_edit.toPlainText(),
            auto_may_use_cloud=self.cloud_box.isChecked(),
            check_sight=self.sight_box.isChecked(),
            system_prompt=self.prompt_edit.toPlainText(),
            context_overflow=str(self.overflow_combo.currentData() or "leave_out"),
            vision_model=str(self.vision_combo.currentData() or ""),
            always_allow=tuple(n for n, box in self.always_boxes.items() if box.isChecked()),
        )


def _label_for(field: QWidget, words: str, name: str, parent: QWidget) -> QLabel:
    """A label that names `field` (its buddy, so its shortcut focuses it) to a screen reader
    as "`name` label"."""
    label = QLabel(words, parent)
    label.setBuddy(field)
    label.setAccessibleName(f"{name} label")
    return label
