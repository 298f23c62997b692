"""The conversation list in the real window: rename, delete with Undo, search, export, shortcuts."""

from __future__ import annotations

import sqlite3
import threading
import time
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QListView
from pytestqt.qtbot import QtBot

from app.import_json import read_json
from app.store import ConversationSummary, Store
from app.store.conversations import Conversations
from app.ui import chats
from app.ui.chat_list import ID_ROLE, SNIPPET_ROLE
from app.ui.edits import EscapeEdit
from app.ui.export_dialog import JSON_FILTER
from app.ui.session import Session
from routing.transcript import Message, Notice, NoticeKind, TextPart, user_message
from tests.app.store.helpers import opens_in_time
from tests.conftest import SightlineHome
from tests.pictures import make_picture
from tests.ui.helpers import (
    OpenWindow,
    Run,
    cards,
    close_session,
    pick,
    rows,
    send,
    shaded_picture,
    wait_idle,
)


def seed(home: SightlineHome) -> dict[str, str]:
    """Three saved chats; the Lisbon one says 'tram' only in its answer. Titles → ids."""
    ids: dict[str, str] = {}
    with Store.open(home.data) as store:
        for title, answer in [
            ("Sourdough starter", "Feed it twice a day."),
            ("Trip to Lisbon", "Take tram 28 through Alfama."),
            ("Bike gears", "A 34/50 crank is gentle on hills."),
        ]:
            conversation = store.conversations.create(model="ollama:llama3.2:3b")
            store.add_message(conversation, user_message(title))
            store.add_message(
                conversation, Message("assistant", (TextPart(answer),), model="ollama:llama3.2:3b")
            )
            ids[title] = conversation
    return ids


def seeded_window(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> tuple[dict[str, str], Session]:
    """The three seeded chats (titles → ids) in an open window that lists them."""
    ids = seed(home)
    session = open_window()
    qtbot.waitUntil(lambda: len(titles(session)) == 3)
    return ids, session


def _listed(session: Session, title: str) -> bool:
    return title in titles(session)


def titles(session: Session) -> list[str]:
    model = session.window.sidebar.model
    return [str(model.index(r, 0).data(Qt.ItemDataRole.EditRole)) for r in range(model.rowCount())]


def stored_title(session: Session, conversation_id: str) -> str:
    """A conversation's title as the store has it."""
    summary = session.store.conversations.get(conversation_id)
    assert summary is not None
    return summary.title


def activate(qtbot: QtBot, session: Session) -> None:
    """Make the window the active one, so its shortcuts work."""
    session.window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is session.window)


def click_chat(qtbot: QtBot, session: Session, conversation_id: str) -> None:
    """Click a conversation in the list, as a person would."""
    sidebar = session.window.sidebar
    index = sidebar.model.index(sidebar.model.row_of(conversation_id), 0)
    qtbot.mouseClick(
        sidebar.list.viewport(),
        Qt.MouseButton.LeftButton,
        pos=sidebar.list.visualRect(index).center(),
    )


def select(qtbot: QtBot, session: Session, conversation_id: str) -> None:
    """Click a conversation in the list, and wait until it is the one shown."""
    click_chat(qtbot, session, conversation_id)
    qtbot.waitUntil(lambda: session.controller.current_id == conversation_id)


def editing(session: Session) -> EscapeEdit | None:
    """The box a row is being renamed in, if one is open (closed ones linger until deleted)."""
    boxes = session.window.sidebar.list.findChildren(EscapeEdit)
    return next((box for box in boxes if box.isVisible()), None)


def editor(qtbot: QtBot, session: Session) -> EscapeEdit:
    """Wait for the rename box of a row and return it."""
    qtbot.waitUntil(lambda: editing(session) is not None)
    box = editing(session)
    assert box is not None
    return box


# -- rename ----------------------------------------------------------------------------


def test_rename_with_f2_in_the_list_and_esc_cancels(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    ids = seed(home)
    session = open_window()
    activate(qtbot, session)
    select(qtbot, session, ids["Bike gears"])
    sidebar = session.window.sidebar
    sidebar.list.setFocus()

    qtbot.keyClick(sidebar.list, Qt.Key.Key_F2)
    box = editor(qtbot, session)
    assert box.text() == "Bike gears" and box.selectedText() == "Bike gears"
    qtbot.keyClicks(box, "Gear ratios")
    qtbot.keyClick(box, Qt.Key.Key_Escape)  # the rename's Esc, not the window's Stop
    qtbot.waitUntil(lambda: not box.isVisible())
    assert stored_title(session, ids["Bike gears"]) == "Bike gears"

    qtbot.keyClick(sidebar.list, Qt.Key.Key_F2)
    box = editor(qtbot, session)
    qtbot.keyClicks(box, "Gear ratios")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "Gear ratios" in titles(session))
    assert stored_title(session, ids["Bike gears"]) == "Gear ratios"
    assert session.window.title.text() == "Gear ratios"  # the open chat's title follows


def test_rename_by_double_clicking_the_title_and_from_the_menu(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    ids = seed(home)
    session = open_window()
    window = session.window
    # A new chat has no title to change yet: it gets one from its first message.
    qtbot.mouseDClick(window.title, Qt.MouseButton.LeftButton)
    assert not window.title.editing

    select(qtbot, session, ids["Sourdough starter"])
    qtbot.mouseDClick(window.title, Qt.MouseButton.LeftButton)
    assert window.title.editing
    qtbot.waitUntil(window.title.hasFocus)
    qtbot.keyClicks(window.title, "Bread")
    qtbot.keyClick(window.title, Qt.Key.Key_Return)
    assert not window.title.editing and window.title.text() == "Bread"
    qtbot.waitUntil(lambda: stored_title(session, ids["Sourdough starter"]) == "Bread")
    qtbot.waitUntil(window.composer.edit.hasFocus)  # the keyboard goes back to writing

    # The list refreshing mid-edit (an answer ended) leaves the typing alone; opening
    # another chat drops an edit that was for the old one.
    window.rename_current()
    assert window.title.editing
    window.title.setText("Half typed")
    session.controller.chats.refresh()
    assert window.title.editing and window.title.text() == "Half typed"
    session.controller.new_conversation()
    assert not window.title.editing and window.title.text() == "New chat"
    assert stored_title(session, ids["Sourdough starter"]) == "Bread"

    # The row's menu: Rename edits the row in place.
    sidebar = window.sidebar
    row = sidebar.model.row_of(ids["Trip to Lisbon"])
    sidebar._menu(sidebar.list.visualRect(sidebar.model.index(row, 0)).center())
    menu = sidebar.context_menu
    assert menu is not None
    assert [a.text() for a in menu.actions()] == ["Rename", "Delete"]
    next(a for a in menu.actions() if a.text() == "Rename").trigger()
    box = editor(qtbot, session)
    box.setText("Lisbon in May")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "Lisbon in May" in titles(session))


# -- delete and Undo ------------------------------------------------------------------------


def test_delete_then_undo_brings_the_chat_back(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    ids = seed(home)
    session = open_window()
    sidebar = session.window.sidebar
    doomed = ids["Trip to Lisbon"]
    select(qtbot, session, doomed)
    sidebar.list.setFocus()

    qtbot.keyClick(sidebar.list, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: "Trip to Lisbon" not in titles(session))
    assert session.controller.current_id == ""  # the open chat went with it
    bar = sidebar.undo_bar
    assert bar.isVisible() and bar.label.text() == "“Trip to Lisbon” deleted"
    assert session.store.conversations.get(doomed) is None
    assert len(session.store.items(doomed)) == 2  # nothing is gone yet

    qtbot.mouseClick(bar.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Trip to Lisbon" in titles(session))
    assert not bar.isVisible()
    assert session.controller.current_id == doomed  # back where the person was
    assert [r["text"] for r in rows(session)] == ["Trip to Lisbon", "Take tram 28 through Alfama."]
    assert session.store.conversations.trashed() == []

    # Ctrl+Z (outside a text box) undoes a delete too; in the composer it stays the text's.
    activate(qtbot, session)
    session.controller.delete_conversation(ids["Bike gears"])
    qtbot.waitUntil(bar.isVisible)
    qtbot.keyClicks(session.window.composer.edit, "draft")
    qtbot.keyClick(session.window.composer.edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert bar.isVisible() and "Bike gears" not in titles(session)
    sidebar.list.setFocus()
    qtbot.keyClick(sidebar.list, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: "Bike gears" in titles(session))


def test_ctrl_z_in_a_text_box_with_nothing_to_undo_brings_the_deleted_chat_back(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    """A delete from the list's menu leaves the keyboard in the empty composer: Ctrl+Z
    there (or in the empty search box) is the window's, and brings the chat back."""
    ids = seed(home)
    session = open_window()
    activate(qtbot, session)
    bar, edit = session.window.sidebar.undo_bar, session.window.composer.edit
    for title, box in (("Bike gears", edit), ("Trip to Lisbon", session.window.sidebar.search)):
        session.controller.delete_conversation(ids[title])
        qtbot.waitUntil(bar.isVisible)
        box.setFocus()
        qtbot.waitUntil(box.hasFocus)
        qtbot.keyClick(box, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(partial(_listed, session, title))
    assert edit.toPlainText() == "" and session.window.sidebar.search.text() == ""


def test_delete_without_undo_removes_it_from_the_store(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chats, "UNDO_MS", 300)
    ids = seed(home)
    session = open_window()
    sidebar = session.window.sidebar
    # Two deletions in a row: one Undo would bring back both, until the time runs out.
    session.controller.delete_conversation(ids["Bike gears"])
    session.controller.delete_conversation(ids["Sourdough starter"])
    qtbot.waitUntil(lambda: sidebar.undo_bar.label.text() == "2 conversations deleted")
    qtbot.waitUntil(lambda: not sidebar.undo_bar.isVisible(), timeout=5000)
    assert titles(session) == ["Trip to Lisbon"]
    assert session.store.conversations.trashed() == []
    assert session.store.items(ids["Bike gears"]) == []
    assert session.store.items(ids["Sourdough starter"]) == []


def test_closing_during_the_undo_deletes_and_a_crash_offers_it_again(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot, run: Run
) -> None:
    ids = seed(home)
    # As if a crash came during an Undo: the chat is in the trash, still whole.
    with Store.open(home.data) as store:
        store.conversations.trash(ids["Bike gears"])
    session = open_window()
    bar = session.window.sidebar.undo_bar
    assert bar.isVisible() and bar.label.text() == "“Bike gears” deleted"
    assert "Bike gears" not in titles(session)
    qtbot.mouseClick(bar.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Bike gears" in titles(session))

    # Closing while an Undo is offered makes the deletion final.
    session.controller.delete_conversation(ids["Sourdough starter"])
    qtbot.waitUntil(bar.isVisible)
    close_session(session, run)
    with Store.open(home.data) as store:
        assert store.items(ids["Sourdough starter"]) == []
        assert store.conversations.trashed() == []
        assert {c.id for c in store.conversations.list()} == {
            ids["Bike gears"],
            ids["Trip to Lisbon"],
        }


# -- search and shortcuts ------------------------------------------------------------------


def test_ctrl_f_searches_titles_and_text_as_you_type(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    ids = seed(home)
    session = open_window()
    window, sidebar = session.window, session.window.sidebar
    activate(qtbot, session)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(sidebar.search.hasFocus)

    qtbot.keyClicks(sidebar.search, "lisb")  # a title, in any case, while typing
    qtbot.waitUntil(lambda: titles(session) == ["Trip to Lisbon"])
    assert sidebar.model.index(0, 0).data(SNIPPET_ROLE) == ""

    sidebar.search.clear()
    qtbot.keyClicks(sidebar.search, "tram")  # only in the answer's words
    qtbot.waitUntil(lambda: bool(sidebar.model.index(0, 0).data(SNIPPET_ROLE)))
    assert titles(session) == ["Trip to Lisbon"]
    found = sidebar.model.index(0, 0)
    assert "tram 28" in found.data(SNIPPET_ROLE)
    assert "tram 28" in found.data(Qt.ItemDataRole.ToolTipRole)
    assert "tram 28" in found.data(Qt.ItemDataRole.AccessibleTextRole)
    qtbot.keyClick(sidebar.search, Qt.Key.Key_Return)  # Enter goes to the results
    qtbot.waitUntil(lambda: session.controller.current_id == ids["Trip to Lisbon"])
    assert sidebar.list.hasFocus()  # the keyboard stays there, to browse them
    assert window.title.text() == "Trip to Lisbon"

    sidebar.search.setFocus()
    sidebar.search.clear()
    qtbot.keyClicks(sidebar.search, "zebra")
    qtbot.waitUntil(lambda: titles(session) == [])
    assert sidebar.empty.isVisible() and "zebra" in sidebar.empty.text()
    # Esc in the search box clears it (it doesn't stop anything) and every chat is back.
    qtbot.keyClick(sidebar.search, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: len(titles(session)) == 3)
    assert sidebar.search.text() == "" and not sidebar.empty.isVisible()
    assert sidebar.list.currentIndex().data(ID_ROLE) == ids["Trip to Lisbon"]


unwrapped_listing = Conversations.list


def counted_listings(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[int], list[int]]:
    """Each listing of every chat from now on, and each reset of the sidebar's list."""
    listings: list[int] = []
    resets: list[int] = []

    def counted(self: Conversations) -> list[ConversationSummary]:
        listings.append(1)
        return unwrapped_listing(self)

    monkeypatch.setattr(Conversations, "list", counted)
    session.window.sidebar.model.modelReset.connect(lambda: resets.append(1))
    return listings, resets


def test_a_chat_made_or_used_moves_its_row_to_the_top_without_listing_every_chat(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A send's turn touches its chat (made, titled, answered): its row is added or moved
    to the top and the others stay as they were, with no listing of every chat and no
    reset of the list (a list of thousands is laid out again on a reset)."""
    ids, session = seeded_window(home, open_window, qtbot)
    chats, store = session.controller.chats, session.controller.store
    listings, resets = counted_listings(session, monkeypatch)
    oldest = titles(session)[-1]
    store.add_message(ids[oldest], user_message("one more thing"))  # used: now the newest
    chats.touched(ids[oldest])
    assert titles(session)[0] == oldest
    made = store.conversations.create(title="Fresh chat")
    chats.touched(made)
    assert titles(session)[:2] == ["Fresh chat", oldest]
    assert (listings, resets) == ([], [])
    assert titles(session) == [s.title for s in unwrapped_listing(store.conversations)]
    chats.search("gears")  # while searching, a touched chat is searched for again
    qtbot.waitUntil(lambda: titles(session) == ["Bike gears"])
    chats.touched(ids["Bike gears"])
    qtbot.waitUntil(lambda: chats._shown == chats._searches)
    assert titles(session) == ["Bike gears"]


def test_a_rename_moves_its_row_and_a_delete_and_its_undo_take_out_and_put_back_one_row(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rename is a use (the row goes to the top), a delete takes one row out and its Undo
    puts it back in its place: none lists every chat again or resets the list; the open
    chat stays selected."""
    ids, session = seeded_window(home, open_window, qtbot)
    chats, sidebar = session.controller.chats, session.window.sidebar
    model = sidebar.model
    select(qtbot, session, ids["Trip to Lisbon"])
    listings, resets = counted_listings(session, monkeypatch)
    removed: list[int] = []
    model.rowsRemoved.connect(lambda _parent, first, _last: removed.append(first))

    oldest = titles(session)[-1]
    chats.rename(ids[oldest], "Oldest, renamed")
    assert titles(session)[0] == "Oldest, renamed"
    middle = titles(session)[1]
    chats.delete(ids[middle])
    assert middle not in titles(session) and removed == [1]
    assert (listings, resets) == ([], [])
    assert titles(session) == [s.title for s in unwrapped_listing(session.store.conversations)]
    assert sidebar.list.currentIndex().data(ID_ROLE) == ids["Trip to Lisbon"]

    inserted: list[int] = []
    model.rowsInserted.connect(lambda _parent, first, _last: inserted.append(first))
    chats.undo()
    assert titles(session)[1] == middle and inserted == [1]
    assert (listings, resets) == ([], [])
    assert titles(session) == [s.title for s in unwrapped_listing(session.store.conversations)]
    assert sidebar.list.currentIndex().data(ID_ROLE) == ids["Trip to Lisbon"]


def test_the_list_to_show_reaches_the_sidebar_as_it_is_not_copied(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    """Each change hands the sidebar the list of chats itself: a signal declared for a
    `list` would copy it item by item on every rename, delete, Undo and finished turn (2 ms
    for 5,000 chats)."""
    ids, session = seeded_window(home, open_window, qtbot)
    chats = session.controller.chats
    heard: list[object] = []
    chats.changed.connect(heard.append)
    chats.rename(ids["Bike gears"], "Bike gears, renamed")
    chats.delete(ids["Trip to Lisbon"])
    chats.undo()
    assert len(heard) == 3
    assert heard[-1] is chats._listed  # the very list Chats keeps, not a copy
    assert all(isinstance(listed, list) for listed in heard)
    assert titles(session) == [s.title for s in unwrapped_listing(session.store.conversations)]


def test_an_undo_of_several_deletes_puts_each_back_in_its_place(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids, session = seeded_window(home, open_window, qtbot)
    chats = session.controller.chats
    before = titles(session)
    listings, _resets = counted_listings(session, monkeypatch)
    chats.delete(ids[before[2]])
    chats.delete(ids[before[0]])
    assert titles(session) == [before[1]]
    chats.undo()
    assert titles(session) == before and listings == []


def test_a_search_looks_on_a_worker_thread_and_only_the_newest_is_shown(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is searched off the window's thread, which keeps going meanwhile; what a
    search overtaken by a newer one finds is never shown."""
    from app.store import search as searching

    seed(home)
    session = open_window()
    sidebar = session.window.sidebar
    real, held = searching.search, threading.Event()
    threads: list[str] = []

    def search(db: sqlite3.Connection, words: list[str]) -> list[Any]:
        threads.append(threading.current_thread().name)
        if words == ["tram"]:
            assert held.wait(10)  # "tram" takes long: the next search overtakes it
        return real(db, words)

    monkeypatch.setattr(searching, "search", search)
    session.controller.chats.search("tram")
    qtbot.waitUntil(lambda: len(threads) == 1)
    ticks: list[float] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(1)
    qtbot.waitUntil(lambda: len(ticks) >= 20)  # the window's thread runs while it looks
    timer.stop()
    session.controller.chats.search("gears")
    qtbot.waitUntil(lambda: titles(session) == ["Bike gears"])
    held.set()
    qtbot.wait(100)  # the overtaken search ends, its finds dropped
    assert titles(session) == ["Bike gears"]
    assert threads and all(name != threading.main_thread().name for name in threads)
    assert sidebar.model.index(0, 0).data(SNIPPET_ROLE) == ""


def test_enter_goes_to_what_the_search_finds_once_found(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.store import search as searching

    ids = seed(home)
    session = open_window()
    sidebar = session.window.sidebar
    real, held = searching.search, threading.Event()

    def search(db: sqlite3.Connection, words: list[str]) -> list[Any]:
        assert held.wait(10)
        return real(db, words)

    monkeypatch.setattr(searching, "search", search)
    activate(qtbot, session)
    sidebar.search.setFocus()
    qtbot.keyClicks(sidebar.search, "tram")
    qtbot.keyClick(sidebar.search, Qt.Key.Key_Return)  # before anything is found
    qtbot.wait(50)
    assert sidebar.search.hasFocus() and len(titles(session)) == 3  # still every chat
    held.set()
    qtbot.waitUntil(lambda: session.controller.current_id == ids["Trip to Lisbon"])
    assert titles(session) == ["Trip to Lisbon"] and sidebar.list.hasFocus()


def test_a_search_the_worker_cant_make_is_made_on_the_windows_thread(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.store import search as searching

    seed(home)
    session = open_window()

    def unopened(*_args: object) -> None:
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(searching, "search_file", unopened)
    session.controller.chats.search("tram")
    qtbot.waitUntil(lambda: titles(session) == ["Trip to Lisbon"])
    assert "tram 28" in session.window.sidebar.model.index(0, 0).data(SNIPPET_ROLE)


def test_ctrl_k_opens_the_model_list(session: Session, qtbot: QtBot) -> None:
    activate(qtbot, session)
    picker = session.window.picker
    qtbot.keyClick(session.window.composer.edit, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: picker.view().isVisible())
    assert picker.hasFocus() or picker.view().hasFocus()
    picker.hidePopup()
    qtbot.waitUntil(lambda: not picker.view().isVisible())


def test_a_new_chat_is_titled_by_its_first_words_and_then_renamed_with_f2(
    session: Session, qtbot: QtBot
) -> None:
    activate(qtbot, session)
    window = session.window
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_F2)
    assert not window.title.editing
    assert "first message" in window.statusBar().currentMessage()  # says what to do instead
    send(qtbot, session, "Plan my week")
    qtbot.waitUntil(lambda: window.title.text() == "Plan my week", timeout=10_000)
    wait_idle(qtbot, session)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_F2)
    assert window.title.editing and window.title.hasFocus()
    qtbot.keyClicks(window.title, "Week plan")
    window.composer.edit.setFocus()  # leaving the box keeps the new title
    qtbot.waitUntil(lambda: titles(session) == ["Week plan"])


# -- export ------------------------------------------------------------------------------


def test_export_markdown_and_json_from_the_window(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot, tmp_path: Path
) -> None:
    picture = make_picture("red", (5, 5))
    with Store.open(home.data) as store:
        chat = store.conversations.create(model="ollama:llama3.2:3b")
        store.add_message(chat, user_message("What colour?", (picture,)))
        store.add_notice(chat, Notice(NoticeKind.ROUTING, "ollama:llava:7b answers (x): y."))
        store.add_message(chat, Message("assistant", (TextPart("Red."),), model="ollama:llava:7b"))
    session = open_window()
    window = session.window
    assert not window.top.export_action.isEnabled()  # a new chat has nothing to export
    select(qtbot, session, chat)
    assert window.top.export_action.isEnabled()

    window.top.export_action.trigger()  # Chat ▸ Export…
    dialog = window.export_dialog
    assert isinstance(dialog, QFileDialog) and dialog.isVisible()
    assert dialog.selectedFiles()[0].endswith("What colour.md")  # named after the chat
    dialog.setOption(QFileDialog.Option.DontConfirmOverwrite)
    dialog.selectFile(str(tmp_path / "colour.md"))
    dialog.accept()
    qtbot.waitUntil(lambda: "Exported" in window.statusBar().currentMessage(), timeout=5000)
    text = (tmp_path / "colour.md").read_text(encoding="utf-8")
    assert "What colour?" in text and "> **Routing:** ollama:llava:7b answers" in text
    assert (tmp_path / "colour_files" / f"{picture.sha256}.png").read_bytes() == picture.data

    dialog = window.export_conversation()
    assert dialog is not None
    dialog.selectNameFilter(JSON_FILTER)
    dialog.filterSelected.emit(JSON_FILTER)  # as choosing the format in the dialog does
    assert dialog.defaultSuffix() == "json"
    dialog.selectFile(str(tmp_path / "colour.json"))
    dialog.accept()
    qtbot.waitUntil(lambda: "colour.json" in window.statusBar().currentMessage(), timeout=5000)
    back = read_json(tmp_path / "colour.json")
    assert [e.item for e in back.entries] == [s.item for s in session.store.items(chat)]
    first = back.entries[0].item
    assert isinstance(first, Message) and first.pictures[0].data == picture.data


# -- the ledger ---------------------------------------------------------------------------


def test_the_ledger_panel_lists_where_the_data_went(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    ids = seed(home)
    with Store.open(home.data) as store:
        chat = store.conversations.create(model="auto")
        picture = make_picture("blue", (5, 5), label="a.png")
        store.add_message(chat, user_message("Look", (picture,)))
        store.add_notice(
            chat,
            Notice(
                NoticeKind.DISCLOSURE,
                "openai:gpt-4o at api.openai.com looked at 1 picture (a.png) and described it "
                "for ollama:llama3.2:3b, which can't see.",
                details="Why openai:gpt-4o: it is the vision model chosen in Settings.",
            ),
        )
        store.add_notice(
            chat, Notice(NoticeKind.ROUTING, "openai:gpt-4o now answers (in the cloud): it sees.")
        )
    session = open_window()
    window = session.window
    assert window.ledger.isHidden()
    qtbot.mouseClick(window.top.ledger_button, Qt.MouseButton.LeftButton)
    assert window.ledger.isVisible() and window.top.ledger_button.isChecked()
    assert "Open a conversation" in window.ledger.summary.text()  # a new chat sent nothing

    select(qtbot, session, chat)
    qtbot.waitUntil(lambda: len(window.ledger.rows()) == 2)
    looked, routed = window.ledger.rows()
    assert "openai:gpt-4o" in looked and "api.openai.com" in looked
    assert "Sent: 1 picture (a.png)" in looked and "vision model chosen in Settings" in looked
    assert "This message and the conversation before it" in routed
    assert "off this computer" in looked
    assert "api.openai.com (off this computer)" in routed  # the host the other notice named
    assert "left this computer for api.openai.com." in window.ledger.summary.text()

    select(qtbot, session, ids["Bike gears"])  # a local chat: nothing crossed
    qtbot.waitUntil(lambda: window.ledger.rows() == [])
    assert window.ledger.summary.text().startswith("Nothing from this conversation")

    activate(qtbot, session)
    qtbot.mouseClick(window.ledger.close_button, Qt.MouseButton.LeftButton)
    assert window.ledger.isHidden() and not window.top.ledger_button.isChecked()
    qtbot.keyClick(
        window.composer.edit,
        Qt.Key.Key_L,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert window.ledger.isVisible()


# -- remembering the window ------------------------------------------------------------------


def test_size_splitter_ledger_and_last_chat_come_back_next_time(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot, run: Run
) -> None:
    ids = seed(home)
    session = open_window()
    window = session.window
    select(qtbot, session, ids["Trip to Lisbon"])
    window.resize(798, 630)  # the offscreen screen is 800 wide, frame included
    window.splitter.setSizes([230, 570])
    window.splitter.splitterMoved.emit(230, 1)  # as a drag does: that width is the person's
    window.show_ledger(True)
    window.chat_splitter.setSizes([310, 260])
    window.chat_splitter.splitterMoved.emit(310, 1)
    qtbot.waitUntil(lambda: window.size().toTuple() == (798, 630))
    ledger = window.chat_splitter.sizes()[1]
    assert window.sidebar.isHidden()  # beside the ledger, this narrow, it steps aside
    close_session(session, run)
    assert (home.data / "window.ini").is_file()  # kept beside the chats it names

    again = open_window()
    assert again.window.size().toTuple() == (798, 630)
    assert again.window.ledger.isVisible() and again.window.sidebar.isHidden()
    assert again.window.chat_splitter.sizes()[1] == ledger
    again.window.show_ledger(False)  # room again: the sidebar as the person left it
    qtbot.waitUntil(again.window.sidebar.isVisible)
    qtbot.waitUntil(lambda: again.window.splitter.sizes()[0] == 230)
    again.window.show_ledger(True)
    assert again.controller.current_id == ids["Trip to Lisbon"]
    assert again.window.title.text() == "Trip to Lisbon"
    again.window.show_ledger(False)
    close_session(again, run)

    # A last chat deleted since simply opens a new chat; the closed ledger stays closed.
    with Store.open(home.data) as store:
        store.conversations.delete(ids["Trip to Lisbon"])
    third = open_window()
    assert third.controller.current_id == ""
    assert third.window.ledger.isHidden()


def test_the_ledger_follows_a_turn_as_it_happens(
    session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    window = session.window
    window.show_ledger(True)
    pick(session, "ollama:llama3.2:3b")  # it can't see: a model that sees describes for it
    session.controller.attaching.attach_files([shaded_picture(tmp_path / "chart.png")])
    qtbot.waitUntil(lambda: len(cards(session)) == 1)
    send(qtbot, session, "What is this?")
    qtbot.waitUntil(lambda: len(window.ledger.rows()) == 1, timeout=10_000)
    wait_idle(qtbot, session)
    [row] = window.ledger.rows()
    assert "127.0.0.1:" in row and "(on this computer)" in row
    assert "Sent: 1 picture (chart.png)" in row
    assert "ollama:llama3.2:3b, which can't see" in row
    assert "nothing left it" in window.ledger.summary.text()


def test_the_list_says_when_each_chat_was_last_used_so_twins_tell_apart(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    from app.presenters.when import short_when
    from app.ui.chat_list import WHEN_ROLE

    with Store.open(home.data) as store:
        older = store.conversations.create("Same title")
        newer = store.conversations.create("Same title")
        with sqlite3.connect(store.path) as db:  # last used a week and a day apart
            db.execute(
                "UPDATE conversations SET updated_at = ? WHERE id = ?", (1_700_000_000, older)
            )
    session = open_window()
    model = session.window.sidebar.model
    whens = {
        model.index(r, 0).data(ID_ROLE): model.index(r, 0).data(WHEN_ROLE)
        for r in range(model.rowCount())
    }
    assert whens[older] != whens[newer]
    assert whens[older] == short_when(1_700_000_000)
    spoken = model.index(model.row_of(older), 0).data(Qt.ItemDataRole.AccessibleTextRole)
    assert spoken.startswith("Same title, last used 2023-11-")
    # Drawn: the title elided before the time, never over it.
    session.window.sidebar.list.viewport().repaint()


def test_short_when_reads_like_a_chat_list() -> None:
    from app.presenters.when import short_when

    now = time.mktime((2026, 12, 1, 15, 0, 0, 0, 0, -1))
    at = lambda *day: time.mktime((*day, 0, 0, -1))  # noqa: E731
    assert short_when(at(2026, 12, 1, 9, 5, 0), now) == "09:05"
    assert short_when(at(2026, 11, 30, 23, 0, 0), now) == "Yesterday"
    assert short_when(at(2026, 11, 27, 12, 0, 0), now) == "Fri"
    assert short_when(at(2026, 3, 12, 12, 0, 0), now) == "12 Mar"
    assert short_when(at(2025, 3, 12, 12, 0, 0), now) == "Mar 2025"


def test_a_damaged_chat_is_listed_and_opening_it_says_so_while_the_others_open(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    ids = seed(home)
    broken = ids["Trip to Lisbon"]
    with sqlite3.connect(home.data / Store.DB_NAME) as db:  # its last item its own parent
        db.execute(
            "UPDATE items SET parent_id = id WHERE id = "
            "(SELECT MAX(id) FROM items WHERE conversation_id = ?)",
            (broken,),
        )
    opens_in_time(home.data)  # a child process first: opening it hung for ever
    session = open_window()
    qtbot.waitUntil(lambda: len(titles(session)) == 3)
    select(qtbot, session, ids["Bike gears"])
    click_chat(qtbot, session, broken)  # it can't be read: the chat shown stays
    status = session.window.statusBar()
    qtbot.waitUntil(lambda: "can't read the conversation" in status.currentMessage())
    assert broken in status.currentMessage()
    assert session.controller.current_id == ids["Bike gears"]  # the chat shown stays
    assert "A 34/50 crank is gentle on hills." in [r["text"] for r in rows(session)]
    select(qtbot, session, ids["Sourdough starter"])  # and the others still open
    qtbot.waitUntil(lambda: "Feed it twice a day." in [r["text"] for r in rows(session)])


def test_opening_a_chat_reads_it_from_the_store_once(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The view and the agent's folder work from the one read of the chat's end (each read
    # of a whole long chat decodes every item: three made a 5,000-message open 3× slower);
    # the context meter asks the store for the last count alone.
    ids = seed(home)
    session = open_window()
    store = session.controller.store
    reads: list[str] = []
    items, messages = store.items, store.messages

    def counted_items(conversation_id: str, **page: Any) -> Any:
        reads.append(conversation_id)
        return items(conversation_id, **page)

    def counted_messages(conversation_id: str) -> Any:
        reads.append(conversation_id)
        return messages(conversation_id)

    monkeypatch.setattr(store, "items", counted_items)
    monkeypatch.setattr(store, "messages", counted_messages)
    chat = ids["Bike gears"]
    session.controller.select_conversation(chat)
    qtbot.waitUntil(lambda: len(rows(session)) == 2)
    session.window.show_title()  # a refresh of the title asks for the folder again
    assert reads == [chat]
    assert session.window.top.folder_label.isHidden()


def many_chats(home: SightlineHome, count: int) -> list[str]:
    """`count` saved chats, one message each, oldest first (as a year of use leaves them)."""
    with Store.open(home.data) as store, store.together():
        made = []
        for n in range(count):
            conversation = store.conversations.create(title=f"Chat {n}")
            store.add_message(conversation, user_message(f"Question {n}?"))
            made.append(conversation)
    return made


def test_thousands_of_chats_are_read_once_before_the_window_shows(
    home: SightlineHome, open_window: OpenWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Whether there are any chats (the welcome shows only at a first run) is asked as the
    # window is laid out, three times before its first paint; each read the whole list
    # (30 ms of 10,000 chats' start).
    many_chats(home, 2_000)
    lists: list[int] = []
    every = Conversations.list

    def counted(conversations: Conversations) -> list[ConversationSummary]:
        found = every(conversations)
        lists.append(len(found))
        return found

    monkeypatch.setattr(Conversations, "list", counted)
    session = open_window()
    assert lists == [2_000]  # the sidebar's list, read once
    assert session.window.sidebar.model.rowCount() == 2_000
    assert session.window.welcome.isHidden()


def test_the_chat_left_open_is_shown_in_a_long_list_laid_out_in_batches(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    # The list lays out its rows a batch at a time after the first paint: the oldest of
    # 3,000 chats, left open, is selected and scrolled to all the same.
    oldest, *_ = many_chats(home, 3_000)
    (home.data / "window.ini").write_text(f"[chat]\nlast={oldest}\n", encoding="utf-8")
    session = open_window()
    sidebar = session.window.sidebar
    assert sidebar.list.layoutMode() is QListView.LayoutMode.Batched
    index = sidebar.model.index(sidebar.model.row_of(oldest), 0)
    assert index.row() == 2_999 and sidebar.list.currentIndex() == index
    qtbot.waitUntil(lambda: sidebar.list.viewport().rect().contains(sidebar.list.visualRect(index)))
    select(qtbot, session, oldest)  # clicked where it is shown: still the chat shown
    assert "Question 0?" in [r["text"] for r in rows(session)]
