"""What a send needs before it goes, and what answers it (app/ui/sending.py), on a
controller without a window: the folder an agent's first turn in a chat waits for, kept
for the chat once sent; a regenerate handed to the models' runner as one engine."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator
from pathlib import Path

import pytest

from app.assembly import Assembly
from app.config import Config
from app.store import Store
from app.tools.base import Tool
from app.turn.events import TurnEnded, TurnEvent
from app.turn.turn_input import TurnInput
from app.ui.controller import Controller
from app.ui.sending import AnswerAgain, FolderNeeded, Send
from routing.models import ProviderConfig


@pytest.fixture
def controller(tmp_path: Path) -> Iterator[Controller]:
    """A controller over a store, an agent configured, nothing started."""
    agent = ProviderConfig("fake", "acp", "", command="fake-agent")
    config = Config(providers=(agent,), discover_local=False, data_dir=tmp_path / "data")
    with Store.open(config.data_dir) as store:
        yield Controller(Assembly(config, store, environ={}))


def test_an_agent_s_first_turn_needs_its_folder_and_the_new_chat_keeps_it(
    controller: Controller, tmp_path: Path
) -> None:
    sending = controller.sending
    asking = Send("fake", "hello")
    assert sending.needs(asking) == FolderNeeded("fake")
    assert sending.send(asking) == FolderNeeded("fake")  # it says so, and sends nothing
    assert sending.needs(Send("ollama:llava:7b", "hello")) is None  # a model needs none
    sending.choose_folder(tmp_path)
    assert sending.folder("") == tmp_path and sending.needs(asking) is None
    assert sending.send(asking) is False  # nothing answers before `start`
    sending.new_chat()  # another empty chat: asked again
    assert sending.needs(asking) == FolderNeeded("fake")


def test_an_open_chat_s_folder_is_chosen_for_that_chat(
    controller: Controller, tmp_path: Path
) -> None:
    chat = controller.store.conversations.create(model="fake")
    controller.select_conversation(chat)
    controller.sending.choose_folder(tmp_path)
    assert controller.sending.folder(chat) == tmp_path
    assert controller.folders.for_turn(chat, "fake")[0] == tmp_path
    assert controller.sending.needs(Send("fake", again=1)) is None


class Runner:
    """What the regenerate asked of the models' runner."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, int | None, str, tuple[Tool, ...]]] = []

    async def regenerate(
        self,
        conversation_id: str,
        item_id: int | None = None,
        requested_model: str = "auto",
        tools: tuple[Tool, ...] = (),
    ) -> AsyncGenerator[TurnEvent, None]:
        self.asked.append((conversation_id, item_id, requested_model, tuple(tools)))
        yield TurnEnded()


async def test_answering_again_is_the_runner_s_regenerate_of_that_item() -> None:
    from app.tools.read_file import ReadFile

    runner, tool = Runner(), ReadFile()
    engine = AnswerAgain(runner, 7)  # type: ignore[arg-type]
    events = [e async for e in engine.run(TurnInput("chat", "", (), "ollama:x", (tool,)))]
    assert events == [TurnEnded()]
    assert runner.asked == [("chat", 7, "ollama:x", (tool,))]


async def test_the_agents_engines_are_made_again_when_settings_change_the_agents(
    controller: Controller,
) -> None:

    from app.turn.agents import AgentEngines

    assembly, sending = controller.assembly, controller.sending
    sending.runner = assembly.runner(assembly.catalogue([]), assembly.tool_step(controller))
    first = sending._engine("fake")
    assert isinstance(first, AgentEngines) and sending._engine("fake:large") is first
    assert sending._engine("ollama:llava:7b") is sending.runner
    other = ProviderConfig("other", "acp", "", command="other-agent")
    assembly.config = assembly.config._replace(providers=(other,))
    again = sending._engine("other")
    assert isinstance(again, AgentEngines) and again is not first
    assert [a.id for a in again.agents] == ["other"]
    await sending.aclose()
