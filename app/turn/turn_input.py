"""What a person asks in one turn, as one value every engine takes.

The window, `sightline ask` and the agent engines hand a turn on whole: one value, not
the same seven parameters written at every hop. Like a prompt object, it carries what
was typed and attached, which model was asked for, and the turn's own settings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from app.tools.base import Tool
from routing.chat_settings import ChatSettings
from routing.transcript import CarriedPart, Message, ToolResult, user_message
from routing.wires.base import ToolChoice, ToolSpec
from vision.pictures import Picture

if TYPE_CHECKING:
    from vision.pdf import PdfFile


@dataclass(frozen=True)
class TurnInput:
    """One turn's question: the chat, the words, the attachments, the model asked for.

    `tools` are what a model-API turn may offer (an agent brings its own); `settings`
    override the chat's own for this turn only; `carried` is what the person's message
    keeps for the turns after it (an agent's working folder, app/turn/agent_folder.py).
    `handed_back` are tools the asker runs itself (a served client's): offered, never run
    here, a call of one ends the turn (app/turn/handed_back.py); `tool_choice` (the
    asker's) makes the turn's first request call one of them, or the one it names.
    `results` are what the asker's tools gave for the calls its last turn handed back:
    the turn carries on from them, with no new message of the person (`text` and
    attachments are then unused).
    """

    conversation_id: str
    text: str
    pictures: tuple[Picture, ...] = ()
    requested_model: str = "auto"
    tools: Sequence[Tool] = ()
    pdfs: tuple[PdfFile, ...] = ()
    settings: ChatSettings | None = None
    carried: tuple[CarriedPart, ...] = ()
    handed_back: tuple[ToolSpec, ...] = ()
    results: tuple[ToolResult, ...] = ()
    tool_choice: ToolChoice | None = None

    def message(self) -> Message:
        """The message that starts the turn as the store keeps it: the person's, or the
        asker's tool results."""
        if self.results:
            return Message("tool", self.results)
        message = user_message(self.text, self.pictures, self.pdfs)
        return replace(message, parts=message.parts + self.carried) if self.carried else message
