"""Message parts to and from rows, through real SQLite files: every kind of part comes
back as it went in, text first; pictures and PDFs are stored once each by SHA-256."""

from __future__ import annotations

import base64
import sqlite3
from pathlib import Path

from app.store import Store
from routing.secrets import register_secret
from routing.transcript import (
    Message,
    PagesPart,
    PicturePart,
    TextPart,
    ToolCall,
    ToolResult,
    user_message,
)
from tests.app.store.helpers import count
from tests.pdfs import scanned_pdf, text_pdf
from tests.pictures import make_picture
from tests.secret_checks import secret_bytes_left
from vision.pdf import open_pdf, read_pdf


def test_every_part_type_round_trips_through_a_reopen(tmp_path: Path) -> None:
    red, blue = make_picture("red"), make_picture("blue", (3, 4), fmt="JPEG")
    call = ToolCall(
        id="call_1",
        name="search",
        arguments={"query": "cats", "filters": {"max": 3, "tags": ["a", "b"], "on": True}},
    )
    result = ToolResult(
        call_id="call_1",
        name="search",
        parts=(TextPart("found:"), PicturePart(blue), TextPart("and more")),
        is_error=True,
    )
    messages = [
        Message(role="system", parts=(TextPart("Be brief."),)),
        user_message("Look at this", (red,)),
        Message(role="assistant", parts=(TextPart("Let me search."), call), model="m:1"),
        Message(role="tool", parts=(result,)),
        Message(role="assistant", parts=(TextPart("Done ✓ — naïve café"),), model="m:1"),
    ]
    folder = tmp_path / "data"
    with Store.open(folder) as store:
        conversation = store.conversations.create()
        returned = [store.add_message(conversation, m) for m in messages]
    assert [r.item for r in returned] == messages

    with Store.open(folder) as store:
        assert store.messages(conversation) == tuple(messages)
        loaded = store.messages(conversation)
    assert loaded[1].pictures[0].data == red.data
    assert loaded[3].tool_results[0].pictures == (blue,)
    assert loaded[3].tool_results[0].is_error is True
    assert loaded[2].tool_calls[0].arguments["filters"]["tags"] == ["a", "b"]


def test_text_comes_first_then_the_other_parts_in_order(store: Store) -> None:
    red, green = make_picture("red"), make_picture("green")
    conversation = store.conversations.create()
    stored = store.add_message(
        conversation,
        Message(
            role="user",
            parts=(PicturePart(red), TextPart("one "), PicturePart(green), TextPart("two")),
        ),
    )
    assert isinstance(stored.item, Message)
    assert stored.item.parts == (TextPart("one two"), PicturePart(red), PicturePart(green))


def test_picture_used_twice_is_stored_once(store: Store) -> None:
    red = make_picture("red")
    first, second = store.conversations.create(), store.conversations.create()
    store.add_message(first, user_message("one", (red,)))
    store.add_message(second, user_message("two", (red, red)))
    store.add_message(
        second, Message(role="tool", parts=(ToolResult("c", "shot", parts=(PicturePart(red),)),))
    )
    assert count(store.path, "pictures") == 1
    assert store.messages(second)[0].pictures == (red, red)


def scan_pages() -> PagesPart:
    read = read_pdf(scanned_pdf(3), pages="2-", name="scan.pdf")
    assert read.candidate is not None
    return PagesPart.from_candidate("scan.pdf", read.candidate, read.total_pages)


def test_a_pdf_and_rendered_pages_round_trip_through_a_reopen(tmp_path: Path) -> None:
    memo = open_pdf(text_pdf(["Friday"]), name="memo.pdf")
    pages = scan_pages()
    messages = [
        user_message("When?", pdfs=(memo,)),
        Message("tool", (ToolResult("c1", "read_file", (pages, TextPart("[more]"))),)),
    ]
    folder = tmp_path / "data"
    with Store.open(folder) as store:
        conversation = store.conversations.create()
        for message in messages:
            store.add_message(conversation, message)
    with Store.open(folder) as store:
        loaded = store.messages(conversation)
    assert loaded == tuple(messages)
    assert loaded[0].pdfs[0].data == memo.data and loaded[0].pdfs[0].pages == 1
    [result] = loaded[1].tool_results
    assert result.parts[0] == pages and result.pictures == pages.pictures


def test_one_pdf_attached_twice_is_stored_once_under_each_name(store: Store) -> None:
    pdf = open_pdf(text_pdf(["same"]), name="a.pdf")
    first, second = store.conversations.create(), store.conversations.create()
    store.add_message(first, user_message("one", pdfs=(pdf,)))
    renamed = open_pdf(pdf.data, name="b.pdf")
    store.add_message(second, user_message("two", pdfs=(renamed,)))
    assert count(store.path, "pdfs") == 1
    assert [p.name for p in store.messages(second)[0].pdfs] == ["b.pdf"]


# -- secrets ---------------------------------------------------------------------------

TOKEN = "mcp-token-5566778899aabb"  # an MCP server's env value, say


def stored_bytes(folder: Path) -> bytes:
    """Every byte of the store's files: the database and its write-ahead log."""
    return b"".join(path.read_bytes() for path in sorted(folder.glob("sightline.db*")))


def test_what_a_model_or_tool_wrote_is_stored_with_every_secret_redacted(tmp_path: Path) -> None:
    register_secret(TOKEN)
    register_secret("1")  # a short env flag: left in what a model wrote
    encoded = base64.b64encode(f'{{"auth":"{TOKEN}"}}'.encode()).decode()
    call = ToolCall("c1", "env", {"name": "TOKEN", "echo": [TOKEN, {"hex": TOKEN.encode().hex()}]})
    result = ToolResult("c1", "env", (TextPart(f"TOKEN={TOKEN}"), TextPart(encoded)))
    folder = tmp_path / "data"
    with Store.open(folder) as store:
        chat = store.conversations.create()
        asked = store.add_message(chat, user_message(f"my token is {TOKEN}, step 1"))
        store.add_message(chat, Message("assistant", (TextPart("Step 1: run it."), call), "m:1"))
        store.add_message(chat, Message("tool", (result,)))
        # A secret split between two text parts is whole again when they are joined.
        half = len(TOKEN) // 2
        parts = (TextPart(f"It is {TOKEN[:half]}"), TextPart(f"{TOKEN[half:]}."))
        store.add_message(chat, Message("assistant", parts, "m:1"))
    with Store.open(folder) as store:
        user, answer, tool, last = store.messages(chat)
    assert user == asked.item and TOKEN in user.text  # the person's own words, as written
    assert answer.text == "Step 1: run it."
    assert answer.tool_calls[0].arguments == {
        "name": "TOKEN",
        "echo": ["[redacted]", {"hex": "[redacted]"}],
    }
    said, echoed = (p.text for p in tool.tool_results[0].parts if isinstance(p, TextPart))
    assert said == "TOKEN=[redacted]"
    assert "[redacted]" in echoed and secret_bytes_left(echoed, TOKEN) == []
    assert last.text == "It is [redacted]."
    # Only the person's message holds it raw (once in its text, once in the title).
    assert stored_bytes(folder).count(TOKEN.encode()) <= 2


def test_arguments_nested_hundreds_deep_are_stored_redacted(store: Store) -> None:
    register_secret(TOKEN)
    deep: dict[str, object] = {"token": TOKEN}
    for _ in range(450):  # 900 containers: as deep as JSON itself writes here
        deep = {"a": [deep]}
    chat = store.conversations.create()
    store.add_message(chat, Message("assistant", (ToolCall("c1", "t", deep),), "m:1"))
    with sqlite3.connect(store.path) as db:  # read as stored: loading nests as deep again
        (parts,) = db.execute("SELECT parts FROM items").fetchone()
    assert TOKEN not in parts and parts.count("[redacted]") == 1
