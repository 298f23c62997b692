"""Pictures in the window: attach (button, drop, paste), cards, sending, and the viewer.

Real files made with Pillow, the real window and store, and the loopback Ollama;
only the native file dialog is replaced, since nothing can drive it.
"""

from __future__ import annotations

import base64
import os
import threading
import time
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import QMimeData, QSize, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QAbstractButton, QApplication, QFileDialog, QLabel, QWidget
from pytestqt.qtbot import QtBot

import app.presenters.pending as pending
from app.attachments import load_attachment
from app.presenters.pending import BLIND_TIP, Sight, byte_words, sight_note
from app.store import Store, StoredItem
from app.ui.conversation.conversation_model import ConversationModel
from app.ui.conversation.conversation_view import ConversationView
from app.ui.conversation.painting import THUMB
from app.ui.conversation.picture_viewer import PictureViewer
from app.ui.conversation.row_buttons import RETRY_BUTTON
from app.ui.conversation.thumbnails import ready, shown_size
from app.ui.models.model_picker import AUTO
from app.ui.session import Session
from routing.capabilities import resolved
from routing.models import ModelInfo
from routing.transcript import Message, PicturePart, TextPart, ToolResult
from tests.conftest import SightlineHome
from tests.gifs import animated_gif
from tests.servers.ollama import FakeOllama
from tests.ui.helpers import (
    OpenWindow,
    answers,
    cards,
    click_row_button,
    drop,
    failed_turn,
    file_urls,
    pick,
    reading_done,
    rows,
    send,
    shaded_picture,
)
from vision.pictures import MAX_FILE_BYTES, open_picture

# -- helpers -------------------------------------------------------------------------


# -- attaching -------------------------------------------------------------------------


def test_the_attach_dialog_opens_in_pictures_or_at_home_when_there_is_none(
    session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders: list[str] = []

    def choose(parent: QWidget, caption: str, folder: str, filters: str) -> tuple[list[str], str]:
        folders.append(folder)
        return [], filters

    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(choose))
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_PICTURES_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))  # no user-dirs.dirs there
    session.window.composer.choose_files()
    (home / "Pictures").mkdir()
    session.window.composer.choose_files()
    # Not a folder that isn't there (the dialog would type "Pictures" as a file name).
    assert folders == [str(home), str(home / "Pictures")]


def test_the_attach_button_reads_the_chosen_files_off_the_ui_thread(
    session: Session, qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = shaded_picture(tmp_path / "first.png", (1280, 800))
    second = shaded_picture(tmp_path / "second.jpg", (640, 480), shade=30)
    asked: list[tuple[str, str]] = []

    def choose(parent: QWidget, caption: str, folder: str, filters: str) -> tuple[list[str], str]:
        asked.append((caption, filters))
        return [str(first), str(second)], filters

    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(choose))
    on_ui_thread: list[bool] = []

    def opened(path: Path, password: str | None = None) -> object:
        on_ui_thread.append(threading.current_thread() is threading.main_thread())
        return load_attachment(path, password=password)

    monkeypatch.setattr(pending, "load_attachment", opened)
    composer = session.window.composer
    qtbot.keyClicks(composer.edit, "my draft")
    assert composer.attach_button.accessibleName() == "Attach pictures or PDFs"
    qtbot.mouseClick(composer.attach_button, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: len(cards(session)) == 2 and reading_done(session))
    caption, filters = asked[0]
    assert caption == "Attach pictures or PDFs"
    both = filters.split(";;")[0]  # the filter the dialog starts with lists both kinds
    for suffix in ("png", "jpg", "jpeg", "gif", "webp", "bmp", "tif", "tiff", "pdf"):
        assert f"*.{suffix}" in both
    assert on_ui_thread == [False, False]  # both files were read by worker threads
    shown = cards(session)
    assert [c.picture.label for c in shown] == ["first.png", "second.jpg"]
    assert shown[0].name.text() == "first.png"
    size = first.stat().st_size
    assert shown[0].size_label.text() == f"1280×800 · {round(size / 1024)} KB"
    assert shown[1].size_label.text().startswith("640×480 · ")
    assert shown[0].remove.accessibleName() == "Remove first.png"
    assert [p.label for p in session.controller.attaching.attachments.pictures] == [
        "first.png",
        "second.jpg",
    ]
    assert composer.text() == "my draft"
    assert composer.strip.isVisible()
    unnamed = [
        type(w).__name__
        for w in composer.findChildren(QWidget)
        if isinstance(w, QLabel | QAbstractButton) and not w.accessibleName()
    ]
    assert unnamed == []

    # The same file again is not attached twice, and the person is told.
    session.controller.attaching.attach_files([first])
    qtbot.waitUntil(lambda: reading_done(session) and bool(composer.problems.problems()))
    assert len(cards(session)) == 2
    assert composer.problems.problems() == ("first.png is attached already.",)


def test_bad_files_are_named_inline_and_not_attached(
    session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    good = shaded_picture(tmp_path / "good.png")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    truncated = tmp_path / "truncated.png"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    text = tmp_path / "notes.png"
    text.write_text("not a picture at all", encoding="utf-8")
    huge = tmp_path / "huge.png"
    with huge.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1024 * 1024)  # sparse: nothing is written
    composer = session.window.composer
    qtbot.keyClicks(composer.edit, "keep me")

    session.controller.attaching.attach_files([empty, good, truncated, text, huge])
    qtbot.waitUntil(lambda: reading_done(session) and len(composer.problems.problems()) == 4)
    assert [c.picture.label for c in cards(session)] == ["good.png"]
    problems = composer.problems.problems()
    for bad, words in (
        (empty, "empty"),
        (truncated, "truncated"),
        (text, "not a picture"),
        (huge, "too large"),
    ):
        said = next(p for p in problems if bad.name in p)
        assert words in said
    assert composer.problems.isVisible()
    assert all(p in composer.problems.label.text() for p in problems)
    assert QApplication.activeModalWidget() is None  # inline, not a popup
    assert composer.text() == "keep me"

    qtbot.mouseClick(composer.problems.dismiss, Qt.MouseButton.LeftButton)
    assert not composer.problems.isVisible()
    assert session.controller.attaching.attachments.problems == ()
    assert len(cards(session)) == 1


def test_a_device_a_fifo_and_a_huge_gif_are_a_problem_each_or_a_card_and_the_window_goes_on(
    session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    pipe = tmp_path / "pipe.png"
    os.mkfifo(pipe)  # nobody ever writes: reading it would wait for ever
    gif = tmp_path / "huge.gif"
    gif.write_bytes(animated_gif(8000, 8000, 40))  # walking every frame took 25 s, 800 MB
    composer = session.window.composer

    started = time.monotonic()
    session.controller.attaching.attach_files([Path("/dev/zero"), pipe, gif])
    qtbot.waitUntil(lambda: reading_done(session), timeout=15_000)
    assert time.monotonic() - started < 10
    problems = composer.problems.problems()
    assert len(problems) == 2 and composer.problems.isVisible()
    assert "/dev/zero is a device" in problems[0] and "pipe.png is a pipe (FIFO)" in problems[1]
    [card] = cards(session)
    assert (card.picture.label, card.picture.width) == ("huge.gif", 8000)
    assert "later frames were not looked at" in card.picture.note
    # The window still answers: the person types, and can still send.
    qtbot.keyClicks(composer.edit, "still here")
    assert composer.text() == "still here"
    assert QApplication.activeModalWidget() is None


def test_files_dropped_on_the_composer_or_the_conversation_are_attached(
    session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    window = session.window
    one = shaded_picture(tmp_path / "one.png", shade=1)
    two = shaded_picture(tmp_path / "two.png", shade=2)
    three = shaded_picture(tmp_path / "three.png", shade=3)

    assert drop(window.composer, file_urls(one)) == (True, True)
    qtbot.waitUntil(lambda: len(cards(session)) == 1)
    assert drop(window.view.viewport(), file_urls(two)) == (True, True)
    qtbot.waitUntil(lambda: len(cards(session)) == 2)
    # Straight onto the message box: the box's own drop path.
    assert drop(window.composer.edit.viewport(), file_urls(three)) == (True, True)
    qtbot.waitUntil(lambda: len(cards(session)) == 3)
    assert [c.picture.label for c in cards(session)] == ["one.png", "two.png", "three.png"]
    assert window.composer.text() == ""  # no path typed into the box

    # Words dragged onto the conversation are not pictures: refused, nothing attached.
    words = QMimeData()
    words.setText("just words")
    assert drop(window.view.viewport(), words)[1] is False
    assert len(cards(session)) == 3


def test_pasting_picture_data_or_a_file_attaches_it_and_words_stay_words(
    session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    edit = session.window.composer.edit
    edit.setFocus()
    qtbot.keyClicks(edit, "look: ")
    image = QImage(300, 200, QImage.Format.Format_RGB32)
    image.fill(QColor("orange"))
    QApplication.clipboard().setImage(image)
    qtbot.keyClick(edit, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: len(cards(session)) == 1)
    pasted = cards(session)[0].picture
    assert pasted.label == "Pasted picture 1.png"
    assert (pasted.mime, pasted.width, pasted.height) == ("image/png", 300, 200)
    assert cards(session)[0].size_label.text().startswith("300×200 · ")
    assert edit.toPlainText() == "look: "

    path = shaded_picture(tmp_path / "copied in the file manager.png")
    mime = file_urls(path)
    mime.setText(str(path))  # file managers put the path beside the URL
    QApplication.clipboard().setMimeData(mime)
    qtbot.keyClick(edit, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: len(cards(session)) == 2)
    assert cards(session)[1].picture.label == "copied in the file manager.png"
    assert edit.toPlainText() == "look: "

    QApplication.clipboard().setText("plain words")
    qtbot.keyClick(edit, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert edit.toPlainText() == "look: plain words"
    assert len(cards(session)) == 2


def test_a_card_can_be_removed(session: Session, qtbot: QtBot, tmp_path: Path) -> None:
    keep = shaded_picture(tmp_path / "keep.png", shade=5)
    drop_me = shaded_picture(tmp_path / "drop-me.png", shade=6)
    session.controller.attaching.attach_files([keep, drop_me])
    qtbot.waitUntil(lambda: len(cards(session)) == 2)
    card = cards(session)[1]
    assert card.remove.accessibleName() == "Remove drop-me.png"
    qtbot.mouseClick(card.remove, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(cards(session)) == 1)
    assert [p.label for p in session.controller.attaching.attachments.pictures] == ["keep.png"]
    qtbot.mouseClick(cards(session)[0].remove, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not cards(session))
    assert not session.window.composer.strip.isVisible()


def test_a_long_lookers_name_gives_way_whole_never_cut_mid_word(qtbot: QtBot) -> None:
    from app.presenters.pending import SightNote
    from app.ui.composer.cards import PictureCard
    from tests.pictures import named_picture

    card = PictureCard(named_picture("shot.png", "red", (64, 48)))
    qtbot.addWidget(card)
    long_name = "qwen2.5-vision-instruct-preview-2025-11:32b-q4_K_M"
    wordings = (
        f"Described by {long_name} on this computer",
        f"Described by {long_name}",
        "Described on this computer",
        "Described here",
    )
    card.set_sight(SightNote(Sight.BLIND, wordings[0], "tip", wordings[1:]))
    assert card.sight_label.text() == "Described on this computer"
    card.set_sight(SightNote(Sight.BLIND, "Described here by llava:7b", "tip"))
    assert card.sight_label.text() == "Described here by llava:7b"  # it fits: as it is


def test_a_large_pictures_card_shows_a_frame_until_its_thumbnail_is_decoded(qtbot: QtBot) -> None:
    from app.ui.composer.cards import PictureCard
    from tests.pictures import named_picture

    card = PictureCard(named_picture("screen.png", "cyan", (1200, 900)))  # decoded off-thread
    qtbot.addWidget(card)
    card.show()
    assert card.thumb.pixmap().isNull()  # not waited for: a faint frame meanwhile
    qtbot.waitUntil(lambda: not card.thumb.pixmap().isNull())  # then the picture
    shown = card.thumb.pixmap().toImage()
    assert shown.pixelColor(shown.width() // 2, shown.height() // 2) == QColor("cyan")


def test_the_sight_marker_follows_the_picker(
    session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    session.controller.attaching.attach_files([shaded_picture(tmp_path / "shot.png")])
    qtbot.waitUntil(lambda: len(cards(session)) == 1)

    pick(session, "ollama:llava:7b")
    card = cards(session)[0]
    assert card.sight == Sight.SEES
    assert card.sight_label.text() == "llava:7b sees it"
    assert not card.mark.pixmap().isNull()

    pick(session, "ollama:llama3.2:3b")
    card = cards(session)[0]
    assert card.sight == Sight.BLIND
    # It says who will look at the picture for it: a model that sees, on this computer.
    # The whole wording doesn't fit the card: a shorter one, the model's name whole.
    assert card.sight_label.text() in (
        "Described here by llava:7b",
        "Described here by qwen2.5vl:3b",
    )
    assert BLIND_TIP in card.mark.toolTip() and card.mark.toolTip() == card.toolTip()
    assert "pick one with an eye, or Auto picks one for you" in card.accessibleDescription()

    pick(session, AUTO)
    card = cards(session)[0]
    assert card.sight == Sight.AUTO
    assert card.sight_label.text() == "Auto picks one that sees"
    assert "picks a model" in card.toolTip()

    pick(session, "ollama:qwen2.5vl:3b")
    assert cards(session)[0].sight == Sight.SEES


# -- sending -------------------------------------------------------------------------


def test_a_picture_goes_with_the_message_and_shows_in_the_conversation(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    window = session.window
    pick(session, "ollama:llava:7b")
    session.controller.attaching.attach_files([shaded_picture(tmp_path / "chart.png")])
    qtbot.waitUntil(lambda: len(cards(session)) == 1)
    attached = cards(session)[0].picture

    send(qtbot, session, "What is this?")
    qtbot.waitUntil(lambda: bool(answers(session)) and not session.controller.busy)
    assert answers(session)[0]["text"] == "You said: What is this? (I see 1 pictures)"
    assert cards(session) == [] and not window.composer.strip.isVisible()
    assert session.controller.attaching.attachments.pictures == ()

    stored = session.store.items(session.controller.current_id)[0].item
    assert isinstance(stored, Message) and stored.role == "user"
    assert [p.sha256 for p in stored.pictures] == [attached.sha256]
    last_user = fake_ollama.chat_requests()[-1]["messages"][-1]
    assert last_user["role"] == "user" and last_user["content"] == "What is this?"
    assert last_user["images"] == [base64.b64encode(stored.pictures[0].data).decode("ascii")]

    view = window.view
    index = window.conversation.index(0, 0)
    assert "1 picture" in index.data(Qt.ItemDataRole.AccessibleTextRole)
    qtbot.waitUntil(lambda: bool(view.thumbnails(index)))
    rect, shown = view.thumbnails(index)[0]
    assert shown.sha256 == attached.sha256
    assert rect.width() <= THUMB.width() and rect.height() <= THUMB.height()
    assert abs(rect.width() / rect.height() - 1280 / 800) < 0.02  # its shape kept
    assert view.viewport().rect().contains(rect)

    # A click on the thumbnail opens the picture, fitted, its name and size in the title.
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: window.viewer is not None and window.viewer.isVisible())
    viewer = window.viewer
    assert isinstance(viewer, PictureViewer)
    assert viewer.windowTitle() == f"chart.png — 1280×800 · {round(attached.size_bytes / 1024)} KB"
    assert "1280×800" in viewer.info.text()
    qtbot.waitUntil(lambda: not viewer.opening)  # decoded on a worker thread (over 250,000 px)
    assert viewer.fitting
    fitted = viewer.shown_size()
    assert fitted.width() <= viewer.area.viewport().width()
    viewer.actual.click()
    assert viewer.shown_size() == QSize(1280, 800)
    assert viewer.info.text().endswith("actual size")
    qtbot.waitUntil(lambda: QApplication.activeWindow() is viewer)
    qtbot.keyClick(viewer, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.viewer is None)

    # Pictures with no words may be sent too.
    session.controller.attaching.attach_files([shaded_picture(tmp_path / "alone.png", shade=9)])
    qtbot.waitUntil(lambda: len(cards(session)) == 1)
    window.composer.edit.setFocus()
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(answers(session)) == 2 and not session.controller.busy)
    assert str(answers(session)[1]["text"]).endswith("(I see 1 pictures)")
    assert fake_ollama.chat_requests()[-1]["messages"][-1]["content"] == ""


def test_a_picture_sent_is_clamped_off_the_windows_thread(
    fake_ollama: FakeOllama,
    session: Session,
    qtbot: QtBot,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A 4K screenshot's clamp takes ~90 ms: the window's thread never waits for it.
    from routing import shaping
    from tests.pictures import watch_clamps

    made = watch_clamps(monkeypatch, shaping)
    pick(session, "ollama:llava:7b")
    big = shaded_picture(tmp_path / "wide.png", size=(3000, 1600))
    session.controller.attaching.attach_files([big])
    qtbot.waitUntil(lambda: len(cards(session)) == 1)
    send(qtbot, session, "What is this?")
    qtbot.waitUntil(lambda: bool(answers(session)) and not session.controller.busy)
    assert answers(session)[0]["text"] == "You said: What is this? (I see 1 pictures)"
    assert made and not any(on_main for _, on_main in made)


def test_a_failed_turn_keeps_its_message_and_retry_sends_it_again_with_its_pictures(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    pick(session, "ollama:llava:7b")
    session.controller.attaching.attach_files([shaded_picture(tmp_path / "photo.png")])
    qtbot.waitUntil(lambda: len(cards(session)) == 1)
    attached = cards(session)[0].picture

    # The server fails the request (a blind model's refusal is healed now, so a
    # plain server error is what fails a turn).
    failed = failed_turn(qtbot, session, fake_ollama, "Describe this", "the runner crashed")
    # The message is kept in the chat, pictures and all: nothing waits in the composer
    # to be sent a second time.
    assert session.window.composer.text() == "" and cards(session) == []

    # Retry on the notice sends the same message, once.
    click_row_button(qtbot, session, failed["id"], RETRY_BUTTON)
    qtbot.waitUntil(lambda: bool(answers(session)) and not session.controller.busy)
    assert answers(session)[-1]["text"] == "You said: Describe this (I see 1 pictures)"
    assert [r["text"] for r in rows(session) if r["role"] == "user"] == ["Describe this"]
    assert len(fake_ollama.chat_requests()[-1]["messages"][-1]["images"]) == 1
    assert attached.sha256 in {
        p.sha256 for m in session.store.messages(session.controller.current_id) for p in m.pictures
    }


# -- the conversation's pictures ----------------------------------------------------------


def test_a_saved_chat_shows_its_pictures_and_a_tools_with_its_name(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot, tmp_path: Path
) -> None:
    wide = open_picture(shaded_picture(tmp_path / "wide.png", (2000, 500)))
    tall = open_picture(shaded_picture(tmp_path / "tall.png", (300, 900), shade=4))
    with Store.open(home.data) as store:
        chat = store.conversations.create(title="Pictures", model="ollama:llava:7b")
        store.add_message(
            chat, Message(role="user", parts=(TextPart("Two pictures"), PicturePart(wide)))
        )
        result = ToolResult("c1", "screenshot", (TextPart("300×900"), PicturePart(tall)))
        store.add_message(chat, Message(role="tool", parts=(result,)))
    session = open_window()
    session.controller.select_conversation(chat)
    view = session.window.view
    user, tool = (session.window.conversation.index(n, 0) for n in (0, 1))
    qtbot.waitUntil(lambda: bool(view.thumbnails(user)))
    assert view.thumbnails(tool) == []  # a tool's result shows its pictures once opened
    view.setCurrentIndex(tool)
    qtbot.keyClick(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(view.thumbnails(tool)))
    (wide_rect, _), (tall_rect, shown) = view.thumbnails(user)[0], view.thumbnails(tool)[0]
    assert wide_rect.width() == THUMB.width() and wide_rect.height() == THUMB.width() // 4
    assert tall_rect.height() == THUMB.height() and tall_rect.width() == THUMB.height() // 3
    assert shown.sha256 == tall.sha256
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=tall_rect.center())
    qtbot.waitUntil(lambda: session.window.viewer is not None)
    viewer = session.window.viewer
    assert viewer is not None and viewer.windowTitle().startswith("tall.png — 300×900")


def test_thumbnails_are_upright_sized_to_fit_and_drawn_once(qtbot: QtBot, tmp_path: Path) -> None:
    # A phone photo stored sideways with an EXIF turn: shown as it was taken.
    photo = tmp_path / "phone.jpg"
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise to view
    Image.new("RGB", (400, 300), (200, 80, 40)).save(photo, exif=exif)
    picture = open_picture(photo)
    assert (picture.width, picture.height) == (400, 300)
    assert shown_size(picture) == QSize(300, 400)
    first = ready(picture, QSize(90, 120), 1.0, None)
    assert first is not None
    assert first.deviceIndependentSize().toSize() == QSize(90, 120)
    again = ready(picture, QSize(90, 120), 1.0, None)
    assert again is not None and again.cacheKey() == first.cacheKey()  # cached

    model = ConversationModel()
    view = ConversationView(model)
    qtbot.addWidget(view)
    view.resize(700, 600)
    view.show()
    model.set_items(
        [StoredItem(1, "c", 1, 0.0, Message(role="user", parts=(PicturePart(picture),)))]
    )
    qtbot.waitUntil(lambda: bool(view.thumbnails(model.index(0, 0))))
    rect, _ = view.thumbnails(model.index(0, 0))[0]
    assert rect.size() == QSize(135, 180)  # 300×400 within 240×180, upright


def test_what_a_card_says_comes_from_the_models_info() -> None:
    # Each model as the catalogue resolves it: its listing's word, else its provider's rule.
    unknown = resolved(ModelInfo("mine", "my-model", sees=None, local=True), "custom")
    no_pictures = resolved(ModelInfo("ds", "deepseek-chat", sees=None), "deepseek")
    blind_only = [resolved(ModelInfo("mine", "text-only", sees=False, local=True), "custom")]
    # Unknown sight where the provider takes pictures counts as seeing: a faint eye.
    note = sight_note("mine:my-model", [unknown])
    assert note.sight == Sight.MAYBE and note.words == "Sight checked first"
    assert "probe picture" in note.tip
    # With the automatic check off, the card says its sight is unknown.
    unchecked = sight_note("mine:my-model", [unknown], check_sight=False)
    assert unchecked.words == "Sight unknown" and "sends this one as it is" in unchecked.tip
    # Unknown sight at a provider that takes no pictures at all is blind.
    assert sight_note("ds:deepseek-chat", [no_pictures]).sight == Sight.BLIND
    # A model no ready provider offers now: Sightline can't tell.
    gone = sight_note("mine:gone", [unknown])
    assert gone.sight == Sight.UNKNOWN and "mine:gone" in gone.tip
    # Auto with no model here that sees can't promise one.
    auto = sight_note(AUTO, blind_only)
    assert auto.sight == Sight.BLIND and "Auto" in auto.tip
    assert sight_note(AUTO, [unknown]).sight == Sight.AUTO
    # A blind model's card names who describes for it, and where; or that nobody may.
    sees_here = resolved(ModelInfo("ollama", "llava:7b", sees=True, local=True), "ollama")
    sees_away = resolved(ModelInfo("oa", "gpt-4o", sees=True, local=False), "openai")
    blind = resolved(ModelInfo("ollama", "llama3.2:3b", sees=False, local=True), "ollama")
    here = sight_note("ollama:llama3.2:3b", [blind, sees_here, sees_away])
    assert (here.sight, here.words) == (Sight.BLIND, "Described by llava:7b on this computer")
    cloud_blind = resolved(ModelInfo("ds", "deepseek-chat", sees=None), "deepseek")
    away = sight_note(
        "ds:deepseek-chat", [cloud_blind, sees_away], hosts={"oa": "api.openai.com:443"}
    )
    assert away.words == "gpt-4o at api.openai.com:443 will describe it"
    # A local chat's picture never goes to the cloud to be described: nobody may look.
    alone = sight_note("ollama:llama3.2:3b", [blind, sees_away])
    assert alone.words == "No model can look: it will be noted"
    assert [byte_words(n) for n in (812, 250_000, 3_565_158)] == ["812 bytes", "244 KB", "3.4 MB"]
