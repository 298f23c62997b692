"""The window's send: new words (an edit resent too), or an answer asked again (Retry).

A send first says what it still needs, rather than asking itself: the folder an agent
works in, on its first turn in a chat, or the person's word before a chat's earlier
pictures first leave this computer. The window asks the person, keeps the answer here,
and sends the same `Send` again (app/ui/send_questions.py). Once nothing is needed the
turn begins (app/ui/running_turn.py) with the engine that answers and the person's
question as one value: the models' runner, or the agents' engines, in the chat's folder.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator

    from app.store import StoredItem
    from app.tools.mcp.config import McpServerConfig
    from app.turn.agents import AgentEngines
    from app.turn.boundary import EarlierPictures, Leaving
    from app.turn.engine import Engine
    from app.turn.events import TurnEvent
    from app.turn.runner import TurnRunner
    from app.turn.turn_input import TurnInput
    from app.ui.controller import Controller
    from routing.agent_offers import AgentOffer

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Send:
    """What the person sends: words to `model_ref`, or (`again`) an answer asked again."""

    model_ref: str
    text: str = ""
    replacing: int | None = None  # a message of theirs being edited: the chat forks there
    again: int | None = None  # an item whose turn is answered again (Regenerate, Retry)


@dataclass(frozen=True)
class FolderNeeded:
    """The send waits for the folder the agent works in (its first turn in the chat)."""

    agent_id: str


@dataclass(frozen=True)
class LeavingNeeded:
    """The send waits for the person's word on the chat's earlier pictures, which would
    leave this computer for the first time (asked once per chat)."""

    leaving: Leaving


Outcome = bool | FolderNeeded | LeavingNeeded  # True: the turn began; False: not now


class AnswerAgain:
    """The models' runner answering a stored message of the person's again, as an engine."""

    def __init__(self, runner: TurnRunner, item_id: int) -> None:
        self._runner = runner
        self._item_id = item_id

    def run(self, asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        """The runner's answer again, in the chat and with the model and tools asked."""
        return self._runner.regenerate(
            asked.conversation_id, self._item_id, asked.requested_model, asked.tools
        )


class Sending:
    """A window's sends, who answers them, and each agent chat's working folder."""

    def __init__(self, controller: Controller) -> None:
        """Nothing answers until the controller gives it a runner (`start`)."""
        self._c = controller
        self.runner: TurnRunner | None = None  # the models', made anew by new settings
        self._agents: AgentEngines | None = None  # made on the first agent turn
        self._new_chat_folder: Path | None = None  # chosen for a chat not yet sent

    # -- what the send needs -------------------------------------------------------

    def needs(self, send: Send) -> FolderNeeded | LeavingNeeded | None:
        """What the person must answer before `send` goes, if anything."""
        c = self._c
        agent = c.assembly.agent_named(send.model_ref)
        if agent is not None and self.folder(c.current_id) is None:
            return FolderNeeded(agent.id)
        anything = send.again is not None or bool(send.text.strip())
        if not (anything or c.attaching.attachments.anything):
            return None
        leaving = self._leaving(send.model_ref)
        return LeavingNeeded(leaving) if leaving is not None else None

    def _leaving(self, model_ref: str) -> Leaving | None:
        from app.turn.boundary import would_leave

        c = self._c
        if c.catalogue is None:
            return None
        return would_leave(c.store, c.catalogue, c.current_id, model_ref)

    def folder(self, conversation_id: str) -> Path | None:
        """The working folder of a chat ("": the new one not yet sent), if it has one."""
        if not conversation_id:
            return self._new_chat_folder
        return self._c.folders.folder(conversation_id)

    def choose_folder(self, folder: Path) -> None:
        """The working folder the person chose for the open chat (a new one: once sent)."""
        if self._c.current_id:
            self._c.folders.choose(self._c.current_id, folder)
        else:
            self._new_chat_folder = folder

    def decide_earlier_pictures(self, choice: EarlierPictures) -> None:
        """Keep the person's answer for the open chat's earlier pictures."""
        if self._c.current_id:
            self._c.store.crossings.set_earlier_pictures(self._c.current_id, choice)

    def new_chat(self) -> None:
        """An empty chat is open: no folder chosen for it yet."""
        self._new_chat_folder = None

    # -- the send ------------------------------------------------------------------

    def send(self, send: Send) -> Outcome:
        """Begin the turn `send` asks for, or say what it still needs; False when it can't
        begin now (a turn runs, nothing to send, a file still being read)."""
        need = self.needs(send)
        if need is not None:
            return need
        if send.again is not None:
            return self._again(send.again, send.model_ref)
        return self._words(send)

    def _words(self, send: Send) -> bool:
        from app.turn.turn_input import TurnInput

        c, ref = self._c, send.model_ref
        waiting = c.attaching.attachments
        if not (send.text.strip() or waiting.anything) or c.busy or self.runner is None:
            return False
        if waiting.reading:
            return False  # a file is still being read: it belongs with this message
        if not c.current_id:
            chat = c.store.conversations.create(model=ref)
            folder, self._new_chat_folder = self._new_chat_folder, None
            if folder is not None and c.assembly.agent_named(ref) is not None:
                c.folders.choose(chat, folder)  # before the header shows
            c.open_new(chat, ref)
        elif send.replacing is not None:
            edited = c.store.get_item(send.replacing)
            if edited is not None and edited.conversation_id == c.current_id:
                c.store.branches.rewind(c.current_id, edited.parent_id)
                c.reload(c.current_id)
        attached = c.attaching.take()
        text = send.text if send.text.strip() else ""  # attachments alone: no blank words
        pdfs = tuple(a.pdf for a in attached.pdfs)
        asked = TurnInput(c.current_id, text, attached.pictures, ref, pdfs=pdfs)
        c.turn.begin(self._engine(ref), asked, text, attached)
        return True

    def _again(self, item_id: int, ref: str) -> bool:
        """Answer the turn `item_id` belongs to again (a retry, for a failed one), as a
        new version beside the earlier answers."""
        from app.turn.turn_input import TurnInput

        c = self._c
        if c.busy or self.runner is None or not c.current_id:
            return False
        asked = c.versions.asked(c.current_id, item_id)
        if asked is None:
            return False
        if c.assembly.agent_named(ref) is not None:
            return self._agent_again(asked, ref)
        # Shown at once without the earlier answer (a failed one gone); the runner's own
        # look finds the same place.
        from app.store.retried import make_way_for_retry

        make_way_for_retry(c.store, c.current_id, asked)
        c.reload(c.current_id)
        c.turn.begin(AnswerAgain(self.runner, asked.id), TurnInput(c.current_id, "", (), ref))
        return True

    def _agent_again(self, asked: StoredItem, ref: str) -> bool:
        """An agent answers a turn again: its session can't forget the turn, so the person's
        message is sent to it once more, as another version of that message."""
        from app.turn.turn_input import TurnInput
        from routing.transcript import Message, PicturePart

        c, message = self._c, asked.item
        if not isinstance(message, Message):
            return False
        c.store.branches.rewind(c.current_id, asked.parent_id)
        c.reload(c.current_id)
        pictures = tuple(p.picture for p in message.parts if isinstance(p, PicturePart))
        again = TurnInput(c.current_id, message.text, pictures, ref, pdfs=message.pdfs)
        c.turn.begin(self._engine(ref), again)
        return True

    # -- who answers ---------------------------------------------------------------

    def _engine(self, ref: str) -> Engine:
        assert self.runner is not None
        agents = self._agent_engines() if self._c.assembly.agent_named(ref) else None
        return self._c.assembly.engine(ref, self.runner, agents)

    def _agent_engines(self) -> AgentEngines:
        """The agents' engines: made on the first agent turn, made again when Settings
        changed the agents; today's catalogue and preferences describe their pictures."""
        assert self.runner is not None
        c, engines = self._c, self._agents
        if engines is not None and engines.agents != c.assembly.agents:
            c.chore(engines.aclose())
            engines = None
        if engines is None:
            engines = c.assembly.agent_engines(
                self.runner.catalogue,
                self.runner.tool_step,
                c.folders,
                mcp_servers=self._mcp_servers(),
            )
            self._agents = engines
        engines.catalogue, engines.prefs = self.runner.catalogue, c.assembly.prefs
        return engines

    def _mcp_servers(self) -> list[McpServerConfig]:
        """The person's MCP servers, given to the agent at `session/new` (a broken file: none;
        the window already says what is wrong with it when its tools are gathered)."""
        from app.tools.mcp.config import McpConfigError

        try:
            return self._c.assembly.mcp_servers()
        except McpConfigError as exc:
            log.info("the agent gets no MCP servers: %s", exc)
            return []

    def offers(self) -> dict[str, AgentOffer]:
        """What each agent offered when it last started (its models and modes)."""
        return dict(self._agents.offered) if self._agents is not None else {}

    async def aclose(self) -> None:
        """End every agent the chats started."""
        engines, self._agents = self._agents, None
        if engines is not None:
            await engines.aclose()
