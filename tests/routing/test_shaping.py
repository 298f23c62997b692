"""Clamping ahead: the pictures a request will send are clamped on a worker thread, so
shaping (on the thread a turn runs on: the window's) finds each done; aged tool pictures
are not clamped at all. The shapes themselves: tests/routing/test_tool_pictures.py."""

from __future__ import annotations

import pytest

from routing import shaping
from routing.shaping import ClampCache, PictureLimits, clamp_ahead, shape_messages
from routing.transcript import (
    Message,
    PagesPart,
    PicturePart,
    TextPart,
    ToolCall,
    ToolResult,
    user_message,
)
from tests.pictures import make_picture, watch_clamps
from vision.pictures import Picture

LIMITS = PictureLimits(max_side=1568)


def _screens(colours: tuple[str, ...]) -> tuple[Message, ...]:
    """A question with a picture, then a tool step per colour, each with a screenshot."""
    messages = [user_message("click through", (make_picture("white", (3000, 1000)),))]
    for number, colour in enumerate(colours):
        call = ToolCall(f"s{number}", "screenshot", {})
        shot = PicturePart(make_picture(colour, (2000, 1000)))
        result = ToolResult(call.id, "screenshot", (TextPart("ok"), shot))
        messages += [Message("assistant", (call,)), Message("tool", (result,))]
    return tuple(messages)


async def test_what_a_request_sends_is_clamped_on_a_worker_thread_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = watch_clamps(monkeypatch, shaping)
    messages = _screens(("red", "orange", "yellow", "green", "blue"))
    cache = ClampCache()
    await clamp_ahead(messages, LIMITS, cache=cache)
    assert sorted(label for label, _ in made) == sorted(
        ["white.png", "yellow.png", "green.png", "blue.png"]  # the two oldest age: not clamped
    )
    assert not any(on_main for _, on_main in made)
    made.clear()
    shaped = shape_messages(messages, LIMITS, cache=cache)
    assert made == []  # all found done
    assert shaped[0].pictures[0].width == 1500  # as shaping alone makes it
    assert shape_messages(messages, LIMITS, cache=ClampCache()) == shaped


async def test_the_latest_steps_pictures_all_go_and_pages_are_not_clamped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = watch_clamps(monkeypatch, shaping)
    page = make_picture("grey", (1000, 1400))
    pages = PagesPart("report.pdf", 1, (page,), "no text on its page")
    colours = ("navy", "olive", "teal", "maroon")
    four = tuple(PicturePart(make_picture(c, (1800, 900))) for c in colours)
    messages = (
        user_message("read these", ()),
        Message("assistant", (ToolCall("r", "read_file", {}),)),
        Message("tool", (ToolResult("r", "read_file", (pages, *four)),)),
    )
    await clamp_ahead(messages, LIMITS, cache=ClampCache())
    assert sorted(label for label, _ in made) == sorted(f"{c}.png" for c in colours)


async def test_a_picture_that_cannot_be_clamped_is_its_note_ahead_too() -> None:
    cache = ClampCache()
    broken = make_picture("red", (2000, 1000))
    broken = Picture(broken.data[:300], broken.mime, 2000, 1000, "b" * 64, label="broken.png")
    messages = (user_message("what is this", (broken,)),)
    await clamp_ahead(messages, LIMITS, cache=cache)
    [shaped] = shape_messages(messages, LIMITS, cache=cache)
    assert shaped.pictures == () and "broken.png" in shaped.text
