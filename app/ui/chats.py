"""The person's conversations as the window lists them: search, rename, delete with Undo, export.

No widgets here: the sidebar, the undo bar and the ledger panel show what this
reports. It shares the controller's store and runs on the same (UI) thread.

Deleting keeps nothing from the person and loses nothing early: a deleted
conversation is hidden at once (`Store.conversations.trash`) and deleted for good
only when its Undo is over — after `UNDO_MS`, or when Sightline closes, whichever
comes first. If Sightline crashes during the Undo, the conversation is still in
the file, and the next start offers its Undo again before deleting it.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from app.store import ConversationSummary, Store, StoreError
from app.ui.chores import Chores

if TYPE_CHECKING:
    import asyncio  # itself loaded after the window's first paint

    from app.ledger import Crossing
    from app.presenters.deleted_chats import Deleted
    from app.store.search import SearchHit
    from routing.models import ProviderConfig

log = logging.getLogger(__name__)

UNDO_MS = 10_000  # how long a deletion can be undone
UNTITLED = "New chat"


class Chats(QObject):
    """The list of conversations: what it shows (searched or not) and what can be undone."""

    # list[ConversationSummary], the list to show. Declared `object`: PySide passes a
    # `list` signal's value as a copy made item by item (2.1 ms for 5,000 chats, on
    # each rename, delete, Undo and finished turn); an object goes as it is. So the list
    # shown is shared: Chats keeps it as `_listed` and the list's model reads it, and
    # neither changes it in place (each change makes a new list).
    changed = Signal(object)
    searched = Signal()  # after `changed`: the list shows what the search asks for now
    deleted_changed = Signal(object)  # Deleted, or None once nothing can be undone
    restored = Signal(str)  # a conversation brought back by Undo
    told = Signal(str)  # a result to show for a while (an export written, or why not)

    def __init__(self, store: Store, parent: QObject | None = None) -> None:
        """The conversations of `store`, unfiltered."""
        super().__init__(parent)
        self.store = store
        self._query = ""
        self._snippets: dict[str, str] = {}
        self._pending: dict[str, str] = {}  # deleted id -> its title, oldest first
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.finish_deleting)
        self._tasks = Chores()  # exports, searches
        self._searches = 0  # searches begun: only the latest one's finds are shown
        self._shown = 0  # the search whose finds the list shows
        self._listed: list[ConversationSummary] | None = None  # the whole list last shown
        self._looking: dict[int, sqlite3.Connection] = {}  # searches under way, by number
        # After `close` the store is closed: late timers and events must not reach it.
        self._closed = False

    # -- what the list shows --------------------------------------------------------

    @property
    def query(self) -> str:
        """The search the list is filtered by ("" for none)."""
        return self._query

    def refresh(self) -> None:
        """Tell the list what to show now: every conversation at once, or those matching
        the search once found (on a worker thread while the window's loop runs: a word
        nobody wrote is looked for in every item of the file, app/store/search.py)."""
        if self._closed:
            return
        number = self._next_list()
        words = self._query.split()
        if not words:
            self._show(number, self.store.conversations.list(), {})
        elif _loop_runs():
            self._tasks.run(self._search_elsewhere(number, words))
        else:  # before the loop runs (or without one): here and now
            self._show_hits(number, self.store.conversations.search(self._query))

    def touched(self, conversation_id: str) -> None:
        """One chat was made, titled or used here: its row again, at the top (the list
        orders by use), the rest as they were, without listing every chat again; a search
        lists again."""
        if self._closed:
            return
        summary = None if self._whole() is None else self.store.conversations.get(conversation_id)
        if summary is None:
            self.refresh()
            return
        self._whole_with(conversation_id, summary)

    def _left(self, conversation_id: str) -> None:
        """One chat left the list (deleted): the rest as they were, without listing every
        chat again; a search lists again."""
        if self._whole() is None:
            self.refresh()
            return
        self._whole_with(conversation_id, None)

    def _put_back(self, conversation_ids: list[str]) -> None:
        """Chats an Undo brought back, each in its place in the whole list, without listing
        every chat again; a search lists again."""
        listed = self._whole()
        if listed is None:
            self.refresh()
            return
        conversations = self.store.conversations
        back = [
            (conversations.place(i), s) for i in conversation_ids if (s := conversations.get(i))
        ]
        rows = [shown for shown in listed if shown.id not in conversation_ids]
        for place, summary in sorted(back, key=lambda found: found[0]):  # each after those above
            rows.insert(place, summary)
        self._show(self._next_list(), rows, {})

    def _whole(self) -> list[ConversationSummary] | None:
        """Every chat as the list shows them, unless a search is asked for (or shown)."""
        return None if self._query.split() else self._listed

    def _whole_with(self, conversation_id: str, top: ConversationSummary | None) -> None:
        """The whole list shown again with one chat taken out, and `top` (if any) first."""
        rest = [shown for shown in self._listed or () if shown.id != conversation_id]
        self._show(self._next_list(), [top, *rest] if top is not None else rest, {})

    def search(self, query: str) -> None:
        """Filter the list by words in titles and text (empty: show every conversation);
        the same search again only says the list shows it, once it does."""
        if query != self._query:
            self._query = query
            self.refresh()
        elif self._shown == self._searches:  # none under way
            self.searched.emit()

    async def _search_elsewhere(self, number: int, words: list[str]) -> None:
        import asyncio

        from app.store.search import search_file

        def opened(db: sqlite3.Connection) -> None:  # on the worker thread
            self._looking[number] = db

        try:
            hits = await asyncio.to_thread(search_file, self.store.path, words, opened)
        except sqlite3.Error as exc:  # interrupted by a newer search, or the file not opened
            if number != self._searches or self._closed:
                return
            log.info("searching on a worker thread failed (%s); searching here", exc)
            hits = self.store.conversations.search(self._query)
        finally:
            self._looking.pop(number, None)
        self._show_hits(number, hits)

    def _next_list(self) -> int:
        """The number of a list begun now: only it will be shown; searches under way stop."""
        self._searches += 1
        self._stop_looking()
        return self._searches

    def _stop_looking(self) -> None:
        """Interrupt the searches under way: their finds would not be shown."""
        for db in list(self._looking.values()):
            with contextlib.suppress(sqlite3.Error):  # it may have ended meanwhile
                db.interrupt()

    def _show_hits(self, number: int, hits: list[SearchHit]) -> None:
        found = {hit.conversation.id: hit.snippet for hit in hits}
        self._show(number, [hit.conversation for hit in hits], found)

    def _show(
        self, number: int, listed: list[ConversationSummary], snippets: dict[str, str]
    ) -> None:
        if self._closed or number != self._searches:
            return  # a newer list is on its way
        self._shown = number
        self._snippets = snippets
        self._listed = None if self._query.split() else listed
        self.changed.emit(listed)
        self.searched.emit()

    def title(self, conversation_id: str) -> str:
        """A conversation's title ("" when untitled, unknown or deleted)."""
        if self._closed or not conversation_id:
            return ""
        summary = self.store.conversations.get(conversation_id)
        return summary.title if summary is not None else ""

    @property
    def snippets(self) -> dict[str, str]:
        """Where the search matched inside each listed conversation ("" where the title did)."""
        return dict(self._snippets)

    def has_any(self) -> bool:
        """Whether there is any conversation at all, even one waiting for its Undo."""
        return self._closed or bool(self._pending) or self.store.conversations.has_any()

    def rename(self, conversation_id: str, title: str) -> None:
        """Give a conversation a new title; a blank one changes nothing."""
        title = " ".join(title.split())
        if self._closed:
            return
        summary = self.store.conversations.get(conversation_id)
        if title and summary is not None and title != summary.title:
            self.store.conversations.rename(conversation_id, title)
            self.touched(conversation_id)  # a rename is a use: it moves to the top

    # -- deleting with Undo -----------------------------------------------------------

    @property
    def deleted(self) -> Deleted | None:
        """What can be undone now, if anything."""
        if not self._pending:
            return None
        from app.presenters.deleted_chats import Deleted  # with the first delete

        return Deleted(tuple(self._pending.values()))

    def delete(self, conversation_id: str) -> None:
        """Hide a conversation as deleted; it goes for good once its Undo is over."""
        if self._closed:
            return
        summary = self.store.conversations.get(conversation_id)
        if summary is None:
            return
        self.store.conversations.trash(conversation_id)
        self._pending[conversation_id] = summary.title or UNTITLED
        self._timer.start(UNDO_MS)  # each deletion gets the whole time to be undone
        self.deleted_changed.emit(self.deleted)
        self._left(conversation_id)

    def undo(self) -> None:
        """Bring back every conversation whose Undo hasn't run out."""
        if not self._pending or self._closed:
            return
        self._timer.stop()
        ids = list(self._pending)
        self._pending = {}
        for conversation_id in ids:
            self.store.conversations.restore(conversation_id)
        self.deleted_changed.emit(None)
        self._put_back(ids)
        self.restored.emit(ids[-1])

    def finish_deleting(self) -> None:
        """End the Undo: what was deleted is deleted for good."""
        self._timer.stop()
        ids, self._pending = list(self._pending), {}
        if ids:
            self._purge(ids)
            self.deleted_changed.emit(None)

    def offer_left_over(self) -> None:
        """Offer Undo again for deletions a crash interrupted (called once, at start)."""
        left = self.store.conversations.trashed()
        if left:
            self._pending = {s.id: s.title or UNTITLED for s in reversed(left)}
            self._timer.start(UNDO_MS)
            self.deleted_changed.emit(self.deleted)

    def close(self) -> None:
        """Sightline is closing: deletions waiting for Undo become final, exports stop."""
        if self._closed:
            return
        self._timer.stop()
        self._pending = {}
        self._tasks.cancel()
        self._stop_looking()
        self._purge(None)
        self._closed = True

    def _purge(self, ids: Iterable[str] | None) -> None:
        try:
            self.store.conversations.purge(ids)
        except StoreError as exc:  # kept in the trash: the next start tries again
            log.warning("deleting for good failed: %s", exc)

    # -- where the data went --------------------------------------------------------

    def crossings(
        self, conversation_id: str, providers: Iterable[ProviderConfig]
    ) -> list[Crossing]:
        """The conversation's ledger, every version's crossings; `providers` say where
        models run now (for hosts)."""
        from app.ledger import endpoints_of
        from app.ledger_versions import whole_ledger

        if not conversation_id or self._closed:
            return []
        endpoints = endpoints_of((p.id, p.base_url, p.is_local) for p in providers)
        every = self.store.every_item(conversation_id)
        return whole_ledger(every, self.store.branches.shown(conversation_id), endpoints)

    # -- export ----------------------------------------------------------------------

    def export(self, conversation_id: str, path: Path) -> asyncio.Task[None]:
        """Write the conversation to `path` (.json, else Markdown); `told` says how it went."""
        return self._tasks.run(self._export(conversation_id, path))

    async def _export(self, conversation_id: str, path: Path) -> None:
        import asyncio

        from app.export import ExportError, snapshot, write

        try:
            exported = snapshot(self.store, conversation_id)  # the store's thread: this one
            # Pictures may be many megabytes: the files are written off the UI thread.
            written = await asyncio.to_thread(write, exported, path)
        except ExportError as exc:
            self.told.emit(str(exc))
            return
        title = exported.conversation.title or UNTITLED
        self.told.emit(f"Exported “{title}” to {written}")


def _loop_runs() -> bool:
    """Whether an asyncio loop runs here (the window's, once it has painted; asyncio is
    not loaded before, and isn't for this)."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
