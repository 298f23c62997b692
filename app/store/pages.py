"""A long chat is shown a page at a time: its end when it opens, more as the person scrolls up.

Each page begins where a turn does (the person's message), so a turn's tool calls and
their results, its plan and its versions are always shown together; a page is longer
than `PAGE` only by the rest of the turn it began inside.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.store.branches import begins_turn

if TYPE_CHECKING:
    from app.store.items import Items, StoredItem

PAGE = 60  # items: several screens of a chat, read in a few milliseconds


def page(items: Items, conversation_id: str, before: int | None = None) -> list[StoredItem]:
    """The shown items before `before` (the chat's end when None), `PAGE` of them or a
    few more, back to where a turn begins; the first item of the chat is where all stop."""
    shown = items.items(conversation_id, newest=PAGE, before=before)
    while shown and not begins_turn(shown[0]):
        earlier = items.items(conversation_id, newest=PAGE, before=shown[0].id)
        begins = [at for at, stored in enumerate(earlier) if begins_turn(stored)]
        shown = earlier[begins[-1] if begins else 0 :] + shown
        if begins or not earlier:
            break
    return shown
