"""Widgets and models on their own: composer, model status words, conversation rows, drawing."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication, QStyleOptionViewItem
from pytestqt.qtbot import QtBot

from app.store import StoredItem
from app.ui.composer.composer import Composer
from app.ui.conversation.conversation_model import ConversationModel, Role
from app.ui.conversation.conversation_view import ConversationView
from routing.transcript import (
    Message,
    MessageStatus,
    Notice,
    NoticeKind,
    PicturePart,
    TextPart,
    ToolCall,
    ToolResult,
)
from tests.pictures import make_picture

# -- composer ----------------------------------------------------------------------


def test_enter_sends_and_shift_enter_breaks_the_line(qtbot: QtBot) -> None:
    composer = Composer()
    qtbot.addWidget(composer)
    sent: list[str] = []
    composer.send_requested.connect(sent.append)
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    assert sent == []  # nothing to send
    qtbot.keyClicks(composer.edit, "first")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(composer.edit, "second")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Enter)  # the keypad's Enter too
    assert sent == ["first\nsecond"]
    assert composer.text() == "first\nsecond"  # the window clears it once the turn starts


def test_busy_composer_stops_instead_of_sending(qtbot: QtBot) -> None:
    composer = Composer()
    qtbot.addWidget(composer)
    sent: list[str] = []
    stops: list[bool] = []
    composer.send_requested.connect(sent.append)
    composer.stop_requested.connect(lambda: stops.append(True))
    composer.set_busy(True)
    assert composer.button.text() == "Stop" and composer.button.accessibleName() == "Stop"
    qtbot.keyClicks(composer.edit, "typed while it streams")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    assert sent == [] and composer.text() == "typed while it streams"
    qtbot.mouseClick(composer.button, Qt.MouseButton.LeftButton)
    assert stops == [True]
    composer.set_busy(False)
    assert composer.button.text() == "Send"


def test_a_draft_comes_back_only_into_an_empty_box(qtbot: QtBot) -> None:
    composer = Composer()
    qtbot.addWidget(composer)
    composer.restore_draft("lost words")
    assert composer.text() == "lost words"
    composer.clear()
    qtbot.keyClicks(composer.edit, "new words")
    composer.restore_draft("lost words")
    assert composer.text() == "new words"


def test_the_box_grows_with_its_text_up_to_a_limit(qtbot: QtBot) -> None:
    composer = Composer()
    qtbot.addWidget(composer)
    composer.show()
    small = composer.edit.height()
    composer.edit.setPlainText("\n".join(["line"] * 5))
    grown = composer.edit.height()
    composer.edit.setPlainText("\n".join(["line"] * 8))
    capped = composer.edit.height()
    composer.edit.setPlainText("\n".join(["line"] * 50))
    assert small < grown < capped == composer.edit.height()


# -- conversation rows ----------------------------------------------------------------


def _items() -> list[StoredItem]:
    picture = PicturePart(make_picture((40, 120, 200), (320, 200), label="screen.png"))
    messages: list[Message | Notice] = [
        Message(role="user", parts=(TextPart("Look at this"), picture)),
        Message(
            role="assistant",
            model="ollama:qwen2.5vl:3b",
            parts=(TextPart("Let me check."), ToolCall("c1", "screenshot", {"window": "all"})),
        ),
        Message(
            role="tool",
            parts=(ToolResult("c1", "screenshot", (TextPart("1280×800 pixels"), picture)),),
        ),
        Message(role="assistant", model="ollama:llava:7b", status=MessageStatus.STOPPED),
        Message(role="assistant", model="ollama:llava:7b", status=MessageStatus.INTERRUPTED),
        Message(role="assistant", model="ollama:llava:7b", status=MessageStatus.FAILED),
    ]
    messages += [Notice(kind, f"A {kind} notice", details="why") for kind in NoticeKind]
    return [StoredItem(n + 1, "c", n + 1, 0.0, item) for n, item in enumerate(messages)]


def test_every_role_of_every_row_has_a_value(qtbot: QtBot) -> None:
    model = ConversationModel()
    model.set_items(_items())
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        for role in Role:
            assert index.data(role) is not None, (row, role)  # see Role: never None
    assert model.index(0, 0).data(Role.AUTHOR) == "You"
    assert model.index(1, 0).data(Role.TOOL_CALLS)[0].name == "screenshot"
    assert model.index(6, 0).data(Role.NOTICE_KIND) == NoticeKind.ROUTING
    assert model.index(6, 0).data(Role.STATUS) == ""


def test_streamed_words_land_at_once_and_repaints_are_coalesced(qtbot: QtBot) -> None:
    model = ConversationModel()
    answer = StoredItem(7, "c", 1, 0.0, Message(role="assistant", status=MessageStatus.STREAMING))
    model.set_items([answer])
    changes: list[int] = []
    model.dataChanged.connect(lambda top, _bottom: changes.append(top.row()))
    for word in ("one ", "two ", "three"):
        model.append_text(7, word)
    model.append_text(999, "ignored: not in this conversation")
    assert model.row(0).text == "one two three"
    qtbot.waitUntil(lambda: changes == [0])  # three appends, one repaint
    done = StoredItem(7, "c", 1, 0.0, Message(role="assistant", parts=(TextPart("one two three"),)))
    model.finish_item(done)
    assert model.index(0, 0).data(Role.STATUS) == MessageStatus.COMPLETE


def test_the_delegate_draws_pictures_tools_tags_and_every_notice(qtbot: QtBot) -> None:
    model = ConversationModel()
    view = ConversationView(model)
    qtbot.addWidget(view)
    view.resize(700, 500)
    view.show()
    model.set_items(_items())
    delegate = view.itemDelegate()
    option = QStyleOptionViewItem()
    option.initFrom(view)
    option.widget = view
    closed = delegate.sizeHint(option, model.index(2, 0)).height()
    assert closed < 60  # a tool result is one line until opened
    model.toggle_expanded(2)
    heights = []
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        size = delegate.sizeHint(option, index)
        heights.append(size.height())
        image = QImage(QSize(size.width(), size.height()), QImage.Format.Format_ARGB32)
        image.fill(QColor("white"))
        painter = QPainter(image)
        option.rect = image.rect()
        delegate.paint(painter, option, index)
        painter.end()
    assert heights[0] > 110  # the thumbnail makes the person's row tall
    assert heights[2] > 110  # so does the tool result's picture
    assert all(h > 20 for h in heights)
    # Narrower, the long rows wrap and grow; the view relays them out on resize.
    option_narrow = QStyleOptionViewItem(option)
    view.resize(300, 500)
    QApplication.processEvents()
    long_row = StoredItem(
        99, "c", 99, 0.0, Message(role="assistant", parts=(TextPart("word " * 80),))
    )
    model.add_item(long_row)
    narrow = delegate.sizeHint(option_narrow, model.index(model.rowCount() - 1, 0)).height()
    view.resize(900, 500)
    QApplication.processEvents()
    wide = delegate.sizeHint(option_narrow, model.index(model.rowCount() - 1, 0)).height()
    assert narrow > wide
