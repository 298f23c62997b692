"""A part read back from its JSON, every field checked: what the store wrote comes back the
same, and a damaged stored part is a StoreError naming the field, never a traceback."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from app.store import Store, StoreError
from app.store.fields import FieldError, Fields
from app.store.part_reader import read_part
from app.store.parts import encode_parts
from routing.transcript import (
    CarriedPart,
    Message,
    PagesPart,
    PdfPart,
    PicturePart,
    TextPart,
    ToolCall,
    ToolResult,
)
from tests.pdfs import text_pdf
from tests.pictures import make_picture
from vision.pdf import PdfFile, open_pdf
from vision.pictures import Picture

RED = make_picture("red", (8, 6))
MEMO = open_pdf(text_pdf(["Friday"]), name="memo.pdf")


class Found:
    """The blobs a part may name: RED and MEMO."""

    def picture_for(self, sha256: str, label: str, where: str) -> Picture:
        if sha256 != RED.sha256:
            raise FieldError(f"{where} names no picture")
        return RED if label == RED.label else Picture(RED.data, RED.mime, 8, 6, RED.sha256, label)

    def pdf_for(self, sha256: str, name: str, where: str) -> PdfFile:
        return PdfFile(MEMO.data, name, MEMO.sha256, MEMO.pages)


def test_every_part_the_store_writes_reads_back_the_same() -> None:
    parts = (
        ToolCall("c1", "search", {"q": "cats", "deep": [1, {"on": True}]}),
        ToolResult("c1", "search", (TextPart("found"), PicturePart(RED)), is_error=True),
        PdfPart(MEMO),
        PagesPart("scan.pdf", 3, (RED,), "no text", 9),
        CarriedPart("responses", "openai:o3", {"id": "rs_1"}),
        PicturePart(RED),
    )
    written = encode_parts(parts).parts
    back = tuple(read_part(Fields(raw, f"parts[{n}]"), Found()) for n, raw in enumerate(written))
    assert back == parts


def test_a_part_of_the_wrong_shape_names_its_field() -> None:
    for raw, words in [
        ({"type": "tool_call", "id": "c", "name": "n", "arguments": []},
         "parts[0].arguments must be an object, not a list"),
        ({"type": "tool_result", "call_id": "c", "name": "n", "parts": [{"type": "pdf"}]},
         "parts[0].parts[0].type must be one of pages, picture, text, not 'pdf'"),
        ({"type": "pages", "document": "d", "first": "1", "pictures": [],
          "extraction_error": ""}, "parts[0].first must be a whole number, not a string"),
        ({"type": "picture", "sha256": "0" * 64}, "parts[0].sha256 names no picture"),
        ({"type": "carried", "shape": "s", "source": "x", "data": "opaque"},
         "parts[0].data must be an object, not a string"),
    ]:  # fmt: skip
        with pytest.raises(FieldError) as caught:
            read_part(Fields(raw, "parts[0]"), Found())
        assert str(caught.value) == words


def test_a_damaged_stored_part_is_a_store_error_naming_it(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    with Store.open(folder) as store:
        chat = store.conversations.create()
        call = ToolCall("c1", "search", {"q": "cats"})
        store.add_message(chat, Message("assistant", (TextPart("Looking."), call), "m"))
    with sqlite3.connect(folder / Store.DB_NAME) as db:
        damaged = [{"type": "tool_call", "id": "c1", "name": "search", "arguments": "q=cats"}]
        db.execute("UPDATE items SET parts = ?", (json.dumps(damaged),))
    with Store.open(folder) as store, pytest.raises(StoreError) as caught:
        store.items(chat)
    assert "part.arguments must be an object, not a string" in str(caught.value)
