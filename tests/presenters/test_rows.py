"""A row's words for a screen reader's description (app/presenters/rows.py): each picture
in the words a seeing model said of it, else how to have it described; at most five."""

from __future__ import annotations

from app.presenters.rows import Row
from app.store import PictureWords, StoredItem
from routing.transcript import Message, PicturePart, TextPart, ToolResult, user_message
from tests.pictures import named_picture, numbered_picture

RED = named_picture("red.png", "red", (64, 48))
BLUE = named_picture("blue.png", "blue", (32, 32))


def _row(message: Message) -> Row:
    return Row.of(StoredItem(1, "c", 1, 0.0, message))


def test_each_picture_is_described_in_the_words_kept_for_it_or_says_how_to_ask() -> None:
    row = _row(user_message("compare", (RED, BLUE)))
    words = {RED.sha256: PictureWords("A red rectangle.", "ollama:llava:7b")}
    assert row.pictures_described(words) == (
        "red.png, as ollama:llava:7b described it: A red rectangle.\n"
        "blue.png: no description yet (Shift+F10 offers to describe it)"
    )


def test_a_tools_pictures_are_described_too_and_a_row_without_any_says_nothing() -> None:
    result = ToolResult("call-1", "screenshot", (TextPart("a screenshot"), PicturePart(RED)))
    tool = Message("tool", (result,))
    assert tool.pictures == () and _row(tool).pictures == [RED]
    assert _row(Message("assistant", (TextPart("hi"),))).pictures_described({}) == ""


def test_past_five_pictures_the_rest_are_counted() -> None:
    pictures = tuple(numbered_picture(n) for n in range(7))
    said = _row(user_message("many", pictures)).pictures_described({}).splitlines()
    assert len(said) == 6 and said[-1] == "And 2 more pictures."
