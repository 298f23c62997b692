"""The card above the composer that asks whether a tool call may run.

Not a dialog: the rest of the window stays usable while it waits. None of its
buttons is a default, so Enter typed in the composer never allows anything; the
card only reports which button was pressed.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFocusEvent, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from app.presenters.approvals import ApprovalRequest
from app.presenters.tool_words import pretty_arguments
from app.ui.conversation.painting import blend, code_font
from app.ui.icons import badge_image, icon_of
from app.ui.named import named_button
from routing.transcript import ToolCall

# app.turn.tool_step.Approval's values
ONCE, STEP, CONVERSATION, DENY = "once", "step", "conversation", "deny"
_ICON = QSize(18, 18)
AMBER = "#d97706"  # asking: the colour of "wait", not of an error


class ApprovalCard(QFrame):
    """Names the tool and its arguments, with Allow once / Allow all of this step (when the
    model asked for more calls at once) / Allow in this chat / Don't allow."""

    answered = Signal(object, str)  # the ApprovalRequest, and ONCE, STEP, CONVERSATION or DENY

    def __init__(self, parent: QWidget | None = None) -> None:
        """A hidden card; `show_request` fills and shows it."""
        super().__init__(parent)
        self.request: ApprovalRequest | None = None
        self.setAccessibleName("Tool approval")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # focus lands here, not on a button
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.icon = QLabel(self)
        self.icon.setAccessibleName("Tool icon")
        self.heading = QLabel(self)
        self.heading.setAccessibleName("Tool approval question")
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.arguments = QLabel(self)
        self.arguments.setAccessibleName("Tool arguments")
        self.arguments.setTextFormat(Qt.TextFormat.PlainText)
        self.arguments.setWordWrap(True)
        self.arguments.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.arguments.setFont(code_font(self.font()))
        self.arguments.setMargin(8)
        self.arguments.setAutoFillBackground(True)
        self.hint = QLabel(self)
        self.hint.setAccessibleName("What the answers mean")
        self.hint.setWordWrap(True)
        # No default anywhere: an Enter meant for something else must not allow a tool.
        self.once_button = named_button(
            "Allow &once", "Allow once", "Run this call, and ask again", self, never_default=True
        )
        self.step_button = named_button(
            "Allow &all",
            "Allow all of this step",
            "Run this call and the others the model asked for with it, without asking about each",
            self,
            never_default=True,
        )
        self.chat_button = named_button(
            "Allow in this &chat",
            "Allow in this chat",
            "Don't ask again in this chat",
            self,
            never_default=True,
        )
        self.deny_button = named_button(
            "&Don't allow",
            "Don't allow",
            "The model is told the call was not allowed",
            self,
            never_default=True,
        )

        top = QHBoxLayout()
        top.setSpacing(8)
        top.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.heading, 1)
        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        buttons.addWidget(self.hint, 1)
        for button in (self.once_button, self.step_button, self.chat_button, self.deny_button):
            buttons.addWidget(button, 0, Qt.AlignmentFlag.AlignBottom)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.setSpacing(8)
        layout.addLayout(top)
        layout.addWidget(self.arguments)
        layout.addLayout(buttons)
        self.setTabOrder(self.once_button, self.step_button)
        self.setTabOrder(self.step_button, self.chat_button)
        self.setTabOrder(self.chat_button, self.deny_button)

        self.once_button.clicked.connect(lambda: self._answer(ONCE))
        self.step_button.clicked.connect(lambda: self._answer(STEP))
        self.chat_button.clicked.connect(lambda: self._answer(CONVERSATION))
        self.deny_button.clicked.connect(lambda: self._answer(DENY))
        self._restyle()
        self.hide()

    def show_request(self, request: ApprovalRequest) -> None:
        """Ask about one call."""
        self.request = request
        others = request.others
        more = f" (and {others} more call{'s' * (others != 1)} with it)" if others else ""
        self.heading.setText(f"{_who_asks(request.call)}{more}. Allow it?")
        self.step_button.setText(f"Allow &all {others + 1}")
        self.step_button.setVisible(bool(others))
        arguments = request.call.arguments
        self.arguments.setText(pretty_arguments(arguments) if arguments else "(no arguments)")
        all_of_them = (
            f" Allow all runs it and the {others} other call{'s' * (others != 1)} the model "
            "asked for with it."
            if others
            else ""
        )
        self.hint.setText(f"{_once_hint(request.call)}{all_of_them} {_chat_hint(request.call)}")
        self.setAccessibleDescription(f"{self.heading.text()} Arguments: {self.arguments.text()}")
        self.show()

    def clear(self) -> None:
        """Nothing to ask: hide."""
        self.request = None
        self.hide()

    def _answer(self, answer: str) -> None:
        request = self.request
        if request is not None:
            self.answered.emit(request, answer)

    def changeEvent(self, event: QEvent) -> None:
        """Recolour with the palette."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle()

    def _restyle(self) -> None:
        palette = self.palette()
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        shade = QPalette(self.arguments.palette())
        shade.setColor(QPalette.ColorRole.Window, blend(base, text, 0.06))
        self.arguments.setPalette(shade)
        faded = QPalette(self.hint.palette())
        faded.setColor(QPalette.ColorRole.WindowText, blend(base, text, 0.65))
        self.hint.setPalette(faded)
        ratio = self.devicePixelRatioF()
        self.icon.setPixmap(
            icon_of(badge_image("tools", QColor(AMBER), _ICON.width(), ratio)).pixmap(_ICON)
        )

    def paintEvent(self, event: QPaintEvent) -> None:
        """A rounded amber-edged card (painted, not styled: a style sheet would re-trigger
        palette changes and hide the palette's colours from the children)."""
        palette = self.palette()
        base = palette.color(QPalette.ColorRole.Base)
        amber = QColor(AMBER)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        # With the keyboard on the card itself, a wider edge in the focus colour shows it.
        focused = self.hasFocus()
        edge = palette.color(QPalette.ColorRole.Highlight) if focused else blend(base, amber, 0.6)
        painter.setPen(QPen(edge, 2.0 if focused else 1.0))
        painter.setBrush(blend(base, amber, 0.07))
        inset = 1.0 if focused else 0.5
        painter.drawRoundedRect(self.rect().toRectF().adjusted(inset, inset, -inset, -inset), 8, 8)
        painter.end()

    def focusInEvent(self, event: QFocusEvent) -> None:
        """Redraw the edge: it shows where the keyboard is."""
        super().focusInEvent(event)
        self.update()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        """Redraw the edge without the focus colour."""
        super().focusOutEvent(event)
        self.update()


# What Codex's approval requests ask (app/turn/codex/record.py and asking.py name them).
_CODEX_ASKS = {
    "codex.command": "run a command",
    "codex.file_change": "change files",
    "codex.permissions": "have more permissions",
}


def _agent_step(call: ToolCall) -> tuple[str, str] | None:
    """An agent's own step (`AGENT.KIND`, with its title): the agent and the kind."""
    agent, dot, kind = call.name.partition(".")
    title = call.arguments.get("title") if dot else None
    return (agent, kind) if isinstance(title, str) and title else None


def _once_hint(call: ToolCall) -> str:
    if call.name in _CODEX_ASKS or _agent_step(call) is not None:
        return "Allow once allows just this."
    return "Allow once runs just this call."


def _chat_hint(call: ToolCall) -> str:
    """What "Allow in this chat" does, in the words of what is asked."""
    if call.name == "codex.permissions":
        return "Allow in this chat grants them for the rest of this conversation."
    if call.name in _CODEX_ASKS:
        what = _CODEX_ASKS[call.name]
        return f"Allow in this chat lets Codex {what} again in this conversation without asking."
    step = _agent_step(call)
    if step is not None:
        agent, kind = step
        return (
            f"Allow in this chat lets the agent {agent} take {kind} steps again in this "
            "conversation without asking."
        )
    return f"Allow in this chat lets {call.name} run again in this conversation without asking."


def _who_asks(call: ToolCall) -> str:
    """Who wants what, in words: a model's tool, an agent's own step (`AGENT.KIND`, with
    its title), or one of Sightline's tools through the door an agent was given."""
    if call.id.startswith("door-"):
        return f"The agent wants to use Sightline's {call.name} through its door"
    step = _agent_step(call)
    if step is not None:
        agent, kind = step
        return f"The agent {agent} asks to {call.arguments['title']} ({kind})"
    if call.name in _CODEX_ASKS:
        return f"Codex asks to {_CODEX_ASKS[call.name]}"
    return f"The model wants to run the tool {call.name}"
