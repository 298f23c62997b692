"""What the window says to a screen reader unasked: notices, finished answers and problems.

A person who can't see the screen hears only where the focus is, and while they type
the next question it is in the composer: a notice a turn adds (Auto's choice, a
disclosure, an error), an answer that has ended, or a problem shown in the status bar
would go by unheard. Each is announced once as it arrives (Qt's
`QAccessibleAnnouncementEvent`, which Qt's Linux bridge sends over AT-SPI as
`object:announcement`; Orca speaks it). An answer is announced when it ends, never per
streamed word: a screen reader can't keep up with tokens, and half a sentence says little.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal

from app.ui.conversation.conversation_model import Role
from routing.message_status import MessageStatus
from routing.notice_kind import NoticeKind

if TYPE_CHECKING:
    from PySide6.QtCore import QModelIndex
    from PySide6.QtWidgets import QWidget

    from app.store import StoredItem
    from app.ui.conversation.conversation_model import ConversationModel

# Enough of an answer to know what it says; the rest is read by moving to it.
ANSWER_CHARS = 300
# How an answer that didn't complete is told (a complete one "answered").
_CUT_SHORT: dict[str, str] = {
    MessageStatus.STOPPED: "was stopped",
    MessageStatus.FAILED: "failed",
    MessageStatus.INTERRUPTED: "was interrupted",
}
_MARKUP = re.compile(r"```[^\n]*|`|\*\*?|^#+\s*", re.MULTILINE)  # read aloud, it is noise


def answer_words(author: str, text: str, status: str) -> str:
    """What is said when an answer ends: who answered, and the start of what they said."""
    plain = " ".join(_MARKUP.sub("", text).split())
    if len(plain) > ANSWER_CHARS:
        cut = plain[:ANSWER_CHARS].rsplit(" ", 1)[0] or plain[:ANSWER_CHARS]
        plain = f"{cut}…"
    verb = _CUT_SHORT.get(status, "answered")  # StrEnum: its members are their strings
    if not plain:
        return "" if verb == "answered" else f"{author}'s answer {verb} before any words."
    if verb == "answered":
        return f"{author} answered: {plain}"
    return f"{author}'s answer {verb}: {plain}"


class Announcer(QObject):
    """Announces the open conversation's new notices and ended answers, and the window's
    problems, from `source` (the conversation view) over the accessibility bridge."""

    # Each announcement's words and whether it interrupts, whether or not a screen reader runs.
    announced = Signal(str, bool)

    def __init__(self, source: QWidget, model: ConversationModel, parent: QObject) -> None:
        """Announce rows of `model` (shown by `source`, the object the announcements are from)."""
        super().__init__(parent)
        self._source = source
        self._model = model
        self._answered: set[int] = set()  # answers announced: a turn may finish one twice

    def item_added(self, stored: StoredItem) -> None:
        """A turn added an item to the open chat: a notice is announced as the row reads.

        Connected after the model's `add_item`, so the row is there to be read."""
        from routing.transcript import Notice  # loaded by the turn that added it

        notice = stored.item
        if not isinstance(notice, Notice):
            return  # the person's message is theirs; an answer is told when it ends
        index = self._index_of(stored.id)
        if index is None:
            return
        text = index.data(Qt.ItemDataRole.AccessibleTextRole)
        if text:
            self.announce(str(text), assertive=notice.kind == NoticeKind.ERROR)

    def item_finished(self, stored: StoredItem) -> None:
        """An answer of the open chat ended (complete, stopped or failed): said once."""
        from routing.transcript import Message  # loaded by the turn that finished it

        message = stored.item
        if not isinstance(message, Message) or message.role != "assistant":
            return
        if stored.id in self._answered:
            return
        index = self._index_of(stored.id)
        if index is None:  # another chat's: the person isn't there to hear it
            return
        self._answered.add(stored.id)
        words = answer_words(
            str(index.data(Role.AUTHOR)), str(index.data(Role.TEXT)), str(index.data(Role.STATUS))
        )
        if words:  # an answer that only called a tool says nothing yet
            self.announce(words)

    def problem(self, message: str) -> None:
        """Something went wrong outside any conversation (shown in the status bar)."""
        if message:
            self.announce(message, assertive=True)

    def announce(self, text: str, *, assertive: bool = False) -> None:
        """Have a screen reader say `text` (if one listens); an assertive one interrupts."""
        self.announced.emit(text, assertive)
        # Imported here: nothing is announced before the first paint (and QAccessible
        # costs about 5 ms to load; tests/ui/test_startup.py keeps it out of the way).
        from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent

        if not QAccessible.isActive():
            return
        event = QAccessibleAnnouncementEvent(self._source, text)
        if assertive:
            event.setPoliteness(QAccessible.AnnouncementPoliteness.Assertive)
        QAccessible.updateAccessibility(event)

    def _index_of(self, item_id: int) -> QModelIndex | None:
        """The row of `item_id` if the open conversation shows it."""
        row = self._model.row_of(item_id)
        return None if row is None else self._model.index(row, 0)
