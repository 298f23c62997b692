"""Exporting a chat: Markdown with picture files beside it, JSON that reads back the same."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import pytest

from app.export import ExportError, snapshot, write
from app.export_json import to_json, write_json
from app.export_markdown import markdown
from app.import_json import from_json, read_json
from app.store import Store
from app.store.schema import MIGRATIONS
from routing.answer_stats import AnswerStats
from routing.transcript import (
    Crossed,
    Message,
    MessageStatus,
    Notice,
    NoticeKind,
    PagesPart,
    PicturePart,
    TextPart,
    ToolCall,
    ToolResult,
    user_message,
)
from tests.pdfs import scanned_pdf, text_pdf
from tests.pictures import make_picture
from vision.pdf import open_pdf, read_pdf

RED = make_picture("red", (6, 4), label="red [1].png")
PHOTO = make_picture("blue", (6, 4), fmt="JPEG", label="photo.jpg")


@pytest.fixture
def chat(tmp_path: Path) -> Iterator[tuple[Store, str]]:
    """A conversation with words, pictures (one used twice), a tool step and notices."""
    with Store.open(tmp_path / "data") as store:
        chat = store.conversations.create(model="ollama:llama3.2:3b")
        store.add_message(chat, user_message("What is in these?", (RED, PHOTO)))
        store.add_notice(
            chat,
            Notice(
                NoticeKind.DISCLOSURE,
                "ollama:qwen2.5vl:3b at 127.0.0.1:11434 looked at 2 pictures (red [1].png, "
                "photo.jpg) and described them for ollama:llama3.2:3b, which can't see.",
                details="Why ollama:qwen2.5vl:3b: it sees.",
                crossed=Crossed(
                    "ollama:qwen2.5vl:3b",
                    "127.0.0.1:11434",
                    "2 pictures (red [1].png, photo.jpg)",
                    "To describe them in words for ollama:llama3.2:3b, which can't see; it sees",
                    True,
                ),
            ),
        )
        call = ToolCall("call-1", "screenshot", {"window": "Sightline", "n": 1})
        store.add_message(
            chat, Message("assistant", (TextPart("Let me look."), call), model="ollama:llama3.2:3b")
        )
        store.add_message(
            chat,
            Message(
                "tool",
                (
                    ToolResult(
                        "call-1", "screenshot", (TextPart("800×600"), PicturePart(RED)), False
                    ),
                ),
            ),
        )
        store.add_message(
            chat,
            Message(
                "assistant",
                (TextPart("A red square and a blue photo.\n\n```py\nprint(1)\n```"),),
                model="ollama:llama3.2:3b",
                status=MessageStatus.STOPPED,
            ),
        )
        store.add_notice(chat, Notice(NoticeKind.ERROR, "Ollama stopped.", details="kind: x"))
        yield store, chat


def test_json_round_trip_keeps_messages_notices_and_picture_bytes(
    chat: tuple[Store, str], tmp_path: Path
) -> None:
    store, conversation = chat
    exported = snapshot(store, conversation)
    path = write(exported, tmp_path / "chat.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "sightline.conversation" and data["version"] == 2
    assert [i["type"] for i in data["items"]] == [
        "message",
        "notice",
        "message",
        "message",
        "message",
        "notice",
    ]
    # Each picture once, with its type and hash, however often it is used.
    assert sorted((p["sha256"], p["mime"]) for p in data["pictures"]) == sorted(
        [(RED.sha256, "image/png"), (PHOTO.sha256, "image/jpeg")]
    )

    back = read_json(path)
    stored = store.items(conversation)
    assert back.conversation == store.conversations.get(conversation)
    assert [e.item for e in back.entries] == [s.item for s in stored]  # labels included
    assert [e.created_at for e in back.entries] == [s.created_at for s in stored]
    first = back.entries[0].item
    assert isinstance(first, Message)
    assert [p.data for p in first.pictures] == [RED.data, PHOTO.data]
    notices = [e.item for e in back.entries if isinstance(e.item, Notice)]
    assert [n.kind for n in notices] == [NoticeKind.DISCLOSURE, NoticeKind.ERROR]


def test_markdown_writes_pictures_beside_it_and_links_them(
    chat: tuple[Store, str], tmp_path: Path
) -> None:
    store, conversation = chat
    path = write(snapshot(store, conversation), tmp_path / "My chat.md")
    text = path.read_text(encoding="utf-8")
    files = tmp_path / "My chat_files"
    assert sorted(p.name for p in files.iterdir()) == sorted(
        [f"{RED.sha256}.png", f"{PHOTO.sha256}.jpg"]
    )
    assert (files / f"{RED.sha256}.png").read_bytes() == RED.data
    assert text.startswith("# What is in these?\n")
    assert "## You · " in text and "## ollama:llama3.2:3b · " in text
    assert "(stopped)" in text
    links = [line for line in text.splitlines() if line.startswith("![")]
    assert len(links) == 3  # two attached, one from the tool
    for link in links:
        target = unquote(link[link.index("](") + 2 : -1])
        assert (tmp_path / target).is_file()
    assert "![red (1).png](" in text  # brackets in a label can't break the link
    assert "> **Disclosure:** ollama:qwen2.5vl:3b at 127.0.0.1:11434 looked at" in text
    assert "> Why ollama:qwen2.5vl:3b: it sees." in text
    assert "> **Error:** Ollama stopped." in text
    assert "**Tool call** `screenshot`" in text and '"window": "Sightline"' in text
    assert "```py\nprint(1)\n```" in text


def test_a_chat_without_pictures_makes_no_folder(tmp_path: Path) -> None:
    with Store.open(tmp_path / "data") as store:
        chat = store.conversations.create()
        store.add_message(chat, user_message("Just words"))
        write(snapshot(store, chat), tmp_path / "words.md")
        assert not (tmp_path / "words_files").exists()
        assert "Just words" in markdown(snapshot(store, chat), "x")


def test_errors_name_the_file(chat: tuple[Store, str], tmp_path: Path) -> None:
    store, conversation = chat
    with pytest.raises(ExportError, match="no conversation"):
        snapshot(store, "missing")
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(ExportError, match="a-file"):
        write_json(snapshot(store, conversation), blocker / "out.json")
    bad = tmp_path / "bad.json"
    data = json.loads(write(snapshot(store, conversation), tmp_path / "ok.json").read_text())
    data["pictures"][0]["data"] = "AAAA"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ExportError, match="does not match"):
        read_json(bad)
    bad.write_text("{}", encoding="utf-8")
    with pytest.raises(ExportError, match="not a Sightline export"):
        read_json(bad)


def test_pdfs_and_rendered_pages_export_and_read_back(tmp_path: Path) -> None:
    memo = open_pdf(text_pdf(["Friday"]), name="memo [final].pdf")
    read = read_pdf(scanned_pdf(2), name="scan.pdf")
    assert read.candidate is not None
    pages = PagesPart.from_candidate("scan.pdf", read.candidate, read.total_pages)
    with Store.open(tmp_path / "data") as store:
        conversation = store.conversations.create()
        store.add_message(conversation, user_message("When?", pdfs=(memo,)))
        store.add_message(conversation, Message("tool", (ToolResult("c", "read_file", (pages,)),)))
        exported = snapshot(store, conversation)
        stored = [s.item for s in store.items(conversation)]

    back = read_json(write(exported, tmp_path / "chat.json"))
    assert [e.item for e in back.entries] == stored  # the PDF's bytes and the pages included

    text = write(exported, tmp_path / "chat.md").read_text(encoding="utf-8")
    files = tmp_path / "chat_files"
    assert (files / f"{memo.sha256}.pdf").read_bytes() == memo.data
    assert f"[memo (final).pdf](chat_files/{memo.sha256}.pdf)" in text
    assert pages.lead_in in text
    assert text.count("![scan.pdf, page") == 2


MEMO = read_pdf(text_pdf(["Friday at ten"]), name="memo.pdf")
SCAN = read_pdf(scanned_pdf(2), name="scan.pdf")


@pytest.fixture
def chat_from_before_pdfs(tmp_path: Path) -> Iterator[tuple[Store, str]]:
    """A chat as schema 3 kept it, before PDFs were kept whole (migration 4): an attached
    PDF was then its words in the person's message (a header, its text) and, for a scan,
    its rendered pages as the message's pictures."""
    assert SCAN.candidate is not None
    pages = SCAN.candidate.pictures
    words = (
        "When is it?\n\n[Attached memo.pdf: pages 1-1 of 1]\n"
        f"{MEMO.text()}\n\n[Attached scan.pdf: pages 1-2 of 2]\n{SCAN.candidate.extraction_error}"
    )
    refs = [{"type": "picture", "sha256": p.sha256, "label": p.label} for p in pages]
    folder = tmp_path / "data"
    folder.mkdir()
    with sqlite3.connect(folder / Store.DB_NAME) as db:
        for number, step in enumerate(MIGRATIONS[:3], start=1):
            db.executescript(step)
            db.execute(f"PRAGMA user_version = {number}")
        db.execute(
            "INSERT INTO conversations (id, title, model, created_at, updated_at) "
            "VALUES ('old', 'When is it?', 'ollama:llava:7b', 1, 2)"
        )
        item = db.execute(
            "INSERT INTO items (conversation_id, seq, created_at, kind, role, status, text, parts)"
            " VALUES ('old', 1, 1, 'message', 'user', 'complete', ?, ?)",
            (words, json.dumps(refs)),
        ).lastrowid
        for page in pages:
            db.execute(
                "INSERT OR IGNORE INTO pictures (sha256, mime, width, height, data) "
                "VALUES (?, ?, ?, ?, ?)",
                (page.sha256, page.mime, page.width, page.height, page.data),
            )
            db.execute("INSERT INTO item_pictures VALUES (?, ?)", (item, page.sha256))
        db.execute(
            "INSERT INTO items (conversation_id, seq, created_at, kind, role, status, model, text)"
            " VALUES ('old', 2, 2, 'message', 'assistant', 'complete', ?, 'Friday.')",
            ("ollama:llava:7b",),
        )
    with Store.open(folder) as store:  # brought up to date on opening
        yield store, "old"


def test_an_export_from_before_pdfs_still_reads(
    chat_from_before_pdfs: tuple[Store, str], tmp_path: Path
) -> None:
    store, conversation = chat_from_before_pdfs
    path = write(snapshot(store, conversation), tmp_path / "old.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data.pop("pdfs") == []  # nothing kept as a PDF: an export of then had no such key
    path.write_text(json.dumps(data), encoding="utf-8")

    back = read_json(path)
    assert [e.item for e in back.entries] == [s.item for s in store.items(conversation)]
    question = back.entries[0].item
    assert isinstance(question, Message) and question.pdfs == ()
    assert f"[Attached memo.pdf: pages 1-1 of 1]\n{MEMO.text()}" in question.text
    assert "Friday at ten" in question.text
    assert "[Attached scan.pdf: pages 1-2 of 2]" in question.text
    assert SCAN.candidate is not None
    pages = SCAN.candidate.pictures
    assert [p.data for p in question.pictures] == [p.data for p in pages]  # byte for byte
    assert [p.label for p in question.pictures] == [p.label for p in pages]


def test_an_export_of_the_first_format_reads_as_one_branch(
    chat: tuple[Store, str], tmp_path: Path
) -> None:
    store, conversation = chat
    data = to_json(snapshot(store, conversation))
    data["version"] = 1
    for item in data["items"]:
        del item["id"], item["parent"], item["shown"]
    back = from_json(data)
    assert [e.item for e in back.entries] == [s.item for s in store.items(conversation)]
    assert [e.parent for e in back.entries] == [None, *range(1, len(back.entries))]
    assert all(e.shown for e in back.entries)


STATS = AnswerStats(12, 148, first_token_seconds=0.43, streaming_seconds=4.2)


@pytest.fixture
def measured(tmp_path: Path) -> Iterator[tuple[Store, str]]:
    """A chat whose answer was measured, and one from before stats (none)."""
    with Store.open(tmp_path / "data") as store:
        chat = store.conversations.create(model="ollama:llama3.2:3b")
        store.add_message(chat, user_message("Hi?"))
        answer = store.begin_assistant(chat, "ollama:llama3.2:3b")
        store.append_text(answer.id, "Hello.")
        store.finish_message(answer.id, MessageStatus.COMPLETE, STATS)
        store.add_message(chat, user_message("Again?"))
        store.add_message(chat, Message("assistant", (TextPart("Older."),), model="m"))
        yield store, chat


def test_json_carries_an_answers_stats_and_reads_them_back_equal(
    measured: tuple[Store, str], tmp_path: Path
) -> None:
    store, conversation = measured
    path = write(snapshot(store, conversation), tmp_path / "chat.json")
    items = json.loads(path.read_text(encoding="utf-8"))["items"]
    assert items[1]["stats"] == {
        "input_tokens": 12,
        "output_tokens": 148,
        "first_token_seconds": 0.43,
        "streaming_seconds": 4.2,
        "tokens_per_second": 35.2,  # for whoever reads the file; it follows from the rest
    }
    assert ["stats" in item for item in items] == [False, True, False, False]
    back = read_json(path)
    stats = [e.item.stats for e in back.entries if isinstance(e.item, Message)]
    assert stats == [None, STATS, None, None]


def test_an_export_without_stats_reads_in_either_format(
    measured: tuple[Store, str], tmp_path: Path
) -> None:
    store, conversation = measured
    for version in (1, 2):
        data = to_json(snapshot(store, conversation))
        data["version"] = version
        for item in data["items"]:
            item.pop("stats", None)
        back = from_json(data)
        assert [e.item for e in back.entries] == [s.item for s in store.items(conversation)]
        assert all(isinstance(e.item, Message) and e.item.stats is None for e in back.entries)


def test_markdown_says_an_answers_stats_quietly_under_its_heading(
    measured: tuple[Store, str],
) -> None:
    store, conversation = measured
    lines = markdown(snapshot(store, conversation), "files").splitlines()
    heading = next(i for i, line in enumerate(lines) if line.startswith("## ollama:llama3.2:3b"))
    assert lines[heading + 1 : heading + 4] == [
        "",
        "*12 → 148 tokens · first word 0.4 s · 35 tok/s*",
        "",
    ]
    assert sum("tok/s" in line for line in lines) == 1  # the older answer has none
