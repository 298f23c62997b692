"""Attached PDFs and rendered pages in the store: kept once, whole, and given back as stored."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from app import store as store_module
from app.store import Store
from routing.transcript import Message, PagesPart, TextPart, ToolResult, user_message
from tests.app.test_store import count
from tests.pdfs import scanned_pdf, text_pdf
from vision.pdf import open_pdf, read_pdf


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
        conversation = store.create_conversation()
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
    first, second = store.create_conversation(), store.create_conversation()
    store.add_message(first, user_message("one", pdfs=(pdf,)))
    renamed = open_pdf(pdf.data, name="b.pdf")
    store.add_message(second, user_message("two", pdfs=(renamed,)))
    assert count(store.path, "pdfs") == 1
    assert [p.name for p in store.messages(second)[0].pdfs] == ["b.pdf"]


def test_deleting_a_conversation_drops_only_pdfs_nobody_else_uses(store: Store) -> None:
    shared = open_pdf(text_pdf(["shared"]), name="shared.pdf")
    own = open_pdf(text_pdf(["own"]), name="own.pdf")
    keep, doomed = store.create_conversation(), store.create_conversation()
    store.add_message(keep, user_message("keep", pdfs=(shared,)))
    store.add_message(doomed, user_message("doomed", pdfs=(shared, own)))
    assert count(store.path, "pdfs") == 2
    store.delete_conversation(doomed)
    assert count(store.path, "pdfs") == 1
    assert store.messages(keep)[0].pdfs == (shared,)


def test_a_database_from_before_pdfs_gains_them_and_keeps_its_chats(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    with sqlite3.connect(folder / Store.DB_NAME) as db:  # as schema 3 left it
        for number, step in enumerate(store_module._MIGRATIONS[:3], start=1):
            db.executescript(step)
            db.execute(f"PRAGMA user_version = {number}")
        db.execute("INSERT INTO conversations (id, created_at, updated_at) VALUES ('c', 1, 1)")
        db.execute(
            "INSERT INTO items (conversation_id, seq, created_at, kind, role, status, text) "
            "VALUES ('c', 1, 1, 'message', 'user', 'complete', 'older words')"
        )
    with Store.open(folder) as store:
        assert store.messages("c")[0].text == "older words"
        store.add_message("c", user_message("now a PDF", pdfs=(open_pdf(text_pdf(["x"])),)))
        assert store.messages("c")[1].pdfs[0].pages == 1
