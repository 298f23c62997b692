"""A message keeps what it derives from its parts: the same answers as working them out
afresh, and equality and hashing by what it says alone."""

from __future__ import annotations

from routing.transcript import (
    Message,
    PicturePart,
    TextPart,
    ToolCall,
    ToolResult,
    has_pictures,
    user_message,
)
from tests.pictures import make_picture


def _mixed() -> Message:
    shot = make_picture("blue", (8, 8))
    result = ToolResult("c1", "screenshot", (TextPart("taken"), PicturePart(shot)))
    call = ToolCall("c2", "search", {"q": "x"})
    return Message("assistant", (TextPart("one "), call, result, TextPart("two")))


def test_what_a_message_derives_is_what_its_parts_say() -> None:
    message = _mixed()
    for _ in range(2):  # worked out, then kept
        assert message.text == "one two"
        assert message.tool_calls == (ToolCall("c2", "search", {"q": "x"}),)
        assert [r.call_id for r in message.tool_results] == ["c1"]
        assert message.tool_results[0].text == "taken"
        assert len(message.tool_results[0].pictures) == 1
        assert message.pictures == ()  # the tool's picture is the result's, not the message's
        assert message.carries_pictures and has_pictures(message)
    assert not has_pictures(user_message("words alone"))
    assert has_pictures(user_message("look", (make_picture("red"),)))


def test_kept_derivations_leave_equality_and_hashing_to_what_it_says() -> None:
    read, fresh = _mixed(), _mixed()
    _ = (read.text, read.tool_calls, read.carries_pictures)
    assert read == fresh
    assert read != Message("assistant", (TextPart("one two"),))
    asked, again = (user_message("look", (make_picture("red"),)) for _ in range(2))
    _ = (asked.text, asked.pictures)
    assert hash(asked) == hash(again) and asked == again
