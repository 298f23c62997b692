"""The welcome in the empty chat the first time: which local servers answered, and what next.

First time means no config file and no conversations yet (app/presenters/first_run.py).
`welcome` (app/presenters/welcome.py) puts the model listing into words; `FirstRunPanel`
shows them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from app.presenters.first_run import WELCOME
from app.ui.area_panel import AreaPanel, code_html
from app.ui.named import named_button

if TYPE_CHECKING:  # what it says loads when a first start has something to say
    from app.presenters.welcome import Welcome

_READY, _NOT_READY = "#16a34a", "#8a94a0"  # a server with models; one without, or none


class FirstRunPanel(AreaPanel):
    """The welcome: servers found (or not) on this computer, the next step, and a way out."""

    retry_requested = Signal()
    cloud_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        """An empty panel; `show_welcome` fills it."""
        super().__init__(parent, "Welcome", WELCOME, title_scale=1.35, max_width=680)
        self.setObjectName("firstRunPanel")
        self.servers = self.rich_label("Servers on this computer")
        self.next_step = self.rich_label("What to do next")
        self.retry = named_button(
            "Try again",
            "Look for local servers again",
            "Look for Ollama, LM Studio and llama.cpp again",
            self,
        )
        self.cloud = named_button(
            "Add a cloud provider…",
            "Add a cloud provider",
            "OpenAI, Anthropic, OpenRouter, Gemini and others, with your key",
            self,
        )
        self.retry.clicked.connect(self.retry_requested)
        self.cloud.clicked.connect(self.cloud_requested)
        self.lay_out([self.servers, self.next_step], [self.retry, self.cloud], (26, 22, 26, 22), 12)

    def show_welcome(self, shown: Welcome) -> None:
        """Say what was found and what to do next."""
        import html  # here, not at the top: see `code_html`

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
        self.next_step.setText(f"<p><b>Next:</b> {code_html(shown.next_step)}</p>")
        self.retry.setVisible(shown.can_retry)
        self.setAccessibleDescription(shown.next_step)

    def text(self) -> str:
        """Everything the panel says, as plain text (for tests and screen readers)."""
        return f"{self.title.text()}\n{self.servers.text()}\n{self.next_step.text()}"
