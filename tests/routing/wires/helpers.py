"""What the wires' tests share: an answer's words, how a stream failed, transcripts of
screenshot calls, a tool that returns a picture, and a whole turn through the runner
against a loopback server."""

from __future__ import annotations

from collections.abc import AsyncIterable
from pathlib import Path
from typing import Any

from app.store import Store
from app.turn.events import TurnEvent
from app.turn.runner import TurnRunner
from app.turn.tool_step import AllowAll, ToolStep
from app.turn.turn_input import TurnInput
from routing.catalogue import Catalogue
from routing.errors import ProviderError
from routing.models import ProviderConfig
from routing.transcript import Message, PicturePart, TextPart, ToolCall, ToolResult, user_message
from routing.wires.base import StreamEvent, TextDelta, ToolSpec
from tests.events import collect_until_error
from tests.pictures import make_picture


def text_of(events: list[StreamEvent]) -> str:
    """The answer's words, joined."""
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def two_screenshots(first: str, second: str, *, second_failed: bool = False) -> tuple[Message, ...]:
    """A step of two screenshot calls (ids `first` and `second`): the first answers with
    words and a red picture, the second with a blue picture alone."""
    return (
        user_message("compare the windows"),
        Message(
            "assistant",
            (
                TextPart("Looking."),
                ToolCall(first, "screenshot", {"window": "left"}),
                ToolCall(second, "screenshot", {"window": "right"}),
            ),
        ),
        Message(
            "tool",
            (
                ToolResult(
                    first, "screenshot", (TextPart("left"), PicturePart(make_picture("red")))
                ),
                ToolResult(
                    second,
                    "screenshot",
                    (PicturePart(make_picture("blue")),),
                    is_error=second_failed,
                ),
            ),
        ),
    )


def screenshot_steps(text: str, colours: list[str]) -> tuple[Message, ...]:
    """`text` asked, then one screenshot call per colour, each answered with the colour's
    name and a picture of it."""
    messages: list[Message] = [user_message(text)]
    for n, colour in enumerate(colours):
        messages.append(Message("assistant", (ToolCall(f"c{n}", "screenshot", {}),)))
        result = ToolResult(
            f"c{n}", "screenshot", (TextPart(colour), PicturePart(make_picture(colour)))
        )
        messages.append(Message("tool", (result,)))
    return tuple(messages)


async def failure(stream: AsyncIterable[StreamEvent]) -> tuple[str, ProviderError]:
    """The words streamed before the answer failed, and the failure."""
    events, error = await collect_until_error(stream)
    return text_of(events), error


class PictureTool:
    """A tool that answers with words and a green picture (`spec` names it)."""

    def __init__(self, spec: ToolSpec) -> None:
        self._spec = spec

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    async def run(self, call: ToolCall) -> ToolResult:
        return ToolResult(
            call.id, call.name, (TextPart("the screen"), PicturePart(make_picture("green")))
        )


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
