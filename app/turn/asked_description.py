"""A picture put into words because the person asked ("Describe this picture"), under the
rules a turn's looker follows, and told like any other look.

- Who looks: the chat's own model when it sees, else the looker a turn would choose
  (the vision model chosen in Settings, then a seeing model of the chat's provider, then
  the first that sees). A chat on this computer, or one whose model is not known here
  (Auto, an agent, a model not listed yet), asks only a model on this computer.
- What is told: a disclosure notice in the chat naming who looked, where, and what it
  said; the ledger lists it with the chat's other crossings. A picture sent off this
  computer counts as having left it (`sent_away`), as in a turn.
- What is kept: the words, with the picture in the store (`Store.picture_words`), so a
  screen reader reads them and nobody is asked twice; the describer keeps them in memory
  too, so the chat's next turn to a blind model uses them.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.store import Store, StoredItem
from app.turn.sight_policy import SightPolicy, blind_engine
from routing.catalogue import Catalogue
from routing.crossing_notices import asked_look_notice
from routing.describing.describer import DescriptionFailed
from routing.describing.looker import WireLooker
from routing.models import ModelInfo
from routing.refs import split_ref
from routing.router import Choice
from routing.transcript import Notice
from vision.pictures import Picture


@dataclass(frozen=True)
class Described:
    """What the picture shows in words, who said it, and the notice that told the chat."""

    words: str
    looker: str
    notice: StoredItem | None  # the disclosure; None when words held already were given


class NotDescribed(Exception):
    """Why the picture could not be described, in words for the person; `notice` is the
    chat's disclosure when it was sent all the same."""

    def __init__(self, why: str, notice: StoredItem | None = None) -> None:
        super().__init__(why)
        self.notice = notice


def _chat_model(catalogue: Catalogue, chat_ref: str) -> ModelInfo | None:
    """The chat's model, if it is a model the catalogue lists (not Auto, not an agent)."""
    try:
        split_ref(chat_ref)
    except ValueError:
        return None
    if chat_ref.strip().lower() == "auto":
        return None
    return catalogue.find(chat_ref)


async def _who_looks(
    catalogue: Catalogue, policy: SightPolicy, chat: ModelInfo | None, *, local: bool
) -> Choice | None:
    if chat is not None and catalogue.answer(chat).gets_pictures:
        return Choice(chat, "it answers this chat, and it sees", False)
    stand_in = chat or blind_engine("sightline", "described", local=local)
    return await policy.looker(stand_in, local=local)


async def describe_asked(
    store: Store,
    catalogue: Catalogue,
    policy: SightPolicy,
    picture: Picture,
    *,
    conversation_id: str,
    chat_ref: str,
) -> Described:
    """Describe `picture` of the chat `conversation_id`, whose model is `chat_ref`;
    NotDescribed says why it could not be. A picture of a chat not stored yet ("") that
    crosses to a looker starts the chat, so its first item tells that crossing."""
    chat = _chat_model(catalogue, chat_ref)
    local = chat is None or catalogue.provider(chat.provider_id).is_local
    kept = store.picture_words.of([picture.sha256]).get(picture.sha256)
    if kept is not None:
        return Described(kept.words, kept.looker, None)
    earlier = policy.describer.cached(picture.sha256)
    if earlier is not None:  # a turn's looker said it already: nothing needs to cross again
        store.picture_words.keep(picture.sha256, earlier.text, earlier.looker)
        return Described(earlier.text, earlier.looker, None)
    choice = await _who_looks(catalogue, policy, chat, local=local)
    if choice is None:
        where = " on this computer (this chat's pictures stay on it)" if local else ""
        raise NotDescribed(
            f"No model that sees is ready{where}. Start one in Local models, or choose a "
            "vision model in Settings."
        )
    looker = WireLooker(catalogue, choice.model)
    try:
        description = await policy.describer.describe(picture, looker)
    except DescriptionFailed as failed:
        # It was sent all the same: that crossing is told.
        reason = str(failed).removeprefix(f"{looker.label}: ")
        told = asked_look_notice(looker, picture, choice.reason, failed=reason)
        raise NotDescribed(
            f"{looker.label} could not describe {picture.label or 'it'}: {reason}.",
            _tell(store, (conversation_id, chat_ref), told, looker, picture),
        ) from None
    words = description.text.strip()
    # False for a picture not stored yet (the composer's): the window keeps it once sent.
    store.picture_words.keep(picture.sha256, words, description.looker)
    told = asked_look_notice(looker, picture, choice.reason, words=words)
    notice = _tell(store, (conversation_id, chat_ref), told, looker, picture)
    return Described(words, description.looker, notice)


def _tell(
    store: Store, chat: tuple[str, str], notice: Notice, looker: WireLooker, picture: Picture
) -> StoredItem:
    """The crossing told in the chat (id, model), started now if it is not stored yet; and
    a picture that left this computer noted as gone, as a turn notes it."""
    conversation_id, model = chat
    conversation_id = conversation_id or store.conversations.create(model=model)
    stored = store.add_notice(conversation_id, notice)
    if not looker.local:
        store.crossings.note_sent_away(conversation_id, [picture.sha256])
    return stored
