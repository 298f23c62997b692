"""The sidebar on its own, told lists as the window tells it: a person scrolled down to an
old chat keeps it in view while other chats are used, and a chat they rename is shown
where it goes (a rename is a use: the top)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QListView
from pytestqt.qtbot import QtBot

from app.store import ConversationSummary
from app.ui.chat_list import ID_ROLE
from app.ui.edits import EscapeEdit
from app.ui.sidebar import Sidebar

CHATS = 300


def _settle() -> None:
    for _ in range(CHATS // 50):
        QApplication.processEvents()


def _sidebar(qtbot: QtBot) -> tuple[Sidebar, list[ConversationSummary]]:
    sidebar = Sidebar()
    qtbot.addWidget(sidebar)
    sidebar.resize(300, 700)
    sidebar.show()
    listed = [ConversationSummary(f"c{n}", f"Chat {n}", "", 1.0, float(-n)) for n in range(CHATS)]
    sidebar.set_conversations(listed, "c130")
    _settle()
    sidebar.list.scrollTo(sidebar.model.index(120, 0), QListView.ScrollHint.PositionAtTop)
    return sidebar, listed


def _top(sidebar: Sidebar) -> str:
    view = sidebar.list
    return str(view.indexAt(view.viewport().rect().topLeft()).data(ID_ROLE))


def _used(listed: list[ConversationSummary], chat: str) -> list[ConversationSummary]:
    """The list once `chat` was used: at the top."""
    return [next(s for s in listed if s.id == chat), *[s for s in listed if s.id != chat]]


def test_the_place_scrolled_to_stays_while_other_chats_are_used(qtbot: QtBot) -> None:
    sidebar, listed = _sidebar(qtbot)
    assert _top(sidebar) == "c120"
    now = _used(listed, "c250")  # another chat's answer ended
    sidebar.set_conversations(now, "c130")
    _settle()
    assert _top(sidebar) == "c120"
    answered = [now[0]._replace(updated_at=2.0), *now[1:]]  # the top one used again
    sidebar.set_conversations(answered, "c130")
    _settle()
    assert _top(sidebar) == "c120"
    assert sidebar.list.currentIndex().data(ID_ROLE) == "c130"


def test_a_chat_renamed_in_the_list_is_shown_at_the_top(qtbot: QtBot) -> None:
    sidebar, listed = _sidebar(qtbot)

    def rename(chat: str, title: str) -> None:  # as the window's chats do: a use
        titled = [s._replace(title=title) if s.id == chat else s for s in listed]
        sidebar.set_conversations(_used(titled, chat), chat)

    sidebar.rename_requested.connect(rename)
    sidebar.rename("c130")
    editor = next(e for e in sidebar.list.findChildren(EscapeEdit) if e.isVisible())
    editor.setText("Renamed from down the list")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    _settle()
    assert _top(sidebar) == "c130"
    assert sidebar.list.currentIndex().data(Qt.ItemDataRole.DisplayRole) == (
        "Renamed from down the list"
    )


def test_the_lists_scroll_bar_paints_its_groove(qtbot: QtBot) -> None:
    """A transparent background given to the list by a style sheet reached its scroll bar,
    whose groove was left unpainted: black on a plain X11 screen."""
    sidebar, _listed = _sidebar(qtbot)
    bar = sidebar.list.verticalScrollBar()
    assert bar.isVisible()
    shot = bar.grab().toImage()
    below_the_handle = shot.pixelColor(shot.width() // 2, shot.height() * 3 // 4)
    assert below_the_handle.alpha() == 255
    assert below_the_handle.lightness() > 0
