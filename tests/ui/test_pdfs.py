"""PDFs in the window: attaching (dialog, drop, paste), cards, passwords, sending, the conversation.

Real PDFs made by `tests/pdfs.py`, the real window, store and TurnRunner, and the
loopback Ollama and Anthropic servers; only the native file dialog and the
system's PDF viewer are replaced, since nothing can drive them.
"""

from __future__ import annotations

import base64
import logging
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit, QWidget
from pytestqt.qtbot import QtBot

from app.presenters.pdf_notes import PAGES_LOOKED_AT, SENT_AS_PDF, SENT_AS_TEXT, PdfWay, pdf_note
from app.presenters.pending import AttachedPdf
from app.store import Store
from app.tools.read_file import ReadFile
from app.ui.composer.cards import PdfCard
from app.ui.conversation.conversation_model import Role
from app.ui.conversation.row_menu import row_menu
from app.ui.models.model_picker import AUTO
from app.ui.sending import Send
from app.ui.session import Session
from routing import documents
from routing.capabilities import resolved
from routing.models import ModelInfo
from routing.transcript import Message, PagesPart, PdfPart, TextPart, ToolCall, ToolResult
from tests.conftest import SightlineHome
from tests.pdfs import encrypted_pdf, scanned_pdf, text_pdf
from tests.servers.anthropic import FakeAnthropic
from tests.servers.ollama import FakeOllama
from tests.ui.helpers import (
    OpenWindow,
    answers,
    cards,
    drop,
    failed_turn,
    file_urls,
    pick,
    reading_done,
    rows,
    send,
    shaded_picture,
    wait_for_models,
)
from vision.pdf import PdfFile, open_pdf

PASSWORD = "correct horse 7"
REPORT_PAGES = ["Quarterly report: revenue rose 12 percent.", "Page two: costs held steady."]

# -- helpers -------------------------------------------------------------------------


def pdf_file(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def report(folder: Path, name: str = "report.pdf") -> Path:
    """A two-page PDF with a text layer."""
    return pdf_file(folder / name, text_pdf(REPORT_PAGES))


def pdf_cards(session: Session) -> list[PdfCard]:
    return session.window.composer.strip.pdf_cards()


def problems(session: Session) -> tuple[str, ...]:
    return session.window.composer.problems.problems()


def password_field(session: Session) -> QLineEdit:
    dialog = session.window.passwords.dialog
    assert dialog is not None
    field = dialog.findChild(QLineEdit)
    assert field is not None
    return field


def type_password(qtbot: QtBot, session: Session, password: str) -> None:
    """Type into the open dialog's field and press Enter, as the person does."""
    field = password_field(session)
    qtbot.keyClicks(field, password)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def asked(session: Session, wrong: bool) -> bool:
    dialog = session.window.passwords.dialog
    return dialog is not None and dialog.isVisible() and ("wrong" in dialog.labelText()) == wrong


# -- attaching -------------------------------------------------------------------------


def test_the_attach_dialog_offers_pdfs_and_a_card_shows_pages_size_and_what_is_sent(
    session: Session, qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = report(tmp_path)
    shot = shaded_picture(tmp_path / "shot.png")

    def choose(parent: QWidget, caption: str, folder: str, filters: str) -> tuple[list[str], str]:
        return [str(shot), str(path)], filters

    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(choose))
    on_ui_thread: list[bool] = []

    real_is_scan = documents.is_scan

    def is_scan(pdf: PdfFile) -> bool:  # whether it is a scan: a read, maybe a render
        on_ui_thread.append(threading.current_thread() is threading.main_thread())
        return real_is_scan(pdf)

    monkeypatch.setattr(documents, "is_scan", is_scan)
    composer = session.window.composer
    qtbot.keyClicks(composer.edit, "my draft")
    composer.attach_button.click()

    qtbot.waitUntil(lambda: len(pdf_cards(session)) == 1 and reading_done(session))
    card = pdf_cards(session)[0]
    assert on_ui_thread == [False]  # read by a worker thread
    assert [type(c).__name__ for c in composer.strip.cards()] == ["PictureCard", "PdfCard"]
    assert card.name.text() == "report.pdf"
    size = path.stat().st_size
    assert card.size_label.text() == f"2 pages · {size} bytes"
    assert not card.thumb.pixmap().isNull()  # the drawn document mark, not a thumbnail
    assert card.thumb.accessibleName() == "Document mark of report.pdf"
    assert card.note.way == PdfWay.TEXT and card.note_label.text() == SENT_AS_TEXT
    assert "report.pdf's text" in card.toolTip()
    assert card.accessibleName() == f"report.pdf, PDF, 2 pages · {size} bytes, {SENT_AS_TEXT}"
    assert card.remove.accessibleName() == "Remove report.pdf"
    pdfs = session.controller.attaching.attachments.pdfs
    assert [(a.pdf.name, a.pdf.pages, a.scan) for a in pdfs] == [("report.pdf", 2, False)]
    assert composer.text() == "my draft"
    pick(session, "ollama:llava:7b")  # a model that sees but doesn't take PDFs
    assert pdf_cards(session)[0].note_label.text() == SENT_AS_TEXT

    # The same PDF again (under another name, even) is not attached twice.
    copy = pdf_file(tmp_path / "copy.pdf", path.read_bytes())
    session.controller.attaching.attach_files([copy])
    qtbot.waitUntil(lambda: reading_done(session) and bool(problems(session)))
    assert problems(session) == ("copy.pdf is attached already.",)
    assert len(pdf_cards(session)) == 1

    # Removed like a picture: by its SHA-256, through its ×.
    pdf_cards(session)[0].remove.click()
    qtbot.waitUntil(lambda: not pdf_cards(session))
    assert session.controller.attaching.attachments.pdfs == ()
    assert [c.picture.label for c in cards(session)] == ["shot.png"]


def test_pdfs_dropped_or_pasted_are_attached(
    session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    window = session.window
    dropped = report(tmp_path, "dropped.pdf")
    on_view = pdf_file(tmp_path / "on the view.pdf", text_pdf(["Another document"]))
    pasted = pdf_file(tmp_path / "pasted.pdf", text_pdf(["A third", "with", "three pages"]))

    assert drop(window.composer, file_urls(dropped)) == (True, True)
    qtbot.waitUntil(lambda: len(pdf_cards(session)) == 1)
    assert drop(window.view.viewport(), file_urls(on_view)) == (True, True)
    qtbot.waitUntil(lambda: len(pdf_cards(session)) == 2)
    mime = file_urls(pasted)
    mime.setText(str(pasted))  # file managers put the path beside the URL
    QApplication.clipboard().setMimeData(mime)
    window.composer.edit.setFocus()
    window.composer.edit.paste()
    qtbot.waitUntil(lambda: len(pdf_cards(session)) == 3)
    assert [c.name.text() for c in pdf_cards(session)] == [
        "dropped.pdf",
        "on the view.pdf",
        "pasted.pdf",
    ]
    assert pdf_cards(session)[2].size_label.text().startswith("3 pages · ")
    assert window.composer.text() == ""  # no path typed into the box


def test_a_scan_says_a_model_that_sees_reads_its_pages(
    session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    session.controller.attaching.attach_files([pdf_file(tmp_path / "scan.pdf", scanned_pdf(3))])
    qtbot.waitUntil(lambda: len(pdf_cards(session)) == 1 and reading_done(session))
    assert session.controller.attaching.attachments.pdfs[0].scan
    for ref, who in (
        (AUTO, "Auto picks a model that sees"),
        ("ollama:llava:7b", "llava:7b sees them"),
        ("ollama:llama3.2:3b", "A model that sees reads them"),
    ):
        pick(session, ref)
        card = pdf_cards(session)[0]
        assert card.note.way == PdfWay.PAGES
        assert card.note_label.text() == PAGES_LOOKED_AT
        assert who in card.toolTip() and "scan.pdf" in card.toolTip()


def test_what_a_pdf_card_says_follows_the_provider_and_the_model() -> None:
    sonnet = resolved(ModelInfo("claude", "claude-sonnet-4-5", sees=True), "anthropic")
    llava = resolved(ModelInfo("ollama", "llava:7b", sees=True, local=True), "ollama")
    models = [sonnet, llava]
    text = AttachedPdf(open_pdf(text_pdf(["Hello"]), name="a.pdf"), scan=False)
    scan = AttachedPdf(open_pdf(scanned_pdf(1), name="s.pdf"), scan=True)
    huge = AttachedPdf(open_pdf(text_pdf(["x"] * 101), name="huge.pdf"), scan=False)

    def says(ref: str, attached: AttachedPdf) -> str:
        return pdf_note(ref, attached, models).words

    # A model whose provider reads PDFs and that sees gets the PDF, scan or not.
    assert says(sonnet.ref, text) == says(sonnet.ref, scan) == SENT_AS_PDF
    # Past the API's limits it gets Sightline's read, and the tooltip says why.
    too_large = pdf_note(sonnet.ref, huge, models)
    assert too_large.words == SENT_AS_TEXT and "100 pages" in too_large.tip
    # Anyone else: the text, or a scan's pages for a model that sees.
    assert says(llava.ref, text) == says(AUTO, text) == SENT_AS_TEXT
    assert says(llava.ref, scan) == says(AUTO, scan) == PAGES_LOOKED_AT
    # A Claude that can't see (said outright) doesn't get PDFs: they carry pages.
    blind = resolved(ModelInfo("claude", "claude-text", sees=False), "anthropic")
    assert pdf_note(blind.ref, text, [blind]).words == SENT_AS_TEXT


# -- passwords -------------------------------------------------------------------------


def test_a_locked_pdf_asks_for_its_password_until_it_is_right(
    home: SightlineHome,
    open_window: OpenWindow,
    qtbot: QtBot,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    session = open_window()
    wait_for_models(qtbot, session)
    locked = pdf_file(tmp_path / "locked.pdf", encrypted_pdf(PASSWORD, "The vault code is 0451"))
    session.controller.attaching.attach_files([locked])

    qtbot.waitUntil(lambda: asked(session, wrong=False))
    dialog = session.window.passwords.dialog
    assert dialog is not None
    assert "locked.pdf" in dialog.labelText()
    assert password_field(session).echoMode() == QLineEdit.EchoMode.Password
    assert password_field(session).accessibleName() == "Password of locked.pdf"
    # While its password is asked, the PDF counts as being read: no message leaves without it.
    assert session.controller.attaching.attachments.reading == 1
    assert session.controller.sending.send(Send(AUTO, "send it now")) is False
    strip = session.window.composer.strip
    assert strip.reading.text() == "Waiting for the password of locked.pdf…"

    type_password(qtbot, session, "not it")
    qtbot.waitUntil(lambda: asked(session, wrong=True))
    assert "locked.pdf" in session.window.passwords.dialog.labelText()  # type: ignore[union-attr]
    assert pdf_cards(session) == []

    type_password(qtbot, session, PASSWORD)
    qtbot.waitUntil(lambda: len(pdf_cards(session)) == 1 and reading_done(session))
    assert session.window.passwords.dialog is None
    attached = pdf_cards(session)[0].attached.pdf
    assert (attached.name, attached.pages) == ("locked.pdf", 1)
    assert problems(session) == ()
    # Kept decrypted: it opens with no password, so nobody asks again.
    assert open_pdf(attached.data).sha256 == attached.sha256
    # The password went nowhere it could be read back.
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert PASSWORD not in logged and "not it" not in logged


def test_cancelling_the_password_leaves_the_pdf_unattached_and_says_so(
    session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    composer = session.window.composer
    qtbot.keyClicks(composer.edit, "keep me")
    locked = pdf_file(tmp_path / "locked.pdf", encrypted_pdf(PASSWORD))
    session.controller.attaching.attach_files([locked, report(tmp_path)])

    qtbot.waitUntil(lambda: asked(session, wrong=False))
    dialog = session.window.passwords.dialog
    assert dialog is not None
    assert dialog.cancelButtonText() == "Don't attach"
    dialog.reject()  # Cancel, or Esc
    qtbot.waitUntil(lambda: reading_done(session) and bool(problems(session)))
    assert problems(session) == ("locked.pdf was not attached: it needs its password.",)
    assert composer.problems.isVisible()
    assert [c.name.text() for c in pdf_cards(session)] == ["report.pdf"]  # the other one stays
    assert session.window.passwords.dialog is None
    assert composer.text() == "keep me"


def test_broken_pdfs_are_named_inline_and_not_attached(
    session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    broken = pdf_file(tmp_path / "broken.pdf", b"%PDF-1.4\nnot really a PDF at all")
    truncated = pdf_file(tmp_path / "truncated.pdf", text_pdf(REPORT_PAGES)[:300])
    session.controller.attaching.attach_files([broken, truncated, report(tmp_path)])
    qtbot.waitUntil(lambda: reading_done(session) and len(problems(session)) == 2)
    said = problems(session)
    assert said[0].startswith("broken.pdf is damaged or not a PDF")
    assert said[1].startswith("truncated.pdf is damaged or not a PDF")
    assert [c.name.text() for c in pdf_cards(session)] == ["report.pdf"]
    assert session.window.passwords.dialog is None  # damaged is not locked
    assert QApplication.activeModalWidget() is None  # inline, not a popup


# -- sending -------------------------------------------------------------------------


def test_a_pdf_goes_with_the_message_as_its_text_and_shows_in_the_conversation(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot, tmp_path: Path, no_viewer: list[QUrl]
) -> None:
    window = session.window
    pick(session, "ollama:llama3.2:3b")
    path = report(tmp_path)
    session.controller.attaching.attach_files([path])
    qtbot.waitUntil(lambda: len(pdf_cards(session)) == 1)
    attached = pdf_cards(session)[0].attached.pdf

    send(qtbot, session, "Summarise this")
    qtbot.waitUntil(lambda: bool(answers(session)) and not session.controller.busy)
    assert pdf_cards(session) == [] and not window.composer.strip.isVisible()
    stored = session.store.items(session.controller.current_id)[0].item
    assert isinstance(stored, Message) and stored.role == "user"
    assert stored.text == "Summarise this"
    assert [p.pdf.sha256 for p in stored.parts if isinstance(p, PdfPart)] == [attached.sha256]
    assert stored.pdfs[0].data == path.read_bytes() and stored.pdfs[0].name == "report.pdf"
    # Ollama's model doesn't take PDFs: it got the words, then Sightline's read of the text.
    content = fake_ollama.chat_requests()[-1]["messages"][-1]["content"]
    assert content.startswith("Summarise this")
    assert "[Attached report.pdf: pages 1-2 of 2]" in content
    assert all(page in content for page in REPORT_PAGES)

    # The conversation shows the PDF as a tile: its name and pages, read by screen readers too.
    view, index = window.view, window.conversation.index(0, 0)
    assert index.data(Role.PDFS)[0].sha256 == attached.sha256
    said = index.data(Qt.ItemDataRole.AccessibleTextRole)
    assert said.startswith("You, ") and ": Summarise this" in said
    assert f"PDF report.pdf, 2 pages · {attached.size_bytes} bytes" in said
    qtbot.waitUntil(lambda: bool(view.documents(index)))
    rect, shown = view.documents(index)[0]
    assert shown.sha256 == attached.sha256
    assert view.viewport().rect().contains(rect)
    assert view.thumbnails(index) == []  # a tile, not a picture
    # A click on the tile opens the PDF in the system's viewer, from a private copy.
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: len(no_viewer) == 1)
    copy = Path(no_viewer[0].toLocalFile())
    assert copy.name == "report.pdf" and copy.read_bytes() == attached.data
    assert copy.stat().st_mode & 0o077 == 0  # only this user may read it
    # The keyboard reaches it too: Enter on the row, or the row's menu.
    view.setCurrentIndex(index)
    qtbot.keyClick(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(no_viewer) == 2)
    assert no_viewer[1] == no_viewer[0]  # the same copy, not written again
    menu = row_menu(view, index)
    assert "Open report.pdf" in [action.text() for action in menu.actions()]
    menu.deleteLater()

    # A PDF with no words may be sent too.
    session.controller.attaching.attach_files(
        [pdf_file(tmp_path / "alone.pdf", text_pdf(["Just me"]))]
    )
    qtbot.waitUntil(lambda: len(pdf_cards(session)) == 1)
    window.composer.edit.setFocus()
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(answers(session)) == 2 and not session.controller.busy)
    content = fake_ollama.chat_requests()[-1]["messages"][-1]["content"]
    assert content.startswith("\n\n[Attached alone.pdf: page 1 of 1]") and "Just me" in content


def test_claude_gets_the_pdf_itself(
    home: SightlineHome,
    open_window: OpenWindow,
    qtbot: QtBot,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FakeAnthropic() as anthropic:
        with home.config.open("a", encoding="utf-8") as config:
            config.write(
                f'\n[[providers]]\nid = "claude"\nkind = "anthropic"\n'
                f'base_url = "{anthropic.base_url}"\nlocal = false\n'
            )
        monkeypatch.setenv("ANTHROPIC_API_KEY", anthropic.api_key)
        session = open_window()
        ref = "claude:claude-sonnet-4-5-20250929"
        qtbot.waitUntil(lambda: ref in [m.ref for m in session.window.picker.models()])
        pick(session, ref)
        path = report(tmp_path)
        session.controller.attaching.attach_files([path])
        qtbot.waitUntil(lambda: len(pdf_cards(session)) == 1)
        card = pdf_cards(session)[0]
        assert card.note.way == PdfWay.PDF and card.note_label.text() == SENT_AS_PDF
        assert "reads PDFs" in card.toolTip()

        send(qtbot, session, "What does it say?")
        qtbot.waitUntil(lambda: bool(answers(session)) and not session.controller.busy)
        content = anthropic.message_requests()[-1].body["messages"][-1]["content"]
        documents = [block for block in content if block.get("type") == "document"]
        assert len(documents) == 1
        assert base64.b64decode(documents[0]["source"]["data"]) == path.read_bytes()
        assert "report.pdf" in str(answers(session)[0]["text"])


def test_a_failed_turn_keeps_its_pdf_for_retry(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    pick(session, "ollama:llava:7b")  # it sees: the picture needs no describing first
    session.controller.attaching.attach_files(
        [report(tmp_path), shaded_picture(tmp_path / "chart.png")]
    )
    qtbot.waitUntil(lambda: len(pdf_cards(session)) == 1 and len(cards(session)) == 1)

    failed = failed_turn(qtbot, session, fake_ollama, "Read this", "the runner crashed")
    assert session.window.composer.text() == "" and pdf_cards(session) == []
    session.controller.sending.send(Send("ollama:llava:7b", again=failed["id"]))
    qtbot.waitUntil(lambda: bool(answers(session)) and not session.controller.busy)
    sent = fake_ollama.chat_requests()[-1]["messages"][-1]
    assert "report.pdf" in sent["content"] and len(sent["images"]) == 1
    assert [r["text"] for r in rows(session) if r["role"] == "user"] == ["Read this"]


# -- the conversation ----------------------------------------------------------------


def test_a_saved_chat_shows_its_pdf_and_a_read_scans_pages_like_tool_pictures(
    home: SightlineHome,
    open_window: OpenWindow,
    qtbot: QtBot,
    tmp_path: Path,
    run: Callable[[Awaitable[ToolResult]], ToolResult],
) -> None:
    scan = pdf_file(tmp_path / "scan.pdf", scanned_pdf(2))
    call = ToolCall("c1", "read_file", {"path": str(scan)})
    session = open_window()
    result = run(ReadFile(tmp_path).run(call))
    assert any(isinstance(p, PagesPart) for p in result.parts)  # the real read of a scan
    with Store.open(home.data) as store:
        chat = store.conversations.create(title="A scan", model="ollama:qwen2.5vl:3b")
        attached = open_pdf(scan)
        store.add_message(
            chat, Message(role="user", parts=(TextPart("Read it"), PdfPart(attached)))
        )
        store.add_message(chat, Message(role="assistant", parts=(call,)))
        store.add_message(chat, Message(role="tool", parts=(result,)))
    session.controller.select_conversation(chat)
    view, model = session.window.view, session.window.conversation
    user, tool = model.index(0, 0), model.index(2, 0)
    qtbot.waitUntil(lambda: bool(view.documents(user)))
    assert view.documents(user)[0][1].name == "scan.pdf"
    assert "PDF scan.pdf, 2 pages" in user.data(Qt.ItemDataRole.AccessibleTextRole)

    # Closed, the tool row counts the pages as pictures; opened, it shows them.
    assert "2 pictures" in tool.data(Qt.ItemDataRole.AccessibleTextRole)
    assert view.thumbnails(tool) == []
    view.setCurrentIndex(tool)
    qtbot.keyClick(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(view.thumbnails(tool)) == 2)
    labels = [picture.label for _rect, picture in view.thumbnails(tool)]
    assert labels == ["scan.pdf, page 1", "scan.pdf, page 2"]
    assert any("No text could be extracted" in text for text in view.shown_texts(tool))
