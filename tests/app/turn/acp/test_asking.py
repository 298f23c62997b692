"""The door's calls asked through the turn (app/turn/acp/asking.py, app/tools/door_line.py).

The fake agent starts the door it was offered (`sightline mcp-serve`, a real
process) and calls its read_file; the door asks the running turn over its line,
and the turn asks the same approver a model's tool call would.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from app.store import Store
from app.turn.events import ItemAdded
from app.turn.tool_step import Approval, ToolStep
from routing.transcript import NoticeKind
from tests.app.turn.acp.helpers import EngineFor, fake
from tests.app.turn.engine_helpers import Recording, ended, first_turn, notices, run_turn
from tests.conftest import SightlineHome
from tests.servers.acp_agent import read_log


class Granted:
    """ "Allow in this chat", as the store keeps it."""

    def __init__(self, chat: str, granted: bool) -> None:
        self.chat, self.granted_here = chat, granted

    def granted(self, conversation_id: str) -> set[str]:
        return {"read_file"} if self.granted_here and conversation_id == self.chat else set()

    def grant(self, conversation_id: str, tool: str) -> None:
        raise AssertionError("nothing is asked, so nothing is granted")


def red(tmp_path: Path) -> Path:
    path = tmp_path / "red.png"
    Image.new("RGB", (8, 8), "red").save(path)
    return path


async def test_the_door_asks_the_person_and_its_picture_crossing_shows_in_the_turn(
    home: SightlineHome, store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    approver = Recording(Approval.ONCE)
    engine = engine_for(fake(tmp_path, "sees", "door"), tool_step=ToolStep(approver))
    chat, events = await first_turn(engine, str(red(tmp_path)), "fake")
    assert ended(events).error is None
    [call] = approver.asked
    assert call.name == "read_file" and call.arguments == {"path": str(tmp_path / "red.png")}
    door = next(e["door"] for e in read_log(tmp_path) if "door" in e)
    assert door == ["text", "image"]  # allowed: the picture itself went to the agent
    # The door told the turn what crossed, so it is in this turn's events, stored in this chat.
    [crossing] = [n for n in notices(events) if n.kind == NoticeKind.DISCLOSURE]
    assert crossing.crossed is not None and crossing.crossed.host == "agent fake"
    stored = [i.item for i in store.items(chat)]
    assert crossing in stored


async def test_a_door_call_the_person_refuses_is_not_run_and_is_told(
    home: SightlineHome, store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    approver = Recording(Approval.DENY)
    engine = engine_for(
        fake(tmp_path, "sees", "door"), tool_step=ToolStep(approver), denied_hint=" (hint)"
    )
    _chat, events = await first_turn(engine, str(red(tmp_path)), "fake")
    assert ended(events).error is None
    assert next(e["door_error"] for e in read_log(tmp_path) if "door_error" in e) is True
    said = [n.text for n in notices(events)]
    assert said == [
        "The agent fake asked to use read_file through Sightline's door, which was not "
        "allowed. (hint)"
    ]
    assert not any(n.crossed for n in notices(events))


@pytest.mark.parametrize("standing", ["always", "chat"])
async def test_a_door_tool_the_person_allowed_before_is_not_asked_again(
    home: SightlineHome, store: Store, tmp_path: Path, engine_for: EngineFor, standing: str
) -> None:
    approver = Recording(Approval.DENY)
    chat = store.conversations.create()
    always = frozenset({"read_file"}) if standing == "always" else frozenset()
    step = ToolStep(approver, always_allowed=always, grants=Granted(chat, standing == "chat"))
    engine = engine_for(fake(tmp_path, "sees", "door"), tool_step=step)
    events = await run_turn(engine, chat, str(red(tmp_path)), "fake")
    assert ended(events).error is None and approver.asked == []
    assert next(e["door"] for e in read_log(tmp_path) if "door" in e) == ["text", "image"]
    assert any(isinstance(e, ItemAdded) for e in events)
