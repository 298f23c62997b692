"""What the wires' tests share: a real picture, a tool that returns one, and a whole turn
through the runner against a loopback server."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from PIL import Image

from app.store import Store
from app.turn.events import TurnEvent
from app.turn.runner import TurnRunner
from app.turn.tool_step import AllowAll, ToolStep
from app.turn.turn_input import TurnInput
from routing.catalogue import Catalogue
from routing.models import ProviderConfig
from routing.transcript import PicturePart, TextPart, ToolCall, ToolResult
from routing.wires.base import ToolSpec
from vision.pictures import Picture, sniff


def png(color: str = "red") -> Picture:
    """A real 4×4 PNG, sniffed as the app would."""
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), color).save(buffer, format="PNG")
    return sniff(buffer.getvalue(), label=f"{color}.png")


class PictureTool:
    """A tool that answers with words and a green picture (`spec` names it)."""

    def __init__(self, spec: ToolSpec) -> None:
        self._spec = spec

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    async def run(self, call: ToolCall) -> ToolResult:
        return ToolResult(call.id, call.name, (TextPart("the screen"), PicturePart(png("green"))))


async def runner_turn(
    provider: ProviderConfig, tmp_path: Path, text: str, model: str, **kw: Any
) -> tuple[Store, list[TurnEvent]]:
    """One turn of Sightline's runner with `provider`, every tool call allowed, into a real
    store (left open for the test to read)."""
    catalogue = Catalogue([provider])
    store = Store.open(tmp_path / "data")
    runner = TurnRunner(store, catalogue, tool_step=ToolStep(AllowAll()))
    cid = store.conversations.create()
    try:
        events = [e async for e in runner.run(TurnInput(cid, text, requested_model=model, **kw))]
    finally:
        await catalogue.aclose()
    return store, events
