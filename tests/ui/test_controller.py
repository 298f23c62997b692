"""The controller's parts the window's first paint doesn't need (app/ui/controller.py): made,
with their modules imported, on first use; and a controller closed with none of them made
closes without making any."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.assembly import Assembly
from app.config import Config
from app.store import Store
from app.ui.controller import Controller
from tests.ui.helpers import run_python

# Each is made on first use; `_turn_side` holds the turn, the approvals and the tool step.
LATER_PARTS = ("sending", "versions", "describing", "sight", "serving", "turn_tools", "_turn_side")

# Not loaded by importing the controller and making one: its parts' modules, and the turn.
NOT_YET = (
    "app.ui.sending",
    "app.ui.describing",
    "app.ui.window_server",
    "app.ui.conversation.versions",
    "app.ui.running_turn",
    "app.ui.turn_side",
    "app.presenters.serving_settings",
    "app.presenters.served_chats",
    "app.presenters.approvals",
    "app.presenters.pending",
    "app.presenters.pdf_notes",
    "app.presenters.unlocking",
    "app.presenters.sight_checks",
    "app.presenters.turn_tools",
    "app.turn.tool_step",
    "routing.transcript",
    "asyncio",
)

MAKE_ONE = """
import sys
from pathlib import Path

from app.assembly import Assembly
from app.config import Config
from app.store import Store
from app.ui.controller import Controller

folder = Path(sys.argv[1])
config = Config(discover_local=False, data_dir=folder / "data")
with Store.open(config.data_dir) as store:
    controller = Controller(Assembly(config, store, {"SIGHTLINE_CONFIG": str(folder / "c.toml")}))
    controller.load()  # as the window does before its first paint
    print("\\n".join(sorted(name for name, module in sys.modules.items() if module is not None)))
"""


@pytest.fixture
def controller(tmp_path: Path) -> Iterator[Controller]:
    """A controller over a store, nothing started and no part used."""
    config = Config(discover_local=False, data_dir=tmp_path / "data")
    with Store.open(config.data_dir) as store:
        yield Controller(Assembly(config, store, environ={}))


def made(controller: Controller) -> list[str]:
    """The parts made on first use that have been made."""
    return [part for part in LATER_PARTS if part in vars(controller)]


def test_importing_and_making_a_controller_loads_none_of_its_later_parts(tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = run_python(env, "-c", MAKE_ONE, str(tmp_path))
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.split())
    assert "app.ui.controller" in loaded
    assert [name for name in NOT_YET if name in loaded] == []


def test_a_new_controller_has_made_none_of_its_later_parts(controller: Controller) -> None:
    controller.load()
    assert made(controller) == []
    # What the window asks while it is built is answered without making them.
    assert controller.busy is False and controller.busy_here() is False
    assert controller.waiting_approval("chat") is None
    assert controller.allowed_tools("chat") == frozenset()
    assert controller.folder("") is None  # no send has chosen the new chat's folder
    controller.stop()  # nothing runs: nothing to stop
    assert made(controller) == []


def test_the_new_chat_s_folder_is_the_one_a_send_chose(
    controller: Controller, tmp_path: Path
) -> None:
    controller.sending.choose_folder(tmp_path)
    assert controller.folder("") == tmp_path
    chat = controller.store.conversations.create(model="ollama:x")
    assert controller.folder(chat) is None  # a saved chat: its own, kept with its messages


def test_a_part_is_made_on_first_use_once_and_belongs_to_the_controller(
    controller: Controller,
) -> None:
    sending = controller.sending
    assert made(controller) == ["sending"]
    assert controller.sending is sending  # the same one from then on
    versions, describing, serving = controller.versions, controller.describing, controller.serving
    assert {versions.parent(), describing.parent(), serving.parent()} == {controller}
    assert controller.sight is controller.sight and controller.turn_tools is controller.turn_tools
    assert made(controller) == [p for p in LATER_PARTS if p != "_turn_side"]
    assert controller.turn is controller.turn and made(controller) == list(LATER_PARTS)
    assert controller.busy is False  # asked of the turn, now that there is one


async def test_closing_a_controller_whose_parts_were_never_used_makes_none(
    controller: Controller,
) -> None:
    controller.load()
    await controller.aclose()
    assert made(controller) == []


class Toolbox:
    """A toolbox that notes its closing (its MCP servers ended)."""

    def __init__(self) -> None:
        self.closed = False

    async def aclose(self) -> None:
        self.closed = True


async def test_closing_closes_the_parts_made_and_makes_no_others(controller: Controller) -> None:
    toolbox = Toolbox()
    controller.turn_tools.toolbox = toolbox  # type: ignore[assignment]
    await controller.aclose()
    assert toolbox.closed
    assert made(controller) == ["turn_tools"]
