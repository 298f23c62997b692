"""What the chat area says when no model is ready: what was tried, and how to fix it."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from app.presenters.model_status import LOOKING, Explanation
from app.ui.area_panel import AreaPanel, code_html
from app.ui.named import named_button


class ProviderPanel(AreaPanel):
    """Shown instead of an empty picker: the listing's progress or why nothing is ready."""

    retry_requested = Signal()
    settings_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        """A panel saying models are being looked for."""
        super().__init__(parent, "Model status", LOOKING, title_scale=1.25, max_width=780)
        self.setObjectName("providerPanel")
        self.details = self.rich_label("What was tried")
        self.retry = named_button(
            "Try again", "Try again", "Ask every provider for its models again", self
        )
        self.retry.clicked.connect(self.retry_requested)
        self.settings = named_button(
            "Provider settings…",
            "Provider settings",
            "Add a provider, or fix one's address or key",
            self,
        )
        self.settings.clicked.connect(self.settings_requested)
        self.lay_out([self.details], [self.retry, self.settings], (22, 18, 22, 18), 10)
        self.show_explanation(Explanation(LOOKING))

    def show_explanation(self, explanation: Explanation) -> None:
        """Show a title, what was tried and the advice (details only when nothing is ready)."""
        self.title.setText(explanation.title)
        self.setAccessibleDescription(explanation.title)
        if explanation.tried or explanation.advice:
            import html  # here, not at the top: see `code_html`

            items = "".join(
                f"<li><b>{html.escape(where)}</b><br>{code_html(outcome)}</li>"
                for where, outcome in explanation.tried
            )
            self.details.setText(
                f"<p>Sightline asked:</p><ul style='margin-left:-18px'>{items}</ul>"
                f"<p><b>What to do:</b> {code_html(explanation.advice)}</p>"
            )
            self.details.show()
            self.retry.show()
            self.settings.show()
        else:
            self.details.clear()
            self.details.hide()
            self.retry.hide()
            self.settings.hide()

    def text(self) -> str:
        """Everything the panel says, as plain text (for tests and screen readers)."""
        return f"{self.title.text()}\n{self.details.text()}"
