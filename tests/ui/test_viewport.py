"""Views whose viewport Python made: set up as Qt sets up its own, and returned as made."""

from __future__ import annotations

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QListView, QScrollArea
from pytestqt.qtbot import QtBot
from shiboken6 import Shiboken

from app.ui.chat_list_view import ConversationList
from app.ui.conversation.conversation_model import ConversationModel
from app.ui.conversation.conversation_view import ConversationView
from app.ui.viewport import own_viewport


def test_an_own_viewport_is_set_up_as_qts_own(qtbot: QtBot) -> None:
    theirs, ours = QListView(), QListView()
    qtbot.addWidget(theirs)
    qtbot.addWidget(ours)
    made = own_viewport(ours)
    assert not Shiboken.createdByPython(theirs.viewport())
    assert ours.viewport() is made  # the very object: nothing for PySide6 to tell apart
    assert made.parent() is ours
    for view in (theirs, ours):
        viewport = view.viewport()
        assert viewport.objectName() == "qt_scrollarea_viewport"
        assert viewport.backgroundRole() == QPalette.ColorRole.Base
        assert viewport.autoFillBackground()


def test_a_scroll_area_keeps_its_widget_inside_an_own_viewport(qtbot: QtBot) -> None:
    area = QScrollArea()
    qtbot.addWidget(area)
    viewport = own_viewport(area)
    inner = QListView()
    area.setWidget(inner)
    assert inner.parent() is viewport


def test_sightlines_views_have_their_own(qtbot: QtBot) -> None:
    conversation = ConversationView(ConversationModel())
    chats = ConversationList()
    for view in (conversation, chats):
        qtbot.addWidget(view)
        assert Shiboken.createdByPython(view.viewport())  # Qt's own would say False
        assert view.viewport().backgroundRole() == QPalette.ColorRole.Base
