"""The window's "Describe this picture": the controller's side, with no widgets.

The person asks for a picture of the open chat (from its menu, or the picture viewer);
the looking runs as a chore under the turn's rules (app/turn/asked_description.py), its
notice joins the open chat like a turn's, and the words come back as a signal for the
conversation's screen-reader text and the viewer. Nothing of the turn machinery loads
before the first paint: it is imported when a picture is first described.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from app.store import PictureWords, StoredItem
    from app.ui.controller import Controller
    from vision.pictures import Picture

log = logging.getLogger(__name__)

BUSY = "Wait for the answer to finish, or Stop it, before asking for a description."
STARTING = "Sightline is still finding your models; ask again in a moment."


class Describing(QObject):
    """Pictures put into words on the person's request, one request per picture at a time."""

    described = Signal(str, str, str)  # SHA-256, the words, who said them (provider:model)
    failed = Signal(str, str)  # SHA-256, why it could not be described, for the person
    started = Signal(str, str)  # SHA-256, what is happening, for the person

    def __init__(self, controller: Controller) -> None:
        """Describe pictures of `controller`'s open chat."""
        super().__init__(controller)
        self._controller = controller
        self._asking: set[str] = set()
        # Words of the composer's pictures, kept in the store once their message is.
        self._unsent: dict[str, PictureWords] = {}
        controller.feed.item_added.connect(self._stored)

    def words(self, sha256s: Iterable[str]) -> dict[str, PictureWords]:
        """The words Sightline holds for these pictures: kept in the store, else those a
        turn's looker said this session."""
        wanted = set(sha256s)
        if not wanted:
            return {}
        c = self._controller
        found = c.store.picture_words.of(wanted)
        found.update((sha, self._unsent[sha]) for sha in wanted & self._unsent.keys())
        runner = c.sending.runner
        if runner is not None:
            from app.store import PictureWords

            for sha256 in wanted - found.keys():
                said = runner.describer.cached(sha256)
                if said is not None:
                    found[sha256] = PictureWords(said.text, said.looker)
        return found

    def describe(self, picture: Picture, chat_ref: str) -> bool:
        """Ask for `picture` of the open chat (whose model is `chat_ref`) in words; False
        (and `failed` says why) when it can't be asked now."""
        c = self._controller
        if picture.sha256 in self._asking:
            return False
        why = BUSY if c.busy_here() else STARTING if c.catalogue is None else ""
        if why:
            self.failed.emit(picture.sha256, why)
            return False
        self._asking.add(picture.sha256)
        self.started.emit(picture.sha256, f"Asking a model that sees to describe {_name(picture)}…")
        c.chore(self._describe(picture, c.current_id, chat_ref))
        return True

    async def _describe(self, picture: Picture, conversation_id: str, chat_ref: str) -> None:
        from app.turn.asked_description import NotDescribed, describe_asked
        from app.turn.sight_policy import SightPolicy

        c = self._controller
        catalogue = c.catalogue
        assert catalogue is not None  # checked by `describe`; a catalogue is never taken away
        runner = c.sending.runner
        policy = SightPolicy(catalogue, c.assembly.prefs)
        if runner is not None:  # the turns' describer: what one learns, the other knows
            policy.describer = runner.describer
        try:
            done = await describe_asked(
                c.store,
                catalogue,
                policy,
                picture,
                conversation_id=conversation_id,
                chat_ref=chat_ref,
            )
        except NotDescribed as why:
            self._show(why.notice, chat_ref)
            self.failed.emit(picture.sha256, str(why))
            return
        except Exception:  # the store or a listing failed: said plainly, logged whole
            log.warning("describing %s failed", _name(picture), exc_info=True)
            self.failed.emit(picture.sha256, f"{_name(picture)} could not be described.")
            return
        finally:
            self._asking.discard(picture.sha256)
        if not c.store.picture_words.of([picture.sha256]):  # the composer's, not sent yet
            from app.store import PictureWords

            self._unsent[picture.sha256] = PictureWords(done.words, done.looker)
        self._show(done.notice, chat_ref)
        self.described.emit(picture.sha256, done.words, done.looker)

    def _show(self, notice: StoredItem | None, chat_ref: str) -> None:
        """The disclosure in its chat; a chat it started opens if the person is still on
        the new chat it began as (a new chat's picture from the composer)."""
        if notice is None:
            return
        c = self._controller
        chat = notice.conversation_id
        if not c.current_id:
            c.open_new(chat, chat_ref)  # refreshes the list
        else:
            c.chats.touched(chat)  # the chat has a new notice: the list orders by use
        if chat == c.current_id:
            c.feed.item_added.emit(notice)

    def _stored(self, stored: StoredItem) -> None:
        """A message of the person's was stored: its pictures' words are kept with it."""
        message = stored.item
        pictures = getattr(message, "pictures", ())
        for picture in pictures:
            words = self._unsent.pop(picture.sha256, None)
            if words is not None:
                self._controller.store.picture_words.keep(picture.sha256, words.words, words.looker)


def _name(picture: Picture) -> str:
    return picture.label or "the picture"
