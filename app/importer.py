"""A JSON export added back to the store as a new conversation, every version kept.

The items are written in the order they were made, each after the one it followed
in the export, and the chat then shows the branch the export marked as shown.
"""

from __future__ import annotations

from app.export import Exported
from app.store import Store
from routing.transcript import Notice


def add_to_store(store: Store, exported: Exported) -> str:
    """Add the exported conversation as a new one (its title and model kept); its id."""
    summary = exported.conversation
    conversation_id = store.conversations.create(summary.title, summary.model)
    stored_as: dict[int, int] = {}  # the export's ids -> the store's
    for entry in exported.entries:
        after = stored_as.get(entry.parent) if entry.parent is not None else None
        store.branches.rewind(conversation_id, after)
        if isinstance(entry.item, Notice):
            stored = store.add_notice(conversation_id, entry.item)
        else:
            stored = store.add_message(conversation_id, entry.item)
        stored_as[entry.id] = stored.id
    shown = [stored_as[e.id] for e in exported.entries if e.shown and e.id in stored_as]
    if shown:
        store.branches.rewind(conversation_id, shown[-1])
    return conversation_id
