"""The welcome in the empty chat the first time: which local servers answered, and what next.

First time means no config file and no conversations yet. `welcome` puts the
model listing into words (no widgets); `FirstRunPanel` shows them. Every state
ends in something to do: write a message, pull a model, try again, or add a
cloud provider.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.ui.controller import ModelListing
from routing.endpoints import endpoint_name

WELCOME = "Welcome to Sightline"
_READY, _NOT_READY = "#16a34a", "#8a94a0"  # a server with models; one without, or none
_NAMES = {"ollama": "Ollama", "lmstudio": "LM Studio", "llamacpp": "llama.cpp"}
_PULL = {
    "ollama": "run `ollama pull llama3.2` (or `ollama pull qwen2.5vl:3b`, which sees pictures)",
    "lmstudio": "download a model in LM Studio and load it",
    "llamacpp": "start llama-server with a model (`llama-server -m model.gguf`)",
}


@dataclass(frozen=True)
class Server:
    """One local server Sightline looked for, and what it found there."""

    name: str
    address: str  # host:port
    found: bool
    models: int = 0
    problem: str = ""  # why it did not answer, in the provider's words when known

    @property
    def words(self) -> str:
        """One line about this server."""
        if not self.found:
            return f"{self.name} at {self.address}: not running"
        if not self.models:
            return f"{self.name} at {self.address}: running, but it has no models yet"
        return f"{self.name} at {self.address}: {self.models} model{'s' * (self.models != 1)}"


@dataclass(frozen=True)
class Welcome:
    """What the first-run panel says: the servers looked for, and what to do next."""

    servers: tuple[Server, ...]
    next_step: str
    can_retry: bool

    @property
    def ready(self) -> bool:
        """Whether some model can answer right now."""
        return any(s.found and s.models for s in self.servers)


def is_first_run(has_config_file: bool, has_conversations: bool) -> bool:
    """No config file and no conversation yet: the person has just arrived."""
    return not has_config_file and not has_conversations


def welcome(listing: ModelListing) -> Welcome | None:
    """The welcome for a finished listing; None while Sightline is still looking."""
    if listing.listing:
        return None
    statuses = {s.provider.id: s for s in listing.statuses}
    servers: list[Server] = []
    for provider in listing.providers:
        status = statuses.get(provider.id)
        name = _NAMES.get(provider.id, provider.id)
        address = endpoint_name(provider.base_url)
        if status is None or status.error is not None:
            problem = status.error.message if status and status.error else ""
            servers.append(Server(name, address, False, problem=problem))
        else:
            servers.append(Server(name, address, True, len(status.models)))
    ready = [s for s in servers if s.found and s.models]
    if ready:
        step = (
            "Write your first message below: Auto answers with a model on this computer, "
            "or choose one in the Model list (Ctrl+K). Nothing leaves this computer unless "
            "you add a cloud provider."
        )
        return Welcome(tuple(servers), step, can_retry=False)
    pulls = [
        _PULL.get(provider.id, "load a model in it")
        for provider, server in zip(listing.providers, servers, strict=True)
        if server.found and not server.models
    ]
    if pulls:
        step = (
            f"A server is running but has no model: {pulls[0]}, then press Try again. "
            "Or add a cloud provider."
        )
    else:
        step = (
            "No model server is running on this computer. To chat privately here, install "
            "Ollama from ollama.com and run `ollama pull llama3.2` (or start LM Studio's "
            "server), then press Try again. Or add a cloud provider with its API key."
        )
    return Welcome(tuple(servers), step, can_retry=True)


def _code(text: str) -> str:
    """Plain words to rich text, with `backticked` commands in a fixed-width font."""
    import html  # here, not at the top: its entity table (~1 ms) isn't needed to paint

    parts = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


class FirstRunPanel(QFrame):
    """The welcome: servers found (or not) on this computer, the next step, and a way out."""

    retry_requested = Signal()
    cloud_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        """An empty panel; `show_welcome` fills it."""
        super().__init__(parent)
        self.setObjectName("firstRunPanel")
        self.setAccessibleName("Welcome")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setMaximumWidth(680)
        self.title = QLabel(WELCOME, self)
        self.title.setAccessibleName("Welcome title")
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.title.setFont(font)
        self.servers = QLabel(self)
        self.servers.setAccessibleName("Servers on this computer")
        self.servers.setWordWrap(True)
        self.servers.setTextFormat(Qt.TextFormat.RichText)
        self.servers.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.next_step = QLabel(self)
        self.next_step.setAccessibleName("What to do next")
        self.next_step.setWordWrap(True)
        self.next_step.setTextFormat(Qt.TextFormat.RichText)
        self.next_step.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.retry = QPushButton("Try again", self)
        self.retry.setAccessibleName("Look for local servers again")
        self.retry.setToolTip("Look for Ollama, LM Studio and llama.cpp again")
        self.cloud = QPushButton("Add a cloud provider…", self)
        self.cloud.setAccessibleName("Add a cloud provider")
        self.cloud.setToolTip("OpenAI, Anthropic, OpenRouter, Gemini and others, with your key")
        self.retry.clicked.connect(self.retry_requested)
        self.cloud.clicked.connect(self.cloud_requested)

        buttons = QHBoxLayout()
        buttons.addWidget(self.retry)
        buttons.addWidget(self.cloud)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(26, 22, 26, 22)
        layout.setSpacing(12)
        layout.addWidget(self.title)
        layout.addWidget(self.servers)
        layout.addWidget(self.next_step)
        layout.addLayout(buttons)

    def show_welcome(self, shown: Welcome) -> None:
        """Say what was found and what to do next."""
        import html  # here, not at the top: see `_code`

        rows = "".join(
            f"<tr><td style='color:{_READY if s.found and s.models else _NOT_READY}'>"
            f"{'✓' if s.found and s.models else '✗' if not s.found else '!'}</td>"
            f"<td>{html.escape(s.words)}</td></tr>"
            for s in shown.servers
        )
        looked = "Sightline looked for model servers on this computer:"
        self.servers.setText(
            f"<p>{looked}</p><table cellspacing='0' cellpadding='2' style='margin-left:8px'>"
            f"{rows}</table>"
        )
        self.next_step.setText(f"<p><b>Next:</b> {_code(shown.next_step)}</p>")
        self.retry.setVisible(shown.can_retry)
        self.setAccessibleDescription(shown.next_step)

    def text(self) -> str:
        """Everything the panel says, as plain text (for tests and screen readers)."""
        return f"{self.title.text()}\n{self.servers.text()}\n{self.next_step.text()}"
