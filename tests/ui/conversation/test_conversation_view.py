"""The conversation view: coloured code with copy buttons, notices that open, the theme, long chats.

The window tests stream answers from the loopback Ollama like a person would
see them; the others drive a view over a model of stored items directly.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import QModelIndex, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import QAbstractItemView, QApplication, QStyleOptionViewItem
from pytestqt.qtbot import QtBot

from app.store import StoredItem
from app.ui.conversation import highlight
from app.ui.conversation.conversation_model import Role
from app.ui.conversation.conversation_view import ConversationView
from app.ui.conversation.message_delegate import MESSAGE, MessageDelegate
from app.ui.session import Session
from routing.transcript import Message, MessageStatus, Notice, NoticeKind, TextPart
from tests.servers.ollama import FakeOllama, Reply
from tests.ui.helpers import send, stored_view, wait_idle

CODE = (
    'def count(path):\n\t"""Tabs on purpose: copied as is."""\n\treturn sum(1 for _ in open(path))'
)
ANSWER = (
    f"Here you go:\n\n```python\n{CODE}\n```\n\nOr in the shell:\n\n```bash\nwc -l notes.txt\n```"
    "\n\nEither **works**."
)


# -- helpers ---------------------------------------------------------------------


def _answer(session: Session) -> QModelIndex:
    model = session.window.conversation
    rows = [model.index(r, 0) for r in range(model.rowCount())]
    return [i for i in rows if i.data(Role.MESSAGE_ROLE) == "assistant"][-1]


def _view(qtbot: QtBot, items: list[Message | Notice]) -> ConversationView:
    view, _model = stored_view(qtbot, items)
    qtbot.waitUntil(lambda: view.measured_rows() > 0)
    return view


def _delegate(view: ConversationView) -> MessageDelegate:
    delegate = view.itemDelegate()
    assert isinstance(delegate, MessageDelegate)
    return delegate


def _answer_message(text: str, status: MessageStatus = MessageStatus.COMPLETE) -> Message:
    return Message("assistant", (TextPart(text),), model="ollama:llama3.2:3b", status=status)


@pytest.fixture
def clipboard(qapp: QApplication) -> Iterator[Callable[[], str]]:
    """The clipboard's text, emptied before and after the test."""
    board = QApplication.clipboard()
    board.setText("")
    yield board.text
    board.setText("")


# -- reading code ----------------------------------------------------------------


def test_a_code_block_is_coloured_and_its_copy_button_copies_exactly_its_code(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot, clipboard: Callable[[], str]
) -> None:
    fake_ollama.enqueue(Reply(text=ANSWER, chunk_chars=9))
    send(qtbot, session, "Count the lines of a file")
    wait_idle(qtbot, session)
    view, index = session.window.view, _answer(session)
    assert index.data(Role.TEXT) == ANSWER

    view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtTop)
    qtbot.waitUntil(lambda: all(b.highlighted for b in view.code_blocks(index)))
    html = view.html(index)
    assert "color:#008000" in html and "font-weight:700" in html  # Pygments: `def`, `return`
    blocks = view.code_blocks(index)
    assert [(b.language, b.code, b.highlighted) for b in blocks] == [
        ("python", CODE, True),
        ("bash", "wc -l notes.txt", True),
    ]
    buttons = view.copy_buttons(index)
    assert set(buttons) == {0, 1, MESSAGE}
    assert all(view.viewport().rect().contains(rect) for rect in buttons.values())

    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=buttons[0].center())
    assert clipboard() == CODE  # the tabs too, not the spaces Qt's reader makes of them
    item_id = index.data(Role.ITEM_ID)
    assert _delegate(view).buttons.copied == (item_id, 0)  # the button says "Copied"
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=buttons[1].center())
    assert clipboard() == "wc -l notes.txt"
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=buttons[MESSAGE].center())
    assert clipboard() == ANSWER  # the message's Markdown source
    qtbot.waitUntil(lambda: _delegate(view).buttons.copied is None, timeout=5000)

    # The routing notice is in the conversation, and never in what a model is sent.
    model = session.window.conversation
    notices = [
        model.index(r, 0).data(Role.TEXT)
        for r in range(model.rowCount())
        if model.index(r, 0).data(Role.KIND) == "notice"
    ]
    assert notices
    fake_ollama.enqueue(Reply(text="Glad it helped."))
    send(qtbot, session, "Thanks")
    wait_idle(qtbot, session)
    sent = json.dumps(fake_ollama.chat_requests()[-1]["messages"])
    assert ANSWER.split("\n")[0] in sent  # the history went along...
    assert not any(notice in sent for notice in notices)  # ...without the notices


def test_copying_is_reachable_from_the_keyboard(qtbot: QtBot, clipboard: Callable[[], str]) -> None:
    view = _view(qtbot, [Message("user", (TextPart("Show me"),)), _answer_message(ANSWER)])
    index = view.model().index(1, 0)
    view.setFocus()
    view.setCurrentIndex(index)

    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert clipboard() == ANSWER

    # The Menu key (or Shift+F10) opens the current row's menu, where each block has its entry.
    qtbot.keyClick(view, Qt.Key.Key_Menu)
    menu = view.menu
    assert menu is not None and menu.isVisible()
    actions = {action.text(): action for action in menu.actions()}
    assert [words for words in actions if words] == [
        "Copy message",
        "Copy code block 1 (python)",
        "Copy code block 2 (bash)",
        "Regenerate",
        "Delete answer",
    ]
    actions["Copy code block 2 (bash)"].trigger()
    assert clipboard() == "wc -l notes.txt"
    actions["Copy code block 1 (python)"].trigger()
    assert clipboard() == CODE
    menu.close()
    qtbot.waitUntil(lambda: view.menu is None)


def test_an_unfinished_fence_streams_plain_and_is_coloured_once_closed(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    text = "Run this:\n\n```python\nfor n in range(3):\n    print(n)\n```\n\nIt prints 0, 1 and 2."
    fake_ollama.enqueue(Reply(text=text, chunk_chars=3, delay=0.05))
    send(qtbot, session, "Loop please")
    view = session.window.view
    seen: list[tuple[str, bool]] = []

    def open_fence_shown() -> bool:
        model = session.window.conversation
        if not any(
            model.index(r, 0).data(Role.STATUS) == "streaming" for r in range(model.rowCount())
        ):
            return False
        index = _answer(session)
        words = index.data(Role.TEXT)
        if words.count("```") != 1 or "range" not in words:
            return False
        view.viewport().grab()  # painted while open: no error, no colour
        [block] = view.code_blocks(index)
        seen.append((block.code, block.highlighted))
        return True

    qtbot.waitUntil(open_fence_shown, timeout=10_000)
    code, highlighted = seen[0]
    assert code.startswith("for n in range") and not highlighted
    wait_idle(qtbot, session)
    index = _answer(session)
    qtbot.waitUntil(lambda: all(b.highlighted for b in view.code_blocks(index)))
    [block] = view.code_blocks(index)
    assert (block.code, block.highlighted) == ("for n in range(3):\n    print(n)", True)
    assert "color:#008000" in view.html(index)


def test_code_shows_at_once_plain_and_is_coloured_after_the_paint_that_wanted_its_lexer(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As in a new run: no lexer built yet.
    monkeypatch.setattr(highlight, "_lexers", type(highlight._lexers)(maxsize=64))
    monkeypatch.setattr(highlight, "_wanted", set())
    seen_before_building: list[list[bool]] = []
    build = highlight.build_wanted

    def spied() -> bool:
        index = view.model().index(0, 0)
        seen_before_building.append([b.highlighted for b in view.code_blocks(index)])
        return build()

    monkeypatch.setattr(highlight, "build_wanted", spied)
    view, _model = stored_view(qtbot, [_answer_message(ANSWER)])
    index = view.model().index(0, 0)
    qtbot.waitUntil(lambda: [b.highlighted for b in view.code_blocks(index)] == [True, True])
    # Laid out and drawn before either lexer was built; both built once, after that paint.
    assert seen_before_building == [[False, False]]
    assert {"python", "bash"} <= set(highlight._lexers) and not highlight.wanted()
    assert "color:#008000" in view.html(index)
    assert [b.code for b in view.code_blocks(index)] == [CODE, "wc -l notes.txt"]


# -- notices -----------------------------------------------------------------------


def test_a_notice_shows_its_details_on_click_and_on_enter(qtbot: QtBot) -> None:
    why = "Why llava:7b: the first local model that sees."
    view = _view(
        qtbot,
        [
            Notice(NoticeKind.ROUTING, "ollama:llama3.2:3b answers (on this computer)."),
            Notice(NoticeKind.DISCLOSURE, "llava:7b at 127.0.0.1 looked at 1 picture.", why),
            Notice(NoticeKind.ERROR, "Ollama took too long to answer.", "kind: timeout"),
        ],
    )
    model = view.model()
    disclosure = model.index(1, 0)
    assert view.shown_texts(disclosure) == ["llava:7b at 127.0.0.1 looked at 1 picture."]
    assert "Enter shows details" in disclosure.data(Qt.ItemDataRole.AccessibleTextRole)
    closed = view.visualRect(disclosure).height()

    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(disclosure).center()
    )
    qtbot.waitUntil(lambda: len(view.shown_texts(disclosure)) == 2)
    assert view.shown_texts(disclosure)[1] == why
    qtbot.waitUntil(lambda: view.visualRect(disclosure).height() > closed)
    assert why in disclosure.data(Qt.ItemDataRole.AccessibleTextRole)

    view.setFocus()
    view.setCurrentIndex(disclosure)
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert not disclosure.data(Role.EXPANDED)
    qtbot.waitUntil(lambda: view.visualRect(disclosure).height() == closed)
    view.setCurrentIndex(model.index(2, 0))
    qtbot.keyClick(view, Qt.Key.Key_Space)
    assert view.shown_texts(model.index(2, 0))[1] == "kind: timeout"

    # A notice with nothing more to say doesn't open.
    routing = model.index(0, 0)
    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(routing).center()
    )
    assert not routing.data(Role.EXPANDED) and len(view.shown_texts(routing)) == 1


# -- the theme ---------------------------------------------------------------------


def _dark_palette() -> QPalette:
    palette = QPalette()
    roles = QPalette.ColorRole
    for role, color in (
        (roles.Window, "#1f2023"),
        (roles.WindowText, "#e6e6e6"),
        (roles.Base, "#17181b"),
        (roles.Text, "#e6e6e6"),
        (roles.Button, "#2a2c30"),
        (roles.ButtonText, "#e6e6e6"),
        (roles.Highlight, "#3d7eea"),
        (roles.Link, "#7ab3ff"),
    ):
        palette.setColor(role, QColor(color))
    return palette


def test_a_dark_palette_gives_every_row_its_dark_colours(qtbot: QtBot) -> None:
    view = _view(
        qtbot,
        [
            Message("user", (TextPart("Hello"),)),
            _answer_message(ANSWER),
            Notice(NoticeKind.ERROR, "Ollama took too long to answer."),
        ],
    )
    model = view.model()
    rows = [model.index(r, 0) for r in range(3)]
    light = [view.row_colors(index) for index in rows]
    assert not view.theme().dark and view.theme().pygments_style == "default"
    qtbot.waitUntil(lambda: "color:#008000" in view.html(rows[1]))  # coloured after a paint

    previous = QPalette(QApplication.palette())
    QApplication.setPalette(_dark_palette())
    try:
        qtbot.waitUntil(lambda: view.theme().dark)
        dark = [view.row_colors(index) for index in rows]
        for before, after in zip(light, dark, strict=True):
            assert before["card"] != after["card"] and before["text"] != after["text"]
            assert after["card"].lightnessF() < 0.3 < after["text"].lightnessF()
            assert before["code"] != after["code"] and after["code"].lightnessF() < 0.3
        assert light[2]["accent"] != dark[2]["accent"]  # the error's red, brighter on dark
        assert dark[2]["accent"].lightnessF() > light[2]["accent"].lightnessF()
        assert view.theme().pygments_style == "github-dark"
        html = view.html(rows[1])
        assert "color:#ff7b72" in html and "color:#008000" not in html  # dark code colours
    finally:
        QApplication.setPalette(previous)
    qtbot.waitUntil(lambda: not view.theme().dark)


# -- long chats ----------------------------------------------------------------------


def test_a_long_chat_lays_out_only_what_it_shows(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    items: list[Message | Notice] = [
        Message("user", (TextPart(f"Question {n}"),))
        if n % 2 == 0
        else _answer_message(
            f"Answer **{n}**"
            + " with more words to wrap" * (n % 7)
            + ("\n\n```py\nx = 1\n```" if n % 9 == 0 else "")
        )
        for n in range(3000)
    ]
    view, model = stored_view(qtbot, items)
    bar = view.verticalScrollBar()
    qtbot.waitUntil(lambda: view.measured_rows() > 0)
    qtbot.waitUntil(lambda: view.at_bottom() and bar.maximum() > 0)
    last = model.index(2999, 0)
    assert view.viewport().rect().intersects(view.visualRect(last))
    qtbot.wait(100)  # what is measured while idle: a screen or two around the view
    assert view.measured_rows() < 100

    # At the top, the first rows are laid out and stay put while more words stream at the end.
    bar.setValue(0)
    qtbot.waitUntil(lambda: view.visualRect(model.index(0, 0)).top() == 0)
    assert not view.follows_bottom()
    streaming = StoredItem(9999, "c", 9999, 0.0, _answer_message("", MessageStatus.STREAMING))
    model.add_item(streaming)
    measured: list[int] = []
    delegate = _delegate(view)
    real = delegate.sizeHint

    def measuring(option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        measured.append(index.row())
        return real(option, index)

    monkeypatch.setattr(delegate, "sizeHint", measuring)
    for word in ("Streaming ", "words ", "arrive."):
        model.append_text(9999, word)
        model._emit_dirty()  # as the coalescing timer would
    assert set(measured) == {3000}  # only the growing row, whatever the chat's length
    assert bar.value() == 0 and view.visualRect(model.index(0, 0)).top() == 0

    # End goes back to the end, and the view follows it again.
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_End)
    qtbot.waitUntil(view.at_bottom)
    assert view.follows_bottom()


def test_on_a_wide_window_the_conversation_is_a_centred_column(qtbot: QtBot) -> None:
    from PySide6.QtCore import QRect

    from app.ui.conversation.message_delegate import MAX_COLUMN

    view = _view(qtbot, [_answer_message("A short answer to read.")])
    index = view.model().index(0, 0)
    delegate = _delegate(view)
    # The offscreen screen is narrow: the rows are asked at a wide window's width.
    option = view.row_option(0)
    option.rect = QRect(0, 0, 2400, option.rect.height())
    copy = delegate.buttons_at(option, index)[MESSAGE]
    middle = 1200
    assert middle - MAX_COLUMN // 2 <= copy.left() and copy.right() <= middle + MAX_COLUMN // 2
    assert copy.right() > middle + MAX_COLUMN // 2 - 60  # at the column's right edge
    # At the view's own (narrow) width the column is the whole width, as before.
    narrow = view.copy_buttons(index)[MESSAGE]
    assert narrow.right() > view.viewport().width() - 60


def test_a_row_made_current_far_from_the_last_redraws_two_rows_not_those_between(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    items: list[Message | Notice] = [Message("user", (TextPart(f"Q{n}"),)) for n in range(40)]
    view, model = stored_view(qtbot, items)
    qtbot.waitUntil(lambda: view.measured_rows() > 0)
    qtbot.waitUntil(view.at_bottom)
    viewport = view.viewport().rect()
    first = view.indexAt(viewport.topLeft()).row() + 1
    last = view.indexAt(viewport.bottomLeft()).row() - 1
    assert last - first >= 4  # rows between the two, in view
    drawn: list[int] = []
    delegate = _delegate(view)
    real = delegate.paint

    def drawing(painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        drawn.append(index.row())
        real(painter, option, index)

    monkeypatch.setattr(delegate, "paint", drawing)
    view.setFocus()
    view.setCurrentIndex(model.index(first, 0))
    qtbot.waitUntil(lambda: first in drawn)
    QApplication.processEvents()
    drawn.clear()
    view.setCurrentIndex(model.index(last, 0))
    qtbot.waitUntil(lambda: last in drawn)
    QApplication.processEvents()
    assert sorted(set(drawn)) == [first, last]
